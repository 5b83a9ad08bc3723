#include "lsp/published_diagnostics.hpp"

#include <spdlog/spdlog.h>

#include <chrono>
#include <nlohmann/json.hpp>

#include "lsp/lsp_json.hpp"

namespace ff::lsp {

using json = nlohmann::json;

std::string PublishedDiagnostics::message(const Publication& p) {
  auto t0 = std::chrono::steady_clock::now();
  auto& cache = rendered_[p.uri];
  std::vector<std::pair<DiagnosticItem, std::string>> now;
  now.reserve(p.items.size());
  std::size_t reused = 0, bytes = 0;
  for (std::size_t i = 0; i < p.items.size(); ++i) {
    // Items come sorted by line, so an unchanged one sits at the same index.
    if (i < cache.size() && cache[i].first == p.items[i]) {
      now.push_back(std::move(cache[i]));
      ++reused;
    } else {
      now.emplace_back(
          p.items[i],
          diagnostic_json(p.items[i]).dump(-1, ' ', false, json::error_handler_t::replace));
    }
    bytes += now.back().second.size() + 1;
  }
  cache = std::move(now);
  // The same message the adapter's notify() would send, assembled from the rendered items.
  std::string body = R"({"jsonrpc":"2.0","method":"textDocument/publishDiagnostics","params":{)";
  body.reserve(body.size() + bytes + p.uri.size() + 64);
  body += R"("uri":)" + json(p.uri).dump(-1, ' ', false, json::error_handler_t::replace);
  body += R"(,"version":)" + std::to_string(p.version) + R"(,"diagnostics":[)";
  for (std::size_t i = 0; i < cache.size(); ++i) {
    if (i) body += ',';
    body += cache[i].second;
  }
  body += "]}}";
  spdlog::debug(
      "published {} diagnostics ({} rendered again) for {} v{} in {:.1f} ms", p.items.size(),
      p.items.size() - reused, p.uri, p.version,
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  return body;
}

}  // namespace ff::lsp
