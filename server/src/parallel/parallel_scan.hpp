// Scanning text on every core. A source (a file for the CLI, a document for the language
// server) is cut into pieces at line ends; the pieces are scanned by one thread per core and
// appended to the job in source order as soon as every earlier piece is done, so the result
// is the one a single sequential scan gives, whatever the number of threads
// (analysis::append_scan). The analysis core stays free of threads: this is the layer that
// owns them, used by the CLI and the language server alike.
#pragma once

#include <cstddef>
#include <functional>
#include <string_view>
#include <vector>

#include "analysis/catalog.hpp"
#include "analysis/scan.hpp"

namespace ff::parallel {

struct ScanSource {
  std::string_view text;  // the whole input (block context may look before `begin`)
  std::size_t file = 0;   // the events' file index
  std::size_t begin = 0;  // scan [begin, end); begin is a line start
  std::size_t end = std::string_view::npos;
  std::size_t first_line = 0;  // the number of the line at `begin`
  analysis::ScanStrategy strategy = analysis::ScanStrategy::kAuto;
  // Optional page hints for memory-mapped inputs: map [b, e) before it is read, drop it
  // once it is no longer needed.
  std::function<void(std::size_t, std::size_t)> prefetch;
  std::function<void(std::size_t, std::size_t)> release;
  // Optional: copies `len` bytes of the input from `offset` into `buffer`, returning how
  // many it copied. Pieces are then scanned from a small buffer read again and again (the
  // first touch of a freshly mapped page of the page cache costs more than copying it with
  // read(): 40 ms against 12 ms per 100 MB here), `text` only read for block context. A
  // short read (the file shrank) makes the piece be scanned from `text` after all.
  std::function<std::size_t(std::size_t offset, char* buffer, std::size_t len)> read;
};

struct ScanOptions {
  unsigned threads = 0;                           // 0: one per core
  std::size_t max_piece = std::size_t{16} << 20;  // bytes per unit of work at most
};

// How a source with `read` is scanned: [begin, end) copied through `read` into `buffer`
// (kReadChunk, 256 KB, at a time; grown only for a line longer than it), and each run of
// whole lines copied handed to `scan` with its offset in the input, the last run ending at
// `end`, so that what is scanned is still in the cache from the copy. Returns false when
// `read` copies less than asked (the input shrank); the runs before were handed over.
bool read_line_runs(const std::function<std::size_t(std::size_t, char*, std::size_t)>& read,
                    std::size_t begin, std::size_t end, std::vector<char>& buffer,
                    const std::function<void(std::size_t offset, std::string_view lines)>& scan);

// Scans every source and appends the result to `into`, in source order (events get line
// numbers from each source's first_line). Returns the number of lines scanned in each.
std::vector<std::size_t> scan(const analysis::Catalog& catalog,
                              const std::vector<ScanSource>& sources, analysis::ScanState& into,
                              const ScanOptions& options);

// Scans [base, end) of one text, whose line at `base` is line `first_line`, into `into`
// (block context may look before `base`): the language server's document scans.
void scan_range(const analysis::Catalog& catalog, std::string_view whole, std::size_t base,
                std::size_t first_line, analysis::ScanState& into, std::size_t end,
                const ScanOptions& options = {});

}  // namespace ff::parallel
