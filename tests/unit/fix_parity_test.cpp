// Issue 29: one fix planner for every front end. For every corpus case, the language server's
// code action that applies every fix of the diagnosis makes exactly the edits `firstfault
// analyze --fix --apply` (fix::run_fix, what the command calls) makes: the same files, the same
// resulting text; every edit of an open document carries that document's version, and every
// fix the server offers is versioned so.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <sstream>

#include "../corpus_case.hpp"
#include "analysis/analyze.hpp"
#include "builtin_catalog.hpp"
#include "fix/fix_cli.hpp"
#include "fix/topology_provider.hpp"
#include "lsp/analysis_server.hpp"
#include "lsp/fix_actions.hpp"
#include "lsp_edit_util.hpp"

using namespace ff;
using namespace ff::lsp;
namespace fsys = std::filesystem;

namespace {

// The launch files of a workspace (from tests/fix/data) and whether it holds a topology.
struct Variant {
  const char* name;
  std::vector<std::string> files;
  bool topology;
};
const std::vector<Variant> kVariants = {
    {"shell+containers",
     {"torchrun_cmd.sh", "docker_run.sh", "docker-compose.yml", "pod.yaml"},
     true},
    {"python", {"train_entry.py"}, false},
};

fsys::path make_workspace(const fsys::path& root, const std::string& log, const Variant& v) {
  fsys::create_directories(root);
  std::ofstream(root / "log.txt", std::ios::binary) << log;
  for (const auto& f : v.files)
    fsys::copy_file(std::string(FF_TEST_DATA) + "/../fix/data/" + f, root / f,
                    fsys::copy_options::overwrite_existing);
  if (v.topology)
    fsys::copy_file(std::string(FF_TEST_DATA) + "/topologies/synthetic/server-8gpu-8nic.xml",
                    root / "node.xml", fsys::copy_options::overwrite_existing);
  return fsys::weakly_canonical(root);
}

// The code actions the server offers on the whole log, with the launch files open at
// versions 10, 11, ... (so that a version is not right by chance).
std::vector<CodeActionItem> served(const fsys::path& ws, const Variant& v,
                                   std::map<std::string, std::int64_t>& versions) {
  AnalysisServerOptions o;
  o.topology = std::make_shared<fix::TopologyProvider>(/*live=*/false);
  Scheduler loop;
  AnalysisServer server(test::builtin_catalog(), loop, o, {});
  // The loop's threads stop before the server goes: a worker may still post to it.
  struct StopFirst {
    Scheduler& loop;
    ~StopFirst() { loop.shutdown(); }
  } stop_first{loop};
  std::string log_uri = path_to_uri((ws / "log.txt").string());
  std::promise<std::vector<CodeActionItem>> done;
  server.post([&] {
    server.open(log_uri, "plaintext", 1, test::read_file(ws / "log.txt"));
    std::int64_t version = 10;
    for (const auto& f : v.files) {
      std::string uri = path_to_uri((ws / f).string());
      versions[uri] = version;
      server.open(uri, f.ends_with(".py") ? "python" : "shellscript", version++,
                  test::read_file(ws / f));
    }
    server.code_actions(
        CancelToken(), log_uri, {{0, 0}, {1u << 30, 0}},
        [&](Result<std::vector<CodeActionItem>> r) {
          done.set_value(r.ok() ? std::move(r.value()) : std::vector<CodeActionItem>{});
        });
  });
  auto f = done.get_future();
  REQUIRE(f.wait_for(std::chrono::seconds(60)) == std::future_status::ready);
  return f.get();
}

// Every workspace file's text after the action's edits (open documents read from disk:
// their text is what the server was given).
std::map<std::string, std::string> after_action(
    const fsys::path& ws, const CodeActionItem& a,
    const std::map<std::string, std::int64_t>& versions) {
  std::map<std::string, std::string> out;
  for (const auto& e : ws.empty() ? fsys::directory_iterator() : fsys::directory_iterator(ws))
    out[e.path().filename().string()] = test::read_file(e.path());
  for (const auto& d : a.edits) {
    std::string name = fsys::path(uri_to_path(d.uri)).filename().string();
    INFO(d.uri);
    if (d.create) {
      CHECK_FALSE(d.version);
      REQUIRE(d.edits.size() == 1);
      out[name] = d.edits[0].new_text;
      continue;
    }
    REQUIRE(versions.count(d.uri));
    REQUIRE(d.version);
    CHECK(*d.version == versions.at(d.uri));
    out[name] = test::apply_lsp_edits(out[name], d.edits);
  }
  return out;
}

// The workspace's files after `analyze --fix --apply` with the same launch files.
std::map<std::string, std::string> after_cli(const fsys::path& ws, const Variant& v,
                                             bool& changed) {
  std::string log = test::read_file(ws / "log.txt");
  std::string log_path = (ws / "log.txt").string();
  analysis::LogInput in{log_path, log};
  auto a = analysis::analyze(test::builtin_catalog(), std::span<const analysis::LogInput>(&in, 1));
  fix::FixCliOptions o;
  o.apply = true;
  o.workspace = ws.string();
  o.live = false;
  for (const auto& f : v.files) o.files.push_back((ws / f).string());
  std::string out, err;
  nlohmann::json doc;
  REQUIRE(fix::run_fix(test::builtin_catalog(), a, {{log_path, log}}, o, out, err, &doc) == 0);
  changed = !doc["files"].empty();
  std::map<std::string, std::string> files;
  for (const auto& e : fsys::directory_iterator(ws))
    files[e.path().filename().string()] = test::read_file(e.path());
  return files;
}

}  // namespace

TEST_CASE("fix parity: the server's fix-all action makes the edits analyze --fix makes",
          "[fix][lsp]") {
  fsys::path tmp = fsys::temp_directory_path() / ("ff-fix-parity-" + std::to_string(::getpid()));
  fsys::path corpus = fsys::path(FF_TEST_DATA) / ".." / "corpus";
  std::size_t cases = 0, with_fix = 0;
  for (const auto& c : fsys::directory_iterator(corpus)) {
    if (!fsys::exists(c.path() / "log.txt")) continue;
    ++cases;
    std::string log = test::read_file(c.path() / "log.txt");
    for (const auto& v : kVariants) {
      INFO(c.path().filename().string() << " / " << v.name);
      fsys::path ws = make_workspace(tmp / c.path().filename() / v.name, log, v);
      std::map<std::string, std::int64_t> versions;
      auto actions = served(ws, v, versions);
      const CodeActionItem* all = nullptr;
      for (const auto& a : actions) {
        if (a.title.starts_with(kFixAllTitle)) all = &a;
        for (const auto& d : a.edits) CHECK((d.create || (d.version && *d.version >= 10)));
      }
      bool changed = false;
      auto lsp_files = all ? after_action(ws, *all, versions) : after_action({}, {}, versions);
      auto cli_files = after_cli(ws, v, changed);
      if (!changed) {
        CHECK(all == nullptr);
        continue;
      }
      ++with_fix;
      REQUIRE(all != nullptr);
      CHECK(lsp_files == cli_files);
    }
  }
  fsys::remove_all(tmp);
  CHECK(cases > 100);
  CHECK(with_fix > 50);  // the comparison is not vacuous
}
