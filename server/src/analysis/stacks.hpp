// Stack dumps of a hung job compared across its processes. When a job hangs, the advice of
// PyTorch's and NCCL's own debugging guides is to dump every rank's Python stacks with
// py-spy; the ranks that wait in a collective (their main thread inside torch.distributed's
// collective calls) wait for the ones that are not there. A process whose main thread is
// outside every collective while most others wait in one is the one they wait for: stuck in a
// DataLoader, in I/O, in a checkpoint save, in a deadlock of its own.
//
// The dump's format is py-spy's ("Thread 688514 (idle): "MainThread"", then one frame per
// line, innermost first: "    _try_get_data (torch/utils/data/dataloader.py:1011)"); a paste
// without thread headers is read as stacks separated where a frame is less indented than the
// one before it. Which frames are a wait in a collective is the catalog's: rules with decode
// "stack" (rule.hpp), whose lines the scan skips. Read only for a job known to have failed or
// hung: a healthy job's ranks are in different places between two collectives.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

#include "analysis/catalog.hpp"
#include "analysis/scan.hpp"

namespace ff::analysis {

// At most this many stacks are read (hostile input cannot make the comparison grow).
inline constexpr std::size_t kMaxStacks = 1 << 16;

// Reads the stack dumps in `texts` (the scanned text of each input, indexed like the scan's
// files) and adds to `state` at most one event, of the first `stack` rule: the first line
// (thread header, else innermost frame) of the first main-thread stack outside every
// collective, when at least two stacks wait in one and those outside are fewer. Captures:
// `waiting` (stacks in a collective), `outside` (stacks not), `innermost` (the outside stack's
// innermost frame). Nothing otherwise.
void compare_stacks(const Catalog& catalog, std::span<const std::string_view> texts,
                    ScanState& state);

// Where the processes of a job known to have failed stopped: their progress counters
// (progress.hpp) and their stacks (above). The one entry point of the CLI and the library.
void compare_stopped_processes(const Catalog& catalog, std::span<const std::string_view> texts,
                               ScanState& state);

}  // namespace ff::analysis
