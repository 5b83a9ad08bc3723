#include "evidence/flight_recorder_dump.hpp"

#include <algorithm>
#include <charconv>
#include <cstring>

#include "evidence/pickle_reader.hpp"
#include "jsonio/json_reader.hpp"

namespace ff::evidence {

std::string_view to_string(FrState s) {
  switch (s) {
    case FrState::kScheduled:
      return "scheduled";
    case FrState::kStarted:
      return "started";
    case FrState::kCompleted:
      return "completed";
    case FrState::kUnknown:
      break;
  }
  return "unknown";
}

std::string_view FrEntry::op_type() const {
  std::string_view p = profiling_name;
  if (auto colon = p.find(':'); colon != std::string_view::npos) p.remove_prefix(colon + 1);
  if (auto space = p.find(' '); space != std::string_view::npos) p = p.substr(0, space);
  return p;
}

namespace {

// Bounds on what one entry may describe; real dumps hold a few tensors of a few dims.
constexpr std::size_t kMaxTensors = 4096;
constexpr std::size_t kMaxDims = 64;
constexpr std::size_t kMaxFrames = 4096;

bool looks_like_json_dump(std::string_view head) {
  std::size_t i = 0;
  if (head.substr(0, 3) == "\xef\xbb\xbf") i = 3;
  while (i < head.size() &&
         (head[i] == ' ' || head[i] == '\n' || head[i] == '\r' || head[i] == '\t'))
    ++i;
  if (i >= head.size() || head[i] != '{') return false;
  // The first key: dump_json's nlohmann object writes its keys sorted (comm_lib_version,
  // entries, nccl_comm_state, nccl_version, pg_config, pg_status, version), so a dump starts
  // with one of them; "version" first is how an unsorted writer starts. A JSON log line
  // rarely does.
  ++i;
  while (i < head.size() &&
         (head[i] == ' ' || head[i] == '\n' || head[i] == '\r' || head[i] == '\t'))
    ++i;
  for (std::string_view key : {"\"comm_lib_version\"", "\"entries\"", "\"nccl_comm_state\"",
                               "\"nccl_version\"", "\"pg_config\"", "\"pg_status\"", "\"version\""})
    if (head.substr(i, key.size()) == key)
      // ncclras's `-f json` report also starts with "nccl_version"; in a sorted dump that
      // key is followed by "pg_config" (the entries and communicator state sort before it).
      return key != "\"nccl_version\"" || head.find("\"pg_config\"") != std::string_view::npos;
  return false;
}

class Decoder {
 public:
  Decoder(const PickleTree& t, FlightRecorderDump& out, DumpError& err)
      : t_(t), out_(out), err_(err) {}

  bool run() {
    const PickleValue& root = t_.at(t_.root);
    if (root.kind != PickleKind::kDict)
      return fail(root, "the top level is not a dict; not a Flight Recorder dump");
    const PickleValue* version = t_.find(root, "version");
    if (!version) return fail(root, "no \"version\" key; not a Flight Recorder dump");
    if (version->kind != PickleKind::kString) return fail(*version, "\"version\" is not a string");
    out_.version = version->text;
    if (!supported_version(out_.version))
      return fail(*version,
                  "Flight Recorder dump version \"" + out_.version +
                      "\" is not supported (firstfault reads 2.x, written by PyTorch 2.4 to 2.10)");
    for (const char* key : {"comm_lib_version", "nccl_version"})
      if (const PickleValue* v = t_.find(root, key); v && v->kind == PickleKind::kString)
        out_.comm_lib_version = v->text;
    if (const PickleValue* cfg = t_.find(root, "pg_config"); cfg && !pg_config(*cfg)) return false;
    if (const PickleValue* st = t_.find(root, "pg_status"); st && !pg_status(*st)) return false;
    if (const PickleValue* en = t_.find(root, "entries")) {
      if (en->kind != PickleKind::kList) return fail(*en, "\"entries\" is not a list");
      out_.entries.reserve(en->items.size());
      for (std::size_t i = 0; i < en->items.size(); ++i) {
        FrEntry e;
        if (!entry(t_.at(en->items[i]), i, e)) return false;
        out_.entries.push_back(std::move(e));
      }
    }
    return true;
  }

 private:
  const PickleTree& t_;
  FlightRecorderDump& out_;
  DumpError& err_;

  bool fail(const PickleValue& at, std::string msg) {
    err_.offset = at.at;
    err_.message = std::move(msg);
    return false;
  }

  static bool supported_version(std::string_view v) {
    auto dot = v.find('.');
    if (dot == std::string_view::npos) return false;
    int major = 0, minor = 0;
    auto r1 = std::from_chars(v.data(), v.data() + dot, major);
    auto r2 = std::from_chars(v.data() + dot + 1, v.data() + v.size(), minor);
    return r1.ec == std::errc() && r1.ptr == v.data() + dot && r2.ec == std::errc() &&
           r2.ptr == v.data() + v.size() && major == 2;
  }

  // An integer, or a string holding one (dump_json writes pg_status values as strings).
  bool int_of(const PickleValue& v, std::int64_t& out) const {
    if (v.kind == PickleKind::kInt) return out = v.integer, true;
    if (v.kind == PickleKind::kBool) return out = v.boolean ? 1 : 0, true;
    if (v.kind == PickleKind::kString) {
      const char* b = v.text.data();
      auto r = std::from_chars(b, b + v.text.size(), out);
      return r.ec == std::errc() && r.ptr == b + v.text.size();
    }
    return false;
  }

  bool pg_config(const PickleValue& cfg) {
    if (cfg.kind != PickleKind::kDict) return fail(cfg, "\"pg_config\" is not a dict");
    for (std::size_t i = 0; i + 1 < cfg.items.size(); i += 2) {
      const PickleValue& k = t_.at(cfg.items[i]);
      const PickleValue& v = t_.at(cfg.items[i + 1]);
      if (k.kind != PickleKind::kString || v.kind != PickleKind::kDict)
        return fail(k, "\"pg_config\" holds an entry that is not name: {name, desc, ranks}");
      FrProcessGroup g;
      g.name = k.text;
      if (const PickleValue* n = t_.find(v, "name"); n && n->kind == PickleKind::kString)
        g.name = n->text;
      if (const PickleValue* d = t_.find(v, "desc"); d && d->kind == PickleKind::kString)
        g.desc = d->text;
      if (const PickleValue* r = t_.find(v, "ranks")) {
        if (r->kind == PickleKind::kString) {
          // "[0, 1, 2]" as ranks_str writes it
          const char* p = r->text.data();
          const char* end = p + r->text.size();
          while (p < end) {
            if (*p >= '0' && *p <= '9') {
              int x = 0;
              auto res = std::from_chars(p, end, x);
              if (res.ec != std::errc())
                return fail(*r, "process group \"" + g.name + "\": rank out of range");
              g.ranks.push_back(x);
              p = res.ptr;
            } else if (*p == '[' || *p == ']' || *p == ',' || *p == ' ') {
              ++p;
            } else {
              return fail(*r, "process group \"" + g.name + "\": ranks is not a list of numbers");
            }
          }
        } else if (r->kind == PickleKind::kList || r->kind == PickleKind::kTuple) {
          for (auto idx : r->items) {
            std::int64_t x = 0;
            if (!int_of(t_.at(idx), x) || x < 0 || x > 1 << 30)
              return fail(*r, "process group \"" + g.name + "\": ranks is not a list of numbers");
            g.ranks.push_back(static_cast<int>(x));
          }
        } else {
          return fail(*r, "process group \"" + g.name + "\": ranks is not a list of numbers");
        }
      }
      out_.pg_config[k.text] = std::move(g);
    }
    return true;
  }

  bool pg_status(const PickleValue& st) {
    if (st.kind != PickleKind::kDict) return fail(st, "\"pg_status\" is not a dict");
    for (std::size_t i = 0; i + 1 < st.items.size(); i += 2) {
      const PickleValue& k = t_.at(st.items[i]);
      const PickleValue& v = t_.at(st.items[i + 1]);
      std::int64_t id = 0;
      if (!int_of(k, id) || v.kind != PickleKind::kDict)
        return fail(k, "\"pg_status\" holds an entry that is not pg_id: {last_*_collective}");
      FrPgStatus s;
      auto field = [&](const char* name, std::int64_t& out) {
        if (const PickleValue* x = t_.find(v, name)) return int_of(*x, out);
        return true;
      };
      if (!field("last_enqueued_collective", s.last_enqueued) ||
          !field("last_started_collective", s.last_started) ||
          !field("last_completed_collective", s.last_completed))
        return fail(v, "\"pg_status\" of process group " + std::to_string(id) +
                           " holds a value that is not a number");
      out_.pg_status[std::to_string(id)] = s;
    }
    return true;
  }

  bool shapes(const PickleValue& v, const std::string& what,
              std::vector<std::vector<std::int64_t>>& out) {
    if (v.kind != PickleKind::kList && v.kind != PickleKind::kTuple)
      return fail(v, what + " is not a list of shapes");
    if (v.items.size() > kMaxTensors) return fail(v, what + " lists too many tensors");
    for (auto idx : v.items) {
      const PickleValue& s = t_.at(idx);
      if (s.kind != PickleKind::kList && s.kind != PickleKind::kTuple)
        return fail(s, what + " holds a shape that is not a list");
      if (s.items.size() > kMaxDims)
        return fail(s, what + " holds a shape with too many dimensions");
      std::vector<std::int64_t> dims;
      for (auto d : s.items) {
        const PickleValue& x = t_.at(d);
        if (x.kind != PickleKind::kInt)
          return fail(x, what + " holds a dimension that is not an integer");
        dims.push_back(x.integer);
      }
      out.push_back(std::move(dims));
    }
    return true;
  }

  bool strings(const PickleValue& v, const std::string& what, std::vector<std::string>& out) {
    if (v.kind != PickleKind::kList && v.kind != PickleKind::kTuple)
      return fail(v, what + " is not a list of strings");
    if (v.items.size() > kMaxTensors) return fail(v, what + " lists too many tensors");
    for (auto idx : v.items) {
      const PickleValue& s = t_.at(idx);
      if (s.kind != PickleKind::kString)
        return fail(s, what + " holds a value that is not a string");
      out.push_back(s.text);
    }
    return true;
  }

  bool entry(const PickleValue& v, std::size_t index, FrEntry& e) {
    const std::string where = "entry " + std::to_string(index);
    if (v.kind != PickleKind::kDict) return fail(v, where + " is not a dict");
    auto req_int = [&](const char* key, std::int64_t& out) {
      const PickleValue* x = t_.find(v, key);
      if (!x) return fail(v, where + " has no \"" + key + "\"");
      if (!int_of(*x, out)) return fail(*x, where + ": \"" + key + "\" is not an integer");
      return true;
    };
    auto opt_int = [&](const char* key, std::optional<std::int64_t>& out) {
      const PickleValue* x = t_.find(v, key);
      if (!x || x->kind == PickleKind::kNone) return true;
      std::int64_t n = 0;
      if (!int_of(*x, n)) return fail(*x, where + ": \"" + key + "\" is not an integer");
      if (n != 0 || !out_.from_json) out = n;  // dump_json writes a missing time as 0
      return true;
    };
    if (!req_int("record_id", e.record_id) || !req_int("pg_id", e.pg_id) ||
        !req_int("collective_seq_id", e.collective_seq_id))
      return false;
    std::int64_t n = 0;
    if (const PickleValue* x = t_.find(v, "p2p_seq_id"); x && int_of(*x, n)) e.p2p_seq_id = n;
    if (const PickleValue* x = t_.find(v, "op_id"); x && int_of(*x, n)) e.op_id = n;
    if (const PickleValue* x = t_.find(v, "time_created_ns"); x && int_of(*x, n))
      e.time_created_ns = n;
    if (const PickleValue* x = t_.find(v, "timeout_ms"); x && int_of(*x, n)) e.timeout_ms = n;
    const PickleValue* pg = t_.find(v, "process_group");
    if (!pg || (pg->kind != PickleKind::kTuple && pg->kind != PickleKind::kList) ||
        pg->items.size() != 2 || t_.at(pg->items[0]).kind != PickleKind::kString ||
        t_.at(pg->items[1]).kind != PickleKind::kString)
      return fail(pg ? *pg : v, where + ": \"process_group\" is not (name, desc)");
    e.pg_name = t_.at(pg->items[0]).text;
    e.pg_desc = t_.at(pg->items[1]).text;
    const PickleValue* pn = t_.find(v, "profiling_name");
    if (!pn || pn->kind != PickleKind::kString)
      return fail(pn ? *pn : v, where + ": \"profiling_name\" is not a string");
    e.profiling_name = pn->text;
    for (auto [key, dst] :
         {std::pair{"input_sizes", &e.input_sizes}, std::pair{"output_sizes", &e.output_sizes}})
      if (const PickleValue* x = t_.find(v, key);
          x && !shapes(*x, where + ": \"" + key + "\"", *dst))
        return false;
    for (auto [key, dst] :
         {std::pair{"input_dtypes", &e.input_dtypes}, std::pair{"output_dtypes", &e.output_dtypes}})
      if (const PickleValue* x = t_.find(v, key);
          x && !strings(*x, where + ": \"" + key + "\"", *dst))
        return false;
    const PickleValue* st = t_.find(v, "state");
    if (!st || st->kind != PickleKind::kString)
      return fail(st ? *st : v, where + ": \"state\" is not a string");
    if (st->text == "scheduled")
      e.state = FrState::kScheduled;
    else if (st->text == "started")
      e.state = FrState::kStarted;
    else if (st->text == "completed")
      e.state = FrState::kCompleted;
    else
      return fail(*st, where + ": unknown state \"" + st->text + "\"");
    if (!opt_int("time_discovered_started_ns", e.time_discovered_started_ns) ||
        !opt_int("time_discovered_completed_ns", e.time_discovered_completed_ns))
      return false;
    if (const PickleValue* x = t_.find(v, "retired"); x && x->kind == PickleKind::kBool)
      e.retired = x->boolean;
    if (const PickleValue* x = t_.find(v, "is_p2p"); x && x->kind == PickleKind::kBool)
      e.is_p2p = x->boolean;
    if (const PickleValue* x = t_.find(v, "thread_name"); x && x->kind == PickleKind::kString)
      e.thread_name = x->text;
    if (const PickleValue* fr = t_.find(v, "frames"); fr && fr->kind == PickleKind::kList)
      frame(*fr, e);
    return true;
  }

  // The first frame outside torch itself: where the user's code issued the collective.
  void frame(const PickleValue& frames, FrEntry& e) {
    std::string first;
    std::size_t seen = 0;
    for (auto idx : frames.items) {
      if (++seen > kMaxFrames) break;
      const PickleValue& f = t_.at(idx);
      const PickleValue* name = t_.find(f, "name");
      const PickleValue* file = t_.find(f, "filename");
      const PickleValue* line = t_.find(f, "line");
      if (!name || !file || name->kind != PickleKind::kString || file->kind != PickleKind::kString)
        continue;
      std::string text = name->text + " (" + file->text;
      if (line && line->kind == PickleKind::kInt) text += ":" + std::to_string(line->integer);
      text += ")";
      if (first.empty()) first = text;
      if (file->text.find("torch/") == std::string::npos) {
        e.frame = std::move(text);
        return;
      }
    }
    e.frame = std::move(first);
  }
};

// nlohmann values to the pickle arena, so that one decoder reads both forms. Iterative:
// the depth is bounded by the JSON reader already, but an explicit stack costs nothing.
void json_to_tree(const nlohmann::json& root, PickleTree& t) {
  t.values.clear();
  std::vector<std::pair<const nlohmann::json*, std::uint32_t>> work;
  auto add = [&](const nlohmann::json& j) {
    auto idx = static_cast<std::uint32_t>(t.values.size());
    PickleValue v;
    switch (j.type()) {
      case nlohmann::json::value_t::boolean:
        v.kind = PickleKind::kBool;
        v.boolean = j.get<bool>();
        break;
      case nlohmann::json::value_t::number_integer:
        v.kind = PickleKind::kInt;
        v.integer = j.get<std::int64_t>();
        break;
      case nlohmann::json::value_t::number_unsigned:
        v.kind = PickleKind::kInt;
        v.integer = static_cast<std::int64_t>(j.get<std::uint64_t>());
        break;
      case nlohmann::json::value_t::number_float:
        v.kind = PickleKind::kFloat;
        v.real = j.get<double>();
        break;
      case nlohmann::json::value_t::string:
        v.kind = PickleKind::kString;
        v.text = j.get_ref<const std::string&>();
        break;
      case nlohmann::json::value_t::array:
        v.kind = PickleKind::kList;
        break;
      case nlohmann::json::value_t::object:
        v.kind = PickleKind::kDict;
        break;
      default:
        break;
    }
    v.at = DumpError::kNoOffset;
    t.values.push_back(std::move(v));
    if (j.is_array() || j.is_object()) work.emplace_back(&j, idx);
    return idx;
  };
  t.root = add(root);
  while (!work.empty()) {
    auto [j, idx] = work.back();
    work.pop_back();
    std::vector<std::uint32_t> items;
    if (j->is_array()) {
      for (const auto& x : *j) items.push_back(add(x));
    } else {
      for (auto it = j->begin(); it != j->end(); ++it) {
        auto k = static_cast<std::uint32_t>(t.values.size());
        PickleValue key;
        key.kind = PickleKind::kString;
        key.text = it.key();
        key.at = DumpError::kNoOffset;
        t.values.push_back(std::move(key));
        items.push_back(k);
        items.push_back(add(it.value()));
      }
    }
    t.values[idx].items = std::move(items);
  }
}

}  // namespace

bool looks_like_flight_recorder_dump(std::string_view head) {
  if (head.size() >= 2 && static_cast<unsigned char>(head[0]) == 0x80 &&
      static_cast<unsigned char>(head[1]) >= 2 && static_cast<unsigned char>(head[1]) <= 5)
    return true;
  return looks_like_json_dump(head);
}

bool read_flight_recorder_dump(std::string_view file, std::string_view bytes,
                               FlightRecorderDump& out, DumpError& error) {
  out = FlightRecorderDump{};
  out.file = std::string(file);
  PickleTree tree;
  if (!bytes.empty() && static_cast<unsigned char>(bytes[0]) == 0x80) {
    PickleError pe;
    if (!read_pickle(bytes, tree, pe)) {
      error = {pe.offset, pe.message};
      return false;
    }
  } else if (looks_like_json_dump(bytes.substr(0, 4096))) {
    out.from_json = true;
    jsonio::JsonReader reader;
    std::string why;
    auto j = reader.parse(bytes, false, &why);
    if (!j) {
      // simdjson says what, nlohmann says where.
      std::size_t at = bytes.size();
      try {
        auto again = nlohmann::json::parse(bytes.begin(), bytes.end());
        (void)again;
      } catch (const nlohmann::json::parse_error& e) {
        at = e.byte > 0 ? e.byte - 1 : 0;
        why = e.what();
      } catch (const std::exception& e) {
        why = e.what();
      }
      error = {at, "not valid JSON: " + why};
      return false;
    }
    json_to_tree(*j, tree);
  } else {
    error = {0, "neither a pickle nor a JSON Flight Recorder dump"};
    return false;
  }
  Decoder d(tree, out, error);
  return d.run();
}

bool rank_from_dump_name(std::string_view name, int& rank, std::string& host) {
  if (auto slash = name.rfind('/'); slash != std::string_view::npos) name.remove_prefix(slash + 1);
  for (std::string_view ext : {".pkl", ".pickle", ".json", ".pk"})
    if (name.size() > ext.size() && name.substr(name.size() - ext.size()) == ext)
      name.remove_suffix(ext.size());
  std::size_t end = name.size();
  while (end > 0 && name[end - 1] >= '0' && name[end - 1] <= '9') --end;
  if (end == name.size() || name.size() - end > 9) return false;
  rank = 0;
  std::from_chars(name.data() + end, name.data() + name.size(), rank);
  std::string_view rest = name.substr(0, end);
  auto strip_sep = [&] {
    while (!rest.empty() && (rest.back() == '_' || rest.back() == '-' || rest.back() == '.'))
      rest.remove_suffix(1);
  };
  strip_sep();
  if (rest.size() >= 4 && rest.substr(rest.size() - 4) == "rank") rest.remove_suffix(4);
  strip_sep();
  // Drop the prefix words PyTorch and common launch scripts use; what is left is the host.
  static constexpr std::string_view kWords[] = {"nccl", "trace",  "rank",     "comm",  "lib", "fr",
                                                "dump", "flight", "recorder", "torch", ""};
  while (!rest.empty()) {
    auto us = rest.find('_');
    std::string_view word = rest.substr(0, us);
    if (std::find(std::begin(kWords), std::end(kWords), word) == std::end(kWords)) break;
    rest = us == std::string_view::npos ? std::string_view() : rest.substr(us + 1);
  }
  host = std::string(rest);
  return true;
}

}  // namespace ff::evidence
