// The verification commands of a log's root cause: the rule's verification command with the
// diagnosis's facts filled in (GPU, pid, rank, host, peer, the logs), as a code action on the
// initiating line. A command left with a placeholder goes to the user to complete
// (firstfault.editVerification) instead of a terminal (firstfault.runVerification): a shell
// would read `<gpu>` as a redirection. The server never runs them.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "analysis/catalog.hpp"
#include "lsp/analysis_run.hpp"
#include "lsp/code_action_item.hpp"

namespace ff::lsp {

// The verification of `rule` filled with what `run` knows of its event `event`, as the
// command `title` runs.
CommandItem verification_command(const analysis::Rule& rule, const AnalysisRun& run,
                                 std::size_t event, const std::string& title);
// Whether that command can run as it is (no placeholder left).
bool verification_runnable(const analysis::Rule& rule, const AnalysisRun& run, std::size_t event);

// "run verification" on each initiating line of `uri` in `range` whose rule has one.
std::vector<CodeActionItem> verification_actions(const analysis::Catalog& catalog,
                                                 const AnalysisRun& run, const std::string& uri,
                                                 Range range);

}  // namespace ff::lsp
