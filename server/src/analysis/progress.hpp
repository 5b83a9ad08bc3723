// Progress counters compared across ranks. A synchronous job's ranks cannot drift apart:
// each step's collectives wait for every rank, so when the job stops, the counters the ranks
// print (step, iteration, batch) differ by at most one. A rank one step behind the others is
// the one they wait for (a straggler: it never reached the collective they are in); ranks
// two or more steps apart cannot have issued the same collectives, or the ahead ones could
// not have finished theirs (a collective mismatch: a rank left a loop early, or ran extra
// iterations).
//
// Which lines count progress is the catalog's: rules with decode "progress" (rule.hpp),
// whose lines the scan skips. They are read here, per rank, after the scan, and only for a
// job known to have failed: a working job's ranks print different counters too, between two
// synchronisations. A counter is trusted only where each rank printed it on two consecutive
// steps (n, then n + 1): a progress bar that redraws when it likes (tqdm) skips values and
// says nothing of where a rank is.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

#include "analysis/catalog.hpp"
#include "analysis/scan.hpp"

namespace ff::analysis {

// At most this many distinct progress lines (their text with numbers taken out) and ranks
// per such line are followed: hostile input cannot make the comparison grow without bound.
inline constexpr std::size_t kMaxProgressTemplates = 256;
inline constexpr std::size_t kMaxProgressWriters = 8192;
// And at most this many (template, writer) pairs in all, each holding two lines' numbers.
inline constexpr std::size_t kMaxProgressTracks = std::size_t{1} << 14;

// Compares the progress lines of `texts` (the scanned text of each input, indexed like the
// scan's files; an empty view for an input without text) across their writers (a rank; a
// host and pid; else the input) and adds to `state` at most one event: the last progress
// line of the writer that is behind, with captures `value` (its counter), `ahead` (the
// highest), `gap` and `writers`. Nothing when the catalog has no progress rule or no
// counter differs.
void compare_progress(const Catalog& catalog, std::span<const std::string_view> texts,
                      ScanState& state);

}  // namespace ff::analysis
