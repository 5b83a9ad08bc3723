// Flight Recorder dumps: the pickle reader on the opcodes torch's own Pickler writes
// (torch/csrc/jit/serialization/pickler.cpp, as pickle_str in FlightRecorderDetail.hpp calls
// it: protocol 2, no type tags), hostile pickles, file names, and the cross-rank comparison.
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <string>

#include "evidence/flight_recorder_analysis.hpp"
#include "evidence/flight_recorder_dump.hpp"
#include "evidence/pickle_reader.hpp"

using namespace ff::evidence;

namespace {

// Writes pickles the way torch::jit::Pickler does: BINUNICODE strings memoized with BINPUT
// and repeated through BINGET, BININT1/BININT2/BININT/LONG1 by size, tuples as MARK...TUPLE,
// dicts as EMPTY_DICT BINPUT MARK...SETITEMS, lists as EMPTY_LIST BINPUT MARK...APPENDS.
class TorchStylePickler {
 public:
  std::string out = std::string("\x80\x02", 2);
  void str(const std::string& s) {
    if (auto it = memo_.find(s); it != memo_.end()) {
      out += 'h';
      out += static_cast<char>(it->second);
      return;
    }
    out += 'X';
    u32(static_cast<std::uint32_t>(s.size()));
    out += s;
    memo_[s] = put();
  }
  void integer(std::int64_t v) {
    if (v >= 0 && v < 256)
      out += 'K', out += static_cast<char>(v);
    else if (v >= 0 && v < 65536)
      out += 'M', out += static_cast<char>(v & 255), out += static_cast<char>(v >> 8);
    else if (v >= INT32_MIN && v <= INT32_MAX)
      out += 'J', u32(static_cast<std::uint32_t>(v));
    else {
      out += '\x8a';
      out += '\x08';
      for (int i = 0; i < 8; ++i)
        out += static_cast<char>((static_cast<std::uint64_t>(v) >> (8 * i)) & 255);
    }
  }
  void none() { out += 'N'; }
  void boolean(bool b) { out += b ? '\x88' : '\x89'; }
  void real(double d) {
    std::uint64_t bits;
    std::memcpy(&bits, &d, 8);
    out += 'G';
    for (int i = 7; i >= 0; --i) out += static_cast<char>((bits >> (8 * i)) & 255);
  }
  void begin_dict() { out += '}', put(), out += '('; }
  void end_dict() { out += 'u'; }
  void begin_list() { out += ']', put(), out += '('; }
  void end_list() { out += 'e'; }
  void begin_tuple() { out += '('; }
  void end_tuple() { out += 't'; }
  void stop() { out += '.'; }

 private:
  std::map<std::string, int> memo_;
  int next_ = 0;
  int put() {
    out += 'q';
    out += static_cast<char>(next_);
    return next_++;
  }
  void u32(std::uint32_t v) {
    for (int i = 0; i < 4; ++i) out += static_cast<char>((v >> (8 * i)) & 255);
  }
};

// One entry as getCollectiveTrace writes it (v2.10 key order).
void entry(TorchStylePickler& p, int rec, int seq, const std::string& op, std::int64_t numel,
           const char* state) {
  p.begin_dict();
  p.str("record_id"), p.integer(rec);
  p.str("pg_id"), p.integer(0);
  p.str("process_group"), p.begin_tuple(), p.str("0"), p.str("default_pg"), p.end_tuple();
  p.str("thread_name"), p.str("pt_main_thread");
  p.str("thread_id"), p.str("140211");
  p.str("collective_seq_id"), p.integer(seq);
  p.str("p2p_seq_id"), p.integer(0);
  p.str("op_id"), p.integer(seq);
  p.str("profiling_name"), p.str(op);
  p.str("time_created_ns"), p.integer(1733220000000000000 + rec);
  p.str("duration_ms"), p.real(1.5);
  p.str("input_sizes"), p.begin_list(), p.begin_list(), p.integer(numel), p.end_list(),
      p.end_list();
  p.str("input_dtypes"), p.begin_list(), p.str("Float"), p.end_list();
  p.str("output_sizes"), p.begin_list(), p.begin_list(), p.integer(numel), p.end_list(),
      p.end_list();
  p.str("output_dtypes"), p.begin_list(), p.str("Float"), p.end_list();
  p.str("state"), p.str(state);
  p.str("time_discovered_started_ns"), p.none();
  p.str("time_discovered_completed_ns");
  if (std::string(state) == "completed")
    p.integer(1733220000000009999);
  else
    p.none();
  p.str("retired"), p.boolean(std::string(state) == "completed");
  p.str("timeout_ms"), p.integer(600000);
  p.str("is_p2p"), p.boolean(false);
  p.end_dict();
}

// A 2.10 dump whose process group 0 holds `seqs` collectives, the last of them `last_state`.
std::string torch_dump(int world, int seqs, const std::string& last_op = "nccl:all_reduce",
                       const char* last_state = "scheduled", std::int64_t numel = 1 << 20) {
  TorchStylePickler p;
  p.begin_dict();
  p.str("version"), p.str("2.10");
  p.str("pg_config"), p.begin_dict(), p.str("0"), p.begin_dict();
  p.str("name"), p.str("0"), p.str("desc"), p.str("default_pg");
  std::string ranks = "[";
  for (int r = 0; r < world; ++r) ranks += (r ? ", " : "") + std::to_string(r);
  p.str("ranks"), p.str(ranks + "]");
  p.end_dict(), p.end_dict();
  p.str("comm_lib_version"), p.str("2.27.5");
  p.str("pg_status"), p.begin_dict(), p.str("0"), p.begin_dict();
  p.str("last_enqueued_collective"), p.integer(seqs);
  p.str("last_started_collective"), p.integer(seqs);
  p.str("last_completed_collective"),
      p.integer(std::string(last_state) == "completed" ? seqs : seqs - 1);
  p.end_dict(), p.end_dict();
  p.str("entries"), p.begin_list();
  for (int s = 1; s <= seqs; ++s)
    entry(p, s - 1, s, s == seqs ? last_op : "nccl:all_reduce", s == seqs ? numel : 1 << 20,
          s == seqs ? last_state : "completed");
  p.end_list();
  p.end_dict();
  p.stop();
  return p.out;
}

FlightRecorderDump read(const std::string& bytes, int rank) {
  FlightRecorderDump d;
  DumpError err;
  INFO(err.message);
  REQUIRE(read_flight_recorder_dump("nccl_trace_rank_" + std::to_string(rank), bytes, d, err));
  d.rank = rank;
  return d;
}

}  // namespace

TEST_CASE("a dump in torch's own pickle style reads field by field", "[flight_recorder]") {
  auto d = read(torch_dump(4, 3), 2);
  CHECK(d.version == "2.10");
  CHECK(d.comm_lib_version == "2.27.5");
  REQUIRE(d.pg_config.count("0"));
  CHECK(d.pg_config["0"].desc == "default_pg");
  CHECK(d.pg_config["0"].ranks == std::vector<int>{0, 1, 2, 3});
  CHECK(d.pg_status["0"].last_enqueued == 3);
  CHECK(d.pg_status["0"].last_completed == 2);
  REQUIRE(d.entries.size() == 3);
  const auto& e = d.entries.back();
  CHECK(e.collective_seq_id == 3);
  CHECK(e.pg_name == "0");
  CHECK(e.pg_desc == "default_pg");
  CHECK(e.op_type() == "all_reduce");
  CHECK(e.state == FrState::kScheduled);
  CHECK(e.input_sizes == std::vector<std::vector<std::int64_t>>{{1 << 20}});
  CHECK(e.input_dtypes == std::vector<std::string>{"Float"});
  CHECK_FALSE(e.time_discovered_completed_ns.has_value());
  CHECK(d.entries.front().time_discovered_completed_ns == 1733220000000009999);  // LONG1
  CHECK(e.time_created_ns == 1733220000000000002);
  CHECK(e.thread_name == "pt_main_thread");
  CHECK(e.timeout_ms == 600000);
}

TEST_CASE("every truncation of a dump is an error at or before its end, never a crash",
          "[flight_recorder]") {
  std::string full = torch_dump(2, 2);
  for (std::size_t n = 0; n < full.size(); ++n) {
    FlightRecorderDump d;
    DumpError err;
    INFO("prefix of " << n << " bytes");
    REQUIRE_FALSE(read_flight_recorder_dump("f", std::string_view(full).substr(0, n), d, err));
    CHECK(err.offset <= n);
    CHECK_FALSE(err.message.empty());
  }
}

TEST_CASE("hostile pickles are refused with the byte that failed", "[flight_recorder]") {
  PickleTree t;
  PickleError e;
  using namespace std::string_literals;
  SECTION("code-running opcodes") {
    REQUIRE_FALSE(read_pickle("\x80\x02\x63os\nsystem\n."s, t, e));
    CHECK(e.offset == 2);
    CHECK(e.message.find("GLOBAL") != std::string::npos);
  }
  SECTION("a list that contains itself") {
    // EMPTY_LIST DUP APPEND STOP: a cycle, held by index, no leak and no recursion
    REQUIRE(read_pickle("\x80\x02]2a."s, t, e));
    CHECK(t.at(t.root).items == std::vector<std::uint32_t>{t.root});
    FlightRecorderDump d;
    DumpError de;
    CHECK_FALSE(read_flight_recorder_dump("f", "\x80\x02]2a."s, d, de));
  }
  SECTION("nesting beyond the mark limit") {
    std::string deep = "\x80\x02"s + std::string(1000, '(');
    REQUIRE_FALSE(read_pickle(deep, t, e));
    CHECK(e.message.find("MARK") != std::string::npos);
  }
  SECTION("a string longer than the input") {
    REQUIRE_FALSE(
        read_pickle("\x80\x02X\x00\x01\x00\x00"
                    "abc"s,
                    t, e));
    CHECK(e.message.find("truncated") != std::string::npos);
    REQUIRE_FALSE(read_pickle("\x80\x02X\xff\xff\xff\x7f"s, t, e));
    CHECK(e.message.find("too long") != std::string::npos);
  }
  SECTION("a memo index out of range") {
    REQUIRE_FALSE(read_pickle("\x80\x02j\xff\xff\xff\xff."s, t, e));
    CHECK(e.offset == 2);
  }
  SECTION("an unsupported protocol") {
    REQUIRE_FALSE(read_pickle("\x80\x06N."s, t, e));
    CHECK(e.message.find("protocol 6") != std::string::npos);
  }
  SECTION("a dump of another major version") {
    TorchStylePickler p;
    p.begin_dict(), p.str("version"), p.str("3.1"), p.end_dict(), p.stop();
    FlightRecorderDump d;
    DumpError de;
    REQUIRE_FALSE(read_flight_recorder_dump("f", p.out, d, de));
    CHECK(de.message.find("version \"3.1\" is not supported") != std::string::npos);
  }
}

TEST_CASE("the rank and host come from the dump's file name", "[flight_recorder]") {
  struct Case {
    const char* name;
    int rank;
    const char* host;
  } cases[] = {
      {"/tmp/nccl_trace_rank_12", 12, ""},
      {"comm_lib_trace_rank_0", 0, ""},
      {"/shared/fr/nccl_trace_rank_gpu-node-07_63", 63, "gpu-node-07"},
      {"gpu-node-07_5", 5, "gpu-node-07"},
      {"node3-rank17.json", 17, "node3"},
      {"rank_4.pkl", 4, ""},
  };
  for (const auto& c : cases) {
    int rank = -1;
    std::string host;
    INFO(c.name);
    REQUIRE(rank_from_dump_name(c.name, rank, host));
    CHECK(rank == c.rank);
    CHECK(host == c.host);
  }
  int rank = 0;
  std::string host;
  CHECK_FALSE(rank_from_dump_name("nccl_trace_rank_", rank, host));
}

TEST_CASE("the majority, not rank 0, is the reference", "[flight_recorder]") {
  std::vector<FlightRecorderDump> dumps;
  // Rank 0 ran all_gather where ranks 1-3 ran all_reduce: rank 0 is the culprit, not the others.
  dumps.push_back(read(torch_dump(4, 5, "nccl:all_gather"), 0));
  for (int r = 1; r < 4; ++r) dumps.push_back(read(torch_dump(4, 5), r));
  auto a = analyze_flight_recorder(dumps);
  REQUIRE(a.findings.size() == 1);
  CHECK(a.findings[0].kind == FrFindingKind::kTypeMismatch);
  CHECK(a.findings[0].culprits == std::vector<int>{0});
  CHECK(a.findings[0].expected == "nccl:all_reduce");
  CHECK(a.findings[0].found == "nccl:all_gather");
  CHECK(a.findings[0].majority == 3);
}

TEST_CASE("a rank without an entry is missing only if pg_status says it never enqueued it",
          "[flight_recorder]") {
  std::vector<FlightRecorderDump> dumps;
  // Rank 2 completed collective 4 and stopped; the others wait in 5.
  for (int r = 0; r < 4; ++r)
    dumps.push_back(
        read(r == 2 ? torch_dump(4, 4, "nccl:all_reduce", "completed") : torch_dump(4, 5), r));
  SECTION("never enqueued: missing") {
    auto a = analyze_flight_recorder(dumps);
    REQUIRE(a.findings.size() == 1);
    CHECK(a.findings[0].kind == FrFindingKind::kMissing);
    CHECK(a.findings[0].culprits == std::vector<int>{2});
    CHECK(a.findings[0].seq == 5);
  }
  SECTION("enqueued, only left out of the dump: not missing") {
    dumps[2].pg_status["0"].last_enqueued = 5;
    auto a = analyze_flight_recorder(dumps);
    CHECK(a.findings.empty());
  }
  SECTION("a rank with no dump at all is not counted as missing") {
    dumps.erase(dumps.begin() + 2);
    auto a = analyze_flight_recorder(dumps);
    CHECK(a.ranks_without_dump == std::vector<int>{2});
    REQUIRE(a.findings.size() == 1);
    CHECK(a.findings[0].kind == FrFindingKind::kNoDump);
    CHECK(a.findings[0].culprits == std::vector<int>{2});
  }
}

TEST_CASE("a size mismatch names the minority and renders the class fr_trace names",
          "[flight_recorder]") {
  std::vector<FlightRecorderDump> dumps;
  for (int r = 0; r < 8; ++r)
    dumps.push_back(
        read(torch_dump(8, 3, "nccl:all_reduce", "scheduled", r == 6 ? 512 : 1 << 20), r));
  auto a = analyze_flight_recorder(dumps);
  REQUIRE(a.findings.size() == 1);
  CHECK(a.findings[0].kind == FrFindingKind::kSizeMismatch);
  CHECK(a.findings[0].culprits == std::vector<int>{6});
  auto lines = render_flight_recorder(a);
  REQUIRE(lines.size() == 2);
  CHECK(lines[0].find("rank 6 has input sizes [[512]]") != std::string::npos);
  CHECK(lines[0].find("mismatch: SIZE_OR_SYNTAX_MISMATCH; ranks: [6]") != std::string::npos);
  CHECK(lines[1].find("8 dumps (version 2.10)") != std::string::npos);
  CHECK(format_ranks({0, 1, 2, 5, 7, 8}) == "[0-2, 5, 7-8]");
}

TEST_CASE("dumps are recognised by their first bytes, logs are not", "[flight_recorder]") {
  using namespace std::string_literals;
  CHECK(looks_like_flight_recorder_dump("\x80\x02}q\x00("s));
  CHECK(looks_like_flight_recorder_dump("\x80\x05\x95"s));
  CHECK_FALSE(looks_like_flight_recorder_dump("\x80\x01"s));
  // dump_json's keys come sorted: comm_lib_version (2.10) or entries (2.4, 2.7) first
  CHECK(looks_like_flight_recorder_dump(R"({"comm_lib_version":"2.27.5","entries":[)"));
  CHECK(looks_like_flight_recorder_dump("{\n  \"entries\": ["));
  CHECK(looks_like_flight_recorder_dump(R"({"version": "2.10", "pg_config": {})"));
  CHECK_FALSE(looks_like_flight_recorder_dump(R"({"level": "ERROR", "entries": 3, "version": 1})"));
  CHECK_FALSE(
      looks_like_flight_recorder_dump("[rank0]: Flight Recorder trace successfully dumped"));
}

TEST_CASE("a newer minor version is read and noted", "[flight_recorder]") {
  std::vector<FlightRecorderDump> dumps;
  for (int r = 0; r < 2; ++r) {
    dumps.push_back(read(torch_dump(2, 2), r));
    dumps.back().version = "2.12";
  }
  auto a = analyze_flight_recorder(dumps);
  REQUIRE(a.notes.size() == 1);
  CHECK(a.notes[0].find("2.12 is newer than the 2.10 layout") != std::string::npos);
  dumps[0].version = dumps[1].version = "2.9";
  CHECK(analyze_flight_recorder(dumps).notes.empty());
}

TEST_CASE("one dump alone names nobody", "[flight_recorder]") {
  std::vector<FlightRecorderDump> dumps;
  dumps.push_back(read(torch_dump(8, 3), 4));
  auto a = analyze_flight_recorder(dumps);
  CHECK(a.findings.empty());
  CHECK(a.ranks_without_dump == std::vector<int>{0, 1, 2, 3, 5, 6, 7});
  auto lines = render_flight_recorder(a);
  REQUIRE(lines.size() == 1);
  CHECK(lines[0].find("no dump from ranks [0-3, 5-7]") != std::string::npos);
}
