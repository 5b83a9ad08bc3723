#include "cli/scan_inputs.hpp"

#include <algorithm>

#include "analysis/paste.hpp"
#include "cli/file_span.hpp"

namespace ff::cli {

ScannedJob scan_job(const analysis::Catalog& catalog, const std::vector<InputFile>& inputs,
                    std::vector<SummaryInput> summaries, const ScanOptions& options) {
  std::stable_sort(
      summaries.begin(), summaries.end(),
      [](const SummaryInput& a, const SummaryInput& b) { return a.logs_before < b.logs_before; });
  ScannedJob job;
  job.state.reset(catalog);
  // The logs between two summaries are scanned together (on every core), then the summary
  // is appended: each rule keeps its first events in input order, as in one scan of all.
  std::size_t next_log = 0;
  auto scan_logs = [&](std::size_t until) {
    if (until <= next_log) return;
    std::vector<parallel::ScanSource> sources(until - next_log);
    for (std::size_t k = 0; k < sources.size(); ++k) {
      const InputFile& in = inputs[next_log + k];
      sources[k].file = job.files.size() + k;
      sources[k].strategy = options.strategy;
      // Pasted text is read as it was before it was quoted, indented or wrapped; the
      // repaired copy is in memory, so none of the file's paging hooks apply to it.
      if (auto repaired = analysis::depaste(in.text())) {
        sources[k].text = job.repaired.emplace_back(std::move(*repaired));
        continue;
      }
      sources[k].text = in.text();
      sources[k].prefetch = [&in](std::size_t b, std::size_t e) { in.prefetch(b, e); };
      sources[k].release = [&in](std::size_t b, std::size_t e) { in.release(b, e); };
      if (in.readable())
        sources[k].read = [&in](std::size_t at, char* buffer, std::size_t len) {
          return in.read(at, buffer, len);
        };
    }
    auto lines = parallel::scan(catalog, sources, job.state, options.pieces);
    for (std::size_t k = 0; k < sources.size(); ++k) {
      job.files.push_back(
          {inputs[next_log + k].name(), lines[k], inputs[next_log + k].text().size()});
      job.texts.push_back(inputs[next_log + k].text());
      job.scanned.push_back(sources[k].text);
      if (options.file_spans) find_time_span(inputs[next_log + k].text(), job.files.back());
    }
    if (options.file_spans)
      find_sole_sources(job.state, job.files, job.files.size() - sources.size(), job.files.size());
    next_log = until;
  };
  for (auto& s : summaries) {
    scan_logs(std::min(s.logs_before, inputs.size()));
    const std::size_t first_file = job.files.size();
    for (auto& e : s.summary.state.events) e.file += first_file;
    analysis::append_scan(job.state, std::move(s.summary.state), 0);
    for (auto& f : s.summary.files) {
      job.files.push_back(std::move(f));
      job.texts.emplace_back();
      job.scanned.emplace_back();
    }
  }
  scan_logs(inputs.size());
  return job;
}

analysis::Analysis analyze_inputs(const analysis::Catalog& catalog,
                                  const std::vector<InputFile>& inputs,
                                  const ScanOptions& options) {
  ScannedJob job = scan_job(catalog, inputs, {}, options);
  return analysis::diagnose(catalog, std::move(job.files), std::move(job.state));
}

}  // namespace ff::cli
