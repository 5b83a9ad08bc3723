#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <utility>

#include "analysis/scan.hpp"
#include "jsonio/json_reader.hpp"
#include "report/summary.hpp"

#ifndef FF_VERSION
#define FF_VERSION "dev"
#endif

namespace ff::report {

namespace {

using ojson = nlohmann::ordered_json;
using nlohmann::json;

constexpr std::string_view kKey = "\"firstfault_summary\"";

// Enum names, written and read back (one table each, so the two directions agree).
template <typename E>
struct Name {
  E value;
  const char* name;
};
constexpr Name<analysis::NcclLevel> kLevels[] = {
    {analysis::NcclLevel::kInfo, "info"},   {analysis::NcclLevel::kWarn, "warn"},
    {analysis::NcclLevel::kTrace, "trace"}, {analysis::NcclLevel::kError, "error"},
    {analysis::NcclLevel::kAbort, "abort"}, {analysis::NcclLevel::kDiag, "diag"},
    {analysis::NcclLevel::kAttn, "attn"}};
constexpr Name<analysis::Severity> kSeverities[] = {{analysis::Severity::kInfo, "info"},
                                                    {analysis::Severity::kWarning, "warning"},
                                                    {analysis::Severity::kError, "error"},
                                                    {analysis::Severity::kFatal, "fatal"}};
constexpr Name<analysis::TimeKind> kTimeKinds[] = {
    {analysis::TimeKind::kWallClock, "wall-clock"},
    {analysis::TimeKind::kWallClockNoYear, "wall-clock-no-year"},
    {analysis::TimeKind::kKernelUptime, "kernel-uptime"}};

template <typename E, std::size_t N>
const char* name_of(const Name<E> (&table)[N], E v) {
  for (const auto& n : table)
    if (n.value == v) return n.name;
  return nullptr;  // the default value: not written
}

// Rules whose events the diagnosis only lists (see summary.hpp, the bound): the scan's own
// notion of a context rule.
bool listed_only(const analysis::Rule& r) {
  return analysis::is_context_rule(r);
}

ojson source_json(const analysis::LineSource& s) {
  ojson j = ojson::object();
  if (s.rank) j["rank"] = *s.rank;
  if (s.local_rank) j["local_rank"] = *s.local_rank;
  if (!s.host.empty()) j["host"] = s.host;
  if (s.pid) j["pid"] = *s.pid;
  if (s.tid) j["tid"] = *s.tid;
  if (s.device) j["device"] = *s.device;
  if (const char* n = name_of(kLevels, s.level)) j["level"] = n;
  if (const char* n = name_of(kSeverities, s.severity)) j["severity"] = n;
  if (!s.nccl_file.empty()) j["nccl_file"] = s.nccl_file;
  if (const char* n = name_of(kTimeKinds, s.time_kind)) {
    j["time_kind"] = n;
    j["time"] = s.time;
  }
  if (s.body) j["body"] = s.body;
  return j;
}

ojson event_json(const analysis::Catalog& catalog, const analysis::Event& e) {
  ojson j = ojson::object();
  j["file"] = e.file;
  j["line"] = e.line + 1;
  j["rule"] = catalog.rules()[e.rule].id;
  j["offset"] = e.offset;
  j["length"] = e.length;
  j["match"] = ojson::array({e.match_begin, e.match_end});
  j["text"] = e.text;
  if (!e.captures.empty()) {
    ojson caps = ojson::array();
    for (const auto& c : e.captures) caps.push_back(ojson::array({c.name, c.value}));
    j["captures"] = std::move(caps);
  }
  ojson src = source_json(e.source);
  if (!src.empty()) j["source"] = std::move(src);
  if (e.in_root_cause_record) j["root_cause_record"] = true;
  return j;
}

// --- reading -----------------------------------------------------------------------------

struct Failure {
  std::string place;
  std::string message;
};

[[noreturn]] void fail(std::string place, std::string message) {
  throw Failure{std::move(place), std::move(message)};
}

std::string at(const std::string& path, std::string_view key) {
  std::string p = path + "/";
  for (char c : key) {  // JSON Pointer escapes (RFC 6901)
    if (c == '~')
      p += "~0";
    else if (c == '/')
      p += "~1";
    else
      p += c;
  }
  return p;
}
std::string at(const std::string& path, std::size_t index) {
  return path + "/" + std::to_string(index);
}

const json& member(const json& obj, std::string_view key, const std::string& path) {
  auto it = obj.find(key);
  if (it == obj.end()) fail(path, "missing \"" + std::string(key) + "\"");
  return *it;
}
const json* optional_member(const json& obj, std::string_view key) {
  auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}

std::uint64_t as_count(const json& v, const std::string& path) {
  if (v.is_number_unsigned()) return v.get<std::uint64_t>();
  if (v.is_number_integer() && v.get<std::int64_t>() >= 0)
    return static_cast<std::uint64_t>(v.get<std::int64_t>());
  fail(path, "expected a non-negative integer");
}
std::size_t as_size(const json& v, const std::string& path) {
  std::uint64_t n = as_count(v, path);
  if (n > std::numeric_limits<std::size_t>::max()) fail(path, "number too large");
  return static_cast<std::size_t>(n);
}
std::int64_t as_int64(const json& v, const std::string& path) {
  if (v.is_number_integer()) return v.get<std::int64_t>();
  if (v.is_number_unsigned() &&
      v.get<std::uint64_t>() <=
          static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
    return static_cast<std::int64_t>(v.get<std::uint64_t>());
  fail(path, "expected an integer");
}
int as_int(const json& v, const std::string& path) {
  std::int64_t n = as_int64(v, path);
  if (n < std::numeric_limits<int>::min() || n > std::numeric_limits<int>::max())
    fail(path, "integer out of range");
  return static_cast<int>(n);
}
const std::string& as_string(const json& v, const std::string& path) {
  if (!v.is_string()) fail(path, "expected a string");
  return v.get_ref<const std::string&>();
}
const json& as_object(const json& v, const std::string& path) {
  if (!v.is_object()) fail(path, "expected an object");
  return v;
}
const json& as_array(const json& v, const std::string& path) {
  if (!v.is_array()) fail(path, "expected an array");
  return v;
}

template <typename E, std::size_t N>
E enum_of(const Name<E> (&table)[N], const json& v, const std::string& path) {
  const std::string& s = as_string(v, path);
  for (const auto& n : table)
    if (s == n.name) return n.value;
  std::string known;
  for (const auto& n : table) known += std::string(known.empty() ? "" : ", ") + n.name;
  fail(path, "unknown value \"" + s + "\" (one of " + known + ")");
}

std::size_t rule_index(const analysis::Catalog& catalog, const json& v, const std::string& path) {
  const std::string& id = as_string(v, path);
  const analysis::Rule* r = catalog.find(id);
  if (!r)
    fail(path, "rule \"" + id +
                   "\" is not among this firstfault's rules (summarise and merge with the same "
                   "version and --rules)");
  return static_cast<std::size_t>(r - catalog.rules().data());
}

analysis::LineSource read_source(const json& j, const std::string& path) {
  as_object(j, path);
  analysis::LineSource s;
  if (auto* v = optional_member(j, "rank")) s.rank = as_int(*v, at(path, "rank"));
  if (auto* v = optional_member(j, "local_rank")) s.local_rank = as_int(*v, at(path, "local_rank"));
  if (auto* v = optional_member(j, "host")) s.host = as_string(*v, at(path, "host"));
  if (auto* v = optional_member(j, "pid")) s.pid = as_int64(*v, at(path, "pid"));
  if (auto* v = optional_member(j, "tid")) s.tid = as_int64(*v, at(path, "tid"));
  if (auto* v = optional_member(j, "device")) s.device = as_int(*v, at(path, "device"));
  if (auto* v = optional_member(j, "level")) s.level = enum_of(kLevels, *v, at(path, "level"));
  if (auto* v = optional_member(j, "severity"))
    s.severity = enum_of(kSeverities, *v, at(path, "severity"));
  if (auto* v = optional_member(j, "nccl_file")) s.nccl_file = as_string(*v, at(path, "nccl_file"));
  if (auto* v = optional_member(j, "time_kind")) {
    s.time_kind = enum_of(kTimeKinds, *v, at(path, "time_kind"));
    const json& t = member(j, "time", path);
    if (!t.is_number() || !std::isfinite(t.get<double>()))
      fail(at(path, "time"), "expected a number");
    s.time = t.get<double>();
  }
  if (auto* v = optional_member(j, "body")) s.body = as_size(*v, at(path, "body"));
  return s;
}

analysis::LineTime read_time(const json& j, const std::string& path) {
  as_object(j, path);
  analysis::LineTime t;
  t.kind = enum_of(kTimeKinds, member(j, "kind", path), at(path, "kind"));
  const json& v = member(j, "time", path);
  if (!v.is_number() || !std::isfinite(v.get<double>()))
    fail(at(path, "time"), "expected a number");
  t.time = v.get<double>();
  return t;
}

analysis::Event read_event(const analysis::Catalog& catalog, std::size_t files, const json& j,
                           const std::string& path) {
  as_object(j, path);
  analysis::Event e;
  e.file = as_size(member(j, "file", path), at(path, "file"));
  if (e.file >= files)
    fail(at(path, "file"), "file index " + std::to_string(e.file) + " but the summary lists " +
                               std::to_string(files) + " file(s)");
  std::size_t line = as_size(member(j, "line", path), at(path, "line"));
  if (line == 0) fail(at(path, "line"), "line numbers start at 1");
  e.line = line - 1;
  e.rule = rule_index(catalog, member(j, "rule", path), at(path, "rule"));
  if (auto* v = optional_member(j, "offset")) e.offset = as_size(*v, at(path, "offset"));
  if (auto* v = optional_member(j, "length")) e.length = as_size(*v, at(path, "length"));
  if (auto* v = optional_member(j, "match")) {
    const std::string mp = at(path, "match");
    if (!v->is_array() || v->size() != 2) fail(mp, "expected [begin, end]");
    e.match_begin = as_size((*v)[0], at(mp, std::size_t{0}));
    e.match_end = as_size((*v)[1], at(mp, std::size_t{1}));
  }
  e.text = as_string(member(j, "text", path), at(path, "text"));
  if (e.text.size() > analysis::kMaxEventText) e.text.resize(analysis::kMaxEventText);
  if (auto* v = optional_member(j, "captures")) {
    const std::string cp = at(path, "captures");
    as_array(*v, cp);
    for (std::size_t k = 0; k < v->size(); ++k) {
      const json& c = (*v)[k];
      if (!c.is_array() || c.size() != 2) fail(at(cp, k), "expected [name, value]");
      e.captures.push_back({as_string(c[0], at(at(cp, k), std::size_t{0})),
                            as_string(c[1], at(at(cp, k), std::size_t{1}))});
    }
  }
  if (auto* v = optional_member(j, "source")) e.source = read_source(*v, at(path, "source"));
  if (auto* v = optional_member(j, "root_cause_record")) {
    if (!v->is_boolean()) fail(at(path, "root_cause_record"), "expected true or false");
    e.in_root_cause_record = v->get<bool>();
  }
  return e;
}

Summary read(const analysis::Catalog& catalog, const json& doc) {
  as_object(doc, "/");
  const json& version = member(doc, "firstfault_summary", "/");
  if (!version.is_number_integer() || version.get<std::int64_t>() != kSummaryVersion)
    fail("/firstfault_summary", "summary format version " + version.dump() +
                                    " is not supported (this firstfault reads version " +
                                    std::to_string(kSummaryVersion) + ")");
  Summary s;
  s.state.reset(catalog);
  if (auto* v = optional_member(doc, "machine")) s.machine = as_string(*v, "/machine");
  const json& files = as_array(member(doc, "files", "/"), "/files");
  for (std::size_t i = 0; i < files.size(); ++i) {
    const std::string p = at("/files", i);
    as_object(files[i], p);
    analysis::FileSummary f;
    f.name = as_string(member(files[i], "path", p), at(p, "path"));
    f.lines = as_size(member(files[i], "lines", p), at(p, "lines"));
    f.bytes = as_size(member(files[i], "bytes", p), at(p, "bytes"));
    if (auto* v = optional_member(files[i], "first_time"))
      f.first_time = read_time(*v, at(p, "first_time"));
    if (auto* v = optional_member(files[i], "last_time"))
      f.last_time = read_time(*v, at(p, "last_time"));
    if (auto* v = optional_member(files[i], "rank")) f.rank = as_int(*v, at(p, "rank"));
    if (auto* v = optional_member(files[i], "host")) f.host = as_string(*v, at(p, "host"));
    s.state.lines += f.lines;
    s.state.bytes += f.bytes;
    s.files.push_back(std::move(f));
  }
  if (auto* v = optional_member(doc, "rule_hits")) {
    as_object(*v, "/rule_hits");
    for (const auto& [id, n] : v->items()) {
      const std::string p = at("/rule_hits", id);
      std::size_t r = rule_index(catalog, json(id), p);
      s.state.rule_hits[r] += as_size(n, p);
    }
  }
  if (auto* v = optional_member(doc, "checks_seen")) {
    as_object(*v, "/checks_seen");
    for (const auto& [id, seen] : v->items()) {
      const std::string p = at("/checks_seen", id);
      std::size_t r = rule_index(catalog, json(id), p);
      as_array(seen, p);
      auto& dst = s.state.checks_seen[r];
      if (seen.size() > dst.size())
        fail(p, std::to_string(seen.size()) + " checks but the rule has " +
                    std::to_string(dst.size()));
      for (std::size_t c = 0; c < seen.size(); ++c) {
        if (!seen[c].is_boolean()) fail(at(p, c), "expected true or false");
        if (seen[c].get<bool>()) dst[c] = true;
      }
    }
  }
  const json& events = as_array(member(doc, "events", "/"), "/events");
  s.state.events.reserve(events.size());
  for (std::size_t i = 0; i < events.size(); ++i)
    s.state.events.push_back(read_event(catalog, s.files.size(), events[i], at("/events", i)));
  return s;
}

// Where nlohmann's parser finds the text broken, as line:column (simdjson says only what).
struct ErrorPosition : nlohmann::json_sax<json> {
  std::size_t byte = 0;
  std::string message;
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t&) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t position, const std::string&,
                   const nlohmann::detail::exception& ex) override {
    byte = position;
    message = ex.what();
    return false;
  }
};

SummaryError syntax_error(std::string_view text, const std::string& simdjson_says) {
  ErrorPosition pos;
  json::sax_parse(text.begin(), text.end(), &pos);
  if (pos.message.empty()) return {"", "not valid JSON: " + simdjson_says};
  std::size_t end = std::min(pos.byte, text.size()), line = 1, col = 1;
  for (std::size_t i = 0; i + 1 < end; ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  std::string msg = pos.message;
  if (auto p = msg.find("parse error"); p != std::string::npos) msg = msg.substr(p);
  return {std::to_string(line) + ":" + std::to_string(col), "not valid JSON: " + msg};
}

}  // namespace

std::string write_summary(const analysis::Catalog& catalog,
                          const std::vector<analysis::FileSummary>& files,
                          const analysis::ScanState& state, const std::string& machine) {
  const auto& rules = catalog.rules();
  ojson doc = ojson::object();
  doc["firstfault_summary"] = kSummaryVersion;
  doc["generator"] = std::string("firstfault ") + FF_VERSION;
  doc["machine"] = machine;
  ojson fj = ojson::array();
  for (const auto& f : files) {
    ojson j{{"path", f.name}, {"lines", f.lines}, {"bytes", f.bytes}};
    if (const char* n = name_of(kTimeKinds, f.first_time.kind))
      j["first_time"] = ojson{{"kind", n}, {"time", f.first_time.time}};
    if (const char* n = name_of(kTimeKinds, f.last_time.kind))
      j["last_time"] = ojson{{"kind", n}, {"time", f.last_time.time}};
    if (f.rank) j["rank"] = *f.rank;
    if (!f.host.empty()) j["host"] = f.host;
    fj.push_back(std::move(j));
  }
  doc["files"] = std::move(fj);
  ojson hits = ojson::object();
  for (std::size_t r = 0; r < state.rule_hits.size() && r < rules.size(); ++r)
    if (state.rule_hits[r]) hits[rules[r].id] = state.rule_hits[r];
  doc["rule_hits"] = std::move(hits);
  ojson checks = ojson::object();
  for (std::size_t r = 0; r < state.checks_seen.size() && r < rules.size(); ++r) {
    const auto& seen = state.checks_seen[r];
    if (std::find(seen.begin(), seen.end(), true) == seen.end()) continue;
    ojson a = ojson::array();
    for (bool b : seen) a.push_back(b);
    checks[rules[r].id] = std::move(a);
  }
  doc["checks_seen"] = std::move(checks);
  ojson events = ojson::array();
  std::vector<char> listed(rules.size(), 0);  // [rule]: one of its events is written
  std::size_t context_lines = 0;              // context events seen, written or not
  for (const auto& e : state.events) {
    if (e.rule >= rules.size()) continue;
    if (listed_only(rules[e.rule])) {
      bool shown = context_lines++ < kContextLinesShown;
      if (!shown && listed[e.rule]) continue;
      listed[e.rule] = 1;
    }
    events.push_back(event_json(catalog, e));
  }
  doc["events"] = std::move(events);
  // One event per line: a summary stays readable with grep and diffable, and small.
  std::string out = "{\n";
  bool first = true;
  for (auto& [key, value] : doc.items()) {
    if (!first) out += ",\n";
    first = false;
    out += "\"" + key + "\": ";
    if (value.is_array() && key == "events") {
      out += "[";
      for (std::size_t i = 0; i < value.size(); ++i)
        out +=
            (i ? ",\n  " : "\n  ") + value[i].dump(-1, ' ', false, ojson::error_handler_t::replace);
      out += value.empty() ? "]" : "\n]";
    } else {
      out += value.dump(-1, ' ', false, ojson::error_handler_t::replace);
    }
  }
  out += "\n}\n";
  return out;
}

bool looks_like_summary(std::string_view text) {
  std::string_view head = text.substr(0, 4096);
  if (head.substr(0, 3) == "\xEF\xBB\xBF") head.remove_prefix(3);
  std::size_t p = head.find_first_not_of(" \t\r\n");
  if (p == std::string_view::npos || head[p] != '{') return false;
  return head.find(kKey) != std::string_view::npos;
}

std::variant<Summary, SummaryError> read_summary(const analysis::Catalog& catalog,
                                                 std::string_view text) {
  jsonio::JsonReader reader;
  std::string why;
  auto doc = reader.parse(text, false, &why);
  if (!doc) return syntax_error(text, why);
  try {
    return read(catalog, *doc);
  } catch (const Failure& f) {
    return SummaryError{f.place, f.message};
  } catch (const std::exception& e) {  // nlohmann type errors, allocation failures
    return SummaryError{"", e.what()};
  }
}

}  // namespace ff::report
