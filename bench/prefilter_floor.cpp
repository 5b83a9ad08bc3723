// ff_prefilter_floor: the lower bound of any `firstfault analyze` run over a file, for
// bench/bench.py. It does the two things every run must do to every byte and nothing else:
// read the file from the page cache (pread() 256 KB at a time into a buffer of the thread's,
// as the product reads a big file) and run the catalog's whole-buffer prefilter over it (the
// Vectorscan database, prefilter.hpp), on N threads, with a callback that only counts. No
// line counting, no RE2 confirmation, no events, no report. What `analyze` takes beyond
// this time is ours; this time itself is what reading and the catalog's matcher cost on
// this machine. --no-read scans a copy already in memory instead (the matcher alone).
//
//   ff_prefilter_floor [-j N] [--runs N] [--no-read] [--rules DIR]... [--no-builtin-rules] FILE
//
// Prints one line of JSON: {"seconds": best wall time, "mb_per_s": ..., "matches": ...,
// "threads": N, "expressions": database size}.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "analysis/prefilter.hpp"
#include "cli/rule_set.hpp"
#include "parallel/parallel_scan.hpp"

namespace {

// The product scans a big file 256 KB at a time (parallel_scan.cpp, kReadChunk); a
// Vectorscan call per chunk is part of its cost, so the floor pays it too (--no-read).
constexpr std::size_t kChunk = std::size_t{256} << 10;

int usage(const char* why) {
  std::cerr << "ff_prefilter_floor: " << why
            << "\nusage: ff_prefilter_floor [-j N] [--runs N] [--no-read] [--rules DIR]... "
               "[--no-builtin-rules] FILE\n";
  return 2;
}

// Where thread i's share of a file of `size` bytes starts: the byte after the first line
// end at or past size * i / n (the product cuts more, smaller pieces; for a lower bound
// equal shares are the best case). Found by reading around the point, as the product does.
std::size_t share_start(int fd, std::size_t size, unsigned i, unsigned n) {
  if (i == 0) return 0;
  std::size_t at = size / n * i;
  char window[4096];
  while (at < size) {
    ssize_t got = ::pread(fd, window, sizeof window, static_cast<off_t>(at));
    if (got <= 0) return size;
    const void* nl = std::memchr(window, '\n', static_cast<std::size_t>(got));
    if (nl) return at + static_cast<std::size_t>(static_cast<const char*>(nl) - window) + 1;
    at += static_cast<std::size_t>(got);
  }
  return size;
}

// Scans `text` in chunks that end at a line end, as the product's do.
bool scan_chunks(ff::analysis::Prefilter::Session& session, std::string_view text,
                 const std::function<void(unsigned, std::size_t)>& count) {
  bool ok = true;
  for (std::size_t at = 0; at < text.size();) {
    std::size_t end = std::min(text.size(), at + kChunk);
    if (end < text.size()) {
      std::size_t nl = text.rfind('\n', end - 1);
      if (nl != std::string_view::npos && nl >= at) end = nl + 1;
    }
    ok = session.scan(text.substr(at, end - at), count) && ok;
    at = end;
  }
  return ok;
}

// Reads [begin, end) of `fd` as the product reads a file (parallel::read_line_runs, the
// loop behind parallel_scan's pieces) and scans each run of whole lines it copied. False
// when a read or a scan failed.
bool read_and_scan(int fd, std::size_t begin, std::size_t end, std::vector<char>& buffer,
                   ff::analysis::Prefilter::Session& session,
                   const std::function<void(unsigned, std::size_t)>& count) {
  auto read = [fd](std::size_t offset, char* into, std::size_t len) {
    std::size_t got = 0;
    while (got < len) {
      ssize_t n = ::pread(fd, into + got, len - got, static_cast<off_t>(offset + got));
      if (n <= 0) break;
      got += static_cast<std::size_t>(n);
    }
    return got;
  };
  bool scanned = true;
  bool whole = ff::parallel::read_line_runs(read, begin, end, buffer,
                                            [&](std::size_t, std::string_view lines) {
                                              scanned = session.scan(lines, count) && scanned;
                                            });
  return whole && scanned;
}

}  // namespace

int main(int argc, char** argv) {
  unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  int runs = 3;
  bool builtin = true;
  bool read = true;
  std::vector<std::string> rule_dirs;
  std::string file;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    if (a == "-j" || a == "--runs" || a == "--rules") {
      const char* v = value();
      if (!v) return usage(("missing value after " + a).c_str());
      if (a == "--rules") {
        rule_dirs.emplace_back(v);
        continue;
      }
      int n = std::atoi(v);
      if (n < 1 || n > 1024) return usage(("bad value for " + a).c_str());
      if (a == "-j")
        threads = static_cast<unsigned>(n);
      else
        runs = n;
    } else if (a == "--no-read") {
      read = false;
    } else if (a == "--no-builtin-rules") {
      builtin = false;
    } else if (!a.empty() && a[0] == '-') {
      return usage(("unknown option " + a).c_str());
    } else if (file.empty()) {
      file = a;
    } else {
      return usage("one FILE only");
    }
  }
  if (file.empty()) return usage("no FILE");
  int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  struct stat st {};
  if (fd < 0 || ::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    std::cerr << "ff_prefilter_floor: cannot read " << file << " (not a readable regular file)\n";
    return 2;
  }
  const std::size_t size = static_cast<std::size_t>(st.st_size);
  auto loaded = ff::cli::load_catalog(rule_dirs, builtin);
  const ff::analysis::Prefilter* pf = loaded.catalog.prefilter();
  if (!pf) {
    std::cerr << "ff_prefilter_floor: the catalog has no prefilter\n";
    return 1;
  }
  std::vector<std::size_t> starts;
  for (unsigned i = 0; i < threads; ++i) starts.push_back(share_start(fd, size, i, threads));
  starts.push_back(size);
  std::string copy;  // --no-read: the file in memory, read before the clock starts
  if (!read) {
    copy.resize(size);
    for (std::size_t at = 0; at < size;) {
      ssize_t got = ::pread(fd, copy.data() + at, size - at, static_cast<off_t>(at));
      if (got <= 0) {
        std::cerr << "ff_prefilter_floor: cannot read " << file << " at byte " << at << "\n";
        return 2;
      }
      at += static_cast<std::size_t>(got);
    }
  }
  std::vector<unsigned long long> matches(threads);
  double best = 1e30;
  for (int r = 0; r < runs; ++r) {
    std::atomic<bool> failed{false};
    auto start = std::chrono::steady_clock::now();
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t)
      pool.emplace_back([&, t] {
        ff::analysis::Prefilter::Session session(*pf);
        unsigned long long n = 0;
        std::function<void(unsigned, std::size_t)> count = [&n](unsigned, std::size_t) { ++n; };
        std::vector<char> buffer;
        bool ok =
            starts[t] >= starts[t + 1] ||
            (read ? read_and_scan(fd, starts[t], starts[t + 1], buffer, session, count)
                  : scan_chunks(session,
                                std::string_view(copy).substr(starts[t], starts[t + 1] - starts[t]),
                                count));
        if (!ok) failed = true;
        matches[t] = n;
      });
    for (auto& th : pool) th.join();
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (failed) {
      std::cerr << "ff_prefilter_floor: reading or scanning " << file << " failed\n";
      return 1;
    }
    best = std::min(best, s);
  }
  ::close(fd);
  unsigned long long total = 0;
  for (auto m : matches) total += m;
  std::printf(
      "{\"seconds\": %.6f, \"mb_per_s\": %.1f, \"matches\": %llu, \"threads\": %u, "
      "\"read\": %s, \"entries\": %zu}\n",
      best, static_cast<double>(size) / 1e6 / best, total, threads, read ? "true" : "false",
      loaded.catalog.entry_count());
  return 0;
}
