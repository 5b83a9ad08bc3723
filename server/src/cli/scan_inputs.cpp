#include "cli/scan_inputs.hpp"

namespace ff::cli {

analysis::Analysis analyze_inputs(const analysis::Catalog& catalog,
                                  const std::vector<InputFile>& inputs,
                                  const ScanOptions& options) {
  std::vector<parallel::ScanSource> sources(inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const InputFile& in = inputs[i];
    sources[i].text = in.text();
    sources[i].file = i;
    sources[i].strategy = options.strategy;
    sources[i].prefetch = [&in](std::size_t b, std::size_t e) { in.prefetch(b, e); };
    sources[i].release = [&in](std::size_t b, std::size_t e) { in.release(b, e); };
  }
  analysis::ScanState job;
  job.reset(catalog);
  auto lines = parallel::scan(catalog, sources, job, options.pieces);
  std::vector<analysis::FileSummary> files(inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i)
    files[i] = {inputs[i].name(), lines[i], inputs[i].text().size()};
  return analysis::diagnose(catalog, std::move(files), std::move(job));
}

}  // namespace ff::cli
