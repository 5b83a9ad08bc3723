// PyTorch Flight Recorder dumps among the CLI's inputs (docs/EVIDENCE.md): found by content,
// read, compared across ranks, and put in the inputs' place as the text lines the analysis
// reads (evidence::render_flight_recorder), so that a dump directory beside the text logs
// of the same job gives one diagnosis.
#pragma once

#include <string>
#include <vector>

#include "cli/input_files.hpp"

namespace ff::cli {

struct DumpProblem {
  std::string path;
  std::string message;  // "byte 123: truncated inside an opcode's argument"
};

// Replaces every input that is a Flight Recorder dump by the comparison's lines (the
// findings in the culprit's file, or the first dump's when the culprit left none; the
// summary in the first dump's) and every unreadable dump by an empty text, with a problem
// naming it. Inputs that are not dumps are kept as they are. Returns how many dumps were
// read.
std::size_t replace_flight_recorder_dumps(std::vector<InputFile>& inputs,
                                          std::vector<DumpProblem>& problems);

}  // namespace ff::cli
