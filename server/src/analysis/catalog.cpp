#include "analysis/catalog.hpp"

#include <re2/re2.h>
#include <re2/set.h>

#include <algorithm>
#include <atomic>
#include <mutex>

#include "analysis/lazy_regex.hpp"
#include "analysis/prefilter.hpp"

namespace ff::analysis {

namespace {

RE2::Options pattern_options() {
  RE2::Options o;
  o.set_log_errors(false);
  o.set_max_mem(64 << 20);
  return o;
}

struct CompiledPattern {
  std::size_t rule;
  std::size_t pattern;
  std::unique_ptr<LazyRegex> re;
};

using Regex = std::unique_ptr<LazyRegex>;

}  // namespace

struct Catalog::Impl {
  RE2::Set set{pattern_options(), RE2::UNANCHORED};
  // Set index -> what it is: a rule pattern (check == npos) or a check's evidence pattern.
  struct Entry {
    std::size_t pattern_slot;  // index into `patterns`, or npos for check entries
    std::size_t rule;
    std::size_t check;
    Regex check_re;  // check entries: to confirm a prefilter candidate
  };
  std::vector<Entry> entries;
  std::vector<CompiledPattern> patterns;
  std::vector<std::vector<Regex>> excludes;  // per rule
  std::vector<std::vector<Regex>> words;     // per rule: Rule::words' patterns
  std::vector<std::size_t> vocabulary;       // the fallback rules with words, in catalog order
  std::vector<std::size_t> first_pattern;    // per rule: its first slot in `patterns`
  bool any = false;
  std::vector<std::string> set_patterns;  // every pattern added to `set`, in Set order

  std::once_flag set_once;
  bool set_ok = false;
  const RE2::Set* get_set();

  // Whether one of rule `rule`'s excludes matches `text`: its hit there is no hit.
  bool excluded(std::size_t rule, const re2::StringPiece& text) const {
    for (const auto& ex : excludes[rule])
      if (RE2::PartialMatch(text, ex->get())) return true;
    return false;
  }

  std::once_flag prefilter_once;
  std::unique_ptr<Prefilter> prefilter;
  std::atomic<bool> prefilter_built{false};
};

Catalog::Catalog() : impl_(std::make_unique<Impl>()) {}
Catalog::Catalog(Catalog&&) noexcept = default;
Catalog& Catalog::operator=(Catalog&&) noexcept = default;
Catalog::~Catalog() = default;

Catalog Catalog::compile(std::vector<Rule> rules, std::vector<CompileError>* errors,
                         Validation validation) {
  Catalog cat;
  auto report = [&](const Rule& r, std::string field, std::string msg) {
    if (errors) errors->push_back({r.origin, r.id, std::move(field), std::move(msg)});
  };
  // Compile every pattern once; a rule with any pattern that does not compile is dropped
  // whole, so a broken rule never contributes half of its patterns.
  struct Compiled {
    std::vector<Regex> patterns, excludes, words;
    std::vector<std::vector<Regex>> evidence;
  };
  std::vector<Rule> ok;
  std::vector<Compiled> compiled;
  ok.reserve(rules.size());
  compiled.reserve(rules.size());
  for (auto& r : rules) {
    bool good = !r.patterns.empty();
    if (!good) report(r, "patterns", "a rule needs at least one pattern");
    Compiled c;
    const bool trusted = validation == Validation::kTrustBuiltin && r.origin.rfind("builtin:", 0) == 0;
    auto try_compile = [&](const std::string& pat, const std::string& field,
                           const RE2::Options& options = pattern_options()) {
      if (trusted) return std::make_unique<LazyRegex>(pat, options, nullptr);
      auto re = std::make_unique<RE2>(pat, options);
      if (!re->ok()) {
        report(r, field, re->error());
        good = false;
      }
      return std::make_unique<LazyRegex>(pat, options, std::move(re));
    };
    for (std::size_t i = 0; i < r.patterns.size(); ++i)
      c.patterns.push_back(try_compile(r.patterns[i], "patterns[" + std::to_string(i) + "]"));
    for (std::size_t i = 0; i < r.exclude.size(); ++i)
      c.excludes.push_back(try_compile(r.exclude[i], "exclude[" + std::to_string(i) + "]"));
    // A message's words are read whatever their case ("Shared memory", "SHM").
    RE2::Options words_options = pattern_options();
    words_options.set_case_sensitive(false);
    for (std::size_t i = 0; i < r.words.size(); ++i)
      c.words.push_back(try_compile(r.words[i].pattern, "words[" + std::to_string(i) + "].pattern",
                                    words_options));
    for (std::size_t k = 0; k < r.checks.size(); ++k) {
      c.evidence.emplace_back();
      for (std::size_t e = 0; e < r.checks[k].evidence.size(); ++e)
        c.evidence.back().push_back(try_compile(
            r.checks[k].evidence[e], "checks[" + std::to_string(k) + "].evidence[" + std::to_string(e) + "]"));
    }
    if (good) {
      ok.push_back(std::move(r));
      compiled.push_back(std::move(c));
    }
  }
  cat.rules_ = std::move(ok);
  auto& impl = *cat.impl_;
  impl.excludes.resize(cat.rules_.size());
  impl.words.resize(cat.rules_.size());
  for (std::size_t ri = 0; ri < cat.rules_.size(); ++ri) {
    const Rule& r = cat.rules_[ri];
    Compiled& c = compiled[ri];
    impl.first_pattern.push_back(impl.patterns.size());
    // Progress counters' and stack frames' lines are read after the scan (progress.hpp,
    // stacks.hpp, through matches()), never by it: a training loop prints one on every step.
    const bool scanned = !read_after_scan(r.decode);
    for (std::size_t pi = 0; pi < r.patterns.size(); ++pi) {
      CompiledPattern cp{ri, pi, std::move(c.patterns[pi])};
      if (scanned) {
        impl.entries.push_back({impl.patterns.size(), ri, std::string::npos, nullptr});
        impl.set_patterns.push_back(r.patterns[pi]);
        impl.any = true;
      }
      impl.patterns.push_back(std::move(cp));
    }
    impl.excludes[ri] = std::move(c.excludes);
    impl.words[ri] = std::move(c.words);
    if (r.role == Role::kFallback && !r.words.empty()) impl.vocabulary.push_back(ri);
    for (std::size_t ci = 0; ci < r.checks.size(); ++ci)
      for (std::size_t e = 0; e < r.checks[ci].evidence.size(); ++e) {
        impl.entries.push_back({std::string::npos, ri, ci, std::move(c.evidence[ci][e])});
        impl.set_patterns.push_back(r.checks[ci].evidence[e]);
        impl.any = true;
      }
  }
  return cat;
}

const RE2::Set* Catalog::Impl::get_set() {
  // Built on first use: with a prefilter, only lines with escapes or control bytes need
  // the whole set, and start-up should not pay for it.
  std::call_once(set_once, [this] {
    for (const auto& p : set_patterns) {
      std::string err;
      if (set.Add(p, &err) < 0) return;
    }
    set_ok = set.Compile();
  });
  return set_ok ? &set : nullptr;
}

std::optional<std::string_view> Catalog::category_from_words(std::size_t rule,
                                                             std::string_view text) const {
  if (rule >= impl_->words.size() || rules_[rule].role != Role::kFallback) return std::nullopt;
  auto read = [&](std::size_t r) -> std::optional<std::string_view> {
    const auto& words = impl_->words[r];
    for (std::size_t i = 0; i < words.size(); ++i)
      if (RE2::PartialMatch(text, words[i]->get())) return rules_[r].words[i].category;
    return std::nullopt;
  };
  if (!rules_[rule].words.empty()) return read(rule);
  // A fallback rule without a vocabulary of its own (an uncaught exception's last line) reads
  // its line with the vocabulary of the fallback rules that have one, in catalog order.
  for (std::size_t r : impl_->vocabulary)
    if (auto category = read(r)) return category;
  return std::nullopt;
}

const Rule* Catalog::find(std::string_view id) const {
  for (const auto& r : rules_)
    if (r.id == id) return &r;
  return nullptr;
}

std::vector<std::size_t> Catalog::rules_decoding(Decode decode) const {
  std::vector<std::size_t> out;
  for (std::size_t r = 0; r < rules_.size(); ++r)
    if (rules_[r].decode == decode) out.push_back(r);
  return out;
}

bool Catalog::matches(std::size_t rule, std::string_view line) const {
  if (rule >= impl_->first_pattern.size()) return false;
  re2::StringPiece text(line.data(), line.size());
  bool hit = false;
  for (std::size_t slot = impl_->first_pattern[rule];
       !hit && slot < impl_->patterns.size() && impl_->patterns[slot].rule == rule; ++slot)
    hit = impl_->patterns[slot].re->get().Match(text, 0, text.size(), RE2::UNANCHORED, nullptr, 0);
  return hit && !impl_->excluded(rule, text);
}

bool Catalog::empty() const { return !impl_->any; }

const Prefilter* Catalog::prefilter() const {
  std::call_once(impl_->prefilter_once, [this] {
    if (impl_->any) impl_->prefilter = Prefilter::build(impl_->set_patterns, nullptr);
    impl_->prefilter_built = true;
  });
  return impl_->prefilter.get();
}

bool Catalog::prefilter_ready() const { return impl_->prefilter_built; }

bool Catalog::adopt_prefilter(std::string_view bytes, bool bytes_outlive_catalog) {
  if (impl_->prefilter_built) return false;
  auto pf = Prefilter::load(bytes, impl_->set_patterns,
                            bytes_outlive_catalog ? Prefilter::Storage::kStatic
                                                  : Prefilter::Storage::kCopy);
  if (!pf) return false;
  bool adopted = false;
  std::call_once(impl_->prefilter_once, [&] {
    impl_->prefilter = std::move(pf);
    impl_->prefilter_built = true;
    adopted = true;
  });
  return adopted;
}

std::string Catalog::serialize_prefilter() const {
  const Prefilter* pf = prefilter();
  return pf ? pf->serialize(impl_->set_patterns) : std::string();
}

void Catalog::match(std::string_view line, std::vector<PatternHit>& out,
                    std::vector<std::pair<std::size_t, std::size_t>>& checks,
                    std::vector<int>& scratch) const {
  if (!impl_->any) return;
  scratch.clear();
  re2::StringPiece text(line.data(), line.size());
  const RE2::Set* set = impl_->get_set();
  if (!set) {
    // The set could not be built (RE2's memory budget): try every entry on its own.
    scratch.resize(impl_->entries.size());
    for (std::size_t i = 0; i < scratch.size(); ++i) scratch[i] = static_cast<int>(i);
    resolve(line, scratch, out, checks, true);
    return;
  }
  if (!set->Match(text, &scratch)) return;
  std::sort(scratch.begin(), scratch.end());
  resolve(line, scratch, out, checks, false);
}

void Catalog::match_candidates(std::string_view line, std::vector<int>& entries,
                               std::vector<PatternHit>& out,
                               std::vector<std::pair<std::size_t, std::size_t>>& checks) const {
  if (!impl_->any) return;
  std::sort(entries.begin(), entries.end());
  entries.erase(std::unique(entries.begin(), entries.end()), entries.end());
  resolve(line, entries, out, checks, true);
}

std::size_t Catalog::entry_count() const { return impl_->entries.size(); }

bool Catalog::check_of_entry(int id, std::size_t& rule, std::size_t& check) const {
  if (id < 0 || static_cast<std::size_t>(id) >= impl_->entries.size()) return false;
  const Impl::Entry& e = impl_->entries[static_cast<std::size_t>(id)];
  if (e.pattern_slot != std::string::npos) return false;
  rule = e.rule;
  check = e.check;
  return true;
}

void Catalog::fill_captures(std::string_view line, PatternHit& hit) const {
  if (hit.slot >= impl_->patterns.size() || hit.located) return;
  const CompiledPattern& cp = impl_->patterns[hit.slot];
  re2::StringPiece text(line.data(), line.size());
  const RE2& re = cp.re->get();
  const auto& groups = re.NamedCapturingGroups();
  int n = groups.empty() ? 1 : re.NumberOfCapturingGroups() + 1;
  std::vector<re2::StringPiece> sub(static_cast<std::size_t>(n));
  if (!re.Match(text, 0, text.size(), RE2::UNANCHORED, sub.data(), n)) return;
  hit.located = true;
  hit.match_begin = static_cast<std::size_t>(sub[0].data() - text.data());
  hit.match_end = hit.match_begin + sub[0].size();
  for (const auto& [name, group] : groups) {
    const auto& s = sub[static_cast<std::size_t>(group)];
    if (s.data() != nullptr) hit.captures.push_back({name, std::string(s.data(), s.size())});
  }
}

void Catalog::resolve(std::string_view line, const std::vector<int>& sorted_entries,
                      std::vector<PatternHit>& out,
                      std::vector<std::pair<std::size_t, std::size_t>>& checks,
                      bool unconfirmed) const {
  re2::StringPiece text(line.data(), line.size());
  std::size_t last_rule = static_cast<std::size_t>(-1);
  for (int idx : sorted_entries) {
    if (idx < 0 || static_cast<std::size_t>(idx) >= impl_->entries.size()) continue;
    const Impl::Entry& e = impl_->entries[static_cast<std::size_t>(idx)];
    if (e.pattern_slot == std::string::npos) {
      if (!unconfirmed || RE2::PartialMatch(text, e.check_re->get())) checks.emplace_back(e.rule, e.check);
      continue;
    }
    const CompiledPattern& cp = impl_->patterns[e.pattern_slot];
    if (cp.rule == last_rule) continue;  // one hit per rule and line: the first pattern wins
    // Only whether it matches here: a forward DFA pass that stops at the first match (where
    // the match starts would take a second, backward pass). The match is located and its
    // groups extracted later, by fill_captures(), for the one hit per line that becomes an
    // event.
    if (!cp.re->get().Match(text, 0, text.size(), RE2::UNANCHORED, nullptr, 0)) continue;
    if (impl_->excluded(cp.rule, text)) continue;
    PatternHit hit{cp.rule, cp.pattern, {}, 0, 0};
    hit.slot = e.pattern_slot;
    out.push_back(std::move(hit));
    last_rule = cp.rule;
  }
}

}  // namespace ff::analysis
