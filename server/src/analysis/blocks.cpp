#include "analysis/blocks.hpp"

#include <re2/re2.h>

#include <charconv>
#include <string>

#include "analysis/ansi.hpp"
#include "analysis/line_cursor.hpp"
#include "analysis/line_source.hpp"

namespace ff::analysis {

namespace {

constexpr std::size_t kLookback = 24;

std::string clean(std::string_view raw) {
  CleanLine c;
  return std::string(without_escapes(raw, c));
}

// A line above the event as its producer wrote it: also without what carried it (a
// launcher's label, a collector's timestamp, Markdown quoting), since a record's fields are
// recognised by where they start.
std::string without_carrier(std::string_view raw) {
  return std::string(past_carrier(clean(raw)));
}

bool to_int(std::string_view s, int& out) {
  auto r = std::from_chars(s.data(), s.data() + s.size(), out);
  return r.ec == std::errc();
}

struct BlockPatterns {
  RE2 root_cause{R"(Root Cause \(first observed failure\):)"};
  RE2 other_failures{R"(^\s*(?:\[\d+\]:)?\s*Failures:|<NO_OTHER_FAILURES>)"};
  RE2 field_rank{R"(^\s*rank\s*:\s*(\d+)(?:\s*\(local_rank:\s*(\d+)\))?)"};
  RE2 field_host{R"(^\s*host\s*:\s*(\S+))"};
  RE2 separator{R"(^\s*={10,}\s*$)"};
  RE2 last_error{R"(^\s*(?:\[rank\d+\]:\s*)?Last error:\s*$)"};
  RE2 nccl_error_in{R"(NCCL error in:|NCCL error:|ncclInternalError|ncclSystemError|ncclInvalidUsage|ncclUnhandledCudaError|ncclRemoteError)"};
  RE2 rank_prefix{R"(^\s*\[(?:rank|default)(\d+)\]:)"};
  RE2 traceback{R"(Traceback \(most recent call last\):)"};
};

const BlockPatterns& patterns() {
  static const BlockPatterns p;
  return p;
}

}  // namespace

std::size_t previous_lines(std::string_view text, std::size_t offset, std::string_view* out,
                           std::size_t max_lines) {
  std::size_t n = 0;
  std::size_t end = offset;  // exclusive end of the previous line's terminator
  while (n < max_lines && end > 0) {
    // Skip the terminator of the previous line ("\n", "\r\n" or "\r").
    std::size_t e = end;
    if (e > 0 && text[e - 1] == '\n') --e;
    if (e > 0 && text[e - 1] == '\r') --e;
    if (e == end) break;  // offset was not at a line start
    std::size_t b = line_start_before(text, e);
    out[n++] = text.substr(b, e - b);
    end = b;
  }
  return n;
}

namespace {

// previous_lines, from `near` when every line it returns lies there: the walk ends before
// reaching near's start, or near starts where text does.
std::size_t lines_above(std::string_view text, std::string_view near, std::size_t near_base,
                        std::size_t offset, std::string_view* out, std::size_t max_lines) {
  if (!near.empty() && offset >= near_base && offset - near_base <= near.size()) {
    std::size_t n = previous_lines(near, offset - near_base, out, max_lines);
    if (n == max_lines || near_base == 0 || (n > 0 && out[n - 1].data() != near.data())) return n;
  }
  return previous_lines(text, offset, out, max_lines);
}

}  // namespace

void attribute_from_block(std::string_view text, Event& ev, std::string_view near,
                          std::size_t near_base) {
  const auto& p = patterns();

  // torchelastic summary: the event line is a field ("  exitcode  : -9") of a failure
  // record. Walk back through the record's fields to its header. Fields are indented, so
  // other lines (nearly all events) skip the walk.
  const bool rank_known = ev.source.rank.has_value();
  std::string_view own = std::string_view(ev.text).substr(std::min(ev.source.body, ev.text.size()));
  bool record_field = !own.empty() && (own.front() == ' ' || own.front() == '\t') &&
                      own.find(':') != std::string_view::npos;
  // Everything below the record walk is for an event whose rank is not known yet: a line
  // that names its rank and is no record field needs no line above it (most events; the
  // lines above may not even be in memory: the scan reads a big file through a buffer).
  if (!record_field && rank_known) return;
  // Error chains and tracebacks need only a few lines above; records up to kLookback.
  std::string_view prev[kLookback];
  std::size_t n = lines_above(text, near, near_base, ev.offset, prev, record_field ? kLookback : 8);
  bool record_rank = false;
  for (std::size_t i = 0; record_field && i < n; ++i) {
    std::string line = without_carrier(prev[i]);
    re2::StringPiece a, b;
    // The record's own "rank :" field names the rank it describes, over a rank read from
    // the line's carrier (srun labels torchrun's output with its task, not the worker's rank).
    if (!record_rank && RE2::PartialMatch(line, p.field_rank, &a, &b)) {
      record_rank = true;
      int r;
      if (to_int(std::string_view(a.data(), a.size()), r)) ev.source.rank = r;
      if (!b.empty() && to_int(std::string_view(b.data(), b.size()), r)) ev.source.local_rank = r;
      continue;
    }
    if (ev.source.host.empty() && RE2::PartialMatch(line, p.field_host, &a)) {
      ev.source.host = std::string(a.data(), a.size());
      continue;
    }
    if (RE2::PartialMatch(line, p.root_cause)) {
      ev.in_root_cause_record = true;
      break;
    }
    if (RE2::PartialMatch(line, p.other_failures) || RE2::PartialMatch(line, p.separator)) break;
    // Fields of a record are "key : value" lines; anything else ends the walk.
    if (line.find(':') == std::string::npos) break;
  }
  // Fields printed after the event line (rank usually comes after exitcode in the record)
  // are found by the caller's forward scan; see scan.cpp.

  if (ev.source.rank) return;
  // NCCL error chain: "...NCCL error in: ..." / "ncclXxx: ..." / "Last error:" / message.
  for (std::size_t i = 0; i < n && i < 6; ++i) {
    std::string line = clean(prev[i]);
    re2::StringPiece a;
    if (RE2::PartialMatch(line, p.nccl_error_in) || RE2::PartialMatch(line, p.last_error)) {
      if (RE2::PartialMatch(line, p.rank_prefix, &a)) {
        int r;
        if (to_int(std::string_view(a.data(), a.size()), r)) ev.source.rank = r;
        return;
      }
      continue;
    }
    break;
  }
  // Python traceback: the exception line may lack the prefix its frames carry. Only a line
  // directly below a frame ("  File ...", or the code under it) belongs to the traceback.
  if (!ev.source.host.empty() || ev.source.pid) return;
  for (std::size_t i = 0; i < n; ++i) {
    std::string line = clean(prev[i]);
    re2::StringPiece a;
    std::string_view content = line;
    bool prefixed = RE2::PartialMatch(line, p.rank_prefix, &a);
    if (prefixed) {
      std::size_t colon = line.find("]:");
      content = std::string_view(line).substr(colon == std::string::npos ? 0 : colon + 2);
    }
    bool frame = content.rfind("  ", 0) == 0 || content.rfind("Traceback", 0) == 0;
    if (!frame) return;
    if (prefixed) {
      int r;
      if (to_int(std::string_view(a.data(), a.size()), r)) ev.source.rank = r;
      return;
    }
    if (content.rfind("Traceback", 0) == 0) return;
  }
}

bool traceback_in_message(std::string_view text, const Event& ev, std::string_view near,
                          std::size_t near_base) {
  constexpr std::size_t kFrames = 48;
  static const std::string_view kHeader = "Traceback (most recent call last):";
  std::string_view prev[kFrames];
  std::size_t n = lines_above(text, near, near_base, ev.offset, prev, kFrames);
  for (std::size_t i = 0; i < n; ++i) {
    std::string line = without_carrier(prev[i]);
    std::size_t header = line.find(kHeader);
    if (header != std::string::npos) return line.find_first_not_of(" \t") < header;
    // A frame ("  File ...", its code, the carets under it) or a blank line inside a chain.
    if (!line.empty() && line.front() != ' ' && line.front() != '\t') return false;
  }
  return false;
}

}  // namespace ff::analysis
