// Known bugs of a stated release (rule.hpp, KnownBug): release ranges compare numerically; a
// buggy release is a hypothesis only when the job failed in a way the bug produces, the lead
// only when that failure's own evidence is generic; the banner's `agree` comparison is kept;
// malformed entries are refused naming the file and the field.
#include "analysis/known_bugs.hpp"

#include <catch2/catch.hpp>

#include "builtin_catalog.hpp"
#include "diagnosis_test_util.hpp"
#include "rules/rule_loader.hpp"

using namespace ff;
using namespace ff::analysis;
using namespace ff::test;

namespace {

KnownBug bug(std::string id, std::string from, std::string fixed,
             std::vector<std::string> explains) {
  KnownBug b;
  b.id = std::move(id);
  b.from = std::move(from);
  b.fixed = std::move(fixed);
  b.category = "version";
  b.explains = std::move(explains);
  b.summary = "summary of " + b.id;
  b.fix = "upgrade";
  b.sources = {"NVIDIA/nccl release notes"};
  return b;
}

// A banner rule as the shipped one: benign context, every release the same across the job, and
// two bugs: a crash in 2.20.x before 2.20.5, a hang from 2.19.1 to before 2.20.3.
Catalog bug_catalog() {
  Rule banner = make("banner", "none", Role::kContext, 0.1,
                     R"(NCCL version (?P<version>\d+\.\d+\.\d+)(?:\+cuda(?P<cuda>[\d.]+))?)");
  banner.benign = true;
  banner.agree = Agreement{"version", "", "version", 0.8};
  banner.known_bugs = {bug("crash-bug", "2.20.3", "2.20.5", {"process-crash"}),
                       bug("hang-bug", "2.19.1", "2.20.3", {"straggler"})};
  return catalog({banner, make("err", "process-crash", Role::kFallback, 0.2, "ERROR"),
                  make("segv", "process-crash", Role::kCause, 0.7, "Segmentation fault"),
                  make("timeout", "straggler", Role::kSymptom, 0.6, "Watchdog caught"),
                  make("oom", "gpu-oom", Role::kCause, 0.9, "CUDA out of memory")});
}

const KnownBug* top_bug(const Catalog& c, const Analysis& a) {
  REQUIRE_FALSE(a.diagnoses.empty());
  return known_bug_of(c.rules(), a.diagnoses.front());
}

}  // namespace

TEST_CASE("known bugs: releases compare numerically, component by component", "[known-bugs]") {
  struct Case {
    std::string a, b;
    int order;
  };
  for (const Case& c : std::vector<Case>{{"2.9.9", "2.19.1", -1},
                                         {"2.19.10", "2.19.9", 1},
                                         {"2.20", "2.20.0", 0},
                                         {"2.18.3", "2.18.3", 0},
                                         {"3.0.0", "2.30.7", 1}}) {
    INFO(c.a << " vs " << c.b);
    auto a = parse_release(c.a), b = parse_release(c.b);
    REQUIRE(a);
    REQUIRE(b);
    CHECK(compare_releases(*a, *b) == c.order);
  }
  for (std::string bad : {"", "2.x.1", "2..3", "2.19.3-1", "v2.19", "2.19.", "1.2.3.4.5", "-1.2"}) {
    INFO(bad);
    CHECK_FALSE(parse_release(bad));
  }
}

TEST_CASE("known bugs: a release is affected from `from` up to, not including, `fixed`",
          "[known-bugs]") {
  const KnownBug ranged = bug("b", "2.19.1", "2.20.3", {"straggler"});
  const KnownBug open = bug("o", "2.28.3", "", {"cuda"});
  struct Case {
    const KnownBug* bug;
    std::string release;
    bool affected;
  };
  for (const Case& c : std::vector<Case>{{&ranged, "2.19.1", true},
                                         {&ranged, "2.19.4", true},
                                         {&ranged, "2.20.3", false},
                                         {&ranged, "2.18.6", false},
                                         {&ranged, "2.9.1", false},
                                         {&ranged, "garbage", false},
                                         {&open, "2.28.3", true},
                                         {&open, "2.30.7", true},
                                         {&open, "2.27.7", false}}) {
    INFO(c.bug->id << " " << c.release);
    CHECK(affects(*c.bug, c.release) == c.affected);
  }
}

TEST_CASE("known bugs: a healthy log is never alarmed by a buggy release", "[known-bugs]") {
  auto c = bug_catalog();
  const std::string log =
      "node1:11:11 [0] NCCL INFO NCCL version 2.20.3+cuda12.3\n"
      "node1:11:11 [0] NCCL INFO Init COMPLETE\n";
  check_silent(c, log);
  CHECK_FALSE(run(c, log).unexplained);
}

TEST_CASE("known bugs: under a generic failure the bug it produces leads", "[known-bugs]") {
  auto c = bug_catalog();
  struct Case {
    std::string release;
    std::string failure;  // the log's failure evidence
    JobOutcome outcome;
    std::string category;  // the top diagnosis
    std::string bug_id;    // empty: no known bug leads
  };
  const JobOutcome none{}, failed{JobEnd::kFailed, std::nullopt}, hung{JobEnd::kHung, std::nullopt};
  const std::vector<Case> cases = {
      // An error line no rule names, a crash no frame places: the crash bug of 2.20.3 leads.
      {"2.20.3", "ERROR: rank 1 exited\n", none, "version", "crash-bug"},
      {"2.20.4", "Segmentation fault (core dumped)\n", none, "version", "crash-bug"},
      // The fixed release, an older one: the failure's own line.
      {"2.20.5", "ERROR: rank 1 exited\n", none, "process-crash", ""},
      {"2.18.6", "Segmentation fault (core dumped)\n", none, "process-crash", ""},
      // A hang: the watchdog's timeout, or nothing but the outcome.
      {"2.19.3", "[Rank 1] Watchdog caught collective operation timeout\n", none, "version",
       "hang-bug"},
      {"2.19.3", "", hung, "version", "hang-bug"},
      // An exit status that decodes to a crash is a crash; a plain "failed" says no kind.
      {"2.20.3", "", JobOutcome{JobEnd::kUnknown, 139}, "version", "crash-bug"},
      // The hang bug does not produce a crash, nor the crash bug a hang.
      {"2.19.3", "ERROR: rank 1 exited\n", none, "process-crash", ""},
      {"2.20.3", "[Rank 1] Watchdog caught collective operation timeout\n", none, "straggler", ""},
      // A specific cause leads whatever the release.
      {"2.20.3", "RuntimeError: CUDA out of memory. Tried to allocate 2 GiB\n", failed, "gpu-oom",
       ""},
  };
  for (const auto& k : cases) {
    INFO(k.release << " / " << k.failure);
    auto a =
        run(c, "node1:11:11 [0] NCCL INFO NCCL version " + k.release + "+cuda12.3\n" + k.failure,
            k.outcome);
    REQUIRE_FALSE(a.diagnoses.empty());
    CHECK(a.diagnoses.front().category == k.category);
    const KnownBug* b = top_bug(c, a);
    CHECK((b ? b->id : std::string()) == k.bug_id);
    if (!b) continue;
    CHECK(initiating(a).line == 0);
    CHECK_THAT(a.diagnoses.front().headline,
               Catch::Contains(k.release) && Catch::Contains(b->summary));
    CHECK_THAT(a.diagnoses.front().reasoning, Catch::Contains(b->id));
    if (!k.failure.empty()) CHECK(a.diagnoses.size() >= 2);  // the failure's lines stay one
  }
}

TEST_CASE("known bugs: a failure of no stated kind is no bug's", "[known-bugs]") {
  auto c = bug_catalog();
  auto a = run(c, "NCCL version 2.20.3+cuda12.3\n", {JobEnd::kFailed, std::nullopt});
  CHECK(a.diagnoses.empty());
  CHECK(a.unexplained);
}

TEST_CASE("known bugs: a specific cause the bug can produce leads, the bug is listed below it",
          "[known-bugs]") {
  Rule banner = make("banner", "none", Role::kContext, 0.1, R"(NCCL version (?P<version>[\d.]+))");
  banner.known_bugs = {bug("oom-bug", "2.20.3", "2.20.5", {"gpu-oom"})};
  auto c = catalog({banner, make("oom", "gpu-oom", Role::kCause, 0.9, "CUDA out of memory")});
  auto a = run(c, "NCCL version 2.20.3\nRuntimeError: CUDA out of memory.\n");
  REQUIRE(a.diagnoses.size() == 2);
  CHECK(a.diagnoses[0].category == "gpu-oom");
  CHECK(a.diagnoses[1].category == "version");
  CHECK(known_bug_of(c.rules(), a.diagnoses[1]) != nullptr);
  CHECK(a.diagnoses[1].confidence < a.diagnoses[0].confidence);
}

TEST_CASE("known bugs: two releases in one job are still a disagreement", "[known-bugs]") {
  auto c = bug_catalog();
  const std::string log =
      "node1:11:11 [0] NCCL INFO NCCL version 2.20.3+cuda12.3\n"
      "node1:12:12 [1] NCCL INFO NCCL version 2.20.3+cuda12.3\n"
      "node2:21:21 [0] NCCL INFO NCCL version 2.18.6+cuda12.1\n"
      "ERROR: rank 2 exited\n";
  auto a = check_first(c, log, "version", 2);  // led by the rarer release
  CHECK_FALSE(a.diagnoses.front().known_bug);
  CHECK_THAT(a.diagnoses.front().reasoning, Catch::Contains("must be the same"));
}

TEST_CASE("known bugs: malformed entries name the file and the field", "[known-bugs][rules]") {
  const std::string head = R"json({
  "id": "banner", "category": "none", "title": "t", "role": "context", "weight": 0.1,
  "patterns": ["NCCL version (?P<version>\\d+\\.\\d+\\.\\d+)"], "indicates": "i",
  "examples": {"match": ["NCCL version 2.19.3"]},
  "known_bugs": [)json";
  const std::string good =
      R"({"id": "b", "from": "2.19.1", "fixed": "2.20.3", "category": "version", )"
      R"("explains": ["straggler"], "summary": "s", "fix": "f", "sources": ["NVIDIA/nccl#1"]})";
  auto with = [&](const std::string& from, const std::string& to) {
    std::string s = good;
    auto p = s.find(from);
    REQUIRE(p != std::string::npos);
    return head + s.replace(p, from.size(), to) + "]}";
  };
  struct Case {
    std::string text, expect;
  };
  const std::vector<Case> cases = {
      {with("\"2.19.1\"", "\"2.19.x\""), "field 'known_bugs[0].from': '2.19.x' is not a release"},
      {with("\"2.20.3\"", "\"v2.20.3\""),
       "field 'known_bugs[0].fixed': 'v2.20.3' is not a release"},
      {with("\"2.20.3\"", "\"2.19.1\""), "field 'known_bugs[0].fixed': must be a later release"},
      {with("\"2.20.3\"", "\"2.9.9\""), "field 'known_bugs[0].fixed': must be a later release"},
      {with("\"category\": \"version\"", "\"category\": \"bugs\""),
       "field 'known_bugs[0].category': 'bugs' is not a category"},
      {with("[\"straggler\"]", "[\"hangs\"]"), "field 'known_bugs[0].explains': 'hangs' is not"},
      {with(", \"sources\": [\"NVIDIA/nccl#1\"]", ""),
       "field 'known_bugs[0].sources': is required"},
      {with("[\"NVIDIA/nccl#1\"]", "[]"), "field 'known_bugs[0].sources': must cite"},
      {with("\"fix\": \"f\"", "\"fix\": \"f\", \"url\": \"x\""),
       "field 'known_bugs[0].url': unknown field"},
      {head + good + ", " + good + "]}", "field 'known_bugs[1].id': 'b' twice"},
      {head + "7]}", "field 'known_bugs[0]': must be an object"},
      {[&] {
         std::string s = head + good + "]}";
         return s.replace(s.find("(?P<version>"), 12, "(");
       }(),
       "field 'known_bugs': only a rule whose patterns capture `version`"},
  };
  for (const auto& c : cases) {
    INFO(c.text);
    Rule r;
    std::vector<rules::RuleProblem> ps;
    CHECK_FALSE(rules::parse_rule(c.text, "banner.json", r, ps));
    std::string text;
    for (const auto& p : ps) text += p.to_string() + "\n";
    CHECK_THAT(text, Catch::Contains(c.expect) && Catch::Contains("banner.json"));
  }
  // The good entry loads and survives the JSON writer.
  Rule r;
  std::vector<rules::RuleProblem> ps;
  REQUIRE(rules::parse_rule(head + good + "]}", "banner.json", r, ps));
  Rule again;
  REQUIRE(rules::parse_rule(rules::rule_to_json(r), "again.json", again, ps));
  REQUIRE(again.known_bugs.size() == 1);
  CHECK(again.known_bugs[0].fixed == "2.20.3");
  CHECK(again.known_bugs[0].sources == r.known_bugs[0].sources);
}

TEST_CASE("known bugs: the shipped NCCL banner knows sourced bugs, and a hang on 2.19 names one",
          "[known-bugs]") {
  const Catalog& c = builtin_catalog();
  const Rule* banner = c.find("nccl-version-banner");
  REQUIRE(banner);
  REQUIRE(banner->known_bugs.size() >= 5);
  for (const auto& b : banner->known_bugs) {
    INFO(b.id);
    CHECK_FALSE(b.sources.empty());
    CHECK(affects(b, b.from));
    if (!b.fixed.empty()) CHECK_FALSE(affects(b, b.fixed));
  }
  const std::string log =
      "trainer-0:5120:5120 [0] NCCL INFO NCCL version 2.19.3+cuda12.2\n"
      "trainer-0:5120:5120 [0] NCCL INFO Init COMPLETE\n";
  CHECK(run(c, log).diagnoses.empty());
  auto a = run(c, log, {JobEnd::kHung, std::nullopt});
  const KnownBug* b = top_bug(c, a);
  REQUIRE(b);
  CHECK(b->id == "nccl-cumem-alltoall-connect-deadlock");
  CHECK(a.diagnoses.front().category == "version");
}
