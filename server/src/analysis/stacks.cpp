#include "analysis/stacks.hpp"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "analysis/ansi.hpp"
#include "analysis/line_cursor.hpp"
#include "analysis/line_source.hpp"
#include "analysis/progress.hpp"

namespace ff::analysis {

namespace {

// The most of a stack's innermost frame kept (a hostile line may be megabytes long).
constexpr std::size_t kMaxInnermost = 200;

// One thread's stack as py-spy prints it: the header (when the paste kept it) and the frames.
struct Stack {
  std::size_t file = 0;
  std::size_t line = 0;  // the header's, else the innermost frame's
  std::size_t offset = 0;
  std::size_t length = 0;
  bool main = true;    // named "MainThread", or no header said otherwise
  bool waits = false;  // a frame is a wait in a collective (a `stack` rule matches it)
  std::size_t frames = 0;
  std::size_t indent = 0;  // of the last frame
  std::string innermost;
};

std::string_view trim_right(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

std::size_t indent_of(std::string_view s) {
  return std::min(s.find_first_not_of(" \t"), s.size());
}

// py-spy's thread header: "Thread 688514 (idle): "MainThread"", with or without the status
// in parentheses and the quoted name (src/dump.rs). The name, empty when none is printed.
std::optional<std::string_view> thread_header(std::string_view s) {
  s = trim_right(s.substr(indent_of(s)));
  if (s.substr(0, 7) != "Thread ") return std::nullopt;
  s.remove_prefix(7);
  const std::size_t id_end = std::min(s.find_first_of(" :"), s.size());
  std::string_view id = s.substr(0, id_end);
  if (id.empty() || id.find_first_not_of("0123456789abcdefABCDEFx") != std::string_view::npos)
    return std::nullopt;
  s.remove_prefix(id_end);
  if (s.substr(0, 2) == " (") {
    const std::size_t close = s.find(')');
    if (close == std::string_view::npos) return std::nullopt;
    s.remove_prefix(close + 1);
  }
  if (s.empty()) return std::string_view();
  if (s.substr(0, 3) != ": \"" || s.size() < 4 || s.back() != '"') return std::nullopt;
  return s.substr(3, s.size() - 4);
}

// Where a frame is: a source file with its line ("train.py:12", "collectives.cc:49") or a
// library ("libc.so.6"), as py-spy prints them.
bool frame_location(std::string_view loc) {
  if (loc.empty() || loc.find_first_of(" ()\t") != std::string_view::npos) return false;
  std::string_view path = loc.substr(0, loc.rfind(':'));
  if (const std::size_t colon = loc.rfind(':'); colon != std::string_view::npos) {
    std::string_view number = loc.substr(colon + 1);
    if (number.empty() || number.find_first_not_of("0123456789") != std::string_view::npos)
      return false;
  }
  for (std::string_view ext : {".py", ".pyx", ".c", ".cc", ".cpp", ".cu", ".h", ".hpp"})
    if (path.size() > ext.size() && path.substr(path.size() - ext.size()) == ext) return true;
  return path.find(".so") != std::string_view::npos;
}

// "    _try_get_data (torch/utils/data/dataloader.py:1011)": a frame (its function a single
// token, its location a file or a library).
bool frame_line(std::string_view s) {
  s = trim_right(s);
  if (s.size() < 4 || s.back() != ')') return false;
  const std::size_t open = s.rfind(" (");
  if (open == std::string_view::npos) return false;
  std::string_view function = s.substr(0, open);
  function.remove_prefix(indent_of(function));
  if (function.empty() || function.find_first_of(" \t") != std::string_view::npos) return false;
  return frame_location(s.substr(open + 2, s.size() - open - 3));
}

class StackReader {
 public:
  StackReader(const Catalog& catalog, const std::vector<std::size_t>& waits)
      : catalog_(catalog), waits_(waits) {}

  void read(std::size_t file, std::string_view text) {
    LineCursor cursor(text);
    LineSpan span;
    CleanLine cleaned;
    while (cursor.next(span) && stacks_.size() < kMaxStacks) {
      std::string_view line = without_escapes(span.text, cleaned);
      if (auto name = thread_header(line)) {
        close();
        open(file, span, /*header=*/true);
        current_.main = name->empty() || *name == "MainThread";
        continue;
      }
      if (!frame_line(line)) {
        // Lines more indented than the frames under a frame are py-spy's locals.
        if (open_ && current_.frames > 0 && indent_of(line) > current_.indent &&
            indent_of(line) < line.size())
          continue;
        close();
        continue;
      }
      const std::size_t indent = indent_of(line);
      // Without headers, a frame less indented than the one before starts another stack.
      if (!open_ || (current_.frames > 0 && indent < current_.indent && !header_))
        close(), open(file, span, /*header=*/false);
      // The stack's line is its header's, or (opened at this frame) the innermost frame's.
      Stack& s = current_;
      if (s.frames == 0)
        s.innermost = std::string(trim_right(line.substr(indent)).substr(0, kMaxInnermost));
      ++s.frames;
      s.indent = indent;
      for (std::size_t r : waits_) s.waits = s.waits || catalog_.matches(r, line);
    }
    close();
  }

  const std::vector<Stack>& stacks() const { return stacks_; }

 private:
  void open(std::size_t file, const LineSpan& span, bool header) {
    current_ = Stack{};
    current_.file = file;
    current_.line = span.number;
    current_.offset = span.begin;
    current_.length = span.text.size();
    open_ = true;
    header_ = header;
  }
  void close() {
    if (open_ && current_.frames > 0 && current_.main) stacks_.push_back(current_);
    open_ = header_ = false;
  }

  const Catalog& catalog_;
  const std::vector<std::size_t>& waits_;
  std::vector<Stack> stacks_;
  Stack current_;
  bool open_ = false;    // current_ is a stack being read
  bool header_ = false;  // it began at a thread header
};

}  // namespace

void compare_stacks(const Catalog& catalog, std::span<const std::string_view> texts,
                    ScanState& state) {
  const std::vector<std::size_t> waits = catalog.rules_decoding(Decode::kStack);
  if (waits.empty()) return;
  StackReader reader(catalog, waits);
  for (std::size_t file = 0; file < texts.size(); ++file) {
    // Only an input with a thread header or a collective's frame holds a dump worth reading.
    const std::string_view t = texts[file];
    if (t.find("Thread ") == std::string_view::npos &&
        t.find("distributed") == std::string_view::npos)
      continue;
    reader.read(file, t);
  }
  const auto& stacks = reader.stacks();
  const std::size_t waiting = static_cast<std::size_t>(
      std::count_if(stacks.begin(), stacks.end(), [](const Stack& s) { return s.waits; }));
  const std::size_t outside = stacks.size() - waiting;
  if (waiting < 2 || outside == 0 || outside >= waiting) return;
  const Stack& s =
      *std::find_if(stacks.begin(), stacks.end(), [](const Stack& x) { return !x.waits; });

  Event ev;
  ev.file = s.file;
  ev.line = s.line;
  ev.offset = s.offset;
  ev.length = s.length;
  ev.rule = waits.front();
  CleanLine cleaned;
  const std::string_view text = without_escapes(texts[s.file].substr(s.offset, s.length), cleaned);
  ev.source = parse_line_source(text);
  ev.text = std::string(text.substr(0, kMaxEventText));
  ev.match_begin = 0;
  ev.match_end = s.length;
  ev.captures = {{"waiting", std::to_string(waiting)},
                 {"outside", std::to_string(outside)},
                 {"innermost", s.innermost}};
  state.insert_after_scan(std::move(ev));
}

void compare_stopped_processes(const Catalog& catalog, std::span<const std::string_view> texts,
                               ScanState& state) {
  compare_progress(catalog, texts, state);
  compare_stacks(catalog, texts, state);
}

}  // namespace ff::analysis
