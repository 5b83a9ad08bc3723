// Jobs and what was published for them. A job is the logs of one folder (job_of); each job
// is analysed on its own, and only when its published analysis is not of its members'
// current texts. Publications remembers, per log, the run last published for it and the
// version it was for: the features (hover, actions, lenses, report) read that run, a stale
// run is never published, and a version's diagnostics are published again only when
// another log of its job changed them.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "lsp/analysis_run.hpp"
#include "lsp/draft_store.hpp"

namespace ff::lsp {

// The job a log belongs to: the logs of one directory (file: URIs) are one job (a folder
// of per-rank logs), a document without a folder (untitled:...) is a job of its own. An
// unrelated log open in the workspace is thus never correlated with another job's.
std::string job_of(const std::string& uri);

// A document's diagnostics for one of its versions, to send to the client.
struct Publication {
  std::string uri;
  std::int64_t version;
  std::vector<DiagnosticItem> items;
};

class Publications {
 public:
  // The logs to analyse, one snapshot per job, of the jobs whose published analysis is not
  // of their current texts and members: a job nobody touched is not analysed (or
  // published) again when another changes.
  std::vector<std::vector<DocumentSnapshot>> changed_jobs(const DraftStore& drafts) const;
  // Takes a finished run: only documents whose text is still the one analysed get its
  // results, and a run older than what was already published is dropped. Returns what to
  // send.
  std::vector<Publication> accept(std::shared_ptr<const AnalysisRun> run, const DraftStore& drafts);
  // True when the document's latest version has been analysed (or needs no analysis).
  bool up_to_date(const std::string& uri, const DraftStore& drafts) const;
  // The run last published for a document (null: none), and its items there.
  std::shared_ptr<const AnalysisRun> run(const std::string& uri) const;
  std::vector<DiagnosticItem> items(const std::string& uri) const;
  // The document was opened anew or closed: nothing published for it holds.
  void forget(const std::string& uri) { published_.erase(uri); }

 private:
  struct Published {
    std::int64_t version = -1;
    std::shared_ptr<const AnalysisRun> run;
  };
  std::map<std::string, Published> published_;
};

}  // namespace ff::lsp
