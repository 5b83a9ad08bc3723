// libFuzzer: the summary reader (report/summary.hpp, `analyze --summary` output read back
// as an input). Any bytes give a summary or an error with a place; never a crash, a loop or
// a leak. A summary that reads is merged into a job beside a second copy of itself (as the
// CLI appends several nodes' summaries), diagnosed and rendered, and written again: what
// the writer writes, the reader must read.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "analysis/diagnosis.hpp"
#include "report/report.hpp"
#include "report/summary.hpp"
#include "rules/rule_loader.hpp"
#include "fuzz_catalog.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const ff::analysis::Catalog& catalog = ff::fuzz::builtin_catalog();
  std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)ff::report::looks_like_summary(text);
  auto parsed = ff::report::read_summary(catalog, text);
  if (std::holds_alternative<ff::report::SummaryError>(parsed)) return 0;
  auto& s = std::get<ff::report::Summary>(parsed);

  ff::analysis::ScanState job;
  job.reset(catalog);
  std::vector<ff::analysis::FileSummary> files;
  for (int copy = 0; copy < 2; ++copy) {
    ff::analysis::ScanState piece = s.state;
    for (auto& e : piece.events) e.file += files.size();
    ff::analysis::append_scan(job, std::move(piece), 0);
    files.insert(files.end(), s.files.begin(), s.files.end());
  }
  std::string again = ff::report::write_summary(catalog, files, job, s.machine);
  if (!std::holds_alternative<ff::report::Summary>(ff::report::read_summary(catalog, again)))
    __builtin_trap();  // the writer's output must read back
  auto a = ff::analysis::diagnose(catalog, std::move(files), std::move(job));
  (void)ff::report::to_json(catalog, a)
      .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  (void)ff::report::to_text(catalog, a, {});
  (void)ff::report::to_sarif(catalog, a);
  return 0;
}
