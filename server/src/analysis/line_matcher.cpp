#include "analysis/line_matcher.hpp"

#include <optional>

#include "analysis/prefilter.hpp"

namespace ff::analysis {

struct LineMatcher::Impl {
  const Catalog& catalog;
  std::optional<Prefilter::Session> session;
  std::vector<int> entries;
  std::vector<int> scratch;
};

LineMatcher::LineMatcher(const Catalog& catalog) : impl_(new Impl{catalog, {}, {}, {}}) {
  if (const Prefilter* pf = catalog.prefilter()) impl_->session.emplace(*pf);
}

LineMatcher::~LineMatcher() = default;

void LineMatcher::match(std::string_view line, std::vector<PatternHit>& out,
                        std::vector<std::pair<std::size_t, std::size_t>>& checks) {
  Impl& m = *impl_;
  m.entries.clear();
  // Without a prefilter, or when its scan fails, every pattern is tried.
  if (!m.session || !m.session->candidates(line, m.entries)) {
    m.catalog.match(line, out, checks, m.scratch);
    return;
  }
  if (!m.entries.empty()) m.catalog.match_candidates(line, m.entries, out, checks);
}

}  // namespace ff::analysis
