#include "lsp/publications.hpp"

#include <utility>

namespace ff::lsp {

std::string job_of(const std::string& uri) {
  if (uri.rfind("file:", 0) != 0) return uri;
  return uri.substr(0, uri.rfind('/') + 1);
}

std::vector<std::vector<DocumentSnapshot>> Publications::changed_jobs(
    const DraftStore& drafts) const {
  std::map<std::string, std::vector<DocumentSnapshot>> jobs;
  for (auto& snap : drafts.log_snapshots()) jobs[job_of(snap.uri)].push_back(std::move(snap));
  // Current: every member's latest version is published, by one run of exactly these members
  // (a log that joined or left the job changes what the others say).
  auto current = [&](const std::vector<DocumentSnapshot>& job) {
    for (const auto& snap : job) {
      auto p = published_.find(snap.uri);
      if (p == published_.end() || !p->second.run || p->second.version != snap.version ||
          p->second.run->docs.size() != job.size())
        return false;
      for (std::size_t i = 0; i < job.size(); ++i)
        if (p->second.run->docs[i].uri != job[i].uri) return false;
    }
    return true;
  };
  std::vector<std::vector<DocumentSnapshot>> out;
  for (auto& [key, job] : jobs)
    if (!current(job)) out.push_back(std::move(job));
  return out;
}

std::vector<Publication> Publications::accept(std::shared_ptr<const AnalysisRun> run,
                                              const DraftStore& drafts) {
  std::vector<Publication> out;
  for (const auto& snap : run->docs) {
    auto now_text = drafts.snapshot(snap.uri);
    if (!now_text || now_text->version != snap.version || !(now_text->text == snap.text))
      continue;  // stale: a newer analysis is scheduled
    Published& p = published_[snap.uri];
    if (p.run && p.version > snap.version) continue;
    auto items = run->items.find(snap.uri);
    std::vector<DiagnosticItem> now =
        items == run->items.end() ? std::vector<DiagnosticItem>{} : items->second;
    // A version is published once: again only when another log changed what it says
    // (correlation across files), never the same diagnostics a second time.
    bool same = p.run && p.version == snap.version && [&] {
      auto before = p.run->items.find(snap.uri);
      return before == p.run->items.end() ? now.empty() : before->second == now;
    }();
    p.version = snap.version;
    p.run = run;
    if (same) continue;
    out.push_back({snap.uri, snap.version, std::move(now)});
  }
  return out;
}

bool Publications::up_to_date(const std::string& uri, const DraftStore& drafts) const {
  if (!drafts.is_log(uri)) return true;
  auto p = published_.find(uri);
  return p != published_.end() && p->second.run && p->second.version == drafts.version(uri);
}

std::shared_ptr<const AnalysisRun> Publications::run(const std::string& uri) const {
  auto p = published_.find(uri);
  return p == published_.end() ? nullptr : p->second.run;
}

std::vector<DiagnosticItem> Publications::items(const std::string& uri) const {
  auto p = published_.find(uri);
  if (p == published_.end() || !p->second.run) return {};
  auto it = p->second.run->items.find(uri);
  return it == p->second.run->items.end() ? std::vector<DiagnosticItem>{} : it->second;
}

}  // namespace ff::lsp
