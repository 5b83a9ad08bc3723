// The fix engine: edits to copies of realistic launch files (tests/fix/data), checked with
// bash -n / a YAML parse, applied twice (idempotent), and run under stub launchers for
// local ranks 0..N-1 on every topology with GPUs and NICs.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "builtin_catalog.hpp"
#include "fix/diff.hpp"
#include "fix/edit.hpp"
#include "fix/engine.hpp"
#include "fix/generators.hpp"
#include "fix/shell_parse.hpp"
#include "fix/topology_source.hpp"
#include "fix/workspace_io.hpp"
#include "topology/binding.hpp"

namespace fs = std::filesystem;
using namespace ff::fix;

namespace {

std::string fix_dir() {
  return std::string(FF_TEST_DATA) + "/../fix";
}
std::string topo_dir() {
  return std::string(FF_TEST_DATA) + "/topologies";
}

std::string slurp(const std::string& p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}
void spit(const std::string& p, const std::string& s, int mode = 0644) {
  std::ofstream(p, std::ios::binary) << s;
  ::chmod(p.c_str(), static_cast<mode_t>(mode));
}

struct Run {
  int rc;
  std::string out;
};
Run sh(const std::string& cmd) {
  Run r{0, ""};
  FILE* p = ::popen((cmd + " 2>&1").c_str(), "r");
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  int st = ::pclose(p);
  r.rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
  return r;
}

// A scratch directory with the stubs on PATH.
struct Sandbox {
  std::string dir;
  Sandbox() {
    char t[] = "/tmp/ff-fix-test-XXXXXX";
    dir = ::mkdtemp(t);
    fs::create_directories(dir + "/bin");
    fs::create_directories(dir + "/build");
    std::string stubs = fix_dir() + "/stubs";
    for (const char* l : {"srun", "mpirun", "torchrun", "deepspeed"})
      spit(dir + "/bin/" + l, slurp(stubs + "/launcher_stub.sh"), 0755);
    for (const char* p : {"python", "python3"})
      spit(dir + "/bin/" + p, slurp(stubs + "/program_stub.sh"), 0755);
    spit(dir + "/build/all_reduce_perf", slurp(stubs + "/program_stub.sh"), 0755);
    spit(dir + "/bin/numactl", slurp(stubs + "/numactl_stub.sh"), 0755);
    spit(dir + "/bin/scontrol", "#!/bin/sh\necho localhost\n", 0755);
    spit(dir + "/bin/module", "#!/bin/sh\nexit 0\n", 0755);
  }
  ~Sandbox() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  std::string path(const std::string& n) const { return dir + "/" + n; }
  Run run(const std::string& cmd) const {
    return sh("cd '" + dir + "' && PATH='" + dir + "/bin:/usr/bin:/bin' " + cmd);
  }
};

// Topologies with GPUs and RDMA NICs that name an HCA for some rank.
struct Topo {
  std::string name;
  BindingTable table;
  ff::topology::Recommendation rec;
};
std::vector<Topo> topologies() {
  std::vector<std::string> files = {"hwloc-xml/g4dnmetal.xml",
                                    "synthetic/server-8gpu-8nic.xml",
                                    "synthetic/server-8gpu-8nic-crossed.xml",
                                    "synthetic/pcie-4gpu-1nic.xml",
                                    "synthetic/switch-2gpu-2nic-shared.xml",
                                    "nvidia-smi-topo/NVIDIA-nccl-1530.txt",
                                    "nvidia-smi-topo/NVIDIA-nccl-tests-29.txt",
                                    "nccl-topo-dump/aliyun-SimAI-topo_8A100_4CX6.xml"};
  std::vector<Topo> out;
  for (const auto& f : files) {
    auto lr = load_topology_file(topo_dir() + "/" + f);
    REQUIRE(lr.ok());
    Topo t;
    t.name = f;
    t.rec = ff::topology::recommend_binding(*lr.topology);
    t.table = binding_table(t.rec, f);
    REQUIRE(t.table.usable());
    out.push_back(std::move(t));
  }
  return out;
}

// What each rank must print: its NUMA-local HCA from recommend_binding, and its NUMA node.
std::string expected(const BindingTable& b) {
  std::string s;
  for (const auto& r : b.ranks)
    s += "hca=" + (r.hca.empty() ? b.node_hca : r.hca) +
         " numa=" + (r.numa >= 0 ? std::to_string(r.numa) : "none") + "\n";
  return s;
}

// Only the lines the stub program printed.
std::string hca_lines(const std::string& out) {
  std::string s;
  std::istringstream in(out);
  for (std::string l; std::getline(in, l);)
    if (l.rfind("hca=", 0) == 0) s += l + "\n";
  return s;
}

std::string apply_all(const std::string& text, const std::vector<TextEdit>& e) {
  bool ok = false;
  auto out = apply_text_edits(text, e, &ok);
  REQUIRE(ok);
  return out;
}

}  // namespace

TEST_CASE("unified diff format", "[fix]") {
  CHECK(unified_diff("a\nb\nc\n", "a\nb\nc\n", "a/x", "b/x").empty());
  CHECK(unified_diff("a\nb\nc\n", "a\nB\nc\n", "a/x", "b/x") ==
        "--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n");
  CHECK(unified_diff("", "new\n", "/dev/null", "b/n") ==
        "--- /dev/null\n+++ b/n\n@@ -0,0 +1 @@\n+new\n");
  CHECK(unified_diff("x", "y", "a/x", "b/x") ==
        "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-x\n\\ No newline at end of file\n+y\n\\ No newline at end "
        "of file\n");
  // Two changes far apart: two hunks.
  std::string a, b;
  for (int i = 0; i < 20; ++i) a += std::to_string(i) + "\n";
  b = a;
  b.replace(b.find("2\n"), 2, "two\n");
  b.replace(b.find("17\n"), 3, "seventeen\n");
  auto d = unified_diff(a, b, "a/n", "b/n");
  CHECK(d.find("@@ -1,6 +1,6 @@") != std::string::npos);
  CHECK(d.find("@@ -15,6 +15,6 @@") != std::string::npos);
}

TEST_CASE("shell parsing finds the launch chain", "[fix]") {
  auto cmds = parse_shell(
      "srun -N 2 --ntasks-per-node=8 -l torchrun --nproc-per-node 8 -m pkg.train --x 1\n");
  REQUIRE(cmds.size() == 1);
  auto ch = launch_chain(cmds[0]);
  REQUIRE(ch.size() == 2);
  CHECK(ch[0].kind == Launcher::Srun);
  CHECK(ch[1].kind == Launcher::Torchrun);
  CHECK(ch[1].module);
  CHECK(cmds[0].words[ch[1].program].value == "pkg.train");
  auto m = parse_shell("mpirun -np 16 -x A=1 -mca pml ob1 --bind-to none ./app -b 8\n");
  auto mc = launch_chain(m[0]);
  REQUIRE(mc.size() == 2);
  CHECK(m[0].words[mc[0].program].value == "./app");
  // Heredoc bodies and comments are not commands.
  auto h = parse_shell("cat <<EOF\nsrun python x.py\nEOF\n# srun y\necho done\n");
  REQUIRE(h.size() == 2);
  CHECK(h[1].words[0].value == "echo");
}

TEST_CASE("binding: shell launchers run every rank on its NUMA-local HCA", "[fix]") {
  const std::vector<std::string> scripts = {"sbatch_srun.sbatch", "bash_mpirun.sh",
                                            "torchrun_cmd.sh", "torchrun_module.sh",
                                            "deepspeed_launch.sh"};
  for (const auto& topo : topologies()) {
    for (const auto& name : scripts) {
      DYNAMIC_SECTION(name << " on " << topo.name) {
        Sandbox sb;
        std::string orig = slurp(fix_dir() + "/data/" + name);
        std::string wrapper = sb.path("firstfault-bind.sh");
        auto r = shell_binding_edits(orig, topo.table, wrapper);
        REQUIRE(r.found_target);
        REQUIRE(r.uses_wrapper);
        std::string once = apply_all(orig, r.edits);
        // Idempotent.
        CHECK(shell_binding_edits(once, topo.table, wrapper).edits.empty());
        // No prefix-matching NCCL_IB_HCA value is left.
        CHECK(once.find("NCCL_IB_HCA=mlx5") == std::string::npos);
        spit(sb.path(name), once, 0755);
        spit(wrapper, wrapper_script(topo.table), 0755);
        CHECK(sb.run("bash -n " + name).rc == 0);
        CHECK(sb.run("sh -n firstfault-bind.sh").rc == 0);
        auto out =
            sb.run("FF_NRANKS=" + std::to_string(topo.table.ranks.size()) + " bash ./" + name);
        INFO(once);
        INFO(out.out);
        CHECK(out.rc == 0);
        CHECK(out.out.find(expected(topo.table)) != std::string::npos);
      }
    }
  }
}

TEST_CASE("binding: per-rank scripts, set -euo pipefail and CRLF", "[fix]") {
  for (const auto& topo : topologies()) {
    DYNAMIC_SECTION("strict_prefix.sh on " << topo.name) {
      Sandbox sb;
      std::string orig = slurp(fix_dir() + "/data/strict_prefix.sh");
      auto r = shell_binding_edits(orig, topo.table, sb.path("firstfault-bind.sh"));
      REQUIRE(r.found_target);
      CHECK_FALSE(r.uses_wrapper);
      std::string once = apply_all(orig, r.edits);
      CHECK(shell_binding_edits(once, topo.table, "x").edits.empty());
      // The old prefix assignment was replaced, not joined by a second one.
      CHECK(once.find("NCCL_IB_HCA=mlx5_1\n") == std::string::npos);
      CHECK(once.find("export NCCL_IB_HCA=mlx5") == std::string::npos);
      spit(sb.path("s.sh"), once, 0755);
      CHECK(sb.run("bash -n s.sh").rc == 0);
      std::string all;
      for (std::size_t k = 0; k < topo.table.ranks.size(); ++k)
        all += hca_lines(sb.run("SLURM_LOCALID=" + std::to_string(k) + " bash ./s.sh").out);
      INFO(once);
      CHECK(all == expected(topo.table));
    }
  }
  SECTION("CRLF stays CRLF") {
    auto topo = topologies()[1];
    Sandbox sb;
    std::string orig = slurp(fix_dir() + "/data/crlf_per_rank.sh");
    REQUIRE(orig.find("\r\n") != std::string::npos);
    std::string once = apply_all(orig, shell_binding_edits(orig, topo.table, "x").edits);
    CHECK(once != orig);
    for (std::size_t i = 0; i < once.size(); ++i)
      if (once[i] == '\n') REQUIRE((i > 0 && once[i - 1] == '\r'));
    CHECK(shell_binding_edits(once, topo.table, "x").edits.empty());
    std::string lf;
    for (char c : once)
      if (c != '\r') lf += c;
    spit(sb.path("c.sh"), lf, 0755);
    std::string all;
    for (int k = 0; k < 8; ++k)
      all += sb.run("OMPI_COMM_WORLD_LOCAL_RANK=" + std::to_string(k) + " bash ./c.sh").out;
    CHECK(all == expected(topo.table));
  }
}

TEST_CASE("binding: Python entry point launched by torchrun", "[fix]") {
  for (const auto& topo : topologies()) {
    DYNAMIC_SECTION("train_entry.py on " << topo.name) {
      Sandbox sb;
      std::string orig = slurp(fix_dir() + "/data/train_entry.py");
      auto r = python_binding_edits(orig, topo.table);
      REQUIRE(r.found_target);
      std::string once = apply_all(orig, r.edits);
      CHECK(python_binding_edits(once, topo.table).edits.empty());
      CHECK(once.find("\nimport os\n") != std::string::npos);
      // The block sits right before the call, with its indentation.
      CHECK(
          once.find("        # <<< firstfault:nccl-ib-hca <<<\n        dist.init_process_group(") !=
          std::string::npos);
      spit(sb.path("train.py"), once);
      fs::copy(fix_dir() + "/stubs/torch", sb.path("torch"), fs::copy_options::recursive);
      std::string all;
      for (std::size_t k = 0; k < topo.table.ranks.size(); ++k)
        all += sb.run("PYTHONPATH=. LOCAL_RANK=" + std::to_string(k) +
                      " /usr/bin/python3 train.py --steps 0")
                   .out;
      std::string want;
      for (const auto& rk : topo.table.ranks) want += "hca=" + rk.hca + " numa=none\n";
      INFO(once);
      CHECK(all == want);
    }
  }
}

TEST_CASE("env fixes in shell launchers and Python", "[fix]") {
  EnvList env = {{"NCCL_IB_TIMEOUT", "22"}, {"NCCL_SOCKET_IFNAME", "=ib0"}};
  Sandbox sb;
  SECTION("export block before srun, idempotent, merged") {
    std::string orig = slurp(fix_dir() + "/data/sbatch_srun.sbatch");
    std::string once = apply_all(orig, shell_env_edits(orig, env).edits);
    CHECK(once.find("export NCCL_IB_TIMEOUT=22\nexport NCCL_SOCKET_IFNAME==ib0\n# <<< "
                    "firstfault:env <<<\nsrun") != std::string::npos);
    CHECK(shell_env_edits(once, env).edits.empty());
    std::string twice = apply_all(once, shell_env_edits(once, {{"NCCL_IB_TIMEOUT", "23"}}).edits);
    CHECK(twice.find("export NCCL_IB_TIMEOUT=23\nexport NCCL_SOCKET_IFNAME==ib0\n") !=
          std::string::npos);
    spit(sb.path("e.sh"), twice);
    CHECK(sb.run("bash -n e.sh").rc == 0);
  }
  SECTION("mpirun gets -x") {
    std::string orig = slurp(fix_dir() + "/data/bash_mpirun.sh");
    std::string once = apply_all(
        orig, shell_env_edits(orig, {{"NCCL_DEBUG", "WARN"}, {"NCCL_P2P_DISABLE", "1"}}).edits);
    CHECK(once.find("-x NCCL_DEBUG=WARN") != std::string::npos);
    CHECK(once.find("-x NCCL_DEBUG=INFO") == std::string::npos);
    CHECK(once.find("mpirun -x NCCL_P2P_DISABLE=1 -np 16") != std::string::npos);
    CHECK(shell_env_edits(once, {{"NCCL_DEBUG", "WARN"}, {"NCCL_P2P_DISABLE", "1"}}).edits.empty());
  }
  SECTION("an existing assignment is replaced") {
    std::string orig = slurp(fix_dir() + "/data/deepspeed_launch.sh");
    std::string once = apply_all(orig, shell_env_edits(orig, env).edits);
    CHECK(once.find("export NCCL_SOCKET_IFNAME==ib0\n") != std::string::npos);
    CHECK(once.find("eth0") == std::string::npos);
  }
  SECTION("python") {
    std::string orig = slurp(fix_dir() + "/data/train_entry.py");
    std::string once = apply_all(orig, python_env_edits(orig, env).edits);
    CHECK(once.find("os.environ[\"NCCL_IB_TIMEOUT\"] = \"22\"") != std::string::npos);
    CHECK(python_env_edits(once, env).edits.empty());
    spit(sb.path("t.py"), once);
    CHECK(sb.run("/usr/bin/python3 -c 'import ast,sys; ast.parse(open(\"t.py\").read())'").rc == 0);
  }
}

// Launch files as people write them, and the edits that went wrong on them (found by
// fuzz/fuzz_fix.cpp; its inputs are replayed from tests/hostile/regressions/fix/).
TEST_CASE("env fixes: launch lines and blocks people write", "[fix]") {
  const EnvList env = {{"NCCL_DEBUG", "INFO"}, {"NCCL_SOCKET_IFNAME", "=ib0"}};
  SECTION("a launch line that starts with an assignment keeps it, and the block comes too") {
    std::string orig = "#!/bin/bash\nNCCL_DEBUG=WARN torchrun --nproc-per-node 8 train.py\n";
    std::string once = apply_all(orig, shell_env_edits(orig, env).edits);
    CHECK(once ==
          "#!/bin/bash\n# >>> firstfault:env >>>\n"
          "# Set by firstfault analyze --fix; see the diagnosis for why.\n"
          "export NCCL_SOCKET_IFNAME==ib0\n# <<< firstfault:env <<<\n"
          "NCCL_DEBUG=INFO torchrun --nproc-per-node 8 train.py\n");
    CHECK(shell_env_edits(once, env).edits.empty());
  }
  SECTION("a block never goes between a set line and the line it continues onto") {
    std::string orig = "#!/bin/bash\nset -euo \\\n  pipefail\nexport PATH\n";
    std::string once = apply_all(orig, shell_env_edits(orig, env).edits);
    CHECK(once.rfind("#!/bin/bash\nset -euo \\\n  pipefail\n# >>> firstfault:env >>>\n", 0) == 0);
  }
  SECTION("a stray begin marker does not swallow the lines down to the real block") {
    std::string orig =
        "import os\n# >>> firstfault:env >>>\nimport torch.distributed as dist\n\n"
        "def main():\n    dist.init_process_group(\"nccl\")\n";
    std::string once = apply_all(orig, python_env_edits(orig, env).edits);
    std::string twice = apply_all(once, python_env_edits(once, env).edits);
    CHECK(twice == once);
    CHECK(twice.find("import torch.distributed as dist\n") != std::string::npos);
    BlockRange br;
    REQUIRE(find_block(twice, kEnvBlock, br));
    CHECK(twice.substr(br.begin).rfind("    # >>> firstfault:env >>>\n", 0) == 0);
  }
  SECTION("a begin and an end marker of different ids enclose nothing") {
    // Paired whatever their ids, these two hid the export between them from the first
    // --fix, which put its block inside them; the second --fix then saw the export.
    std::string orig =
        "#!/bin/bash\n# >>> firstfault:other\n\nsrun true\nexport NCCL_DEBUG=WARN\n"
        "# <<< firstfault:env <<<\n";
    CHECK(generated_blocks(orig).empty());
    std::string once = apply_all(orig, shell_env_edits(orig, env).edits);
    CHECK(once.find("export NCCL_DEBUG=WARN") == std::string::npos);
    CHECK(shell_env_edits(once, env).edits.empty());
    // Same ids, with or without the closing arrows: a block.
    CHECK(generated_blocks("# >>> firstfault:env\nx=1\n# <<< firstfault:env <<<\n").size() == 1);
  }
  SECTION("one long line (a 1 MB quoted value) is text like any other") {
    std::string big(1 << 20, 'x');
    std::string orig = "import " + big + "\nimport os\nos.environ[\"NCCL_IB_HCA\"] = \"" + big +
                       "\"\n# >>> firstfault:env >>>\nos.environ[\"OLD\"] = \"" + big +
                       "\"\n# <<< firstfault:env <<<\n"
                       "import torch.distributed as dist\ndist.init_process_group(\"nccl\")\n";
    std::string once = apply_all(orig, python_env_edits(orig, env).edits);
    CHECK(once.find("os.environ[\"OLD\"] = \"" + big + "\"\nos.environ[\"NCCL_DEBUG\"]") !=
          std::string::npos);
    CHECK(python_env_edits(once, env).edits.empty());
  }
}

// A variable some ranks already set (NCCL_DEBUG=INFO on rank 0) is given to the others as
// a default: the writers render it as an expansion or setdefault, never as a literal.
TEST_CASE("env fixes: a default where unset (EnvKind::kDefault)", "[fix]") {
  const EnvList env = {{"NCCL_DEBUG", "WARN", EnvKind::kDefault}, {"NCCL_RAS_ENABLE", "1"}};
  Sandbox sb;
  SECTION("shell word: the expansion, escaped for double quotes and braces") {
    CHECK(shell_env_word({"NCCL_DEBUG", "WARN", EnvKind::kDefault}) ==
          "NCCL_DEBUG=\"${NCCL_DEBUG:-WARN}\"");
    CHECK(shell_env_word({"NCCL_DEBUG", "WARN"}) == "NCCL_DEBUG=WARN");
    std::string odd = shell_env_word({"X", "a}b\"c$d e", EnvKind::kDefault});
    CHECK(odd == "X=\"${X:-a\\}b\\\"c\\$d e}\"");
    spit(sb.path("odd.sh"), "unset X\nexport " + odd + "\nprintf '%s' \"$X\"\n");
    CHECK(sb.run("sh odd.sh").out == "a}b\"c$d e");
    // Written in a block and read back from it: the same value, so no second edit.
    const EnvList odd_env = {{"X", "a}b\"c$d e", EnvKind::kDefault}};
    std::string script = "#!/bin/sh\ntorchrun t.py\n";
    std::string once = apply_all(script, shell_env_edits(script, odd_env).edits);
    CHECK(once.find("export " + odd + "\n") != std::string::npos);
    CHECK(shell_env_edits(once, odd_env).edits.empty());
    // The same word keeps a value set before it.
    spit(sb.path("kept.sh"), "X=INFO\nexport " + odd + "\nprintf '%s' \"$X\"\n");
    CHECK(sb.run("sh kept.sh").out == "INFO");
  }
  SECTION("shell: the block sets a default, the branch's assignment is untouched") {
    std::string orig =
        "#!/bin/bash\nif [ \"$SLURM_NODEID\" = 0 ]; then\n  export NCCL_DEBUG=INFO\nfi\n"
        "NCCL_DEBUG=TRACE torchrun train.py\n";
    std::string once = apply_all(orig, shell_env_edits(orig, env).edits);
    CHECK(once ==
          "#!/bin/bash\nif [ \"$SLURM_NODEID\" = 0 ]; then\n  export NCCL_DEBUG=INFO\nfi\n"
          "# >>> firstfault:env >>>\n# Set by firstfault analyze --fix; see the diagnosis for "
          "why.\nexport NCCL_DEBUG=\"${NCCL_DEBUG:-WARN}\"\nexport NCCL_RAS_ENABLE=1\n"
          "# <<< firstfault:env <<<\nNCCL_DEBUG=TRACE torchrun train.py\n");
    CHECK(shell_env_edits(once, env).edits.empty());
    // Read back from the block as a default: rewriting the block for another variable keeps
    // the expansion (not a quoted literal '${NCCL_DEBUG:-WARN}').
    std::string again = apply_all(once, shell_env_edits(once, {{"NCCL_RAS_ENABLE", "0"}}).edits);
    CHECK(again.find("export NCCL_DEBUG=\"${NCCL_DEBUG:-WARN}\"\nexport NCCL_RAS_ENABLE=0\n") !=
          std::string::npos);
    spit(sb.path("d.sh"), once);
    CHECK(sb.run("sh -n d.sh").rc == 0);
  }
  SECTION("mpirun and docker run: the bare name forwards the block's value") {
    std::string orig =
        "#!/bin/bash\nmpirun -np 16 python train.py\ndocker run --rm img python t.py\n";
    std::string once = apply_all(orig, shell_env_edits(orig, env).edits);
    CHECK(once.find("export NCCL_DEBUG=\"${NCCL_DEBUG:-WARN}\"\n# <<< firstfault:env <<<\n"
                    "mpirun -x NCCL_DEBUG -x NCCL_RAS_ENABLE=1 -np 16") != std::string::npos);
    CHECK(once.find("docker run -e NCCL_DEBUG -e NCCL_RAS_ENABLE=1 --rm") != std::string::npos);
    CHECK(once.find("NCCL_DEBUG=WARN") == std::string::npos);
    CHECK(shell_env_edits(once, env).edits.empty());
    // What the line already passes is its ranks' choice.
    std::string chosen = "#!/bin/bash\nmpirun -x NCCL_DEBUG=INFO -np 2 ./a\n";
    std::string c1 = apply_all(chosen, shell_env_edits(chosen, env).edits);
    CHECK(c1.find("mpirun -x NCCL_RAS_ENABLE=1 -x NCCL_DEBUG=INFO -np 2 ./a\n") !=
          std::string::npos);
    spit(sb.path("m.sh"), once);
    CHECK(sb.run("sh -n m.sh").rc == 0);
  }
  SECTION("mpirun MPMD: the sections without it get the bare -x, -genv covers all") {
    const EnvList debug = {{"NCCL_DEBUG", "WARN", EnvKind::kDefault}};
    std::string orig = "mpirun -np 1 -x NCCL_DEBUG=INFO ./a : -np 3 ./b : -np 4 ./c\n";
    std::string once = apply_all(orig, shell_env_edits(orig, debug).edits);
    CHECK(once.substr(once.find("mpirun")) ==
          "mpirun -np 1 -x NCCL_DEBUG=INFO ./a : -x NCCL_DEBUG -np 3 ./b : -x NCCL_DEBUG -np 4 "
          "./c\n");
    CHECK(shell_env_edits(once, debug).edits.empty());
    std::string genv = "mpiexec -genv NCCL_DEBUG INFO -n 1 ./a : -n 3 ./b\n";
    std::string g1 = apply_all(genv, shell_env_edits(genv, debug).edits);
    CHECK(g1.substr(g1.find("mpiexec")) == genv);
  }
  SECTION("python: setdefault, after the branch or before it") {
    std::string orig = slurp(fix_dir() + "/data/rank0_entry.py");
    std::string once = apply_all(orig, python_env_edits(orig, env).edits);
    CHECK(once.find("    os.environ.setdefault(\"NCCL_DEBUG\", \"WARN\")\n"
                    "    os.environ[\"NCCL_RAS_ENABLE\"] = \"1\"\n") != std::string::npos);
    CHECK(once.find("        os.environ[\"NCCL_DEBUG\"] = \"INFO\"\n") != std::string::npos);
    CHECK(python_env_edits(once, env).edits.empty());
    std::string again = apply_all(once, python_env_edits(once, {{"NCCL_RAS_ENABLE", "0"}}).edits);
    CHECK(again.find("    os.environ.setdefault(\"NCCL_DEBUG\", \"WARN\")\n"
                     "    os.environ[\"NCCL_RAS_ENABLE\"] = \"0\"\n") != std::string::npos);
    spit(sb.path("t.py"), once);
    CHECK(sb.run("/usr/bin/python3 -c 'import ast,sys; ast.parse(open(\"t.py\").read())'").rc == 0);
  }
}

TEST_CASE("evidence capture: NCCL_DEBUG set for some ranks only gets a default", "[fix]") {
  ff::analysis::Rule cap;
  cap.id = "torch-flight-recorder-disabled";
  cap.category = "config";
  cap.fix.env = {{"TORCH_FR_BUFFER_SIZE", "2000"},
                 {"NCCL_DEBUG", "WARN"},
                 {"NCCL_DEBUG_FILE", "nccl.%h.%p.log"}};
  REQUIRE(wants_evidence_capture(cap));
  auto env_action = [&](const FixRequest& req) {
    for (auto& a : fixes_for_rule(cap, req))
      if (a.kind == "env") return a;
    FAIL("no env action");
    return FixAction{};
  };
  auto text_of = [](const FixAction& a, const std::string& orig) {
    REQUIRE(a.edit.files.size() == 1);
    return apply_all(orig, a.edit.files[0].edits);
  };
  FixRequest req;
  SECTION("node 0 only (the fixture): both variables by default, the branch kept") {
    std::string orig = slurp(fix_dir() + "/data/node_launch.sh");
    req.files.push_back({"node_launch.sh", orig});
    FixAction a = env_action(req);
    std::string once = text_of(a, orig);
    CHECK(once.find("export NCCL_DEBUG=\"${NCCL_DEBUG:-WARN}\"\n") != std::string::npos);
    CHECK(once.find("export NCCL_DEBUG_FILE=\"${NCCL_DEBUG_FILE:-nccl.%h.%p.log}\"\n") !=
          std::string::npos);
    CHECK(once.find("  export NCCL_DEBUG=INFO\n") != std::string::npos);
    CHECK(once.find("&& export NCCL_DEBUG_FILE=/shared/logs/nccl.%h.%p.log\n") !=
          std::string::npos);
    CHECK(a.title.find("NCCL_DEBUG=WARN (where unset)") != std::string::npos);
    // Our own block does not count as setting it for every rank: a second run is a no-op.
    req.files[0].text = once;
    CHECK(env_action(req).edit.empty());
  }
  SECTION("set for every rank: its level is kept, nothing about NCCL_DEBUG written") {
    std::string orig = "#!/bin/bash\nexport NCCL_DEBUG=INFO\ntorchrun train.py\n";
    req.files.push_back({"all.sh", orig});
    FixAction a = env_action(req);
    std::string once = text_of(a, orig);
    CHECK(once.find("NCCL_DEBUG=INFO\n") != std::string::npos);
    CHECK(once.find("NCCL_DEBUG=\"") == std::string::npos);
    CHECK(once.find("NCCL_DEBUG=WARN") == std::string::npos);
    // NCCL_DEBUG_FILE unset anywhere: the literal value, as before.
    CHECK(once.find("export NCCL_DEBUG_FILE=nccl.%h.%p.log\n") != std::string::npos);
  }
  SECTION("one file sets it for every rank, another for rank 0: every rank wins") {
    req.files.push_back({"all.sh", "#!/bin/bash\nNCCL_DEBUG=INFO torchrun train.py\n"});
    req.files.push_back({"e.py", slurp(fix_dir() + "/data/rank0_entry.py")});
    FixAction a = env_action(req);
    bool kept = false;
    for (const auto& n : a.notes)
      kept |= n == "NCCL_DEBUG is already set in all.sh; its level is kept";
    CHECK(kept);
  }
  SECTION("not set anywhere: the literal value") {
    std::string orig = "#!/bin/bash\ntorchrun train.py\n";
    req.files.push_back({"none.sh", orig});
    std::string once = text_of(env_action(req), orig);
    CHECK(once.find("export NCCL_DEBUG=WARN\n") != std::string::npos);
  }
}

TEST_CASE("/dev/shm: docker run, compose, Kubernetes", "[fix]") {
  Sandbox sb;
  SECTION("docker run") {
    std::string orig = slurp(fix_dir() + "/data/docker_run.sh");
    std::string once = apply_all(orig, docker_shm_edits(orig, "16g").edits);
    CHECK(once.find("docker run --shm-size=16g --rm") != std::string::npos);
    CHECK(docker_shm_edits(once, "16g").edits.empty());
    std::string bigger = apply_all(once, docker_shm_edits(once, "32g").edits);
    CHECK(bigger.find("--shm-size=32g --rm") != std::string::npos);
    spit(sb.path("d.sh"), bigger);
    CHECK(sb.run("sh -n d.sh").rc == 0);
  }
  SECTION("compose") {
    std::string orig = slurp(fix_dir() + "/data/docker-compose.yml");
    REQUIRE(detect_file_kind("docker-compose.yml", orig) == FileKind::Compose);
    std::string once = apply_all(orig, compose_shm_edits(orig, "16g").edits);
    CHECK(compose_shm_edits(once, "16g").edits.empty());
    spit(sb.path("c.yml"), once);
    auto r = sb.run(
        "/usr/bin/python3 -c 'import yaml; d=yaml.safe_load(open(\"c.yml\")); s=d[\"services\"]; "
        "print(s[\"trainer\"][\"shm_size\"], s[\"loader\"][\"shm_size\"], "
        "s[\"trainer\"][\"image\"])'");
    CHECK(r.out == "16gb 16gb nvcr.io/nvidia/pytorch:24.05-py3\n");
  }
  SECTION("kubernetes") {
    std::string orig = slurp(fix_dir() + "/data/pod.yaml");
    REQUIRE(detect_file_kind("pod.yaml", orig) == FileKind::Kubernetes);
    std::string once = apply_all(orig, k8s_shm_edits(orig, "16g").edits);
    CHECK(k8s_shm_edits(once, "16g").edits.empty());
    spit(sb.path("p.yaml"), once);
    auto r = sb.run(
        "/usr/bin/python3 -c 'import yaml; d=yaml.safe_load(open(\"p.yaml\")); s=d[\"spec\"]; "
        "print([[m[\"mountPath\"] for m in c.get(\"volumeMounts\", [])] for c in "
        "s[\"containers\"]]); "
        "print([v for v in s[\"volumes\"] if v[\"name\"] == \"dshm\"]); "
        "print(s[\"restartPolicy\"])'");
    INFO(once);
    CHECK(r.out ==
          "[['/data', '/dev/shm'], ['/dev/shm']]\n[{'name': 'dshm', 'emptyDir': {'medium': "
          "'Memory', 'sizeLimit': '16Gi'}}]\nNever\n");
  }
}

TEST_CASE("engine: rules decide the fixes, as data", "[fix]") {
  // The binding is a rule's fix action, not its id or category.
  ff::analysis::Rule gdr;
  gdr.id = "gdr-disabled-for-hca";
  gdr.category = "gdr";
  gdr.fix.actions = {"nccl-ib-hca-binding"};
  ff::analysis::Rule same_category = gdr;
  same_category.fix.actions.clear();
  ff::analysis::Rule p2p;
  p2p.id = "amd-vi-io-page-fault";
  p2p.category = "p2p";
  p2p.fix.env = {{"NCCL_P2P_DISABLE", "1"}};
  ff::analysis::Rule qp;
  qp.id = "ib-modify-qp-failed";
  qp.category = "ib";
  qp.fix.env = {{"NCCL_IB_HCA", "=<working HCA>:1"}, {"NCCL_IB_GID_INDEX", "<RoCE v2 index>"}};
  CHECK(wants_binding(gdr));
  CHECK_FALSE(wants_binding(same_category));
  CHECK(wants_binding(qp));
  CHECK_FALSE(wants_binding(p2p));
  // Every built-in rule the binding used to be wired to by id or category says so itself.
  for (const char* id : {"nccl-ib-hca-prefix", "ib-modify-qp-failed", "gdr-disabled-distance",
                         "gdr-disabled-for-hca", "nccl-channel-no-gdrdma", "ib-no-device",
                         "ib-incompatible-devices", "ib-rail-mismatch", "nccl-topo-degraded"}) {
    const ff::analysis::Rule* r = ff::test::builtin_catalog().find(id);
    REQUIRE(r);
    CHECK(wants_binding(*r));
  }
  // Every GPUDirect RDMA rule on NCCL's path wants the binding; libraries that choose their
  // NIC by their own settings (Mooncake, NVSHMEM's IBGDA, libfabric's CXI provider) do not,
  // since NCCL_IB_HCA does not reach them.
  const auto own_nic_choice = [](const std::string& id) {
    for (const char* prefix :
         {"mooncake-", "libfabric-cxi-", "nvshmem-ibgda-", "nvshmem-no-transport"})
      if (id.rfind(prefix, 0) == 0) return true;
    return false;
  };
  for (const auto& r : ff::test::builtin_catalog().rules()) {
    INFO(r.id);
    if (r.category == "shm") CHECK(wants_shm(r));
    if (r.category == "gdr") CHECK(wants_binding(r) != own_nic_choice(r.id));
  }

  FixRequest req;
  req.files.push_back({"/w/run.sh", slurp(fix_dir() + "/data/bash_mpirun.sh")});
  req.wrapper_path = req.wrapper_ref = "/w/firstfault-bind.sh";
  SECTION("no topology: the fix says what to export") {
    auto a = fixes_for_rule(gdr, req);
    REQUIRE(a.size() == 1);
    CHECK(a[0].edit.empty());
    bool says = false;
    for (const auto& n : a[0].notes)
      says |= n.find("lstopo --of xml node.xml") != std::string::npos &&
              n.find("nvidia-smi topo -m > topo.txt") != std::string::npos;
    CHECK(says);
  }
  SECTION("with a topology: mpirun line, wrapper created, GID index left to the user") {
    req.binding = topologies()[1].table;
    auto plan = plan_fixes({&qp, &gdr}, req);
    REQUIRE(plan.actions.size() == 2);  // one binding (deduplicated) + env notes
    CHECK(plan.result.files.size() == 2);
    CHECK(plan.result.files[1].create);
    CHECK(plan.result.files[1].executable);
    bool gid = false;
    for (const auto& a : plan.actions)
      for (const auto& n : a.notes) gid |= n.find("NCCL_IB_GID_INDEX") != std::string::npos;
    CHECK(gid);
  }
  SECTION("P2P disable carries its bandwidth warning") {
    auto a = fixes_for_rule(p2p, req);
    REQUIRE(a.size() == 1);
    REQUIRE(a[0].warnings.size() == 1);
    CHECK(a[0].warnings[0].find("bandwidth") != std::string::npos);
    CHECK(a[0].edit.files.size() == 1);
  }
}

TEST_CASE("workspace I/O: atomic write keeps the mode, refuses outside paths", "[fix]") {
  Sandbox sb;
  std::string f = sb.path("run.sh");
  spit(f, "echo hi\n", 0750);
  WorkspaceEdit e;
  e.files.push_back({f, false, "", false, {{0, 0, "# top\n"}}});
  std::string err;
  REQUIRE(apply_workspace_edit(sb.dir, e, err));
  CHECK(slurp(f) == "# top\necho hi\n");
  struct stat st;
  ::stat(f.c_str(), &st);
  CHECK((st.st_mode & 0777) == 0750);
  WorkspaceEdit out;
  out.files.push_back({"/etc/passwd", false, "", false, {{0, 0, "x"}}});
  CHECK_FALSE(apply_workspace_edit(sb.dir, out, err));
  CHECK(err.find("/etc/passwd") != std::string::npos);
  CHECK_FALSE(inside_workspace(sb.dir, sb.dir + "/../x"));
  CHECK(inside_workspace(sb.dir, sb.dir + "/sub/x"));
}
