// A Python traceback cut before its exception line. Python prints an uncaught exception's
// traceback outermost frame first and the exception ("ValueError: ...") last; a paste copied
// from a terminal or a forum often stops short of that last line, and what is left is the
// header and the frames. The innermost frame's code line is then the last thing the log says
// about where the process failed. Which line opens a traceback is the catalog's: rules with
// decode "traceback" (rule.hpp), whose lines the scan skips. Read only for a job known to
// have failed: a complete traceback has its own rules, and a healthy log that ends in frames
// is a paste, not a failure.
#pragma once

#include <span>
#include <string_view>

#include "analysis/catalog.hpp"
#include "analysis/scan.hpp"

namespace ff::analysis {

// Adds to `state`, for each of `texts` (the scanned text of each input, indexed like the
// scan's files) that ends inside a traceback (after a header line of the first `traceback`
// rule, only frames, the code under them and blank lines follow), one event of that rule:
// the innermost frame's code line, or the frame itself when no code follows it.
void read_cut_tracebacks(const Catalog& catalog, std::span<const std::string_view> texts,
                         ScanState& state);

}  // namespace ff::analysis
