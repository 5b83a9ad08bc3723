#include "cli/file_span.hpp"

#include <algorithm>
#include <set>

#include "analysis/ansi.hpp"
#include "analysis/line_source.hpp"

namespace ff::cli {

namespace {

analysis::LineTime time_of(std::string_view line, analysis::CleanLine& clean) {
  if (line.size() > kSpanLineBytes) line = line.substr(0, kSpanLineBytes);
  // Colour codes, the '\r' of redrawn bars, NULs.
  analysis::LineSource src = analysis::parse_line_source(analysis::without_escapes(line, clean));
  return {src.time_kind, src.time};
}

}  // namespace

void find_time_span(std::string_view text, analysis::FileSummary& file) {
  file.first_time = {};
  file.last_time = {};
  analysis::CleanLine clean;
  const std::size_t window = kSpanLines * kSpanLineBytes;

  // Forward through the first lines of the window; a line cut by the window's end is parsed
  // as far as it goes (its start is what holds a timestamp).
  std::string_view head = text.substr(0, std::min(text.size(), window));
  std::size_t pos = 0;
  for (std::size_t n = 0; n < kSpanLines && pos < head.size(); ++n) {
    std::size_t end = head.find('\n', pos);
    if (end == std::string_view::npos) end = head.size();
    analysis::LineTime t = time_of(head.substr(pos, end - pos), clean);
    if (t.kind != analysis::TimeKind::kNone) {
      file.first_time = t;
      break;
    }
    pos = end + 1;
  }

  // Backward through the last lines of the window; its first line may be a line's tail, so
  // it counts only when the window starts the file.
  const std::size_t start = text.size() > window ? text.size() - window : 0;
  std::string_view tail = text.substr(start);
  if (!tail.empty() && tail.back() == '\n') tail.remove_suffix(1);
  std::size_t line_end = tail.size();
  for (std::size_t n = 0; n < kSpanLines && !tail.empty(); ++n) {
    std::size_t nl = line_end == 0 ? std::string_view::npos : tail.rfind('\n', line_end - 1);
    if (nl == std::string_view::npos && start > 0) break;  // a line cut by the window
    std::size_t begin = nl == std::string_view::npos ? 0 : nl + 1;
    analysis::LineTime t = time_of(tail.substr(begin, line_end - begin), clean);
    if (t.kind != analysis::TimeKind::kNone) {
      file.last_time = t;
      break;
    }
    if (nl == std::string_view::npos) break;
    line_end = nl;
  }
}

void find_sole_sources(const analysis::ScanState& state, std::vector<analysis::FileSummary>& files,
                       std::size_t first, std::size_t end) {
  end = std::min(end, files.size());
  if (first >= end) return;
  std::vector<std::set<int>> ranks(end - first);
  std::vector<std::set<std::string>> hosts(end - first);
  for (const auto& e : state.events) {
    if (e.file < first || e.file >= end) continue;
    if (e.source.rank && ranks[e.file - first].size() < 2)
      ranks[e.file - first].insert(*e.source.rank);
    if (!e.source.host.empty() && hosts[e.file - first].size() < 2)
      hosts[e.file - first].insert(e.source.host);
  }
  for (std::size_t i = first; i < end; ++i) {
    const auto& r = ranks[i - first];
    const auto& h = hosts[i - first];
    files[i].rank = r.size() == 1 ? std::optional<int>(*r.begin()) : std::nullopt;
    files[i].host = h.size() == 1 ? *h.begin() : std::string();
  }
}

}  // namespace ff::cli
