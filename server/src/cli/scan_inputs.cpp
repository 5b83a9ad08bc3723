#include "cli/scan_inputs.hpp"

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>

#include "analysis/scan.hpp"

namespace ff::cli {

namespace {

// Below this, splitting a file costs more (a scan state per piece) than it balances.
constexpr std::size_t kMinPiece = std::size_t{1} << 20;

// A part of one input, cut at a line end; the unit of work of a scan thread.
struct Piece {
  std::size_t file;
  std::size_t begin;
  std::size_t end;
  analysis::ScanStrategy strategy;
};

std::vector<Piece> cut_pieces(const std::vector<InputFile>& inputs, const ScanOptions& options,
                              unsigned threads) {
  std::vector<Piece> pieces;
  for (std::size_t f = 0; f < inputs.size(); ++f) {
    std::string_view text = inputs[f].text();
    // A file is cut into at least four pieces per thread when it is big enough (so the
    // threads finish together), at most options.window bytes each (so memory stays bounded).
    std::size_t window = std::max<std::size_t>(options.window, 1);
    window = std::min(window, std::max(kMinPiece, text.size() / (std::size_t{4} * threads)));
    // The strategy is decided for the whole file: a big file goes through the prefilter in
    // every piece, a small one line by line.
    analysis::ScanStrategy strategy = options.strategy;
    if (strategy == analysis::ScanStrategy::kAuto && text.size() >= analysis::kPrefilterMinBytes)
      strategy = analysis::ScanStrategy::kPrefilter;
    std::size_t pos = 0;
    do {
      std::size_t end = std::min(text.size(), pos + window);
      if (end < text.size()) {
        std::size_t nl = text.find('\n', end);
        end = nl == std::string_view::npos ? text.size() : nl + 1;
      }
      pieces.push_back({f, pos, end, strategy});
      pos = end;
    } while (pos < text.size());
  }
  return pieces;
}

// Pieces are scanned in any order by any thread and appended to the job in input order, as
// soon as every piece before them is done, so the result is the one a single sequential
// scan gives, whatever the number of threads. Threads stay at most kAhead pieces ahead of
// the oldest unfinished one, which bounds the results held back.
class PieceScanner {
 public:
  PieceScanner(const analysis::Catalog& catalog, const std::vector<InputFile>& inputs,
               std::vector<Piece> pieces, unsigned threads)
      : catalog_(catalog),
        inputs_(inputs),
        pieces_(std::move(pieces)),
        done_(pieces_.size()),
        file_lines_(inputs.size(), 0),
        ahead_(std::size_t{4} * threads) {
    job_.reset(catalog);
  }

  // One scan thread: takes the next piece until none is left.
  void work() {
    // Prefilter scratch space, made once per thread, when the first piece needs it.
    std::optional<analysis::Prefilter::Session> session;
    for (;;) {
      std::size_t i;
      {
        std::unique_lock<std::mutex> lock(mu_);
        room_.wait(lock, [&] { return next_ >= pieces_.size() || next_ < merged_ + ahead_; });
        if (next_ >= pieces_.size()) return;
        i = next_++;
      }
      const Piece& p = pieces_[i];
      const InputFile& in = inputs_[p.file];
      analysis::ScanState state;
      state.reset(catalog_);
      if (!session && (p.strategy == analysis::ScanStrategy::kPrefilter ||
                       (p.strategy == analysis::ScanStrategy::kAuto && catalog_.prefilter_ready())))
        if (const analysis::Prefilter* pf = catalog_.prefilter()) session.emplace(*pf);
      in.prefetch(p.begin, p.end);
      analysis::scan_text(catalog_, p.file, in.text(), p.begin, 0, state, p.end, p.strategy,
                          session ? &*session : nullptr);
      // The next piece's first lines may look back into this one's last (block context);
      // the rest of it is not read again.
      in.release(p.begin, p.end > kKeepBehind ? p.end - kKeepBehind : 0);
      std::lock_guard<std::mutex> lock(mu_);
      done_[i] = std::move(state);
      bool progressed = false;
      while (merged_ < pieces_.size() && done_[merged_]) {
        std::size_t f = pieces_[merged_].file;
        std::size_t lines = done_[merged_]->lines;
        analysis::append_scan(job_, std::move(*done_[merged_]), file_lines_[f]);
        file_lines_[f] += lines;
        // No piece reads before this one any more: drop what is left of the one before it
        // (its tail, and pages that block lookback brought back).
        if (merged_ > 0 && pieces_[merged_ - 1].file == f)
          inputs_[f].release(pieces_[merged_ - 1].begin, pieces_[merged_ - 1].end);
        done_[merged_].reset();
        ++merged_;
        progressed = true;
      }
      if (progressed) room_.notify_all();
    }
  }

  analysis::ScanState take() { return std::move(job_); }
  const std::vector<std::size_t>& file_lines() const { return file_lines_; }

 private:
  static constexpr std::size_t kKeepBehind = std::size_t{1} << 20;
  const analysis::Catalog& catalog_;
  const std::vector<InputFile>& inputs_;
  std::vector<Piece> pieces_;
  std::mutex mu_;
  std::condition_variable room_;
  std::size_t next_ = 0;
  std::size_t merged_ = 0;
  std::vector<std::optional<analysis::ScanState>> done_;
  std::vector<std::size_t> file_lines_;
  std::size_t ahead_;
  analysis::ScanState job_;
};

}  // namespace

analysis::Analysis analyze_inputs(const analysis::Catalog& catalog,
                                  const std::vector<InputFile>& inputs,
                                  const ScanOptions& options) {
  unsigned threads =
      options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency());
  std::vector<Piece> pieces = cut_pieces(inputs, options, threads);
  threads = std::max(1u, static_cast<unsigned>(std::min<std::size_t>(threads, pieces.size())));
  PieceScanner scanner(catalog, inputs, std::move(pieces), threads);
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back([&] { scanner.work(); });
  scanner.work();
  for (auto& th : pool) th.join();
  std::vector<analysis::FileSummary> files(inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i)
    files[i] = {inputs[i].name(), scanner.file_lines()[i], inputs[i].text().size()};
  return analysis::diagnose(catalog, std::move(files), scanner.take());
}

}  // namespace ff::cli
