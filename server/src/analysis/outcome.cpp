#include "analysis/outcome.hpp"

#include <charconv>

#include "analysis/exit_status.hpp"

namespace ff::analysis {

std::string describe_outcome(const JobOutcome& outcome) {
  std::string out;
  if (outcome.end == JobEnd::kHung)
    out = "the job hung";
  else if (outcome.end == JobEnd::kFailed)
    out = "the job failed";
  if (!outcome.exit_code) return out;
  std::string code = std::to_string(*outcome.exit_code);
  if (*outcome.exit_code == 0) return out.empty() ? "the job exited with status 0" : out;
  auto status = decode_exit_status({}, {}, code);
  std::string meaning;
  if (status && status->signal) {
    ExitReading r = read_exit_status(*status, false, false);
    meaning = signal_name(*status->signal) + ": the process " + r.meaning;
  }
  std::string clause = "exited with status " + code + (meaning.empty() ? "" : " (" + meaning + ")");
  return out.empty() ? "the job " + clause : out + " and " + clause;
}

std::optional<int> parse_exit_code(std::string_view text) {
  int v = 0;
  auto r = std::from_chars(text.data(), text.data() + text.size(), v);
  if (r.ec != std::errc() || r.ptr != text.data() + text.size()) return std::nullopt;
  if (v < -64 || v > 255) return std::nullopt;
  return v;
}

}  // namespace ff::analysis
