// The single pass over a log: every line is split, cleaned of escape sequences only when it
// has any, and matched against the whole catalog at once. Lines that hit become events.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "analysis/catalog.hpp"
#include "analysis/event.hpp"
#include "analysis/prefilter.hpp"

namespace ff::analysis {

// Bounded memory on huge logs: a rule that fires on every line of a 10 GB file keeps its
// first kMaxEventsPerRule events and counts the rest.
inline constexpr std::size_t kMaxEventsPerRule = 4096;

// A context rule's lines only say what the setting was (`NET/IB : Using ...`, a channel's
// transport), and an NCCL_DEBUG=INFO log prints them at every communicator init: one line
// in eight of such a log. Nothing in a diagnosis reads them beyond their first few, so an
// input keeps the first kContextEventsKept events of each context rule in full and only
// counts the rest (CountedEvents). The language server marks at most this many lines of a
// rule per log, and JSON reports list the first 50 context lines of the job: both are
// among the events kept.
inline constexpr std::size_t kContextEventsKept = 100;

// Every line of this rule reads as context, whatever it captured: a benign rule, or a rule
// of role context without an exit status to decode (diagnosis.cpp, read_events); never a
// rule whose lines must agree across the job (`agree`), which are all compared.
bool is_context_rule(const Rule& rule);

// Events of a context rule that a scan keeping every rule's first kMaxEventsPerRule events
// would have built, but that were only counted: those past the rule's first
// kContextEventsKept in input `file`. Reports count them with the events kept ("N benign
// lines", "and N more lines like this").
struct CountedEvents {
  std::size_t file = 0;
  std::size_t rule = 0;
  std::size_t count = 0;
};

struct ScanState {
  std::vector<Event> events;
  std::vector<std::size_t> rule_hits;  // total hits per rule, kept or not
  // Per input and context rule, in input order: events counted, not built (see above).
  // Filled by append_scan; a state that one input's scan_text calls filled has none (its
  // context rules' events are the first min(hits, kContextEventsKept) hits).
  std::vector<CountedEvents> counted;
  // [rule]: is_context_rule (set by reset).
  std::vector<char> context_rule;
  // The input the last part scanned or appended came from, and each rule's hits before the
  // first part of that input (append_scan's count of an input's context events).
  std::size_t file = static_cast<std::size_t>(-1);
  std::vector<std::size_t> hits_before_file;
  std::vector<std::vector<bool>> checks_seen;  // [rule][check]: a line satisfied it
  std::size_t lines = 0;
  std::size_t bytes = 0;
  // [rule]: this rule's events are not wanted, only counted: the part of the input before
  // this one already holds kMaxEventsPerRule of them (set by whoever scans in pieces; the
  // events it saves building would be dropped by append_scan anyway).
  std::vector<char> events_full;

  void reset(const Catalog& catalog);
  // Drops events at or after `line` of `file` (used when a document changes from there).
  void truncate(std::size_t file, std::size_t line);
  // Adds an event read after the scan (progress.hpp, stacks.hpp) in (input, line) order
  // among the scan's events, and counts it as a hit of its rule.
  void insert_after_scan(Event ev);
};

// With the strategy "auto", an input goes through the catalog's whole-buffer prefilter when
// the prefilter is already built (the CLI adopts one compiled at build time), or when the
// input is at least this large (building one costs about 0.1 s); otherwise line by line.
inline constexpr std::size_t kPrefilterMinBytes = std::size_t{24} << 20;

// Scans the part [base, end) of one input (index `file`) whose first line is line number
// `first_line`; `whole` is the entire input, used to look back for block context; `base`
// must be a line start. Appends to `state`. end = npos means the end of `whole`. The parts
// scanned into one state are parts of one input, in order (several inputs are scanned into
// states of their own and joined with append_scan).
void scan_text(const Catalog& catalog, std::size_t file, std::string_view whole, std::size_t base,
               std::size_t first_line, ScanState& state, std::size_t end = std::string_view::npos);

// Appends the scan of a later piece of the inputs to `into`, as if one scan had read
// both: the piece was scanned on its own from line 0 (so pieces can be scanned side by side)
// and its line numbers are moved by `line_offset` (the lines of its file before it); each
// rule keeps its first kMaxEventsPerRule events in input order, and each context rule its
// first kContextEventsKept of them per input (the others counted in `counted`). Pieces must
// be appended in input order (file, then offset), and each is the scan of (a part of) one
// input by scan_text.
void append_scan(ScanState& into, ScanState&& piece, std::size_t line_offset);
// The same, the piece's events becoming events of input `file`.
void append_scan(ScanState& into, ScanState&& piece, std::size_t line_offset, std::size_t file);
// The same for a scan that stays where it is (the language server keeps each document's
// scan for the next edit): the kept events are copied, as events of input `file`.
void append_scan(ScanState& into, const ScanState& piece, std::size_t line_offset,
                 std::size_t file);

// How scan_text chooses: "auto" (above), or forced one way (tests and benchmarks).
// `session` is the caller's prefilter scratch space, reused across calls (one per
// thread); null: scan_text makes its own. `copy`, when not empty, holds the bytes
// whole[base, end) elsewhere (read into a buffer: a fresh memory mapping costs more to
// touch the first time than a read() into memory already touched); they are scanned instead,
// while block context is still read from `whole`.
enum class ScanStrategy { kAuto, kEveryLine, kPrefilter };
void scan_text(const Catalog& catalog, std::size_t file, std::string_view whole, std::size_t base,
               std::size_t first_line, ScanState& state, std::size_t end, ScanStrategy strategy,
               Prefilter::Session* session = nullptr, std::string_view copy = {});

// What "auto" means for an input of `bytes` bytes (the rule above kPrefilterMinBytes);
// other strategies stand. Whoever cuts an input into parts decides once, for all of it.
ScanStrategy resolve_strategy(const Catalog& catalog, std::size_t bytes, ScanStrategy strategy);

}  // namespace ff::analysis
