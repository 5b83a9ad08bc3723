// Edit generators: given one launch file's text, the edits that apply a fix to it. Pure
// functions of their inputs; every generator is idempotent (run on its own output it
// returns no edits), keeps the file's indentation and line endings, and only edits the
// text it is given.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fix/edit.hpp"

namespace ff::topology {
struct Recommendation;
}

namespace ff::fix {

// The per-local-rank NIC choice a fix writes into launch files.
struct RankHca {
  int local_rank = 0;
  std::string hca;  // NCCL_IB_HCA value, exact match with port: "=mlx5_0:1"; empty: unknown
  int numa = -1;    // NUMA node local to the GPU; -1: unknown
};
struct BindingTable {
  std::vector<RankHca> ranks;
  std::string node_hca;       // every HCA of the node, exact: "=mlx5_0:1,mlx5_1:1"
  std::string socket_ifname;  // exact list of the NICs' netdevs ("=ib0,ib1"); may be empty
  std::string source;         // "hwloc XML node.xml", shown in comments
  bool has_numa() const;
  bool usable() const;  // at least one rank has an HCA
};
BindingTable binding_table(const topology::Recommendation& r, const std::string& source);

enum class FileKind { Shell, Python, Compose, Kubernetes, Unknown };
const char* to_string(FileKind k);
FileKind detect_file_kind(std::string_view path, std::string_view text);

struct GenResult {
  std::vector<TextEdit> edits;
  std::vector<std::string> notes;
  bool found_target = false;  // the file has what this fix edits (a launch line, a service)
};

// Marker ids of the generated blocks.
inline constexpr std::string_view kHcaBlock = "nccl-ib-hca";
inline constexpr std::string_view kEnvBlock = "env";

// The POSIX-sh block that sets NCCL_IB_HCA (and ff_numa_node) from the local rank:
// LOCAL_RANK, OMPI_COMM_WORLD_LOCAL_RANK, MPI_LOCALRANKID, SLURM_LOCALID, in that order, all
// read as ${VAR:-} so `set -u` is safe. Lines end in '\n', each prefixed by `indent`.
std::string shell_rank_block(const BindingTable& b, std::string_view indent, bool numactl_var);

// The per-rank wrapper (firstfault-bind.sh): sets the binding for its rank, then
// `exec numactl --cpunodebind=N --membind=N "$@"` (plain `exec "$@"` without numactl,
// without a NUMA node, or with FIRSTFAULT_NUMA=0).
std::string wrapper_script(const BindingTable& b);
inline constexpr std::string_view kWrapperName = "firstfault-bind.sh";

// Shell launchers (bash, sbatch, command-line scripts). Launch lines that start every local
// rank (srun, mpirun, torchrun, deepspeed, python -m torch.distributed.run) get the wrapper
// in front of the program they run: `wrapper_ref` is the path the line names it by. A
// per-rank script (it runs the program itself) gets the block before its launch line.
// Existing NCCL_IB_HCA assignments are replaced, never duplicated.
struct ShellBindResult : GenResult {
  bool uses_wrapper = false;
};
ShellBindResult shell_binding_edits(std::string_view text, const BindingTable& b,
                                    std::string_view wrapper_ref);

// A Python entry point: the block before the first init_process_group( call (same
// indentation), `import os` when the module lacks it; os.environ["NCCL_IB_HCA"] = ...
// assignments elsewhere become `pass  # firstfault: ...`.
GenResult python_binding_edits(std::string_view text, const BindingTable& b);

// How a generated setting takes effect. kDefault is for a variable the job already sets for
// some ranks only (NCCL_DEBUG=INFO on rank 0): the others get `value`, a rank's own choice
// stays, wherever the generated line lands relative to it.
enum class EnvKind {
  kValue,    // VAR=value, whatever it was
  kDefault,  // VAR=value where it is unset or empty: sh "${VAR:-value}", Python setdefault
};
struct EnvVar {
  std::string name;
  std::string value;
  EnvKind kind = EnvKind::kValue;
  bool operator==(const EnvVar&) const = default;
};
using EnvList = std::vector<EnvVar>;
// Sets each of `values` in `into`: a variable already there takes the new value (and kind)
// in its place, a new one is appended (a generated block keeps its order from run to run).
inline void merge_env(EnvList& into, const EnvList& values) {
  for (const auto& kv : values) {
    auto it = into.begin();
    while (it != into.end() && it->name != kv.name) ++it;
    if (it != into.end())
      *it = kv;
    else
      into.push_back(kv);
  }
}
// One shell word that sets the variable: NAME=value (shell-quoted) or, for kDefault,
// NAME="${NAME:-value}" (the value escaped for double quotes and the expansion's braces;
// never through shell_quote, which would make the expansion a literal).
std::string shell_env_word(const EnvVar& v);
// Sets variables in a shell launcher: mpirun lines get `-x VAR=value`, docker run lines
// `-e VAR=value`; otherwise an existing assignment is replaced or an `export` block goes
// before the launch line. A kDefault variable always goes in the block (export
// VAR="${VAR:-value}"), existing assignments untouched (they are some ranks' own choice);
// an mpirun / docker run line that does not pass it yet gets the bare `-x VAR` / `-e VAR`,
// which forwards the launching shell's value (the block's default, or what it had).
GenResult shell_env_edits(std::string_view text, const EnvList& env);
// The same for a Python entry point, before init_process_group(: os.environ["VAR"] = value,
// or os.environ.setdefault("VAR", value) for kDefault.
GenResult python_env_edits(std::string_view text, const EnvList& env);

// /dev/shm size: `docker run --shm-size=SIZE` (size like "16g"), compose `shm_size: '16gb'`
// per service, a Kubernetes pod's memory-backed emptyDir mounted at /dev/shm.
GenResult docker_shm_edits(std::string_view text, std::string_view size);
GenResult compose_shm_edits(std::string_view text, std::string_view size);
GenResult k8s_shm_edits(std::string_view text, std::string_view size_limit);

}  // namespace ff::fix
