// Long string values taken out of a JSON text before it is parsed. A 100 MB didOpen is one
// string: simdjson unescapes it into its own buffer and the conversion copies it again into
// the document's storage. Here the string is found (by the rules simdjson's own string
// tracking follows: a quote not preceded by an odd run of backslashes ends it), checked as
// simdjson checks it (no unescaped byte below 0x20, valid UTF-8, valid escapes) and
// unescaped once, straight into the storage the document keeps; the parser is given the
// rest of the text with `""` in its place.
//
// Equivalence, which the reader relies on: a text whose long strings all lift parses to the
// same value as the text itself, or fails where the text fails. Outside strings JSON has no
// quoting, so the quotes found here are exactly the string boundaries simdjson finds (for
// valid and invalid text alike), and a text is valid exactly when the rest is valid and
// each lifted string's content is. Anything not handled here (an unpaired surrogate escape,
// say) refuses the lift, and the whole text is parsed as before.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace ff::jsonio {

struct LiftedText {
  std::string rest;  // the text with each lifted string's content removed
  struct Span {
    std::size_t ordinal;  // among all strings of the text, keys included, in text order
    std::size_t begin;    // the raw content, between its quotes, as offsets into the text
    std::size_t end;
  };
  std::vector<Span> spans;  // in text order
};

// The strings whose raw content is at least `min_size` bytes, and the text without them;
// false when there are none, or a string is not closed. `rest` gets `padding` bytes of spare
// capacity.
bool lift_long_strings(std::string_view text, std::size_t min_size, std::size_t padding,
                       LiftedText& out);

// Appends the value of a string's raw content (between its quotes) to `out`; false, with
// `out` in an unspecified state, when the content is not what simdjson accepts or uses an
// escape this does not handle.
bool unescape_string(std::string_view raw, std::string& out);

}  // namespace ff::jsonio
