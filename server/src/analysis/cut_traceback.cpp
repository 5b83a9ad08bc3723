#include "analysis/cut_traceback.hpp"

#include <string>

#include "analysis/ansi.hpp"
#include "analysis/line_cursor.hpp"
#include "analysis/line_source.hpp"

namespace ff::analysis {

namespace {

bool blank(std::string_view s) {
  return s.find_first_not_of(" \t") == std::string_view::npos;
}

// Python's frame line: '  File "path", line N, in function' (traceback.py's FrameSummary
// format; some pastes lose the indentation).
bool frame_line(std::string_view s) {
  const std::size_t at = s.find_first_not_of(" \t");
  return at != std::string_view::npos && s.substr(at).rfind("File \"", 0) == 0 &&
         s.find("\", line ") != std::string_view::npos;
}

struct Spot {
  std::size_t line = 0, offset = 0, length = 0;
};

}  // namespace

void read_cut_tracebacks(const Catalog& catalog, std::span<const std::string_view> texts,
                         ScanState& state) {
  const std::vector<std::size_t> headers = catalog.rules_decoding(Decode::kTraceback);
  if (headers.empty()) return;
  for (std::size_t file = 0; file < texts.size(); ++file) {
    const std::string_view text = texts[file];
    if (text.find("File \"") == std::string_view::npos) continue;
    LineCursor cursor(text);
    LineSpan span;
    CleanLine cleaned;
    bool inside = false;    // in a traceback: since its header or first frame, nothing else
    bool code_due = false;  // the line after a frame: the frame's code
    Spot innermost;         // the last frame's code line, else the frame
    bool framed = false;    // a frame was read since the header
    while (cursor.next(span)) {
      const std::string_view line = past_carrier(without_escapes(span.text, cleaned));
      if (line.find("Traceback") != std::string_view::npos &&
          catalog.matches(headers.front(), line)) {
        inside = true;
        code_due = false;
        framed = false;
        continue;
      }
      if (blank(line)) continue;
      const Spot here{span.number, span.begin, span.text.size()};
      // A frame opens a traceback too: a paste may begin below the header.
      if (frame_line(line)) {
        innermost = here;
        inside = framed = code_due = true;
      } else if (!inside) {
        continue;
      } else if (line.front() == ' ' || line.front() == '\t') {
        if (code_due) innermost = here;  // the caret lines below it are not the code
        code_due = false;
      } else {
        inside = false;  // the exception line (or other output): the traceback is whole
      }
    }
    if (!inside || !framed) continue;
    Event ev;
    ev.file = file;
    ev.line = innermost.line;
    ev.offset = innermost.offset;
    ev.length = innermost.length;
    ev.rule = headers.front();
    const std::string_view raw = text.substr(innermost.offset, innermost.length);
    const std::string_view clean = without_escapes(raw, cleaned);
    ev.source = parse_line_source(clean);
    ev.text = std::string(clean.substr(0, kMaxEventText));
    ev.match_begin = 0;
    ev.match_end = innermost.length;
    state.insert_after_scan(std::move(ev));
  }
}

}  // namespace ff::analysis
