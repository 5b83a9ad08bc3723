// Reading logs from disk or stdin for the CLI: regular files are memory-mapped (never
// copied whole), directories expand to the log files in them, "-" is stdin. Anything that is
// not a readable text log gets a one-line error naming it.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ff::cli {

class InputFile {
 public:
  InputFile(std::string name, std::string_view text, void* map, std::size_t map_len,
            std::string owned);
  InputFile(InputFile&&) noexcept;
  InputFile& operator=(InputFile&&) = delete;
  ~InputFile();

  const std::string& name() const { return name_; }
  std::string_view text() const { return text_; }

  // Tells the kernel the bytes [begin, end) are no longer needed (whole pages inside the
  // range), so a mapped file of any size costs only the windows being scanned in resident
  // memory. Reading them again is still correct: the pages come back from the page cache.
  void release(std::size_t begin, std::size_t end) const;
  // Maps the pages of [begin, end) in one call before they are read (a fault per page
  // costs more than the scan of it). Only a hint: failures are ignored, and a page lost to
  // truncation still reads as NUL through the SIGBUS guard.
  void prefetch(std::size_t begin, std::size_t end) const;

  // True when the file shrank while it was mapped: the lost part was read as NUL bytes
  // (see cli/sigbus_guard.hpp).
  bool truncated() const;

  // Copies up to `len` bytes from `offset` into `buffer` with pread(); returns how many (0
  // when the file is not kept open for it: small files, stdin, more big files than kept).
  // Copying costs less than touching a fresh mapping of the same pages (parallel::ScanSource).
  std::size_t read(std::size_t offset, char* buffer, std::size_t len) const;
  bool readable() const { return fd_ >= 0; }
  // Keeps `fd` open for read() (the file's own descriptor; closed with the file).
  void keep_open(int fd) { fd_ = fd; }

 private:
  std::string name_;
  std::string_view text_;
  void* map_ = nullptr;
  std::size_t map_len_ = 0;
  std::string owned_;  // stdin / FIFO content
  int guard_ = -1;     // SIGBUS guard slot of the mapping
  int fd_ = -1;        // for read(); -1 when the file is only mapped
};

struct InputError {
  std::string path;
  std::string message;
};

// Opens every argument. Returns false and fills `error` at the first unusable one.
bool open_inputs(const std::vector<std::string>& args, std::vector<InputFile>& out,
                 InputError& error);

// The inputs a directory holds, sorted by name: the files with log names and the files whose
// first bytes are evidence (a Flight Recorder dump; for *.json, ncclras output or a summary).
// Not recursive. False and `error` when it cannot be listed. `analyze DIR` and the language
// server's Diagnose Folder both list a folder this way.
bool list_directory_inputs(const std::string& dir, std::vector<std::string>& out,
                           std::string& error);

// True for names that look like logs: *.log, *.out, *.err, *.txt, slurm-*.out, and names
// without extension inside a directory given on the command line.
bool looks_like_log(std::string_view filename);

}  // namespace ff::cli
