#include <map>
#include <sstream>

#include "report/report.hpp"

namespace ff::report {

std::string percent(double share) {
  return std::to_string(static_cast<int>(share * 100 + 0.5)) + "%";
}

namespace {

struct Style {
  bool on;
  std::string bold() const { return on ? "\x1b[1m" : ""; }
  std::string red() const { return on ? "\x1b[1;31m" : ""; }
  std::string yellow() const { return on ? "\x1b[33m" : ""; }
  std::string dim() const { return on ? "\x1b[2m" : ""; }
  std::string green() const { return on ? "\x1b[32m" : ""; }
  std::string reset() const { return on ? "\x1b[0m" : ""; }
};

std::string where(const analysis::Analysis& a, const analysis::Event& e) {
  std::string s = a.files[e.file].name + ":" + std::to_string(e.line + 1);
  return s;
}

std::string who(const analysis::Event& e) {
  std::vector<std::string> parts;
  if (e.source.rank) parts.push_back("rank " + std::to_string(*e.source.rank));
  if (e.source.local_rank) parts.push_back("local rank " + std::to_string(*e.source.local_rank));
  if (!e.source.host.empty()) parts.push_back("host " + e.source.host);
  if (e.source.pid) parts.push_back("pid " + std::to_string(*e.source.pid));
  if (e.source.device) parts.push_back("GPU " + std::to_string(*e.source.device));
  std::string s;
  for (std::size_t i = 0; i < parts.size(); ++i) s += (i ? ", " : "") + parts[i];
  return s;
}

std::string clip(const std::string& s, std::size_t n) {
  if (s.size() <= n) return s;
  return s.substr(0, n - 3) + "...";
}

// Observations that explain no failure of this log: worth knowing, not the cause.
void findings_text(const analysis::Catalog& catalog, const analysis::Analysis& a, const Style& st,
                   std::ostringstream& o) {
  if (a.findings.empty()) return;
  const auto& rules = catalog.rules();
  std::map<std::size_t, std::vector<std::size_t>> groups;
  std::vector<std::size_t> order;
  for (std::size_t i : a.findings) {
    auto& g = groups[a.events[i].rule];
    if (g.empty()) order.push_back(a.events[i].rule);
    g.push_back(i);
  }
  o << "\n" << st.yellow() << "Findings" << st.reset() << " (not failures by themselves):\n";
  for (std::size_t rule : order) {
    const auto& idx = groups[rule];
    std::size_t total =
        a.rule_hits.size() > rule ? std::max(a.rule_hits[rule], idx.size()) : idx.size();
    o << "  warning: " << rules[rule].title << " (" << total << " line" << (total == 1 ? "" : "s")
      << ", first at " << where(a, a.events[idx.front()]) << ")\n";
    o << "    " << clip(a.events[idx.front()].text, 160) << "\n";
  }
}

// What the root cause means: the rule's words, or, for a known bug of the stated release,
// the bug, its range and where it is confirmed.
void meaning_text(const analysis::Rule& r, const analysis::KnownBug* bug, const Style& st,
                  std::ostringstream& o) {
  if (!bug) {
    o << "\n" << st.bold() << "What it means: " << st.reset() << r.indicates << "\n";
    return;
  }
  o << "\n"
    << st.bold() << "Known bug: " << st.reset() << bug->id << " ("
    << analysis::known_bug_range(*bug) << "): " << bug->summary << "\n";
  for (const auto& s : bug->sources) o << "    source: " << s << "\n";
}

// The fix: a known bug's (the upgrade) in place of the rule's.
void fix_text(const analysis::Rule& r, const analysis::KnownBug* bug, const Style& st,
              std::ostringstream& o) {
  if (bug) {
    o << "\n" << st.bold() << "Fix: " << st.reset() << bug->fix << "\n";
  } else if (!r.fix.summary.empty() || !r.fix.env.empty() || !r.fix.steps.empty()) {
    o << "\n" << st.bold() << "Fix: " << st.reset() << r.fix.summary << "\n";
    for (const auto& [k, v] : r.fix.env) o << "    export " << k << "=" << v << "\n";
    for (const auto& s : r.fix.steps) o << "  - " << s << "\n";
  }
}

}  // namespace

std::string to_text(const analysis::Catalog& catalog, const analysis::Analysis& a,
                    const TextOptions& options) {
  const auto& rules = catalog.rules();
  Style st{options.color};
  std::ostringstream o;
  std::size_t lines = 0;
  for (const auto& f : a.files) lines += f.lines;
  if (a.unexplained) {
    o << st.red() << "Unexplained failure: " << st.reset() << analysis::describe_outcome(a.outcome)
      << ", but nothing in " << a.files.size() << (a.files.size() == 1 ? " file" : " files") << " ("
      << lines << " lines) shows why: no error, crash or timeout firstfault recognises, "
      << "and nothing it observed explains a failure.\n";
    if (a.capture_rule) {
      const auto& r = rules[*a.capture_rule];
      o << "\n" << st.bold() << "Fix: " << st.reset() << r.fix.summary << "\n";
      for (const auto& [k, v] : r.fix.env) o << "    export " << k << "=" << v << "\n";
      for (const auto& step : r.fix.steps) o << "  - " << step << "\n";
      if (!r.verify.command.empty())
        o << "\n" << st.bold() << "Verify: " << st.reset() << r.verify.command << "\n";
    }
    findings_text(catalog, a, st, o);
    if (!options.appendix.empty()) o << "\n" << options.appendix;
    o << "category: none\n";
    return o.str();
  }
  if (a.diagnoses.empty()) {
    o << st.green() << "No failure found" << st.reset() << " in " << a.files.size()
      << (a.files.size() == 1 ? " file" : " files") << " (" << lines << " lines).\n";
    std::size_t benign = 0;
    for (std::size_t i : a.context)
      if (rules[a.events[i].rule].benign) ++benign;
    for (const auto& c : a.counted)  // past each input's first ones, only counted
      if (rules[c.rule].benign) benign += c.count;
    if (benign)
      o << "  " << benign << " benign line" << (benign == 1 ? "" : "s")
        << " (optional components probed, not failures), e.g.:\n    "
        << clip(a.events[a.context.front()].text, 160) << "\n";
    findings_text(catalog, a, st, o);
    if (!options.appendix.empty()) o << "\n" << options.appendix;
    o << "category: none\n";
    return o.str();
  }
  const auto& d = a.diagnoses.front();
  const auto& r = rules[d.rule];
  const auto& e = a.events[d.initiating];
  o << st.red() << "Root cause: " << (d.headline.empty() ? r.title : d.headline) << st.reset()
    << "  [" << d.category << ", " << percent(d.confidence) << " confidence ("
    << (d.confidence >= analysis::kLikelyConfidence ? "likely" : "possible") << "), rule " << r.id
    << "]\n";
  std::string w = who(e);
  o << st.bold() << "Initiating: " << st.reset() << (w.empty() ? "unattributed line" : w) << " at "
    << where(a, e) << "\n";
  o << "    " << clip(e.text, 400) << "\n";
  o << st.dim() << "    (" << d.reasoning << ")" << st.reset() << "\n";
  if (a.only_victims)
    o << st.yellow() << "Only victims are in this log: the initiating rank's own output is missing."
      << st.reset()
      << (e.capture("peer").empty() ? "" : " Peer named: " + std::string(e.capture("peer")))
      << "\n";
  const analysis::KnownBug* bug = analysis::known_bug_of(rules, d);
  meaning_text(r, bug, st, o);
  o << "\n" << st.bold() << "Verdict: " << st.reset() << analysis::verdict_summary(d.verdict) << "\n";
  o << st.dim() << "    (" << d.verdict.reason << ")" << st.reset() << "\n";
  if (!d.collateral.empty()) {
    std::map<std::size_t, std::vector<std::size_t>> groups;
    for (std::size_t i : d.collateral) groups[a.events[i].rule].push_back(i);
    o << "\n"
      << st.bold() << "Collateral: " << st.reset() << d.collateral.size() << " line"
      << (d.collateral.size() == 1 ? "" : "s") << " are consequences, not causes:\n";
    std::size_t shown = 0;
    for (const auto& [rule, idx] : groups) {
      if (++shown > options.max_collateral_groups) {
        o << "  ... and " << groups.size() - options.max_collateral_groups << " more kinds\n";
        break;
      }
      std::size_t total =
          a.rule_hits.size() > rule ? std::max(a.rule_hits[rule], idx.size()) : idx.size();
      o << "  " << total << " x " << rules[rule].title << " (first at "
        << where(a, a.events[idx.front()]);
      std::string fw = who(a.events[idx.front()]);
      if (!fw.empty()) o << ", " << fw;
      o << ")\n";
    }
  }
  fix_text(r, bug, st, o);
  if (!r.verify.command.empty()) {
    o << "\n" << st.bold() << "Verify: " << st.reset() << r.verify.command << "\n";
    if (!r.verify.expect.empty()) o << "    expect: " << r.verify.expect << "\n";
  }
  if (!d.checks.empty()) {
    o << "\n" << st.bold() << "Confirm:" << st.reset() << "\n";
    for (const auto& c : d.checks)
      o << "  [" << (c.satisfied ? "x" : " ") << "] " << c.text
        << (c.satisfied ? "  (the log shows this)" : "") << "\n";
  }
  if (a.diagnoses.size() > 1) {
    o << "\n" << st.bold() << "Other hypotheses:" << st.reset() << "\n";
    for (std::size_t k = 1; k < a.diagnoses.size() && k < 6; ++k) {
      const auto& h = a.diagnoses[k];
      o << "  " << percent(h.confidence) << "  " << h.category << ": "
        << (h.known_bug ? h.headline : rules[h.rule].title) << " ("
        << where(a, a.events[h.initiating]) << ")\n";
    }
  }
  if (!r.related.empty()) {
    o << "\n" << st.bold() << "Tell apart from:" << st.reset() << "\n";
    for (const auto& x : r.related) o << "  " << x.rule << ": " << x.distinguish << "\n";
  }
  findings_text(catalog, a, st, o);
  if (!options.appendix.empty()) o << "\n" << options.appendix;
  o << "\ncategory: " << d.category << "\n";
  return o.str();
}

}  // namespace ff::report
