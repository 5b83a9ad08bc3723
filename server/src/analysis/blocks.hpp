// Multi-line structures that give a line its meaning or its owner. They are looked up
// lazily, only around lines that matched a rule, by walking the text backwards a bounded
// number of lines; nothing is kept for lines that matched nothing.
//   - torchelastic ChildFailedError summaries ("Root Cause (first observed failure):" with
//     rank, host, exitcode, time, error_file fields)
//   - NCCL error chains: "NCCL error in: ..." / "Last error:" / the real message
//   - Python tracebacks: frames printed with a "[rankN]:" prefix, exception line without
#pragma once

#include <cstddef>
#include <string_view>

#include "analysis/event.hpp"

namespace ff::analysis {

// Fills in rank, host and time for `ev` from the block around it when the line itself does
// not carry them. `text` is the whole input the event came from; `near`, when given, holds
// the same bytes as text[near_base, near_base + near.size()) and is read instead where the
// lines above the event lie in it (a big file is scanned from copies: its mapping is slow
// to read for the first time, page by page).
void attribute_from_block(std::string_view text, Event& ev, std::string_view near = {},
                          std::size_t near_base = 0);

// Whether the exception line `ev` closes a traceback that a program printed as part of its
// own message ("... failed with: Traceback (most recent call last):"): the exception was
// caught and reported, not left to end the process. Python prints an uncaught exception's
// header on a line of its own (sys.excepthook, traceback.print_exception); text in front of
// the header, past what carried the line (a launcher's label, a timestamp), is a message
// that holds traceback.format_exc(). Walks up through the traceback's frames only (indented
// lines), at most 48 lines.
bool traceback_in_message(std::string_view text, const Event& ev, std::string_view near = {},
                          std::size_t near_base = 0);

// Returns up to `max_lines` lines that end just before `offset` (nearest last).
// Exposed for tests.
std::size_t previous_lines(std::string_view text, std::size_t offset, std::string_view* out,
                           std::size_t max_lines);

}  // namespace ff::analysis
