// The fix planner (fix/planner.hpp) and its shared topology provider.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "analysis/analyze.hpp"
#include "builtin_catalog.hpp"
#include "fix/planner.hpp"
#include "fix/topology_provider.hpp"

using namespace ff;
namespace fsys = std::filesystem;

namespace {

std::string corpus_log(const std::string& name) {
  std::ifstream in(std::string(FF_TEST_DATA) + "/../corpus/" + name + "/log.txt", std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

fsys::path topology_folder(const std::string& name) {
  fsys::path dir = fsys::temp_directory_path() / (name + std::to_string(::getpid()));
  fsys::create_directories(dir);
  fsys::copy_file(std::string(FF_TEST_DATA) + "/topologies/synthetic/server-8gpu-8nic.xml",
                  dir / "node.xml", fsys::copy_options::overwrite_existing);
  return dir;
}

}  // namespace

TEST_CASE("topology provider: a folder's answer is reused for a while", "[fix]") {
  fsys::path dir = topology_folder("ff-topo-cache-");
  fix::TopologyInputs in;
  in.workspace = dir.string();
  fix::TopologyProvider cached(/*live=*/false);
  auto a = cached.choose(in);
  auto b = cached.choose(in);
  REQUIRE(a.table);
  CHECK(a.source == b.source);
  CHECK(cached.discoveries() == 1);
  // Another folder is another answer; a provider without a cache reads every time.
  fix::TopologyInputs other;
  other.workspace = fsys::temp_directory_path().string() + "/ff-no-such-folder";
  CHECK_FALSE(cached.choose(other).table);
  CHECK(cached.discoveries() == 2);
  fix::TopologyProvider uncached(/*live=*/false, std::chrono::milliseconds(0));
  uncached.choose(in);
  uncached.choose(in);
  CHECK(uncached.discoveries() == 2);
  fsys::remove_all(dir);
}

TEST_CASE("planner: the combined plan does not depend on the rules shown beside it", "[fix]") {
  // A GDR diagnosis (nccl-897): the binding reads the folder's topology.
  fsys::path dir = topology_folder("ff-planner-");
  std::string log = corpus_log("nccl-897");
  analysis::LogInput li{(dir / "job.log").string(), log};
  analysis::JobOutcome failed;
  failed.end = analysis::JobEnd::kFailed;  // as `analyze --failed`: the finding is the cause
  auto a = analysis::analyze(test::builtin_catalog(), std::span<const analysis::LogInput>(&li, 1),
                             failed);
  fix::Planner planner(test::builtin_catalog(), std::make_shared<fix::TopologyProvider>(false));
  fix::PlanRequest req;
  req.workspace = dir.string();
  req.documents.push_back(
      {(dir / "run.sh").string(), 3, "#!/bin/sh\nexec torchrun --nproc-per-node 8 train.py\n"});
  auto plain = planner.plan(a, req);
  REQUIRE_FALSE(plain.rules.empty());
  REQUIRE(plain.topology.table);
  // The wrapper next to the launch script, which puts it in front of the program.
  bool wrapper = false, launcher = false;
  for (const auto& f : plain.combined.result.files) {
    wrapper |= f.create && f.path == (dir / "firstfault-bind.sh").string();
    launcher |= !f.create && f.path == (dir / "run.sh").string() && !f.edits.empty();
  }
  CHECK(wrapper);
  CHECK(launcher);
  // Each rule's fixes alone are there for every rule of the plan.
  for (const auto* r : plain.rules) CHECK(plain.by_rule.count(r->id) == 1);
  auto with_more = planner.plan(a, req, {"cuda-out-of-memory"});
  CHECK(with_more.by_rule.count("cuda-out-of-memory") == 1);
  REQUIRE(with_more.combined.result.files.size() == plain.combined.result.files.size());
  for (std::size_t i = 0; i < plain.combined.result.files.size(); ++i) {
    CHECK(with_more.combined.result.files[i].path == plain.combined.result.files[i].path);
    CHECK(with_more.combined.result.files[i].edits == plain.combined.result.files[i].edits);
    CHECK(with_more.combined.result.files[i].content == plain.combined.result.files[i].content);
  }
  fsys::remove_all(dir);
}
