// The lint of NCCL debug settings set for some nodes or ranks only (fix/rank_scoped_debug_lint):
// each launcher form that scopes them, the healthy forms that must stay quiet, and hostile
// input (huge, binary, deeply nested) that must stay fast and bounded.
#include "fix/rank_scoped_debug_lint.hpp"

#include <catch2/catch.hpp>
#include <chrono>
#include <string>

#include "fix/capture_lint.hpp"

using ff::fix::LaunchFile;
using ff::fix::rank_scoped_debug_lint;

namespace {

std::vector<std::string> lint(const std::string& path, const std::string& text) {
  return rank_scoped_debug_lint(LaunchFile{path, text});
}

bool has(const std::vector<std::string>& ws, const std::string& part) {
  for (const auto& w : ws)
    if (w.find(part) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("shell: NCCL_DEBUG under a node or rank condition is flagged", "[fix][rank_lint]") {
  struct Case {
    const char* name;
    std::string text;
    std::string expect;  // "path:line: VAR ... condition on IDENTITY (line N)"
  };
  const std::string sh = "#!/bin/bash\n";
  std::vector<Case> cases = {
      {"if [ ] on SLURM_NODEID",
       sh + "if [ \"$SLURM_NODEID\" = 0 ]; then\n  export NCCL_DEBUG=INFO\nfi\nsrun python t.py\n",
       "job.sh:3: NCCL_DEBUG is set only under a condition on $SLURM_NODEID (line 2)"},
      {"[[ ]] on SLURM_PROCID, then on its own line",
       sh + "if [[ ${SLURM_PROCID} -eq 0 ]]\nthen\n  export NCCL_DEBUG_FILE=/shared/n.%h.%p\nfi\n",
       "job.sh:4: NCCL_DEBUG_FILE is set only under a condition on ${SLURM_PROCID} (line 2)"},
      {"test on NODE_RANK", sh + "if test $NODE_RANK -eq 0; then export NCCL_DEBUG=INFO; fi\n",
       "job.sh:2: NCCL_DEBUG is set only under a condition on $NODE_RANK (line 2)"},
      {"&& export one-liner on RANK", sh + "[ \"$RANK\" = 0 ] && export NCCL_DEBUG=INFO\n",
       "job.sh:2: NCCL_DEBUG is set only under a condition on $RANK (line 2)"},
      {"[[ ]] && one-liner on LOCAL_RANK",
       sh + "[[ $LOCAL_RANK == 0 ]] && export NCCL_DEBUG_SUBSYS=INIT,NET\n",
       "job.sh:2: NCCL_DEBUG_SUBSYS is set only under a condition on $LOCAL_RANK (line 2)"},
      {"|| one-liner on OMPI_COMM_WORLD_RANK",
       sh + "test \"$OMPI_COMM_WORLD_RANK\" != 0 || export NCCL_DEBUG=INFO\n",
       "job.sh:2: NCCL_DEBUG is set only under a condition on $OMPI_COMM_WORLD_RANK (line 2)"},
      {"PMIX_RANK with an elif that sets nothing",
       sh + "if [ \"$PMIX_RANK\" = 0 ]; then\n export NCCL_DEBUG=INFO\nelif [ -n \"$X\" ]; then\n "
            "export A=1\nfi\n",
       "job.sh:3: NCCL_DEBUG is set only under a condition on $PMIX_RANK (line 2)"},
      {"(( )) && one-liner on bare RANK", sh + "(( RANK == 0 )) && export NCCL_DEBUG=INFO\n",
       "job.sh:2: NCCL_DEBUG is set only under a condition on RANK (line 2)"},
      {"if (( )) on NODE_RANK",
       sh + "if (( NODE_RANK == 0 )); then\n  export NCCL_DEBUG=INFO\nfi\n",
       "job.sh:3: NCCL_DEBUG is set only under a condition on NODE_RANK (line 2)"},
      {"SLURM_LOCALID one-liner with a brace group",
       sh + "[ \"$SLURM_LOCALID\" -eq 0 ] && { export NCCL_DEBUG=INFO; }\n",
       "job.sh:2: NCCL_DEBUG is set only under a condition on $SLURM_LOCALID (line 2)"},
      {"$(hostname) comparison",
       sh + "if [ \"$(hostname)\" == node01 ]; then\n  export NCCL_DEBUG=INFO\nfi\n",
       "job.sh:3: NCCL_DEBUG is set only under a condition on $(hostname) (line 2)"},
      {"$HOSTNAME comparison", sh + "if [ $HOSTNAME = gpu-a1 ]; then NCCL_DEBUG=INFO; fi\n",
       "job.sh:2: NCCL_DEBUG is set only under a condition on $HOSTNAME (line 2)"},
      {"case on SLURM_NODEID without a default",
       sh + "case $SLURM_NODEID in\n  0) export NCCL_DEBUG=INFO ;;\n  1) export A=1 ;;\nesac\n",
       "job.sh:3: NCCL_DEBUG is set only under a condition on $SLURM_NODEID (line 2)"},
      {"case with a default that does not set it",
       sh + "case \"$SLURM_NODEID\" in\n(0)\n  export NCCL_DEBUG=INFO\n  ;;\n*)\n  export B=2\n  "
            ";;\nesac\n",
       "job.sh:4: NCCL_DEBUG is set only under a condition on $SLURM_NODEID (line 2)"},
      {"a debug flag nested in a rank condition",
       sh + "if [ \"$NODE_RANK\" -eq 0 ]; then\n  if [ -n \"$DEBUG\" ]; then\n    export "
            "NCCL_DEBUG=INFO\n  fi\nfi\n",
       "job.sh:4: NCCL_DEBUG is set only under a condition on $NODE_RANK (line 2)"},
      {"a launch line's own assignment under a rank condition",
       sh + "if [ $SLURM_NODEID -eq 0 ]; then\n  NCCL_DEBUG=INFO torchrun train.py\nelse\n  "
            "torchrun train.py\nfi\n",
       "job.sh:3: NCCL_DEBUG is set only under a condition on $SLURM_NODEID (line 2)"},
      {"mpirun -x under a rank condition, continuation lines",
       sh + "if [ \"$RANK\" = 0 ]; then\n  mpirun -np 8 \\\n    -x NCCL_DEBUG=INFO \\\n    "
            "python t.py\nfi\n",
       "job.sh:4: NCCL_DEBUG is set only under a condition on $RANK (line 2)"},
  };
  for (const auto& c : cases) {
    INFO(c.name);
    auto ws = lint("job.sh", c.text);
    REQUIRE(ws.size() == 1);
    INFO(ws[0]);
    CHECK(ws[0].rfind(c.expect, 0) == 0);
    // Why it matters and the fix, for the variable concerned.
    CHECK(has(ws, "first fault can be on exactly"));
    CHECK(has(ws, "set it for every rank"));
    CHECK(has(ws, "NCCL_DEBUG_FILE=nccl.%h.%p.log"));
  }
}

TEST_CASE("shell: healthy NCCL_DEBUG settings are not flagged", "[fix][rank_lint]") {
  const std::string sh = "#!/bin/bash\n";
  std::vector<std::pair<const char*, std::string>> healthy = {
      {"unconditional", sh + "export NCCL_DEBUG=WARN\nsrun python t.py\n"},
      {"unconditional, a rank raises the level",
       sh + "export NCCL_DEBUG=WARN\nif [ \"$RANK\" = 0 ]; then export NCCL_DEBUG=INFO; fi\n"},
      {"unconditional after the rank condition",
       sh + "[ \"$RANK\" = 0 ] && export NCCL_DEBUG=INFO\nexport NCCL_DEBUG=${NCCL_DEBUG:-WARN}\n"},
      {"set in the else branch too",
       sh + "if [ \"$SLURM_NODEID\" = 0 ]; then\n  export NCCL_DEBUG=INFO\nelse\n  export "
            "NCCL_DEBUG=WARN\nfi\n"},
      {"set in every branch of an elif chain with an else",
       sh + "if [ $RANK = 0 ]; then NCCL_DEBUG=INFO\nelif [ $RANK = 1 ]; then NCCL_DEBUG=WARN\n"
            "else NCCL_DEBUG=WARN; fi\n"},
      {"&& and || both set it",
       sh + "[ $RANK = 0 ] && export NCCL_DEBUG=INFO || export NCCL_DEBUG=WARN\n"},
      {"case with a default that sets it",
       sh + "case $SLURM_NODEID in\n  0) export NCCL_DEBUG=INFO ;;\n  *) export NCCL_DEBUG=WARN "
            ";;\nesac\n"},
      {"a condition unrelated to rank or node",
       sh + "if [ -n \"$DEBUG\" ]; then\n  export NCCL_DEBUG=INFO\nfi\n[ -n \"$V\" ] && export "
            "NCCL_DEBUG_SUBSYS=ALL\n"},
      {"a rank condition that sets other variables only",
       sh + "if [ \"$SLURM_PROCID\" = 0 ]; then\n  export WANDB_MODE=online\nfi\nexport "
            "NCCL_DEBUG=WARN\n"},
      {"a rank condition in a heredoc body",
       sh + "cat > run.sh <<'EOF'\nif [ $RANK = 0 ]; then export NCCL_DEBUG=INFO; fi\nEOF\n"},
      {"a subshell that sets it for everyone", sh + "( export NCCL_DEBUG=WARN; srun python t.py "
                                                    ")\n[ $RANK = 0 ] && export NCCL_DEBUG=INFO\n"},
      {"a rank condition in a comment",
       sh + "# if [ $RANK = 0 ]; then export NCCL_DEBUG=INFO; fi\n"},
      {"mpirun MPMD with -genv (every section)",
       sh + "mpirun -genv NCCL_DEBUG INFO -n 1 ./io : -n 4 ./compute\n"},
      {"mpirun MPMD with -x in every section",
       sh + "mpirun -np 1 -x NCCL_DEBUG=INFO ./a : -np 4 -x NCCL_DEBUG=INFO ./b\n"},
  };
  for (const auto& [name, text] : healthy) {
    INFO(name);
    auto ws = lint("job.sh", text);
    CHECK(ws.empty());
    if (!ws.empty()) INFO(ws[0]);
  }
}

TEST_CASE("mpirun MPMD: NCCL_DEBUG passed to some sections only", "[fix][rank_lint]") {
  auto ws = lint("mpmd.sh",
                 "#!/bin/bash\nmpirun -np 1 -host node1 -x NCCL_DEBUG=INFO ./io \\\n  : -np 4 "
                 "-host node2 ./compute \\\n  : -np 4 -host node3 -x NCCL_DEBUG=INFO ./compute\n");
  REQUIRE(ws.size() == 1);
  CHECK(ws[0].rfind("mpmd.sh:2: NCCL_DEBUG is passed to MPMD sections 1, 3 of 3 only (section 2 "
                    "runs without it)",
                    0) == 0);
  CHECK(has(ws, "-x in every section, or -genv once"));
  // Hydra's per-section -env, and a forwarded name without a value.
  ws = lint("mpmd.sh", "mpiexec -n 1 -env NCCL_DEBUG_FILE n.%h.%p ./a : -n 2 ./b\n");
  REQUIRE(ws.size() == 1);
  CHECK(ws[0].rfind(
            "mpmd.sh:1: NCCL_DEBUG_FILE is passed to MPMD section 1 of 2 only (section 2 runs",
            0) == 0);
  ws = lint("mpmd.sh", "mpirun -np 2 ./a : -np 2 -x NCCL_DEBUG ./b\n");
  REQUIRE(ws.size() == 1);
  CHECK(ws[0].rfind("mpmd.sh:1: NCCL_DEBUG is passed to MPMD section 2 of 2 only", 0) == 0);
}

TEST_CASE("python: os.environ NCCL_DEBUG under a rank condition", "[fix][rank_lint]") {
  struct Case {
    const char* name;
    std::string text;
    std::string expect;
  };
  std::vector<Case> cases = {
      {"if rank == 0",
       "import os\nrank = int(os.environ['RANK'])\nif rank == 0:\n    os.environ[\"NCCL_DEBUG\"] "
       "= \"INFO\"\n",
       "train.py:4: NCCL_DEBUG is set only under a condition on rank (line 3)"},
      {"if int(os.environ[\"RANK\"]) == 0, inside main",
       "import os\n\ndef main():\n    if int(os.environ[\"RANK\"]) == 0:\n        # chatty\n\n"
       "        os.environ['NCCL_DEBUG_FILE'] = '/shared/nccl.%h.%p'\n    run()\n",
       "train.py:7: NCCL_DEBUG_FILE is set only under a condition on RANK (line 4)"},
      {"if local_rank == 0 with setdefault, one-line body",
       "import os\nif local_rank == 0: os.environ.setdefault(\"NCCL_DEBUG\", \"INFO\")\n",
       "train.py:2: NCCL_DEBUG is set only under a condition on local_rank (line 2)"},
      {"dist.get_rank() with an else that sets something else",
       "if dist.get_rank() == 0:\n    os.environ.update(NCCL_DEBUG=\"INFO\")\nelse:\n    x = 1\n",
       "train.py:2: NCCL_DEBUG is set only under a condition on get_rank (line 1)"},
  };
  for (const auto& c : cases) {
    INFO(c.name);
    auto ws = lint("train.py", c.text);
    REQUIRE(ws.size() == 1);
    INFO(ws[0]);
    CHECK(ws[0].rfind(c.expect, 0) == 0);
    CHECK(has(ws, "set it for every rank"));
  }
  std::vector<std::pair<const char*, std::string>> healthy = {
      {"unconditional", "import os\nos.environ[\"NCCL_DEBUG\"] = \"WARN\"\n"},
      {"inside __main__",
       "if __name__ == \"__main__\":\n    os.environ[\"NCCL_DEBUG\"] = \"WARN\"\n"},
      {"else sets it too",
       "if rank == 0:\n    os.environ[\"NCCL_DEBUG\"] = \"INFO\"\nelse:\n    "
       "os.environ[\"NCCL_DEBUG\"] = \"WARN\"\n"},
      {"ternary", "os.environ[\"NCCL_DEBUG\"] = \"INFO\" if rank == 0 else \"WARN\"\n"},
      {"unrelated condition", "if args.debug:\n    os.environ[\"NCCL_DEBUG\"] = \"INFO\"\n"},
      {"rank condition sets other variables",
       "if rank == 0:\n    os.environ[\"WANDB_MODE\"] = \"online\"\nos.environ[\"NCCL_DEBUG\"] = "
       "\"WARN\"\n"},
      {"block closed before the set",
       "if rank == 0:\n    print('hi')\nos.environ[\"NCCL_DEBUG\"] = \"WARN\"\n"},
      {"a comparison, not a set",
       "if rank == 0 and os.environ[\"NCCL_DEBUG\"] == \"INFO\":\n    pass\n"},
      {"in a docstring",
       "\"\"\"Example:\n\nif rank == 0:\n    os.environ['NCCL_DEBUG'] = 'INFO'\n\"\"\"\n"},
  };
  for (const auto& [name, text] : healthy) {
    INFO(name);
    auto ws = lint("train.py", text);
    CHECK(ws.empty());
  }
}

TEST_CASE("the capture lint includes the rank-scoped NCCL_DEBUG warning", "[fix][rank_lint]") {
  auto ws = ff::fix::capture_settings_lint(
      {{"job.sbatch", "#!/bin/bash\nif [ $SLURM_NODEID = 0 ]; then export NCCL_DEBUG=INFO; fi\n"},
       {"other.yml", "services:\n  a:\n    image: x\n"}});
  REQUIRE(ws.size() == 1);
  CHECK(ws[0].rfind("job.sbatch:2: NCCL_DEBUG is set only under", 0) == 0);
}

TEST_CASE("rank-scoped NCCL_DEBUG lint: hostile input stays fast and bounded", "[fix][rank_lint]") {
  using clock = std::chrono::steady_clock;
  auto t0 = clock::now();
  // Deep nesting: capped, still finds nothing wrong or a bounded number of warnings.
  std::string deep = "#!/bin/sh\n";
  for (int i = 0; i < 5000; ++i) deep += "if [ $RANK = " + std::to_string(i) + " ]; then\n";
  deep += "export NCCL_DEBUG=INFO\n";
  for (int i = 0; i < 5000; ++i) deep += "fi\n";
  CHECK(lint("deep.sh", deep).size() <= 16);
  // Many warnings: at most 16 per file.
  std::string many = "#!/bin/sh\n";
  for (int i = 0; i < 1000; ++i) many += "[ $RANK = 0 ] && export NCCL_DEBUG=INFO\n";
  CHECK(lint("many.sh", many).size() <= 16);
  // Unterminated quotes, $( and heredocs, and binary bytes: no crash.
  std::string bin(200000, '\0');
  for (std::size_t i = 0; i < bin.size(); ++i) bin[i] = static_cast<char>((i * 7919) % 256);
  (void)lint("bin.sh", bin);
  (void)lint("bin.py", bin);
  (void)lint("q.sh", "#!/bin/sh\nif [ \"$RANK = 0 ]; then export NCCL_DEBUG=INFO\n$(( <<\n");
  (void)lint("q.py", "if rank == 0:\n\t os.environ['NCCL_DEBUG' = (\"\"\"\n");
  // A large ordinary script: linear.
  std::string big = "#!/bin/bash\n";
  while (big.size() < 8u << 20)
    big += "if [ \"$SLURM_NODEID\" = 0 ]; then export A=1; else export B=2; fi\n";
  CHECK(lint("big.sh", big).empty());
  // A guard against a blow-up, not a speed measurement (bench/ does those): the whole case
  // takes under a second optimised and about 6 s under ASan, alone; a quadratic walk of the
  // 8 MB script would take hours. Loaded sanitizer runs took 13 s, over the 10 s once here.
  CHECK(std::chrono::duration<double>(clock::now() - t0).count() < 120.0);
}

// The scope the fix engine reads (debug_setting_scope): the same scan as the warnings.
TEST_CASE("debug_setting_scope: every rank, some ranks, not at all", "[fix][rank_lint]") {
  using ff::fix::debug_setting_scope;
  using ff::fix::SettingScope;
  auto scope = [](const std::string& path, const std::string& text, const char* var) {
    return debug_setting_scope(LaunchFile{path, text}, var);
  };
  const std::string node0 =
      "#!/bin/bash\nif [ \"$SLURM_NODEID\" = 0 ]; then\n  export NCCL_DEBUG=INFO\nfi\n"
      "torchrun train.py\n";
  CHECK(scope("a.sh", node0, "NCCL_DEBUG") == SettingScope::kSomeRanks);
  CHECK(scope("a.sh", node0, "NCCL_DEBUG_FILE") == SettingScope::kNotSet);
  // Set where every rank runs it as well: every rank (the lint is quiet about it too).
  CHECK(scope("a.sh", node0 + "export NCCL_DEBUG=WARN\n", "NCCL_DEBUG") ==
        SettingScope::kEveryRank);
  // A condition on something other than who the process is.
  CHECK(scope("a.sh", "if [ -n \"$DBG\" ]; then export NCCL_DEBUG=INFO; fi\n", "NCCL_DEBUG") ==
        SettingScope::kEveryRank);
  CHECK(scope("a.sh", "NCCL_DEBUG=INFO torchrun train.py\n", "NCCL_DEBUG") ==
        SettingScope::kEveryRank);
  // An MPMD section without it is some ranks, though the line sets it at the top level.
  CHECK(scope("m.sh", "mpirun -np 1 -x NCCL_DEBUG=INFO ./a : -np 7 ./b\n", "NCCL_DEBUG") ==
        SettingScope::kSomeRanks);
  CHECK(scope("m.sh", "mpiexec -genv NCCL_DEBUG INFO -n 1 ./a : -n 7 ./b\n", "NCCL_DEBUG") ==
        SettingScope::kEveryRank);
  CHECK(scope("e.py",
              "import os\nif int(os.environ['RANK']) == 0:\n"
              "    os.environ['NCCL_DEBUG'] = 'INFO'\n",
              "NCCL_DEBUG") == SettingScope::kSomeRanks);
  CHECK(scope("e.py", "import os\nos.environ.setdefault('NCCL_DEBUG', 'WARN')\n", "NCCL_DEBUG") ==
        SettingScope::kEveryRank);
  // Compose and pod specs are every container's environment.
  CHECK(scope("c.yml", "services:\n  t:\n    environment:\n      - NCCL_DEBUG=INFO\n",
              "NCCL_DEBUG") == SettingScope::kEveryRank);
  CHECK(scope("c.yml", "services:\n  t:\n    environment:\n      - NCCL_DEBUG_FILE=x\n",
              "NCCL_DEBUG") == SettingScope::kNotSet);
  CHECK(scope("a.sh", node0, "PATH") == SettingScope::kNotSet);
}
