// The language server's DiskFileReader (lsp/disk_file_reader.hpp) over the CLI's inputs:
// the file is memory-mapped and checked as `firstfault analyze` maps and checks it.
#pragma once

#include <memory>

#include "lsp/disk_file_reader.hpp"

namespace ff::cli {

std::shared_ptr<lsp::DiskFileReader> make_lsp_disk_reader();

}  // namespace ff::cli
