// PyTorch Flight Recorder dumps among the inputs: found by content, read, compared across
// ranks, and put in the inputs' place as the lines the rules read
// (evidence::render_flight_recorder): the findings in the culprit's file, or the lowest
// rank's when the culprit left none; the summary in the lowest rank's.
#include <map>

#include "cli/evidence_inputs.hpp"
#include "evidence/flight_recorder_analysis.hpp"
#include "evidence/flight_recorder_dump.hpp"

namespace ff::cli {

void convert_flight_recorder_dumps(const std::vector<EvidenceInput>& inputs, EvidenceTexts& out) {
  std::vector<evidence::FlightRecorderDump> dumps;
  std::vector<std::size_t> dump_input;  // input index of each dump
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    std::string_view text = inputs[i].text;
    const std::string& name = inputs[i].name;
    if (!evidence::looks_like_flight_recorder_dump(text.substr(0, 4096))) continue;
    evidence::FlightRecorderDump d;
    evidence::DumpError err;
    if (!evidence::read_flight_recorder_dump(name, text, d, err)) {
      // A log file (by its name) that only looked like a JSON dump stays a log.
      if (static_cast<unsigned char>(text[0]) != 0x80 && looks_like_log(name)) continue;
      std::string where = err.offset == evidence::DumpError::kNoOffset
                              ? ""
                              : "byte " + std::to_string(err.offset) + ": ";
      out.dump_problems.push_back(
          {name, where + err.message + "; this Flight Recorder dump is left out"});
      out.texts[i];  // read as empty
      continue;
    }
    out.texts[i];
    int rank = 0;
    std::string host;
    if (!evidence::rank_from_dump_name(name, rank, host)) {
      out.dump_problems.push_back(
          {name,
           "a Flight Recorder dump whose file name carries no rank (PyTorch writes "
           "<TORCH_FR_DUMP_TEMP_FILE><rank>); it is left out"});
      continue;
    }
    d.rank = rank;
    d.host = host;
    dumps.push_back(std::move(d));
    dump_input.push_back(i);
  }
  out.dumps += dumps.size();
  if (dumps.empty()) return;
  auto analysis = evidence::analyze_flight_recorder(dumps);
  auto lines = evidence::render_flight_recorder(analysis);
  std::size_t first = dump_input.front();
  int lowest = *dumps.front().rank;
  for (std::size_t k = 0; k < dumps.size(); ++k)
    if (*dumps[k].rank < lowest) lowest = *dumps[k].rank, first = dump_input[k];
  for (std::size_t f = 0; f < analysis.findings.size(); ++f) {
    std::size_t where = first;
    int culprit = analysis.findings[f].culprits.front();
    for (std::size_t k = 0; k < dumps.size(); ++k)
      if (*dumps[k].rank == culprit) where = dump_input[k];
    out.texts[where] += lines[f] + "\n";
  }
  out.texts[first] += lines.back() + "\n";
}

}  // namespace ff::cli
