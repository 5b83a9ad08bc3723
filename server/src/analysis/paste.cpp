#include "analysis/paste.hpp"

#include <algorithm>
#include <cctype>
#include <vector>

namespace ff::analysis {

namespace {

struct Line {
  std::size_t begin = 0;  // first byte of the content (after any removed prefix)
  std::size_t end = 0;    // end of the content, before "\r\n" or "\n"
  std::size_t term = 0;   // end of the line terminator (the next line's first byte)
};

bool blank(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c == ' ' || c == '\t'; });
}

// A Markdown quote: up to three spaces, then one or more '>' each with an optional space.
std::size_t quote_length(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size() && i < 3 && s[i] == ' ') ++i;
  if (i >= s.size() || s[i] != '>') return 0;
  while (i < s.size() && s[i] == '>') {
    ++i;
    if (i < s.size() && s[i] == ' ') ++i;
  }
  return i;
}

// One level of code-block indentation: four spaces or a tab.
std::size_t indent_length(std::string_view s) {
  if (!s.empty() && s[0] == '\t') return 1;
  return s.substr(0, 4) == "    " ? 4 : 0;
}

// The leading whitespace (spaces and tabs, byte for byte) shared by every non-blank line; 0
// when one has none or there are fewer than two such lines.
std::size_t common_indent(std::string_view text, const std::vector<Line>& lines) {
  std::optional<std::string_view> prefix;
  std::size_t nonblank = 0;
  for (const auto& l : lines) {
    std::string_view c = text.substr(l.begin, l.end - l.begin);
    if (blank(c)) continue;
    ++nonblank;
    std::string_view lead = c.substr(0, c.find_first_not_of(" \t"));
    if (!prefix) {
      prefix = lead;
    } else {
      std::size_t n = 0;
      while (n < prefix->size() && n < lead.size() && (*prefix)[n] == lead[n]) ++n;
      prefix = prefix->substr(0, n);
    }
    if (prefix->empty()) return 0;
  }
  return nonblank >= 2 && prefix ? prefix->size() : 0;
}

// The start of a line, reduced to its shape ("[rank3]:[E1203" -> "[aaaa0]:[A0000"): two
// records of one log start alike, the rest of a cut message does not. Letters keep their
// case: records start alike in case too ("INFO", "WARN"), and the rest of a sentence cut
// mid-way starts in lower case where a record starts with a capital. A start with
// punctuation or digits in its first four bytes is a prefix and compared on those four ("0: "
// of srun, "[1,"); one of letters only is compared on eight.
bool alike(std::string_view a, std::string_view b) {
  auto shape = [](std::string_view s, std::size_t n) {
    std::string out;
    for (char c : s.substr(0, n)) {
      unsigned char u = static_cast<unsigned char>(c);
      out += (u >= '0' && u <= '9')   ? '0'
             : (u >= 'a' && u <= 'z') ? 'a'
             : (u >= 'A' && u <= 'Z') ? 'A'
                                      : c;
    }
    return out;
  };
  std::string four = shape(a, 4);
  bool plain = four.find_first_not_of("aA") == std::string::npos ||
               four.find_first_not_of('0') == std::string::npos;
  std::size_t n = plain ? 8 : 4;
  return shape(a, n) == shape(b, n);
}

bool word_byte(char c) {
  return c != ' ' && c != '\t';
}

// A line that starts with a lower-case word that is no prefix ("is running ...", "c10d key"),
// as the rest of a sentence does: not "node01: ...", "rank=3 ...", "worker-2|...". One space
// before it is the space the cut fell on; more is an indented line of its own (code under a
// traceback frame).
bool lower_case_word(std::string_view s) {
  if (s.size() > 1 && s.front() == ' ' && s[1] != ' ') s.remove_prefix(1);
  if (s.empty() || s.front() < 'a' || s.front() > 'z') return false;
  std::string_view word = s.substr(0, s.find(' '));
  return word.size() < s.size() && word.find_first_of(":=|[(") == std::string_view::npos;
}

// Terminals and pages cut at widths between these; a longest line outside them is a log's own.
constexpr std::size_t kMinWrap = 60;
constexpr std::size_t kMaxWrap = 320;
// Widths terminals and pages are set to. A text with only one or two cut lines is taken as
// wrapped only at one of these (and with one, only where the cut falls inside a word).
constexpr std::size_t kCommonWidths[] = {80, 100, 120, 132, 160, 200, 240, 250, 256, 300};
// Cut lines that, with records that do not start alike, make a width on their own.
constexpr std::size_t kManyPieces = 3;

// A row a terminal padded with spaces to its width: the copy of a screen keeps the blanks
// after a line's end, so a row of full width that ends in two or more spaces is the last row
// of its line, not a cut one (one space may be where a cut fell between words).
bool padded(std::string_view row) {
  return row.size() >= 2 && row.substr(row.size() - 2) == "  ";
}

// The width the text was hard-wrapped at, or 0. The longest line sets it. Each run of lines
// of exactly that width, with the line after it, is one cut message: its pieces after the
// first must not start the way the first does (records of one log start alike; the rest of
// a cut message does not). Most runs must look cut, and there must be enough of them.
std::size_t wrap_width(std::string_view text, const std::vector<Line>& lines) {
  std::size_t w = 0;
  for (const auto& l : lines) w = std::max(w, l.end - l.begin);
  if (w < kMinWrap || w > kMaxWrap) return 0;
  auto piece = [&](std::size_t i) {
    return text.substr(lines[i].begin, lines[i].end - lines[i].begin);
  };
  std::size_t runs = 0, alike_runs = 0, pieces = 0;
  bool inside_words = true, sentence_goes_on = true;
  for (std::size_t i = 0; i + 1 < lines.size(); ++i) {
    if (piece(i).size() != w || padded(piece(i))) continue;
    std::size_t j = i + 1;  // the line after the run: its last piece
    while (j + 1 < lines.size() && piece(j).size() == w && !padded(piece(j))) ++j;
    ++runs;
    pieces += j - i;
    // A long message cut into many pieces may have a piece that starts like its first one
    // by chance (two words of the same length): most of its pieces must not.
    bool looks_cut = true;
    std::size_t alike_pieces = 0;
    for (std::size_t k = i; k < j && looks_cut; ++k) {
      std::string_view next = piece(k + 1);
      looks_cut = !blank(next);
      alike_pieces += alike(piece(i), next);
      inside_words =
          inside_words && !next.empty() && word_byte(piece(k).back()) && word_byte(next.front());
      sentence_goes_on = sentence_goes_on && lower_case_word(next);
    }
    looks_cut = looks_cut && alike_pieces * 2 < j - i;
    alike_runs += !looks_cut;
    i = j - 1;
  }
  if (runs == 0 || alike_runs * 2 >= runs) return 0;
  if (pieces >= kManyPieces) return w;
  // Fewer cut lines: a width terminals use, and with a single cut, one inside a word or one
  // before the rest of a sentence (a lower-case word, not a "host:" or "key=" prefix).
  bool common =
      std::find(std::begin(kCommonWidths), std::end(kCommonWidths), w) != std::end(kCommonWidths);
  return common && (pieces >= 2 || inside_words || sentence_goes_on) ? w : 0;
}

// How many more '(' than ')' a line has; negative when it closes more than it opens.
long open_parentheses(std::string_view s) {
  long n = 0;
  for (char c : s) n += (c == '(') - (c == ')');
  return n;
}

// A line that leaves a parenthesis open, with the next line or the two next lines closing
// it, the count never going below zero and ending at zero, and none of them blank or
// starting the way the first does (a record of its own): the lines after the first are the
// rest of it. `line(h)` is the h-th of `count` lines not already joined to another; returns
// how many of the lines after line(h) are its rest (0: none).
constexpr std::size_t kMaxGroupPieces = 2;
template <typename LineAt>
std::size_t group_pieces(LineAt line, std::size_t count, std::size_t h) {
  const std::string_view first = line(h);
  long open = open_parentheses(first);
  if (open <= 0) return 0;
  for (std::size_t k = 1; k <= kMaxGroupPieces && h + k < count; ++k) {
    const std::string_view next = line(h + k);
    if (blank(next) || alike(first, next)) return 0;
    open += open_parentheses(next);
    if (open == 0) return k;
    if (open < 0) return 0;
  }
  return 0;
}

// Joins `rest` onto `line` as the paste cut it: at whitespace, with one space (a wrap at a
// word drops or keeps the space, and an indented continuation adds some); after a ',', ';' or
// ':' before a word, with the space the cut took; otherwise inside a word, as it is.
void join_piece(std::string& line, std::string_view rest) {
  const bool space_before = !line.empty() && !word_byte(line.back());
  const std::size_t lead = std::min(rest.find_first_not_of(" \t"), rest.size());
  rest.remove_prefix(lead);
  while (!line.empty() && !word_byte(line.back())) line.pop_back();
  const bool after_mark =
      !line.empty() && (line.back() == ',' || line.back() == ';' || line.back() == ':');
  const bool word = !rest.empty() && (std::isalnum(static_cast<unsigned char>(rest.front())) ||
                                      rest.front() == '[' || rest.front() == '_');
  if (space_before || lead > 0 || (after_mark && word)) line += ' ';
  line += rest;
}

// The text with every non-breaking space (UTF-8 U+00A0 "\xC2\xA0", U+202F "\xE2\x80\xAF")
// made a plain space, or nullopt when it has none.
std::optional<std::string> plain_spaces(std::string_view text) {
  constexpr std::string_view kNbsp = "\xC2\xA0", kNarrow = "\xE2\x80\xAF";
  if (text.find(kNbsp) == std::string_view::npos && text.find(kNarrow) == std::string_view::npos)
    return std::nullopt;
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    if (text.substr(i, kNbsp.size()) == kNbsp) {
      out += ' ';
      i += kNbsp.size();
    } else if (text.substr(i, kNarrow.size()) == kNarrow) {
      out += ' ';
      i += kNarrow.size();
    } else {
      out += text[i++];
    }
  }
  return out;
}

}  // namespace

std::optional<std::string> depaste(std::string_view pasted, PasteRepair* what) {
  if (pasted.size() > kDepasteMaxBytes || pasted.empty()) return std::nullopt;
  const std::optional<std::string> spaced = plain_spaces(pasted);
  const std::string_view text = spaced ? std::string_view(*spaced) : pasted;
  std::vector<Line> lines;
  for (std::size_t pos = 0; pos < text.size();) {
    std::size_t nl = text.find('\n', pos);
    Line l;
    l.begin = pos;
    l.term = nl == std::string_view::npos ? text.size() : nl + 1;
    l.end = nl == std::string_view::npos ? text.size() : nl;
    if (l.end > l.begin && text[l.end - 1] == '\r') --l.end;
    lines.push_back(l);
    pos = l.term;
  }
  auto content = [&](const Line& l) { return text.substr(l.begin, l.end - l.begin); };
  PasteRepair done;
  done.nbsp = spaced.has_value();
  // Removes a prefix from every line when at least `share` of the non-blank lines have one.
  auto strip_where_most = [&](auto length_of, double share) {
    std::size_t nonblank = 0, with = 0;
    for (const auto& l : lines) {
      if (blank(content(l))) continue;
      ++nonblank;
      with += length_of(content(l)) > 0;
    }
    if (nonblank < 2 || static_cast<double>(with) < share * static_cast<double>(nonblank))
      return false;
    for (auto& l : lines) l.begin += length_of(content(l));
    return true;
  };
  done.quoted = strip_where_most(quote_length, 0.8);
  // Whitespace every non-blank line starts with (a harness or a paste that indented the whole
  // output by two spaces, a tab...) is not the log's own: it goes, as textwrap.dedent would.
  // Otherwise one code-block level where most lines have it (a few lines of a block may not).
  const std::size_t common = common_indent(text, lines);
  if (common > 0) {
    for (auto& l : lines)
      if (!blank(content(l))) l.begin += common;
    done.indented = true;
  } else {
    done.indented = strip_where_most(indent_length, 0.9);
  }
  done.wrap_width = wrap_width(text, lines);
  if (!done.quoted && !done.indented && !done.wrap_width && !done.nbsp) {
    // Most texts need no repair at all: look for a wrapped group before copying anything.
    auto line = [&](std::size_t i) { return content(lines[i]); };
    bool any = false;
    for (std::size_t h = 0; h < lines.size() && !any; ++h)
      any = group_pieces(line, lines.size(), h) > 0;
    if (!any) return std::nullopt;
  }

  // Each line's content, a cut line's pieces joined onto its first (the pieces left empty:
  // every later line keeps its number).
  std::vector<std::string> joined(lines.size());
  std::vector<std::size_t> heads;  // the lines not joined to the one before
  for (std::size_t i = 0; i < lines.size(); ++i) {
    heads.push_back(i);
    joined[i] = content(lines[i]);
    std::size_t last = i;
    // A cut line goes on in the next one, which goes on while it is cut too.
    if (done.wrap_width)
      while (last + 1 < lines.size() && lines[last].end - lines[last].begin == done.wrap_width &&
             !padded(content(lines[last]))) {
        ++last;
        joined[i] += content(lines[last]);
      }
    // The padding a terminal added after the line's end is not the log's.
    const Line& end = lines[last];
    if (done.wrap_width && end.end - end.begin == done.wrap_width && padded(content(end)))
      while (!joined[i].empty() && joined[i].back() == ' ') joined[i].pop_back();
    i = last;
  }
  for (std::size_t h = 0; h < heads.size(); ++h) {
    const std::size_t pieces = group_pieces(
        [&](std::size_t k) { return std::string_view(joined[heads[k]]); }, heads.size(), h);
    for (std::size_t k = 1; k <= pieces; ++k) {
      join_piece(joined[heads[h]], joined[heads[h + k]]);
      joined[heads[h + k]].clear();
    }
    done.groups += pieces > 0;
    h += pieces;
  }

  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < lines.size(); ++i) {
    out += joined[i];
    out += text.substr(lines[i].end, lines[i].term - lines[i].end);
  }
  if (what) *what = done;
  return out;
}

}  // namespace ff::analysis
