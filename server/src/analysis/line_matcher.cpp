#include "analysis/line_matcher.hpp"

#include <algorithm>
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
  // The prefilter's answer is used only when it has one for every byte of the line: an id
  // at or past the entry count marks bytes RE2 reads differently (try everything).
  const bool narrowed = m.session && m.session->ok() && m.session->candidates(line, m.entries) &&
                        std::none_of(m.entries.begin(), m.entries.end(), [&](int id) {
                          return static_cast<std::size_t>(id) >= m.catalog.entry_count();
                        });
  if (!narrowed) {
    m.catalog.match(line, out, checks, m.scratch);
    return;
  }
  if (!m.entries.empty()) m.catalog.match_candidates(line, m.entries, out, checks);
}

}  // namespace ff::analysis
