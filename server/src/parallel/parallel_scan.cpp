#include "parallel/parallel_scan.hpp"

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <optional>
#include <thread>

namespace ff::parallel {

namespace {

// Below this, splitting a source costs more (a scan state per piece) than it balances.
constexpr std::size_t kMinPiece = std::size_t{1} << 20;
// How much of a piece the next one's block lookback may read: kept until that one is done.
constexpr std::size_t kKeepBehind = std::size_t{1} << 20;
// Sources read into a buffer are scanned this much at a time (cut at line ends), so what
// the scan reads is still in the cache from the copy.
constexpr std::size_t kReadChunk = std::size_t{256} << 10;

// A part of one source, cut at a line end; the unit of work of a scan thread.
struct Piece {
  std::size_t source;
  std::size_t begin;
  std::size_t end;
  analysis::ScanStrategy strategy;
};

// One past the first '\n' at or after `at` (`end` when none before it). A source that can
// be read is read around `at` rather than touched through its mapping: a page cache that
// holds a file in large folios maps a whole folio (2 MB and more) on one touch, and the
// boundaries of a big file's pieces would map a sizeable part of it at once.
std::size_t line_end_from(const ScanSource& src, std::size_t at, std::size_t end) {
  if (src.read) {
    char window[4096];
    while (at < end) {
      const std::size_t want = std::min(sizeof window, end - at);
      const std::size_t got = src.read(at, window, want);
      if (got != want) break;  // short: look in the mapping instead
      if (const void* nl = std::memchr(window, '\n', got))
        return at + static_cast<std::size_t>(static_cast<const char*>(nl) - window) + 1;
      at += got;
    }
  }
  std::size_t nl = src.text.substr(0, end).find('\n', at);
  return nl == std::string_view::npos ? end : nl + 1;
}

std::vector<Piece> cut_pieces(const analysis::Catalog& catalog,
                              const std::vector<ScanSource>& sources, const ScanOptions& options,
                              unsigned threads) {
  std::vector<Piece> pieces;
  for (std::size_t s = 0; s < sources.size(); ++s) {
    const ScanSource& src = sources[s];
    std::string_view text = src.text;
    std::size_t end = std::min(src.end, text.size());
    std::size_t pos = std::min(src.begin, end);
    // The strategy is decided for the whole source: a big one goes through the prefilter
    // in every piece, a small one line by line.
    analysis::ScanStrategy strategy = analysis::resolve_strategy(catalog, end - pos, src.strategy);
    // At least four pieces per thread when the source is big enough (so the threads finish
    // together), at most max_piece bytes each (so memory stays bounded).
    std::size_t window = std::max<std::size_t>(options.max_piece, 1);
    window = std::min(window, std::max(kMinPiece, (end - pos) / (std::size_t{4} * threads)));
    do {
      std::size_t stop = std::min(end, pos + window);
      if (stop < end) stop = line_end_from(src, stop, end);
      pieces.push_back({s, pos, stop, strategy});
      pos = stop;
    } while (pos < end);
  }
  return pieces;
}

// Threads stay at most `ahead_` pieces ahead of the oldest unfinished one, which bounds the
// results held back.
class PieceScanner {
 public:
  PieceScanner(const analysis::Catalog& catalog, const std::vector<ScanSource>& sources,
               std::vector<Piece> pieces, analysis::ScanState& into, unsigned threads)
      : catalog_(catalog),
        sources_(sources),
        pieces_(std::move(pieces)),
        done_(pieces_.size()),
        lines_(sources.size()),
        into_(into),
        ahead_(std::size_t{4} * threads) {
    for (std::size_t s = 0; s < sources.size(); ++s) lines_[s] = sources[s].first_line;
    note_full();
  }

  // One scan thread: takes the next piece until none is left.
  void work() {
    // Prefilter scratch space, made once per thread, when the first piece needs it.
    std::optional<analysis::Prefilter::Session> session;
    std::vector<char> buffer;  // for sources read into memory (ScanSource::read)
    for (;;) {
      std::size_t i;
      analysis::ScanState state;
      {
        std::unique_lock<std::mutex> lock(mu_);
        room_.wait(lock, [&] { return next_ >= pieces_.size() || next_ < merged_ + ahead_; });
        if (next_ >= pieces_.size()) return;
        i = next_++;
        state.reset(catalog_);
        state.events_full = full_;
        note_context_full(sources_[pieces_[i].source].file, state.events_full);
      }
      const Piece& p = pieces_[i];
      const ScanSource& src = sources_[p.source];
      if (!session && p.strategy == analysis::ScanStrategy::kPrefilter)
        if (const analysis::Prefilter* pf = catalog_.prefilter()) session.emplace(*pf);
      analysis::Prefilter::Session* reused = session ? &*session : nullptr;
      if (!src.read || !scan_read(src, p, state, reused, buffer)) {
        if (src.prefetch) src.prefetch(p.begin, p.end);
        analysis::scan_text(catalog_, src.file, src.text, p.begin, 0, state, p.end, p.strategy,
                            reused);
      }
      // The next piece's first lines may look back into this one's last (block context);
      // the rest of it is not read again.
      if (src.release) src.release(p.begin, p.end > kKeepBehind ? p.end - kKeepBehind : 0);
      std::lock_guard<std::mutex> lock(mu_);
      done_[i] = std::move(state);
      bool progressed = false;
      while (merged_ < pieces_.size() && done_[merged_]) {
        std::size_t s = pieces_[merged_].source;
        std::size_t lines = done_[merged_]->lines;
        analysis::append_scan(into_, std::move(*done_[merged_]), lines_[s]);
        lines_[s] += lines;
        // No piece reads before this one any more: drop what is left of the one before it
        // (its tail, and pages that block lookback brought back).
        if (merged_ > 0 && pieces_[merged_ - 1].source == s && sources_[s].release)
          sources_[s].release(pieces_[merged_ - 1].begin, pieces_[merged_ - 1].end);
        done_[merged_].reset();
        ++merged_;
        progressed = true;
      }
      // Rules whose events the job has all it keeps of: pieces taken from now on (all after
      // the merged ones) only count them.
      if (progressed) note_full();
      if (progressed) room_.notify_all();
    }
  }

  // Scans piece `p` from copies read kReadChunk at a time into `buffer`, each cut after its
  // last line end. False when a read came up short: `state` is then as it was given (the
  // caller scans the piece again).
  bool scan_read(const ScanSource& src, const Piece& p, analysis::ScanState& state,
                 analysis::Prefilter::Session* session, std::vector<char>& buffer) {
    bool whole = read_line_runs(
        src.read, p.begin, p.end, buffer, [&](std::size_t pos, std::string_view lines) {
          analysis::scan_text(catalog_, src.file, src.text, pos, state.lines, state,
                              pos + lines.size(), p.strategy, session, lines);
        });
    if (!whole) {
      std::vector<char> full = std::move(state.events_full);  // set before the scan
      state.reset(catalog_);
      state.events_full = std::move(full);
    }
    return whole;
  }

  void note_full() {
    full_.resize(into_.rule_hits.size(), 0);
    for (std::size_t r = 0; r < full_.size(); ++r)
      full_[r] = into_.rule_hits[r] >= analysis::kMaxEventsPerRule;
  }

  // A context rule keeps its first events of each input (analysis::kContextEventsKept): a
  // piece of the input the job last appended to, which holds that many already, only counts
  // them.
  void note_context_full(std::size_t file, std::vector<char>& full) const {
    if (into_.file != file || into_.hits_before_file.size() != into_.rule_hits.size()) return;
    full.resize(into_.rule_hits.size(), 0);
    for (std::size_t r = 0; r < full.size() && r < into_.context_rule.size(); ++r)
      if (into_.context_rule[r] &&
          into_.rule_hits[r] - into_.hits_before_file[r] >= analysis::kContextEventsKept)
        full[r] = 1;
  }

  std::vector<std::size_t> lines_scanned() const {
    std::vector<std::size_t> out(lines_.size());
    for (std::size_t s = 0; s < out.size(); ++s) out[s] = lines_[s] - sources_[s].first_line;
    return out;
  }

 private:
  const analysis::Catalog& catalog_;
  const std::vector<ScanSource>& sources_;
  std::vector<Piece> pieces_;
  std::mutex mu_;
  std::condition_variable room_;
  std::size_t next_ = 0;
  std::size_t merged_ = 0;
  std::vector<std::optional<analysis::ScanState>> done_;
  std::vector<std::size_t> lines_;  // per source: line number of the next piece's first line
  analysis::ScanState& into_;
  std::vector<char> full_;
  std::size_t ahead_;
};

}  // namespace

bool read_line_runs(const std::function<std::size_t(std::size_t, char*, std::size_t)>& read,
                    std::size_t begin, std::size_t end, std::vector<char>& buffer,
                    const std::function<void(std::size_t offset, std::string_view lines)>& scan) {
  if (buffer.size() < kReadChunk) buffer.resize(kReadChunk);
  std::size_t pos = begin;  // the input offset of buffer[0]
  std::size_t held = 0;     // bytes of the input in buffer, from pos
  while (pos < end) {
    const std::size_t want = std::min(buffer.size() - held, end - pos - held);
    if (want > 0) {
      if (read(pos + held, buffer.data() + held, want) != want) return false;
      held += want;
    }
    std::size_t cut = held;
    if (pos + held < end) {
      const void* nl = memrchr(buffer.data(), '\n', held);
      if (!nl) {  // a line longer than the buffer: read more of it
        buffer.resize(buffer.size() * 2);
        continue;
      }
      cut = static_cast<std::size_t>(static_cast<const char*>(nl) - buffer.data()) + 1;
    }
    scan(pos, std::string_view(buffer.data(), cut));
    std::memmove(buffer.data(), buffer.data() + cut, held - cut);
    held -= cut;
    pos += cut;
  }
  return true;
}

std::vector<std::size_t> scan(const analysis::Catalog& catalog,
                              const std::vector<ScanSource>& sources, analysis::ScanState& into,
                              const ScanOptions& options) {
  if (into.rule_hits.size() != catalog.rules().size()) into.reset(catalog);
  unsigned threads =
      options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency());
  std::vector<Piece> pieces = cut_pieces(catalog, sources, options, threads);
  threads = std::max(1u, static_cast<unsigned>(std::min<std::size_t>(threads, pieces.size())));
  PieceScanner scanner(catalog, sources, std::move(pieces), into, threads);
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back([&] { scanner.work(); });
  scanner.work();
  for (auto& th : pool) th.join();
  return scanner.lines_scanned();
}

void scan_range(const analysis::Catalog& catalog, std::string_view whole, std::size_t base,
                std::size_t first_line, analysis::ScanState& into, std::size_t end,
                const ScanOptions& options) {
  ScanSource src;
  src.text = whole;
  src.begin = base;
  src.end = end;
  src.first_line = first_line;
  scan(catalog, {src}, into, options);
}

}  // namespace ff::parallel
