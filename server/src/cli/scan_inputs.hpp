// Scanning the CLI's inputs: files are shared out to one thread per core, each big file is
// scanned in windows so that resident memory stays bounded whatever its size, and the
// per-thread results are merged into one job before the diagnosis.
#pragma once

#include <vector>

#include "analysis/diagnosis.hpp"
#include "cli/input_files.hpp"

namespace ff::cli {

struct ScanOptions {
  unsigned threads = 0;                      // 0: one per core
  std::size_t window = std::size_t{16} << 20;  // bytes scanned between releases of memory
  analysis::ScanStrategy strategy = analysis::ScanStrategy::kAuto;
};

analysis::Analysis analyze_inputs(const analysis::Catalog& catalog,
                                  const std::vector<InputFile>& inputs, const ScanOptions& options);

}  // namespace ff::cli
