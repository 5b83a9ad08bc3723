// The fix planner's answer (fix/planner.hpp) as code actions: each fix one CodeAction whose
// edits are TextDocumentEdits for the version of the document they were computed on (byte
// ranges turned into positions in the negotiated encoding), and files the fix creates. On
// the root cause's initiating line, one more action applies every fix of the diagnosis at
// once: the edits `firstfault analyze --fix` makes. A fix that edits nothing (no topology at
// hand, already applied) is not offered.
#pragma once

#include <string>
#include <vector>

#include "fix/planner.hpp"
#include "lsp/analysis_run.hpp"
#include "lsp/code_action_item.hpp"
#include "lsp/fix_query.hpp"

namespace ff::lsp {

// The title of the action that applies every fix at once.
inline constexpr std::string_view kFixAllTitle = "firstfault: apply every fix of this diagnosis";

// The planner's request for a code action query: the documents a fix may edit are the open
// ones (not logs) under the log's folder, with their versions; created files go in that
// folder. Reads the file system (the folder's real path): call it on a worker.
fix::PlanRequest plan_request(const FixQuery& query, const AnalysisRun& run,
                              const std::vector<DocumentSnapshot>& sources);

std::vector<CodeActionItem> fix_actions(const FixQuery& query, const fix::Plan& plan,
                                        const std::vector<DocumentSnapshot>& sources,
                                        Encoding encoding);

// The edit as LSP text edits on `text` (byte offsets -> positions).
std::vector<TextEditItem> text_edits(std::string_view text, const std::vector<fix::TextEdit>& edits,
                                     Encoding encoding);

}  // namespace ff::lsp
