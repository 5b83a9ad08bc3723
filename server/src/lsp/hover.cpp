#include "lsp/hover.hpp"

#include <sstream>

#include "report/markdown_report.hpp"
#include "rules/env_var_docs.hpp"

namespace ff::lsp {

namespace {

bool is_var_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

std::string variable_markdown(const std::string& word) {
  std::ostringstream md;
  if (const rules::EnvVarDoc* v = rules::find_env_var(word)) {
    md << "### `" << v->name << "`\n\n*" << v->owner << "* · default: " << v->deflt << "\n\n"
       << v->meaning << "\n\n**Syntax**: " << v->syntax << "\n";
  } else {
    md << "### `" << word << "`\n\n"
       << (word.rfind("TORCH_", 0) == 0 ? "A PyTorch c10d" : "An NCCL")
       << " variable that firstfault has no notes on.\n";
  }
  return md.str();
}

}  // namespace

std::optional<Hover> variable_hover(std::string_view line, Position pos, Encoding encoding) {
  std::size_t at = column_to_byte(line, pos.character, encoding);
  std::size_t b = at, e = at;
  while (b > 0 && is_var_char(line[b - 1])) --b;
  while (e < line.size() && is_var_char(line[e])) ++e;
  if (e == b) return std::nullopt;
  std::string word(line.substr(b, e - b));
  if (word.rfind("NCCL_", 0) != 0 && word.rfind("TORCH_NCCL_", 0) != 0) return std::nullopt;
  Range r{{pos.line, byte_to_column(line, b, encoding)},
          {pos.line, byte_to_column(line, e, encoding)}};
  return Hover{variable_markdown(word), r};
}

std::optional<Hover> diagnostic_hover(const analysis::Catalog& catalog, const AnalysisRun& run,
                                      const std::string& uri, std::uint32_t line,
                                      const std::string& docs_base) {
  auto on_line = items_on_lines(run, uri, {{line, 0}, {line, 0}});
  if (on_line.empty()) return std::nullopt;
  const DiagnosticItem& item = *on_line.front();
  const analysis::Rule* rule = catalog.find(item.rule_id);
  if (!rule) return std::nullopt;
  auto index = static_cast<std::size_t>(rule - catalog.rules().data());
  std::string md =
      report::rule_markdown(catalog, index, &run.checks_seen, role_name(item.role), docs_base);
  if (item.role == Role::kInitiating && !run.analysis.diagnoses.empty())
    md = "**" + item.message + "**\n\n" + md;
  return Hover{md, item.range};
}

}  // namespace ff::lsp
