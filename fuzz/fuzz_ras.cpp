// libFuzzer: the NCCL RAS reader (ncclras text report, -f json, monitor events in text and
// JSON). Any bytes give a report or an error with a line; never a crash, a loop or a leak.
// The report is also rendered, and its conclusions written into its text, as `analyze` does.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <variant>

#include "evidence/ras_lines.hpp"
#include "evidence/ras_report.hpp"
#include "jsonio/document_text.hpp"
#include "report/report.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)ff::evidence::looks_like_ras(text);
  auto parsed = ff::evidence::parse_ras(text);
  if (auto* r = std::get_if<ff::evidence::RasReport>(&parsed)) {
    // The conclusions as lines, written over the report's text as `analyze` reads it.
    (void)ff::evidence::ras_analysis_text(text, ff::evidence::render_ras(*r));
    std::vector<ff::report::RasInput> in{{"fuzz", std::move(*r)}};
    (void)ff::jsonio::document_text(ff::report::ras_json(in));  // as `analyze --format json`
    (void)ff::report::ras_text(in, false);
  } else if (std::get<ff::evidence::RasParseError>(parsed).line == 0) {
    __builtin_trap();  // errors always name a line
  }
  return 0;
}
