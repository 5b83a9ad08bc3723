// Scanning the CLI's inputs: every file is cut into windows at line ends, the windows are
// shared out to one thread per core (so one big file uses every core, and so do many small
// ones), each is scanned on its own and appended to the job in input order, and the pages
// of a window are released once it is scanned, so resident memory stays bounded whatever
// the size of the file. Summaries (report/summary.hpp) given among the inputs are appended
// in their place, as the scans of the files they summarise.
#pragma once

#include <deque>
#include <string>
#include <vector>

#include "analysis/diagnosis.hpp"
#include "cli/input_files.hpp"
#include "parallel/parallel_scan.hpp"
#include "report/summary.hpp"

namespace ff::cli {

struct ScanOptions {
  parallel::ScanOptions pieces;  // threads, and the most bytes of a unit of work
  analysis::ScanStrategy strategy = analysis::ScanStrategy::kAuto;
  // Each scanned file's time span and sole rank and host (cli/file_span.hpp), which only a
  // summary writes: bounded work per file, skipped otherwise.
  bool file_spans = false;
};

// A summary among the inputs: it comes after the first `logs_before` logs.
struct SummaryInput {
  std::size_t logs_before = 0;
  report::Summary summary;
};

// The scan of a whole job, before the diagnosis: the files in input order and their scan.
struct ScannedJob {
  std::vector<analysis::FileSummary> files;
  analysis::ScanState state;
  // Each file's text, for reports that quote raw lines; a summarised file has none (null).
  std::vector<std::string_view> texts;
  // The text each file was scanned as (its repaired copy when it was pasted), for what reads
  // the lines again after the scan (analysis/progress.hpp); null for a summarised file.
  std::vector<std::string_view> scanned;
  // The texts scanned instead of pasted inputs (analysis/paste.hpp): kept while the
  // events' places are reported.
  std::deque<std::string> repaired;
};

ScannedJob scan_job(const analysis::Catalog& catalog, const std::vector<InputFile>& inputs,
                    std::vector<SummaryInput> summaries, const ScanOptions& options);

analysis::Analysis analyze_inputs(const analysis::Catalog& catalog,
                                  const std::vector<InputFile>& inputs, const ScanOptions& options);

}  // namespace ff::cli
