#include "cli/scan_inputs.hpp"

#include <algorithm>
#include <atomic>
#include <thread>

#include "analysis/scan.hpp"

namespace ff::cli {

namespace {

// Scans one input window by window; windows end at a line end so no line is cut.
std::size_t scan_file(const analysis::Catalog& catalog, std::size_t index, const InputFile& in,
                      analysis::ScanState& state, const ScanOptions& options) {
  std::string_view text = in.text();
  std::size_t before = state.lines;
  std::size_t pos = 0;
  std::size_t line = 0;
  // Decide the strategy for the whole file once: a big file goes through the prefilter in
  // every window, a small one line by line.
  analysis::ScanStrategy strategy = options.strategy;
  if (strategy == analysis::ScanStrategy::kAuto && text.size() >= analysis::kPrefilterMinBytes)
    strategy = analysis::ScanStrategy::kPrefilter;
  do {
    std::size_t end = std::min(text.size(), pos + options.window);
    if (end < text.size()) {
      std::size_t nl = text.find('\n', end);
      end = nl == std::string_view::npos ? text.size() : nl + 1;
    }
    std::size_t lines_before = state.lines;
    analysis::scan_text(catalog, index, text, pos, line, state, end, strategy);
    line += state.lines - lines_before;
    // Keep one window behind for the block lookback of the next window's first lines.
    if (pos > options.window) in.release_before(pos - options.window);
    pos = end;
  } while (pos < text.size());
  return state.lines - before;
}

}  // namespace

analysis::Analysis analyze_inputs(const analysis::Catalog& catalog,
                                  const std::vector<InputFile>& inputs, const ScanOptions& options) {
  std::vector<analysis::FileSummary> files(inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i)
    files[i] = {inputs[i].name(), 0, inputs[i].text().size()};
  unsigned threads = options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency());
  threads = static_cast<unsigned>(std::min<std::size_t>(threads, inputs.size()));
  if (threads <= 1) {
    analysis::ScanState state;
    state.reset(catalog);
    for (std::size_t i = 0; i < inputs.size(); ++i)
      files[i].lines = scan_file(catalog, i, inputs[i], state, options);
    return analysis::diagnose(catalog, std::move(files), std::move(state));
  }
  // Work stealing by file: the next thread free takes the next file.
  std::vector<analysis::ScanState> states(threads);
  std::atomic<std::size_t> next{0};
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) {
    states[t].reset(catalog);
    pool.emplace_back([&, t] {
      for (std::size_t i; (i = next.fetch_add(1)) < inputs.size();)
        files[i].lines = scan_file(catalog, i, inputs[i], states[t], options);
    });
  }
  for (auto& th : pool) th.join();
  analysis::ScanState merged = std::move(states[0]);
  for (unsigned t = 1; t < threads; ++t) analysis::merge_scan(merged, std::move(states[t]));
  // Deterministic order whatever the scheduling: by file, then line.
  std::stable_sort(merged.events.begin(), merged.events.end(),
                   [](const analysis::Event& a, const analysis::Event& b) {
                     return a.file != b.file ? a.file < b.file : a.line < b.line;
                   });
  return analysis::diagnose(catalog, std::move(files), std::move(merged));
}

}  // namespace ff::cli
