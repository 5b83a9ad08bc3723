// NCCL RAS conclusions as text lines the rule catalog reads like any log (rules/nccl-ras-*),
// so that RAS output is evidence the diagnosis uses the way Flight Recorder findings are
// (evidence::render_flight_recorder): the category, the weight and the fix stay in rules/,
// and the line's `rank` and `host` captures name the initiating rank. Pure: no I/O.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "evidence/ras_report.hpp"

namespace ff::evidence {

struct RasLine {
  std::size_t line = 0;  // 0-based line of the report the conclusion comes from
  std::string text;
};

// One line per conclusion, in report order:
//   - the ranks behind on a communicator (named by the first; every one in `ranks:`), with
//     `counts: frozen` (the same counts in the report before: they are stuck), `counts: one
//     report` (a snapshot) or `counts: advancing` (a mismatch sampled in passing);
//   - the ranks RAS got no data from, and the ranks with an NCCL error (JSON);
//   - the dead and unreachable processes, and monitor PEER_DEAD events.
std::vector<RasLine> render_ras(const RasReport& r);

// The text the analysis reads in place of RAS output: `original` (the text forms; empty for
// JSON) with each conclusion written over the line it comes from, or, when that line holds a
// conclusion already, the next one that does not; lines past the end are added. Every other
// line is kept, so line numbers stay those of the file.
std::string ras_analysis_text(std::string_view original, const std::vector<RasLine>& lines);

}  // namespace ff::evidence
