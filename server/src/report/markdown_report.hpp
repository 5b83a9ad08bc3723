// The one Markdown renderer of an analysis, for editors: a rule's section (a flagged line's
// hover, and the body of a report), the report of a job the language server analysed, and
// the report of a text analysed alone (a selection, a terminal command's output, a document
// that has no analysis). The language server sends what these return as it is, and the VS
// Code extension shows it as it comes: no client renders a report of its own, so what a
// report says is decided here only.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/catalog.hpp"
#include "analysis/diagnosis.hpp"

namespace ff::report {

// Which of each rule's checks the analysed text satisfies: [rule][check].
using ChecksSeen = std::vector<std::vector<bool>>;

// A rule's entry in docs/catalog.md: under `docs_base` (a file:// URI of the docs folder)
// when known, else the relative link.
std::string catalog_link(const std::string& docs_base, const std::string& rule_id);

// Who printed an event's line, as the reports say it: "rank N", else "host H", else empty.
std::string who_printed(const analysis::Event& e);

// A rule as Markdown: title, id, category, `role` when the section is about one line, what
// it indicates, its checks (those in `checks_seen` ticked; none ticked without it), its fix,
// its verification command and its catalog link.
std::string rule_markdown(const analysis::Catalog& catalog, std::size_t rule,
                          const ChecksSeen* checks_seen, std::string_view role,
                          const std::string& docs_base);

// The analysis of a job (several logs analysed together) reported for one of its files.
struct JobReport {
  const analysis::Analysis& analysis;
  const ChecksSeen& checks_seen;
  std::vector<std::string> file_names;  // the analysis's files, in its order, as shown
  std::size_t reported_file = 0;        // the one the report is for (an index into file_names)
  std::string docs_base;
};

// "# firstfault report: <file>", the files it was correlated with, the root cause (category,
// confidence, initiating line, collateral count, the line itself), its verdict, the rule's
// section and the other hypotheses; "No failure found." without a diagnosis.
std::string job_report_markdown(const analysis::Catalog& catalog, const JobReport& job);

// "# <heading>", the root cause's title and category (or "No failure found in the text."),
// then `text` (the analysis as to_text renders it, masked by the caller when it masks) in a
// code block that no "```" inside it can end.
std::string text_report_markdown(const analysis::Catalog& catalog, const analysis::Analysis& a,
                                 std::string_view heading, std::string_view text);

}  // namespace ff::report
