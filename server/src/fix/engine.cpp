#include "fix/engine.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "fix/capture_lint.hpp"
#include "fix/rank_scoped_debug_lint.hpp"
#include "fix/shell_parse.hpp"

namespace ff::fix {

namespace {

// A diagnosis of a hang (no rank failed on its own; ranks waited or disagreed) also gets the
// fix that captures evidence for the next one: the rule whose fix.env is that capture.
const std::set<std::string> kHangCategories = {"straggler", "collective-mismatch", "remote-peer"};
using analysis::kEvidenceCaptureRule;

// Variables whose setting costs something; said with the fix.
const std::map<std::string, std::string> kCosts = {
    {"NCCL_P2P_DISABLE",
     "NCCL_P2P_DISABLE costs bandwidth: GPU-to-GPU traffic goes through host memory. Fix the "
     "IOMMU/ACS setting (iommu=pt, ACS off on the PCIe switches) and remove it again."},
    {"NCCL_P2P_LEVEL",
     "NCCL_P2P_LEVEL limits direct GPU-to-GPU paths and costs bandwidth on the paths it excludes; "
     "prefer fixing IOMMU/ACS."},
    {"NCCL_NET_GDR_LEVEL",
     "NCCL_NET_GDR_LEVEL=0 turns GPUDirect RDMA off: network traffic is staged through host "
     "memory."},
    {"CUDA_LAUNCH_BLOCKING",
     "CUDA_LAUNCH_BLOCKING=1 serialises kernels; use it to find the failing kernel, not in "
     "production."},
    {"NCCL_CUMEM_ENABLE",
     "NCCL_CUMEM_ENABLE=0 is a workaround for an NCCL bug; upgrade NCCL and remove it."},
    {"NCCL_IB_QPS_PER_CONNECTION",
     "fewer queue pairs per connection can lower bandwidth on some fabrics."},
};

// How to find a value the rule can only describe.
std::string how_to_find(const std::string& name) {
  if (name == "NCCL_IB_GID_INDEX")
    return "run show_gids on the node and take the RoCE v2 index of the port";
  if (name == "NCCL_SOCKET_IFNAME" || name == "GLOO_SOCKET_IFNAME")
    return "run `ip -br addr` on every node and take an interface that has the address the "
           "other nodes reach (the same name on all nodes)";
  if (name == "NCCL_IB_HCA") return "run `ibv_devinfo` and list the HCAs whose ports are ACTIVE";
  return "";
}

std::string default_verify_command() {
  return "NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET <your launch command> 2>&1 | grep -E 'NET/IB "
         ": Using|via NET/IB'";
}

// The file with the lines of our generated blocks blanked (line numbers kept): what the
// job itself sets, not what an earlier --fix wrote.
LaunchFile outside_generated_blocks(const LaunchFile& f) {
  LaunchFile out = f;
  for (const auto& b : generated_blocks(f.text))
    for (std::size_t i = b.begin; i < b.end && i < out.text.size(); ++i)
      if (out.text[i] != '\n') out.text[i] = ' ';
  return out;
}

}  // namespace

std::string env_script_path(std::string_view dir, std::string_view rule_id) {
  std::string p(dir);
  if (!p.empty() && p.back() != '/') p += '/';
  return p + "firstfault-fix-" + std::string(rule_id) + ".sh";
}

bool is_placeholder(std::string_view v) {
  auto open = v.find('<');
  return open != std::string_view::npos && v.find('>', open) != std::string_view::npos;
}

EnvPlan resolve_env(const analysis::Rule& rule, const std::optional<BindingTable>& binding,
                    bool with_ib_hca) {
  EnvPlan out;
  for (const auto& [k, v] : rule.fix.env) {
    if (k == "NCCL_IB_HCA" && !with_ib_hca) continue;
    std::string value = v;
    if ((k == "NCCL_SOCKET_IFNAME" || k == "GLOO_SOCKET_IFNAME") && is_placeholder(v) && binding &&
        !binding->socket_ifname.empty()) {
      value = binding->socket_ifname;
      if (k == "NCCL_SOCKET_IFNAME")
        out.notes.push_back("NCCL_SOCKET_IFNAME from the topology's NIC interfaces: " + value);
    }
    if (is_placeholder(value)) {
      std::string how = how_to_find(k);
      out.missing.push_back({k, v + (how.empty() ? "" : " (" + how + ")")});
      continue;
    }
    auto cost = kCosts.find(k);
    if (cost != kCosts.end()) out.warnings.push_back(cost->second);
    out.set.push_back({k, value});
  }
  return out;
}

namespace {
// One line of comment text: no line breaks inside.
std::string one_line(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c == '\n' || c == '\r') c = ' ';
  return out;
}
}  // namespace

std::string env_script(const analysis::Rule& rule, std::string_view for_what,
                       const std::optional<BindingTable>& binding) {
  EnvPlan plan = resolve_env(rule, binding, /*with_ib_hca=*/true);
  std::string s = "#!/bin/sh\n# Written by firstfault for " + one_line(for_what) + ": " +
                  one_line(rule.title) + "\n";
  if (!rule.fix.summary.empty()) s += "# " + one_line(rule.fix.summary) + "\n";
  s += "# Source this file before launching the job.\n";
  for (const auto& n : plan.notes) s += "# " + one_line(n) + "\n";
  for (const auto& w : plan.warnings) s += "# warning: " + one_line(w) + "\n";
  for (const auto& m : plan.missing)
    s += "# " + m.name + " is not set here: its value is not known. Find it and add\n#   export " +
         m.name + "=VALUE\n#   " + one_line(m.how) + "\n";
  for (const auto& v : plan.set) s += "export " + shell_env_word(v) + "\n";
  if (!rule.verify.command.empty()) s += "# Verify: " + one_line(rule.verify.command) + "\n";
  return s;
}

namespace {

bool has_action(const analysis::Rule& rule, std::string_view action) {
  return std::find(rule.fix.actions.begin(), rule.fix.actions.end(), action) !=
         rule.fix.actions.end();
}

}  // namespace

bool wants_binding(const analysis::Rule& rule) {
  if (has_action(rule, "nccl-ib-hca-binding")) return true;
  return std::any_of(rule.fix.env.begin(), rule.fix.env.end(),
                     [](const auto& p) { return p.first == "NCCL_IB_HCA"; });
}

bool wants_evidence_capture(const analysis::Rule& rule) {
  return std::any_of(rule.fix.env.begin(), rule.fix.env.end(),
                     [](const auto& p) { return p.first == "TORCH_FR_BUFFER_SIZE"; });
}

bool wants_shm(const analysis::Rule& rule) {
  return has_action(rule, "shm-size");
}

std::vector<const analysis::Rule*> rules_to_fix(const analysis::Catalog& catalog,
                                                const analysis::Analysis& a) {
  std::vector<const analysis::Rule*> out;
  auto push = [&](std::size_t ev) {
    if (ev >= a.events.size()) return;
    const analysis::Rule* r = &catalog.rules()[a.events[ev].rule];
    if (std::find(out.begin(), out.end(), r) == out.end()) out.push_back(r);
  };
  if (!a.diagnoses.empty()) {
    push(a.diagnoses.front().initiating);
    for (auto e : a.diagnoses.front().evidence) push(e);
  }
  for (auto e : a.context)
    if (e < a.events.size() && (wants_binding(catalog.rules()[a.events[e].rule]) ||
                                wants_evidence_capture(catalog.rules()[a.events[e].rule])))
      push(e);
  // A hang's logs say least (every rank waited); the next one should leave the per-rank
  // evidence that names the late rank, even when no line said the recorder was off.
  // A failure nothing in the log explains gets the same capture.
  if (a.unexplained ||
      (!a.diagnoses.empty() && kHangCategories.count(a.diagnoses.front().category)))
    if (const analysis::Rule* r = catalog.find(kEvidenceCaptureRule))
      if (std::find(out.begin(), out.end(), r) == out.end()) out.push_back(r);
  return out;
}

namespace {

// The rule's own verification, else the fix's.
void set_verify(FixAction& a, const analysis::Rule& rule, const std::string& cmd,
                const std::string& expect) {
  a.verify_command = !rule.verify.command.empty() ? rule.verify.command : cmd;
  a.verify_expect = !rule.verify.expect.empty() ? rule.verify.expect : expect;
}

// 2. The environment variables the rule's fix declares (the binding sets NCCL_IB_HCA).
void env_fix(const analysis::Rule& rule, const FixRequest& req, std::vector<FixAction>& out) {
  EnvPlan plan = resolve_env(rule, req.binding, /*with_ib_hca=*/false);  // NCCL_IB_HCA: above
  EnvList env = plan.set;
  FixAction e;
  // Capturing evidence turns logging on; it never turns down a level the job already chose
  // (NCCL_DEBUG=INFO holds every WARN line). Set for every rank: kept as it is. Set for
  // some ranks only (what rank_scoped_debug_lint warns about): the others get the value
  // by default, and the ranks that chose one keep it. Our own blocks do not count: they
  // are rewritten from this list.
  if (wants_evidence_capture(rule))
    for (std::string_view var : {"NCCL_DEBUG", "NCCL_DEBUG_FILE"}) {
      auto it =
          std::find_if(env.begin(), env.end(), [&](const EnvVar& v) { return v.name == var; });
      if (it == env.end()) continue;
      const LaunchFile* every = nullptr;
      const LaunchFile* some = nullptr;
      for (const auto& f : req.files) {
        SettingScope scope = debug_setting_scope(outside_generated_blocks(f), var);
        if (scope == SettingScope::kEveryRank && !every) every = &f;
        if (scope == SettingScope::kSomeRanks && !some) some = &f;
      }
      if (every && var == "NCCL_DEBUG") {
        env.erase(it);
        e.notes.push_back("NCCL_DEBUG is already set in " + every->path + "; its level is kept");
      } else if (!every && some) {
        it->kind = EnvKind::kDefault;
        e.notes.push_back(std::string(var) + " is set for some ranks only in " + some->path +
                          ": the other ranks get " + it->value +
                          " where it is unset, and the ranks that set it keep their value");
      }
    }
  e.rule = rule.id;
  e.kind = "env";
  e.notes.insert(e.notes.begin(), plan.notes.begin(), plan.notes.end());
  for (const auto& m : plan.missing) e.notes.push_back("set " + m.name + " yourself: " + m.how);
  e.warnings = plan.warnings;
  if (wants_evidence_capture(rule))
    for (auto& w : capture_settings_lint(req.files)) e.warnings.push_back(std::move(w));
  if (!env.empty() || !e.notes.empty()) {
    std::string names;
    for (const auto& v : env)
      names += (names.empty() ? "" : ", ") + v.name + "=" + v.value +
               (v.kind == EnvKind::kDefault ? " (where unset)" : "");
    e.title = env.empty() ? "Set the variables of " + rule.id + " (values needed)" : "Set " + names;
    set_verify(e, rule, "", "");
    bool shell = false;
    for (const auto& f : req.files)
      if (detect_file_kind(f.path, f.text) == FileKind::Shell) {
        auto r = shell_env_edits(f.text, env);
        if (!r.found_target) continue;
        shell = true;
        if (!r.edits.empty()) e.edit.files.push_back({f.path, false, "", false, r.edits});
      }
    if (!shell)
      for (const auto& f : req.files)
        if (detect_file_kind(f.path, f.text) == FileKind::Python) {
          auto r = python_env_edits(f.text, env);
          if (!r.edits.empty()) e.edit.files.push_back({f.path, false, "", false, r.edits});
        }
    bool launch_file = std::any_of(req.files.begin(), req.files.end(), [](const LaunchFile& f) {
      FileKind k = detect_file_kind(f.path, f.text);
      return k == FileKind::Shell || k == FileKind::Python;
    });
    if (!launch_file && !req.env_script_dir.empty()) {
      FileEdit script;
      script.path = env_script_path(req.env_script_dir, rule.id);
      script.create = true;
      script.content = env_script(rule, req.env_script_for, req.binding);
      e.edit.files.push_back(std::move(script));
    }
    if (!env.empty() && e.edit.empty() && req.files.empty()) {
      std::string ex;
      for (const auto& v : env) ex += " " + shell_env_word(v);
      e.notes.push_back("no launch file given; set before the launch: export" + ex);
    }
    out.push_back(std::move(e));
  }
}

// 3. /dev/shm.
void shm_fix(const analysis::Rule& rule, const FixRequest& req, std::vector<FixAction>& out) {
  if (wants_shm(rule)) {
    FixAction s;
    s.rule = rule.id;
    s.kind = "shm-size";
    s.title = "Give the container a " + req.shm_size + " /dev/shm";
    set_verify(s, rule, "df -h /dev/shm (inside the container)", "several GiB");
    for (const auto& f : req.files) {
      GenResult r;
      switch (detect_file_kind(f.path, f.text)) {
        case FileKind::Shell:
          r = docker_shm_edits(f.text, req.shm_size);
          break;
        case FileKind::Compose:
          r = compose_shm_edits(f.text, req.shm_size);
          break;
        case FileKind::Kubernetes:
          r = k8s_shm_edits(f.text, req.shm_size);
          break;
        default:
          break;
      }
      if (!r.edits.empty()) s.edit.files.push_back({f.path, false, "", false, r.edits});
      for (auto& n : r.notes) s.notes.push_back(f.path + ": " + n);
    }
    if (s.edit.empty())
      s.notes.push_back(
          "no docker run line, compose file or pod spec among the files: start the container with "
          "--shm-size=" +
          req.shm_size +
          " (compose: shm_size, Kubernetes: an emptyDir with medium: Memory mounted at /dev/shm)");
    out.push_back(std::move(s));
  }
}

}  // namespace

std::vector<FixAction> fixes_for_rule(const analysis::Rule& rule, const FixRequest& req) {
  std::vector<FixAction> out;
  auto verify = [&](FixAction& a, const std::string& cmd, const std::string& expect) {
    a.verify_command = !rule.verify.command.empty() ? rule.verify.command : cmd;
    a.verify_expect = !rule.verify.expect.empty() ? rule.verify.expect : expect;
  };

  // 1. The NCCL_IB_HCA binding.
  if (wants_binding(rule)) {
    FixAction a;
    a.rule = rule.id;
    a.kind = "nccl-ib-hca-binding";
    verify(
        a, default_verify_command(),
        "every channel line goes via NET/IB/<n>/GDRDMA on the NIC of its rank's row (NUMA-local)");
    if (!rule.verify.command.empty() || !rule.verify.expect.empty())
      a.notes.push_back("also check: " + default_verify_command() +
                        " shows each rank's channels via NET/IB/<n>/GDRDMA on its own NIC");
    if (!req.binding || !req.binding->usable()) {
      a.title = "Bind each rank to its NUMA-local HCA (needs the node's topology)";
      a.notes.push_back(
          req.binding_missing.empty()
              ? "no topology with GPUs and NICs; export one from a GPU node: lstopo --of xml "
                "node.xml, or nvidia-smi topo -m > topo.txt, and pass it with --topology"
              : req.binding_missing);
      out.push_back(std::move(a));
    } else {
      const BindingTable& b = *req.binding;
      a.title =
          "Bind each local rank to its NUMA-local HCA with exact NCCL_IB_HCA (" + b.source + ")";
      a.notes.push_back("topology: " + b.source);
      bool shell_done = false, need_wrapper = false;
      for (const auto& f : req.files) {
        if (detect_file_kind(f.path, f.text) != FileKind::Shell) continue;
        auto r = shell_binding_edits(f.text, b, req.wrapper_ref);
        if (!r.found_target) continue;
        shell_done = true;
        need_wrapper |= r.uses_wrapper;
        if (!r.edits.empty()) a.edit.files.push_back({f.path, false, "", false, r.edits});
        for (auto& n : r.notes) a.notes.push_back(f.path + ": " + n);
      }
      if (!shell_done) {
        for (const auto& f : req.files) {
          if (detect_file_kind(f.path, f.text) != FileKind::Python) continue;
          auto r = python_binding_edits(f.text, b);
          if (!r.found_target) {
            a.notes.push_back(f.path + ": no init_process_group( call to put the binding before");
            continue;
          }
          shell_done = true;
          if (!r.edits.empty()) a.edit.files.push_back({f.path, false, "", false, r.edits});
        }
      }
      if (!shell_done) {
        need_wrapper = true;
        a.notes.push_back(
            "no launch file was given (or none has a launch line); put the wrapper in front of the "
            "program every rank runs: srun ... " +
            req.wrapper_ref + " python train.py, mpirun ... " + req.wrapper_ref +
            " ./app, torchrun --no_python ... " + req.wrapper_ref + " python train.py");
      }
      if (need_wrapper) {
        FileEdit w;
        w.path = req.wrapper_path;
        w.create = true;
        w.executable = true;
        w.content = wrapper_script(b);
        a.edit.files.push_back(std::move(w));
      }
      out.push_back(std::move(a));
    }
  }

  env_fix(rule, req, out);
  shm_fix(rule, req, out);
  return out;
}

FixPlan plan_fixes(const std::vector<const analysis::Rule*>& rules, const FixRequest& req) {
  FixPlan plan;
  FixRequest cur = req;
  std::map<std::string, std::pair<std::string, bool>> created;  // path -> content, executable
  std::vector<std::string> created_order;
  for (const auto* rule : rules) {
    auto actions = fixes_for_rule(*rule, cur);
    if (actions.empty())
      plan.notes.push_back(rule->id + ": no quick fix; see the diagnosis' steps");
    for (auto& a : actions) {
      // Apply to the current texts so the next fix sees them.
      for (const auto& fe : a.edit.files) {
        if (fe.create) {
          if (!created.count(fe.path)) created_order.push_back(fe.path);
          created[fe.path] = {fe.content, fe.executable};
          continue;
        }
        for (auto& f : cur.files)
          if (f.path == fe.path) f.text = apply_text_edits(f.text, fe.edits);
      }
      // Identical actions (two rules asking for the same binding) are shown once.
      bool dup = std::any_of(plan.actions.begin(), plan.actions.end(), [&](const FixAction& o) {
        return o.kind == a.kind && o.kind == "nccl-ib-hca-binding";
      });
      if (!dup) plan.actions.push_back(std::move(a));
    }
  }
  for (std::size_t i = 0; i < req.files.size(); ++i) {
    auto edits = edits_between(req.files[i].text, cur.files[i].text);
    if (!edits.empty()) plan.result.files.push_back({req.files[i].path, false, "", false, edits});
  }
  for (const auto& p : created_order) {
    FileEdit f;
    f.path = p;
    f.create = true;
    f.content = created[p].first;
    f.executable = created[p].second;
    plan.result.files.push_back(std::move(f));
  }
  return plan;
}

}  // namespace ff::fix
