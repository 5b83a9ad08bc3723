// The one Markdown renderer (report/markdown_report.hpp): the reports the language server
// sends for a text and for a job, and a rule's section.
#include "report/markdown_report.hpp"

#include <catch2/catch.hpp>
#include <span>

#include "analysis/analyze.hpp"
#include "builtin_catalog.hpp"
#include "report/report.hpp"

using namespace ff;

namespace {

analysis::Analysis analyse(std::string_view text) {
  analysis::LogInput in{"/j/train.log", text};
  return analysis::analyze(test::builtin_catalog(), std::span<const analysis::LogInput>(&in, 1));
}

}  // namespace

TEST_CASE("markdown report: a text's report names its root cause and quotes the text", "[report]") {
  const auto& catalog = test::builtin_catalog();
  auto a = analyse("RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB\n");
  REQUIRE_FALSE(a.diagnoses.empty());
  std::string md = report::text_report_markdown(catalog, a, "firstfault: `cmd`", "a\n```\nb");
  CHECK(md.rfind("# firstfault: `cmd`\n\n**Root cause:** ", 0) == 0);
  CHECK(md.find("(`gpu-oom`)") != std::string::npos);
  // The text's own fence cannot end the block; the block is closed on its own line.
  CHECK(md.find("```text\na\n``\u200b`\nb\n```\n") != std::string::npos);

  auto none = analyse("all good\n");
  std::string quiet = report::text_report_markdown(catalog, none, "firstfault: x", "all good\n");
  CHECK(quiet == "# firstfault: x\n\nNo failure found in the text.\n\n```text\nall good\n```\n");
}

TEST_CASE("markdown report: a job's report and a rule's section", "[report]") {
  const auto& catalog = test::builtin_catalog();
  auto a = analyse("RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB\n");
  report::ChecksSeen seen;
  report::JobReport job{a, seen, {"rank0.log", "rank1.log"}, 1, ""};
  std::string md = report::job_report_markdown(catalog, job);
  CHECK(md.rfind("# firstfault report: rank1.log\n\nCorrelated with 1 other open log(s): "
                 "`rank0.log`\n",
                 0) == 0);
  CHECK(md.find("## Root cause: ") != std::string::npos);
  CHECK(md.find("- initiating line: `rank0.log:1`") != std::string::npos);
  CHECK(md.find("## Verdict") != std::string::npos);
  CHECK(md.find("[Catalog entry](docs/catalog.md#") != std::string::npos);

  auto none = analyse("all good\n");
  report::JobReport quiet{none, seen, {"a.log"}, 0, "file:///docs"};
  CHECK(report::job_report_markdown(catalog, quiet) ==
        "# firstfault report: a.log\n\nNo failure found.\n");

  const analysis::Rule* rule = catalog.find(catalog.rules()[a.diagnoses[0].rule].id);
  REQUIRE(rule);
  std::size_t r = a.diagnoses[0].rule;
  std::string section = report::rule_markdown(catalog, r, nullptr, "initiating", "file:///d");
  CHECK(section.rfind("### " + rule->title + "\n\n`" + rule->id + "` · category `", 0) == 0);
  CHECK(section.find(" · initiating\n") != std::string::npos);
  CHECK(section.find("- [x]") == std::string::npos);  // nothing seen without checks_seen
  CHECK(section.find("(file:///d/catalog.md#" + rule->id + ")") != std::string::npos);
  CHECK(report::percent(0.904) == "90%");
}
