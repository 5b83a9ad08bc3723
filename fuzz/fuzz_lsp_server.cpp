// libFuzzer: whole language-server sessions, in process. Each line of the input is one
// message body as a client would send it (JSON, or whatever the bytes are), fed to the
// server the way its reader thread does, built-in catalog and fix engine included. Whatever
// arrives (positions past the end, ranges backwards, wrong types, an edit before the open,
// requests after shutdown), the server must answer or drop each message and never crash,
// leak or hang.
#include <fcntl.h>
#include <spdlog/sinks/null_sink.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "cli/rule_set.hpp"
#include "fix/topology_provider.hpp"
#include "lsp/lsp_server.hpp"

namespace {

const ff::analysis::Catalog& fuzz_catalog() {
  static const auto* loaded = new ff::cli::LoadedCatalog(ff::cli::load_catalog({}, true));
  return loaded->catalog;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const int devnull = [] {
    spdlog::set_default_logger(
        std::make_shared<spdlog::logger>("fuzz", std::make_shared<spdlog::sinks::null_sink_mt>()));
    return ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  }();
  std::vector<ff::lsp::Frame> frames;
  std::string_view in(reinterpret_cast<const char*>(data), size);
  while (!in.empty()) {
    std::size_t nl = in.find('\n');
    std::string_view body = in.substr(0, nl);
    in.remove_prefix(nl == std::string_view::npos ? in.size() : nl + 1);
    if (body.empty()) continue;
    ff::lsp::Frame f;
    f.body.reserve(body.size() + ff::lsp::kBodyPadding);
    f.body.assign(body);
    frames.push_back(std::move(f));
  }
  ff::lsp::StdioTransport out(devnull);
  ff::lsp::ServerOptions options;
  // The fix planner's topology from files only (never this machine), shared by the runs.
  static const auto topology = std::make_shared<ff::fix::TopologyProvider>(/*live=*/false);
  options.topology = topology;
  options.exit_process = [](int) {};  // "exit" ends the session, not the fuzzer
  ff::lsp::LspServer server(fuzz_catalog(), options, out);
  server.on_frames(frames);
  server.on_eof();
  return 0;
}
