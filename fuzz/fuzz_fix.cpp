// libFuzzer: the launch-file editors behind --fix (shell, Python, compose, Kubernetes).
// Whatever a launch file holds, each generator must return, with edits that lie inside the
// text and do not overlap. For text a person could have written (no control bytes but
// tab, CR and LF), run again on the edited file it must also have nothing left to do, as
// fix/generators.hpp promises. The first byte picks the generator. The lint of settings a
// launch file already has (fix/capture_lint.hpp, its rank-scoped NCCL_DEBUG scan included)
// reads the same text as a shell script and as a Python entry point: it must return.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "fix/capture_lint.hpp"
#include "fix/edit.hpp"
#include "fix/generators.hpp"
#include "fix/rank_scoped_debug_lint.hpp"

namespace {

ff::fix::GenResult generate_fix_edits(unsigned which, std::string_view text) {
  using namespace ff::fix;
  BindingTable b;
  b.ranks = {{0, "=mlx5_0:1", 0}, {1, "=mlx5_1:1", 1}, {2, "", -1}};
  b.node_hca = "=mlx5_0:1,mlx5_1:1";
  b.source = "fuzz";
  const EnvList env = {{"NCCL_DEBUG", "INFO"},
                       {"NCCL_SOCKET_IFNAME", "=ib0"},
                       {"NCCL_DEBUG_FILE", "n.%h}$\"x", EnvKind::kDefault}};
  switch (which % 7) {
    case 0:
      return shell_binding_edits(text, b, "./firstfault-bind.sh");
    case 1:
      return python_binding_edits(text, b);
    case 2:
      return shell_env_edits(text, env);
    case 3:
      return python_env_edits(text, env);
    case 4:
      return docker_shm_edits(text, "16g");
    case 5:
      return compose_shm_edits(text, "16g");
    default:
      return k8s_shm_edits(text, "16Gi");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const unsigned which = data[0];
  std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  if (which % 2 == 0) {
    std::string t(text);
    (void)ff::fix::capture_settings_lint({{"job.sh", t}, {"train.py", t}});
    (void)ff::fix::debug_setting_scope({"job.sh", t}, "NCCL_DEBUG");
  }
  ff::fix::GenResult first = generate_fix_edits(which, text);
  for (const auto& e : first.edits)
    if (e.begin > e.end || e.end > text.size()) std::abort();  // an edit outside the file
  bool ok = true;
  std::string once = ff::fix::apply_text_edits(text, first.edits, &ok);
  if (!ok) std::abort();  // overlapping edits
  bool written = true;
  for (unsigned char ch : text)
    if ((ch < 0x20 && ch != '\t' && ch != '\r' && ch != '\n') || ch == 0x7f) written = false;
  if (written && !generate_fix_edits(which, once).edits.empty()) std::abort();  // not idempotent
  return 0;
}
