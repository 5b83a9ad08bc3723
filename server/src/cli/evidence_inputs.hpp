// Evidence among the inputs (docs/EVIDENCE.md, docs/RAS.md): PyTorch Flight Recorder dumps
// and NCCL RAS client output, found by content, read, and put in the inputs' place as the
// text lines the analysis reads (evidence::render_flight_recorder, evidence::render_ras), so
// that a folder of dumps or a RAS report beside the text logs of the same job gives one
// diagnosis. Shared by `firstfault analyze` and the language server's disk reader, which
// hand it the texts they read (memory-mapped files, or bytes read for the editor).
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "cli/input_files.hpp"
#include "report/report.hpp"

namespace ff::cli {

struct EvidenceInput {
  std::string name;
  std::string_view text;
};

struct EvidenceProblem {
  std::string path;
  std::string message;  // "byte 123: truncated inside an opcode's argument"
};

struct EvidenceTexts {
  // Input index -> the text the analysis reads in its place: the comparison's lines for a
  // dump (empty for the dumps that hold none, and for unreadable ones), the RAS report with
  // its conclusions written over the lines they come from.
  std::map<std::size_t, std::string> texts;
  std::size_t dumps = 0;                       // Flight Recorder dumps read
  std::vector<EvidenceProblem> dump_problems;  // unreadable dumps: left out
  std::vector<EvidenceProblem> ras_problems;   // looked like RAS output, is not: kept as a log
  std::vector<report::RasInput> ras;           // RAS output read, in input order
};

// Dumps first (compared across ranks), then RAS output among the inputs that are no dump.
EvidenceTexts convert_evidence(const std::vector<EvidenceInput>& inputs);

// The parts: each adds to `out` for the inputs it recognises.
void convert_flight_recorder_dumps(const std::vector<EvidenceInput>& inputs, EvidenceTexts& out);
void convert_ras_reports(const std::vector<EvidenceInput>& inputs, EvidenceTexts& out);

// convert_evidence over the CLI's inputs, replacing the converted ones by their new texts.
EvidenceTexts replace_evidence(std::vector<InputFile>& inputs);

}  // namespace ff::cli
