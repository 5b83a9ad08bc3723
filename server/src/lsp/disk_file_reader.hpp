// The seam through which the language server reads a log from disk: a file the editor does
// not synchronize (VS Code hands no document above 50 MB to extensions), analysed for its
// URI and followed as it grows. The CLI installs cli/lsp_disk_reader.cpp, which reads through
// the same memory-mapped inputs as `firstfault analyze` (and refuses what they refuse:
// devices, compressed files, directories); the LSP library does no file I/O of its own.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace ff::lsp {

class DiskFileReader {
 public:
  virtual ~DiskFileReader() = default;
  struct Piece {
    std::string bytes;     // the file's bytes from `from` to `size`
    std::size_t from = 0;  // where they start: the offset asked for, or 0 (see read_from)
    std::size_t size = 0;  // the file's size when it was read
    // The bytes are the lines a Flight Recorder dump or NCCL RAS output was read as
    // (read_evidence), not the file's own: such a file is not followed as it grows.
    bool evidence = false;
  };
  // On a worker thread: the bytes of the file at `path` from offset `from` to its end. A file
  // now shorter than `from` was truncated or replaced: it is read whole (Piece::from == 0).
  // When `from` is 0 the bytes' string gets room to grow (text_capacity_for), so that later
  // appends are written in place. Throws std::runtime_error naming the file on failure.
  virtual Piece read_from(const std::string& path, std::size_t from) = 0;
  // On a worker thread: the inputs directly inside the folder at `path` that `firstfault
  // analyze DIR` takes (log files, Flight Recorder dumps, NCCL RAS output), sorted by name.
  // Throws std::runtime_error naming the folder on failure.
  virtual std::vector<std::string> list_inputs(const std::string& path) = 0;
  // On a worker thread, once the files of one job are read (a folder's, or one file): the
  // evidence among them (Flight Recorder dumps, compared across ranks; NCCL RAS output) is
  // replaced in place by the lines the analysis reads for it, as `firstfault analyze` does
  // (Piece::evidence set). Returns a line per file that could not be read as the evidence
  // it looks like ("PATH: what"). The default reads no evidence.
  virtual std::vector<std::string> read_evidence(const std::vector<std::string>& paths,
                                                 std::vector<Piece>& pieces) {
    (void)paths;
    (void)pieces;
    return {};
  }
};

}  // namespace ff::lsp
