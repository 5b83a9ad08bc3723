// Scanning the CLI's inputs: every file is cut into windows at line ends, the windows are
// shared out to one thread per core (so one big file uses every core, and so do many small
// ones), each is scanned on its own and appended to the job in input order, and the pages
// of a window are released once it is scanned, so resident memory stays bounded whatever
// the size of the file.
#pragma once

#include <vector>

#include "analysis/diagnosis.hpp"
#include "cli/input_files.hpp"
#include "parallel/parallel_scan.hpp"

namespace ff::cli {

struct ScanOptions {
  parallel::ScanOptions pieces;  // threads, and the most bytes of a unit of work
  analysis::ScanStrategy strategy = analysis::ScanStrategy::kAuto;
};

analysis::Analysis analyze_inputs(const analysis::Catalog& catalog,
                                  const std::vector<InputFile>& inputs, const ScanOptions& options);

}  // namespace ff::cli
