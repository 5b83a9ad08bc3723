#include "cli/evidence_inputs.hpp"

namespace ff::cli {

EvidenceTexts convert_evidence(const std::vector<EvidenceInput>& inputs) {
  EvidenceTexts out;
  convert_flight_recorder_dumps(inputs, out);
  convert_ras_reports(inputs, out);
  return out;
}

EvidenceTexts replace_evidence(std::vector<InputFile>& inputs) {
  std::vector<EvidenceInput> views;
  views.reserve(inputs.size());
  for (const auto& in : inputs) views.push_back({in.name(), in.text()});
  EvidenceTexts out = convert_evidence(views);
  if (out.texts.empty()) return out;
  std::vector<InputFile> replaced;
  replaced.reserve(inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    auto it = out.texts.find(i);
    if (it == out.texts.end())
      replaced.push_back(std::move(inputs[i]));
    else
      replaced.emplace_back(inputs[i].name(), std::string_view(), nullptr, 0,
                            std::move(it->second));
  }
  inputs.swap(replaced);
  out.texts.clear();  // moved into the inputs
  return out;
}

}  // namespace ff::cli
