#include "cli/flight_recorder_inputs.hpp"

#include <map>

#include "evidence/flight_recorder_analysis.hpp"
#include "evidence/flight_recorder_dump.hpp"

namespace ff::cli {

std::size_t replace_flight_recorder_dumps(std::vector<InputFile>& inputs,
                                          std::vector<DumpProblem>& problems) {
  std::vector<evidence::FlightRecorderDump> dumps;
  std::vector<std::size_t> dump_input;  // input index of each dump
  std::vector<bool> is_dump(inputs.size(), false);
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    std::string_view text = inputs[i].text();
    if (!evidence::looks_like_flight_recorder_dump(text.substr(0, 4096))) continue;
    is_dump[i] = true;
    evidence::FlightRecorderDump d;
    evidence::DumpError err;
    if (!evidence::read_flight_recorder_dump(inputs[i].name(), text, d, err)) {
      // A log file (by its name) that only looked like a JSON dump stays a log.
      if (static_cast<unsigned char>(text[0]) != 0x80 && looks_like_log(inputs[i].name())) {
        is_dump[i] = false;
        continue;
      }
      std::string where = err.offset == evidence::DumpError::kNoOffset
                              ? ""
                              : "byte " + std::to_string(err.offset) + ": ";
      problems.push_back(
          {inputs[i].name(), where + err.message + "; this Flight Recorder dump is left out"});
      continue;
    }
    int rank = 0;
    std::string host;
    if (!evidence::rank_from_dump_name(inputs[i].name(), rank, host)) {
      problems.push_back({inputs[i].name(),
                          "a Flight Recorder dump whose file name carries no rank (PyTorch writes "
                          "<TORCH_FR_DUMP_TEMP_FILE><rank>); it is left out"});
      continue;
    }
    d.rank = rank;
    d.host = host;
    dumps.push_back(std::move(d));
    dump_input.push_back(i);
  }
  bool any = false;
  for (bool b : is_dump) any = any || b;
  if (!any) return 0;

  std::map<std::size_t, std::string> texts;  // input index -> its new text
  if (!dumps.empty()) {
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
      texts[where] += lines[f] + "\n";
    }
    texts[first] += lines.back() + "\n";
  }
  std::vector<InputFile> out;
  out.reserve(inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (!is_dump[i]) {
      out.push_back(std::move(inputs[i]));
      continue;
    }
    auto it = texts.find(i);
    out.emplace_back(inputs[i].name(), std::string_view(), nullptr, 0,
                     it == texts.end() ? std::string() : it->second);
  }
  inputs.swap(out);
  return dumps.size();
}

}  // namespace ff::cli
