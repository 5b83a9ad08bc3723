// Applies a code action's LSP text edits to a document's text, as a client does: positions
// turned back into byte offsets, the edits applied from the last to the first.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "lsp/features.hpp"
#include "lsp/text.hpp"

namespace ff::test {

inline std::string apply_lsp_edits(std::string_view text,
                                   const std::vector<lsp::TextEditItem>& edits,
                                   lsp::Encoding encoding = lsp::Encoding::kUtf16) {
  lsp::LineIndex index(text);
  struct Span {
    std::size_t b, e;
    std::string t;
  };
  std::vector<Span> spans;
  for (const auto& e : edits)
    spans.push_back({index.offset(text, e.range.start, encoding),
                     index.offset(text, e.range.end, encoding), e.new_text});
  std::stable_sort(spans.begin(), spans.end(),
                   [](const Span& x, const Span& y) { return x.b > y.b; });
  std::string out(text);
  for (const auto& s : spans) out.replace(s.b, s.e - s.b, s.t);
  return out;
}

}  // namespace ff::test
