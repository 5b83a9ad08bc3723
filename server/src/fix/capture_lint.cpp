#include "fix/capture_lint.hpp"

#include <re2/re2.h>

#include <string_view>

#include "fix/rank_scoped_debug_lint.hpp"

namespace ff::fix {

namespace {

// An assignment in any launcher form: `export VAR=v`, `VAR=v cmd`, `-x VAR=v`, `-e VAR=v`,
// `os.environ["VAR"] = "v"`, compose/pod `VAR: v` or `name: VAR` / `value: v` is not read.
const RE2& assignment() {
  static const RE2 re(
      R"((?:^|[\s;"'])(TORCH_FR_BUFFER_SIZE|TORCH_NCCL_TRACE_BUFFER_SIZE|TORCH_FR_DUMP_TEMP_FILE|TORCH_NCCL_DEBUG_INFO_TEMP_FILE|NCCL_DEBUG_FILE)["']?\]?\s*[=:]\s*["']?([^"'\s;]*))");
  return re;
}

bool runs_in_container(const LaunchFile& f) {
  FileKind k = detect_file_kind(f.path, f.text);
  if (k == FileKind::Compose || k == FileKind::Kubernetes) return true;
  for (std::string_view w : {"docker run", "podman run", "enroot start", "srun --container",
                             "--container-image", "apptainer exec", "singularity exec"})
    if (f.text.find(w) != std::string::npos) return true;
  return false;
}

}  // namespace

std::vector<std::string> capture_settings_lint(const std::vector<LaunchFile>& files) {
  std::vector<std::string> out;
  for (const auto& f : files) {
    bool container = runs_in_container(f);
    std::string_view text = f.text;
    std::size_t line_no = 0;
    while (!text.empty()) {
      ++line_no;
      std::size_t nl = text.find('\n');
      std::string_view line = text.substr(0, nl);
      text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
      re2::StringPiece in(line.data(), line.size());
      std::string var, value;
      while (RE2::FindAndConsume(&in, assignment(), &var, &value)) {
        std::string where = f.path + ":" + std::to_string(line_no);
        if (var == "TORCH_FR_BUFFER_SIZE" || var == "TORCH_NCCL_TRACE_BUFFER_SIZE") {
          // A ring of more than 100000 entries is a byte count read as entries.
          if (value.size() > 5 && value.find_first_not_of("0123456789") == std::string::npos)
            out.push_back(where + ": " + var + "=" + value +
                          " counts Flight Recorder entries, not bytes; " + value +
                          " entries cost host memory and dump time for nothing (2000 is "
                          "PyTorch's default)");
        } else if (var == "NCCL_DEBUG_FILE") {
          if (value.find("%h") == std::string::npos && value.find("%p") == std::string::npos)
            out.push_back(where + ": NCCL_DEBUG_FILE=" + value +
                          " has no %h or %p: every process writes the same file");
        } else if (container && value.rfind("/tmp", 0) == 0) {
          out.push_back(where + ": " + var + "=" + value +
                        " is inside the container's /tmp: the dumps are gone with the "
                        "container; use a path on shared storage");
        }
      }
    }
    for (auto& w : rank_scoped_debug_lint(f)) out.push_back(std::move(w));
  }
  return out;
}

}  // namespace ff::fix
