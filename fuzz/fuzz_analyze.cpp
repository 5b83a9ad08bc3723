// libFuzzer: the log model and the whole analysis (built-in catalog). The input is split at
// the first "\x00\x01" into two files of one job, so cross-file correlation is exercised too.
// It is analysed twice: as a log alone, and as the log of a job known to have hung, which
// reads what only a known failure reads (setup steps, progress counters and stack dumps
// compared across ranks: analysis/progress.hpp, analysis/stacks.hpp).
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "analysis/analyze.hpp"
#include "rules/rule_loader.hpp"
#include "report/mask.hpp"
#include "report/report.hpp"
#include "fuzz_catalog.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const ff::analysis::Catalog& catalog = ff::fuzz::builtin_catalog();
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<ff::analysis::LogInput> inputs;
  auto cut = text.find(std::string_view("\x00\x01", 2));
  if (cut == std::string_view::npos) {
    inputs.push_back({"fuzz.log", text});
  } else {
    inputs.push_back({"rank0.log", text.substr(0, cut)});
    inputs.push_back({"rank1.log", text.substr(cut + 2)});
  }
  auto hung = ff::analysis::analyze(catalog, std::span(inputs),
                                    {ff::analysis::JobEnd::kHung, std::nullopt});
  (void)ff::report::to_text(catalog, hung, {});
  auto a = ff::analysis::analyze(catalog, std::span(inputs));
  // The reports must render whatever the log held (invalid UTF-8 included).
  auto j = ff::report::to_json(catalog, a);
  (void)j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  (void)ff::report::to_text(catalog, a, {});
  if (!a.diagnoses.empty()) {
    auto s = ff::report::to_sarif(catalog, a);
    ff::report::Masker m;
    m.add_hosts_from(a);
    m.mask(s);
    (void)s.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
  return 0;
}
