// NCCL RAS client output among the inputs: read for the ranks it shows behind, missing or
// dead (evidence/ras_report.cpp), and its conclusions written into its text as lines the
// rules read (evidence/ras_lines.cpp).
#include "cli/evidence_inputs.hpp"
#include "evidence/ras_lines.hpp"
#include "evidence/ras_report.hpp"

namespace ff::cli {

void convert_ras_reports(const std::vector<EvidenceInput>& inputs, EvidenceTexts& out) {
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (out.texts.count(i)) continue;  // a Flight Recorder dump
    std::string_view text = inputs[i].text;
    if (!evidence::looks_like_ras(text)) continue;
    auto parsed = evidence::parse_ras(text);
    if (auto* e = std::get_if<evidence::RasParseError>(&parsed)) {
      out.ras_problems.push_back(
          {inputs[i].name,
           std::to_string(e->line) + ": not readable as NCCL RAS output: " + e->message});
      continue;
    }
    auto& r = std::get<evidence::RasReport>(parsed);
    // The text forms keep their lines (the rules know some of them); JSON is read only for
    // its conclusions.
    bool text_form =
        r.format == evidence::RasFormat::kText || r.format == evidence::RasFormat::kMonitorText;
    out.texts[i] =
        evidence::ras_analysis_text(text_form ? text : std::string_view(), evidence::render_ras(r));
    out.ras.push_back({inputs[i].name, std::move(r)});
  }
}

}  // namespace ff::cli
