// The fix engine's NCCL_IB_HCA binding (fix::fixes_for_rule, as `analyze --fix` computes
// it), offered by the language server as a code action: for a diagnosis about the GPU-NIC
// path, the open launch files under the log's folder edited and, when they need it, a
// firstfault-bind.sh wrapper next to the log that gives each local rank its PCIe-local HCA
// (and NUMA node). The topology is the best one at hand: a topology file in the log's
// folder, else this machine. Called on the language server's worker threads.
#pragma once

#include <memory>

#include "lsp/features.hpp"

namespace ff::cli {

std::shared_ptr<lsp::BindingEditProvider> make_binding_provider();

}  // namespace ff::cli
