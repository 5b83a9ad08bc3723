// The lint of NCCL's debug settings set for some nodes or ranks only: `NCCL_DEBUG=INFO` under
// `if [ "$SLURM_NODEID" = 0 ]`, `if rank == 0:` in a Python entry point, or `-x NCCL_DEBUG`
// in one section of an MPMD mpirun. The ranks without it print nothing NCCL-side when they
// fail, so the first fault can be on exactly the node that logged nothing. Pure: one file's
// text in, warnings out; a lexical, bounded scan (linear in the text, nesting capped).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "fix/engine.hpp"

namespace ff::fix {

// Warnings ("path:line: ..."), each saying why it matters and the fix. Shell scripts (sbatch,
// srun, mpirun, torchrun, docker run lines) and Python entry points; other kinds give none.
// A variable also set where every rank runs it (unconditionally, in every branch of the
// rank condition including an else / `*)`, or with -genv) is not warned about.
std::vector<std::string> rank_scoped_debug_lint(const LaunchFile& file);

// Where the file sets one of those variables (NCCL_DEBUG, NCCL_DEBUG_FILE,
// NCCL_DEBUG_SUBSYS), by the same scan as the lint: for every rank (what the lint does not
// warn about), for some ranks only (what it warns about: a rank or node branch, some MPMD
// sections), or not at all. The fix engine uses it to give the other ranks a default
// without overriding a branch's level. Compose files and pod specs, which the lint does
// not read, count as setting it for every rank when they name it (their environment is
// every container's); other variables and file kinds are kNotSet.
enum class SettingScope { kNotSet, kEveryRank, kSomeRanks };
SettingScope debug_setting_scope(const LaunchFile& file, std::string_view var);

}  // namespace ff::fix
