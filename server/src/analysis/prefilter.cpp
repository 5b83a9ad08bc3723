#include "analysis/prefilter.hpp"

#include <hs/hs.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>

namespace ff::analysis {

struct Prefilter::Impl {
  hs_database_t* db = nullptr;
  // How `db` is held: compiled by Vectorscan (hs_free_database), copied into memory of our
  // own (std::free), or used in place from bytes that outlive the prefilter (nothing).
  enum class Owner { kVectorscan, kCopy, kBorrowed } owner = Owner::kVectorscan;
  // Scratch space is per thread in Vectorscan; keep a prototype and clone per scan.
  hs_scratch_t* prototype = nullptr;
  ~Impl() {
    if (prototype) hs_free_scratch(prototype);
    if (!db) return;
    if (owner == Owner::kVectorscan) hs_free_database(db);
    if (owner == Owner::kCopy) std::free(db);
  }
};

Prefilter::~Prefilter() = default;

namespace {

// The blob: magic, fingerprint, zero padding to a multiple of kImageAlign, then the
// database as Vectorscan lays it out in memory (not its serialised form). Deserialising
// the 0.9 MB database of the built-in catalog cost 2.8 ms of every start-up, nearly all of
// it faulting in fresh pages; the image is used where it lies instead (the binary's own
// read-only pages, only those a scan touches read from the page cache). Vectorscan's
// database is position-independent (its bytecode is found by an offset from the header),
// and its layout depends only on the address modulo 64, hence the alignment.
constexpr std::string_view kBlobMagic = "ffpf2";
constexpr std::size_t kImageAlign = 64;

std::vector<std::string> prefilter_inputs(const std::vector<std::string>& patterns);

std::string fingerprint(const std::vector<std::string>& patterns) {
  // FNV-1a over the patterns and their separators: identifies the pattern list exactly
  // enough for "is this blob for this catalog".
  std::uint64_t h = 1469598103934665603ull;
  auto mix = [&](unsigned char c) {
    h ^= c;
    h *= 1099511628211ull;
  };
  for (const auto& p : patterns) {
    for (unsigned char c : p) mix(c);
    mix(0);
  }
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) out[static_cast<std::size_t>(i)] = static_cast<char>((h >> (8 * i)) & 0xff);
  return out + std::to_string(patterns.size());
}

// Whether this CPU has every instruction set the database's bytecode was compiled for
// (what hs_deserialize_database checks; an image in place is not deserialised).
bool runs_here(const hs_database_t* db) {
  char* info = nullptr;
  if (hs_database_info(db, &info) != HS_SUCCESS || !info) return false;
  std::string text(info);
  std::free(info);
  hs_platform_info_t here{};
  if (hs_populate_platform(&here) != HS_SUCCESS) return false;
  // "Version: 5.4.9 Features: AVX2 Mode: BLOCK"
  std::size_t at = text.find("Features:");
  std::size_t end = text.find("Mode:");
  if (at == std::string::npos || end == std::string::npos || end < at) return false;
  std::string features = text.substr(at + 9, end - at - 9);
  std::size_t i = 0;
  while (i < features.size()) {
    while (i < features.size() && features[i] == ' ') ++i;
    std::size_t j = features.find(' ', i);
    if (j == std::string::npos) j = features.size();
    std::string f = features.substr(i, j - i);
    i = j;
    if (f.empty()) continue;
    unsigned long long need = f == "AVX2"         ? HS_CPU_FEATURES_AVX2
                              : f == "AVX512"     ? HS_CPU_FEATURES_AVX512
                              : f == "AVX512VBMI" ? HS_CPU_FEATURES_AVX512VBMI
                                                  : 0;
    if (need == 0 || (here.cpu_features & need) != need) return false;  // unknown: refuse
  }
  return true;
}

}  // namespace

std::string Prefilter::serialize(const std::vector<std::string>& patterns) const {
  char* bytes = nullptr;
  std::size_t len = 0;
  if (hs_serialize_database(impl_->db, &bytes, &len) != HS_SUCCESS) return {};
  std::size_t image_len = 0;
  if (hs_serialized_database_size(bytes, len, &image_len) != HS_SUCCESS) {
    std::free(bytes);
    return {};
  }
  // Lay the database out at an address that is a multiple of kImageAlign, as it will lie.
  std::size_t padded = (image_len + kImageAlign - 1) / kImageAlign * kImageAlign;
  void* image = std::aligned_alloc(kImageAlign, padded);
  if (!image) {
    std::free(bytes);
    return {};
  }
  std::memset(image, 0, padded);
  const bool ok = hs_deserialize_database_at(bytes, len, static_cast<hs_database_t*>(image)) == HS_SUCCESS;
  std::free(bytes);
  std::string out;
  if (ok) {
    std::string fp = fingerprint(prefilter_inputs(patterns));
    out = kBlobMagic;
    out.push_back(static_cast<char>(fp.size()));
    out += fp;
    out.resize((out.size() + kImageAlign - 1) / kImageAlign * kImageAlign, '\0');
    out.append(static_cast<const char*>(image), image_len);
  }
  std::free(image);
  return out;
}

std::unique_ptr<Prefilter> Prefilter::load(std::string_view bytes,
                                           const std::vector<std::string>& patterns,
                                           Storage storage) {
  if (bytes.size() < kBlobMagic.size() + 1 || bytes.substr(0, kBlobMagic.size()) != kBlobMagic)
    return nullptr;
  std::size_t fp_len = static_cast<unsigned char>(bytes[kBlobMagic.size()]);
  std::size_t at = kBlobMagic.size() + 1;
  if (bytes.size() < at + fp_len || bytes.substr(at, fp_len) != fingerprint(prefilter_inputs(patterns)))
    return nullptr;
  at = (at + fp_len + kImageAlign - 1) / kImageAlign * kImageAlign;
  if (bytes.size() <= at) return nullptr;
  std::string_view image = bytes.substr(at);
  auto pf = std::unique_ptr<Prefilter>(new Prefilter());
  pf->impl_ = std::make_unique<Impl>();
  const bool in_place = storage == Storage::kStatic &&
                        reinterpret_cast<std::uintptr_t>(image.data()) % kImageAlign == 0;
  if (in_place) {
    // Vectorscan only reads a database; the bytes are the binary's read-only data.
    pf->impl_->db = reinterpret_cast<hs_database_t*>(const_cast<char*>(image.data()));
    pf->impl_->owner = Impl::Owner::kBorrowed;
  } else {
    // Room for a whole header even when the bytes are shorter (they are then refused).
    std::size_t padded = (std::max<std::size_t>(image.size(), 4096) + kImageAlign - 1) / kImageAlign * kImageAlign;
    void* copy = std::aligned_alloc(kImageAlign, padded);
    if (!copy) return nullptr;
    std::memset(copy, 0, padded);
    std::memcpy(copy, image.data(), image.size());
    pf->impl_->db = static_cast<hs_database_t*>(copy);
    pf->impl_->owner = Impl::Owner::kCopy;
  }
  // The header names the Vectorscan version and the length of what follows.
  std::size_t db_len = 0;
  if (hs_database_size(pf->impl_->db, &db_len) != HS_SUCCESS || db_len > image.size()) return nullptr;
  if (!runs_here(pf->impl_->db)) return nullptr;
  if (hs_alloc_scratch(pf->impl_->db, &pf->impl_->prototype) != HS_SUCCESS) return nullptr;
  return pf;
}

// What Vectorscan is given for one RE2 pattern:
// - named groups become plain groups: Vectorscan needs no names, and rejects a name used
//   twice in one pattern, which RE2 accepts (alternatives that capture the same thing);
// - Vectorscan's multiline anchors know only "\n", and a line may also end in "\r": every
//   anchor, wherever it stands (an alternative's "$" too), also accepts a carriage return
//   (a superset is always fine for a prefilter).
std::string prefilter_pattern(const std::string& p) {
  std::string out;
  out.reserve(p.size() + 16);
  bool in_class = false;
  for (std::size_t i = 0; i < p.size(); ++i) {
    char c = p[i];
    if (c == '\\' && i + 1 < p.size()) {
      out += c;
      out += p[++i];
      continue;
    }
    if (in_class) {
      if (c == ']') in_class = false;
      out += c;
      continue;
    }
    if (c == '[') {
      in_class = true;
      out += c;
      // "[]..." and "[^]...": a leading ']' is a literal member
      if (i + 1 < p.size() && p[i + 1] == '^') out += p[++i];
      if (i + 1 < p.size() && p[i + 1] == ']') out += p[++i];
      continue;
    }
    if (p.compare(i, 4, "(?P<") == 0) {
      std::size_t close = p.find('>', i + 4);
      if (close != std::string::npos) {
        out += "(?:";
        i = close;
        continue;
      }
    }
    if (c == '^') {
      out += "(?:^|\\r)";
      continue;
    }
    if (c == '$') {
      out += "(?:$|\\r)";
      continue;
    }
    out += c;
  }
  return out;
}

namespace {

// The length of the literal text `p` starts with (after any leading "\\b"), as RE2 reads it:
// plain characters and escaped punctuation, not counting a character a quantifier follows.
std::size_t leading_literal(std::string_view p) {
  std::size_t i = 0;
  while (p.compare(i, 2, "\\b") == 0) i += 2;
  std::size_t n = 0;
  while (i < p.size()) {
    char c = p[i];
    std::size_t width = 1;
    if (c == '\\') {
      if (i + 1 >= p.size() || std::isalnum(static_cast<unsigned char>(p[i + 1]))) break;  // \d, \w...
      width = 2;
    } else if (std::strchr(".[](){}*+?|^$", c)) {
      break;
    }
    if (i + width < p.size() && std::strchr("*+?{", p[i + width])) break;  // "ab*": "a" only
    i += width;
    ++n;
  }
  return n;
}

}  // namespace

// A pattern is a concatenation; any match of it holds a match of every later part of it at
// the same place, so the part after its last top-level gap (".*", ".+?", "[^']*?": a run
// of anything on the line) finds every line the pattern does. When that part starts with a
// long literal, Vectorscan is given it alone: the whole pattern starting on a literal found
// on most lines ("(?i:nccl)\\w*\\b[^']*?...\\binvalid usage") cost a quarter of the scan of an
// NCCL_DEBUG=INFO log, spent following every "NCCL INFO" to its line end. RE2 still
// confirms every candidate line with the whole pattern. Patterns with a top-level "|" or an
// inline flag group ("(?i)", which would not reach the part) are left whole.
std::string prefilter_factor(const std::string& p) {
  constexpr std::size_t kMinLiteral = 10;
  int depth = 0;
  std::size_t tail = std::string::npos;  // where the part after the last gap starts
  for (std::size_t i = 0; i < p.size(); ++i) {
    char c = p[i];
    if (c == '\\') {
      ++i;
      continue;
    }
    std::size_t gap_end = std::string::npos;  // one past a gap starting at i
    if (c == '[') {
      std::size_t j = i + 1;
      if (j < p.size() && p[j] == '^') ++j;
      if (j < p.size() && p[j] == ']') ++j;
      while (j < p.size() && p[j] != ']') j += p[j] == '\\' ? 2 : 1;
      if (j >= p.size()) return p;
      if (depth == 0 && p[i + 1] == '^' && j + 1 < p.size() && (p[j + 1] == '*' || p[j + 1] == '+'))
        gap_end = j + 2;
      else {
        i = j;
        continue;
      }
    } else if (c == '.' && depth == 0 && i + 1 < p.size() && (p[i + 1] == '*' || p[i + 1] == '+')) {
      gap_end = i + 2;
    } else if (c == '(') {
      if (p.compare(i, 2, "(?") == 0) {
        // An inline flag group without a colon changes what follows: leave the pattern.
        std::size_t j = i + 2;
        while (j < p.size() && std::isalpha(static_cast<unsigned char>(p[j]))) ++j;
        if (j < p.size() && p[j] == ')') return p;
      }
      ++depth;
      continue;
    } else if (c == ')') {
      --depth;
      continue;
    } else if (c == '|' && depth == 0) {
      return p;
    } else {
      continue;
    }
    if (gap_end < p.size() && p[gap_end] == '?') ++gap_end;  // lazy
    tail = gap_end;
    i = gap_end - 1;
  }
  if (tail == std::string::npos || tail >= p.size()) return p;
  if (leading_literal(std::string_view(p).substr(tail)) < kMinLiteral) return p;
  return p.substr(tail);
}

namespace {

// What Vectorscan is given: every pattern widened. Lines with bytes strip_ansi() removes
// are the caller's to find (find_control_byte()): as a Vectorscan pattern, that character
// class cost a sixth of the scan of a coloured log. (The bare "[0m" residue is looked for by
// neither: as a pattern it has no literal to anchor on and costs a third of the scan. Such a
// residue only matters when it sits inside a signature, i.e. when colour codes inside the
// message lost their ESC.)
std::vector<std::string> prefilter_inputs(const std::vector<std::string>& patterns) {
  std::vector<std::string> pats;
  pats.reserve(patterns.size());
  for (const auto& p : patterns) pats.push_back(prefilter_pattern(prefilter_factor(p)));
  return pats;
}

}  // namespace

std::unique_ptr<Prefilter> Prefilter::build(const std::vector<std::string>& patterns,
                                            std::string* why) {
  std::vector<std::string> pats = prefilter_inputs(patterns);
  std::vector<const char*> exprs;
  std::vector<unsigned> ids;
  for (std::size_t i = 0; i < pats.size(); ++i) {
    exprs.push_back(pats[i].c_str());
    ids.push_back(static_cast<unsigned>(i));
  }
  // Exact where Vectorscan supports the pattern (fewer false candidates: prefilter mode may
  // drop assertions such as "$"), prefilter mode where it does not. Either way a line RE2
  // matches is reported: the regex languages agree on everything but features Vectorscan
  // rejects, and those patterns are the ones approximated. One compile of the whole set
  // usually settles it (every shipped pattern is exact); a failure names the first pattern
  // rejected, which is approximated before the next try. Past a few of those, the rest are
  // probed one by one, which used to be done first: 0.28 s for 419 patterns, more than
  // compiling the set itself (0.22 s).
  constexpr int kTriesBeforeProbing = 4;
  const unsigned exact = HS_FLAG_MULTILINE | HS_FLAG_ALLOWEMPTY;
  std::vector<unsigned> flags(pats.size(), exact);
  auto approximate_rejected = [&] {
    for (std::size_t i = 0; i < pats.size(); ++i) {
      if (flags[i] & HS_FLAG_PREFILTER) continue;
      hs_database_t* probe = nullptr;
      hs_compile_error_t* perr = nullptr;
      if (hs_compile(pats[i].c_str(), exact, HS_MODE_BLOCK, nullptr, &probe, &perr) == HS_SUCCESS)
        hs_free_database(probe);
      else
        flags[i] |= HS_FLAG_PREFILTER;
      if (perr) hs_free_compile_error(perr);
    }
  };
  hs_database_t* db = nullptr;
  bool probed = false;
  for (int tries = 1;; ++tries) {
    hs_compile_error_t* err = nullptr;
    if (hs_compile_multi(exprs.data(), flags.data(), ids.data(),
                         static_cast<unsigned>(exprs.size()), HS_MODE_BLOCK, nullptr, &db,
                         &err) == HS_SUCCESS)
      break;
    const int bad = err ? err->expression : -1;
    const bool known = bad >= 0 && static_cast<std::size_t>(bad) < pats.size();
    if (known && !(flags[static_cast<std::size_t>(bad)] & HS_FLAG_PREFILTER)) {
      if (err) hs_free_compile_error(err);
      if (tries < kTriesBeforeProbing || probed) {
        flags[static_cast<std::size_t>(bad)] |= HS_FLAG_PREFILTER;
      } else {
        approximate_rejected();
        probed = true;
      }
      continue;
    }
    if (why) {
      *why = err ? err->message : "unknown error";
      if (known) *why += " in pattern: " + patterns[static_cast<std::size_t>(bad)];
    }
    if (err) hs_free_compile_error(err);
    return nullptr;
  }
  auto pf = std::unique_ptr<Prefilter>(new Prefilter());
  pf->impl_ = std::make_unique<Impl>();
  pf->impl_->db = db;
  if (hs_alloc_scratch(db, &pf->impl_->prototype) != HS_SUCCESS) {
    if (why) *why = "cannot allocate scratch space";
    return nullptr;
  }
  return pf;
}

Prefilter::Session::Session(const Prefilter& pf) : pf_(pf) {
  // The line scratch is cloned when a line first needs it (candidates()): most pieces of
  // most logs have no coloured line, and each clone is 70 KB of fresh pages.
  hs_scratch_t* s = nullptr;
  if (hs_clone_scratch(pf.impl_->prototype, &s) != HS_SUCCESS) return;
  scratch_ = s;
}

Prefilter::Session::~Session() {
  if (scratch_) hs_free_scratch(static_cast<hs_scratch_t*>(scratch_));
  if (line_scratch_) hs_free_scratch(static_cast<hs_scratch_t*>(line_scratch_));
}

bool Prefilter::Session::scan(std::string_view text,
                              const std::function<void(unsigned, std::size_t)>& on_match) {
  if (!scratch_) return false;
  struct Ctx {
    const std::function<void(unsigned, std::size_t)>* cb;
    std::size_t base;
  } ctx{&on_match, 0};
  auto handler = [](unsigned id, unsigned long long, unsigned long long to, unsigned,
                    void* c) -> int {
    auto* x = static_cast<Ctx*>(c);
    (*x->cb)(id, x->base + static_cast<std::size_t>(to));
    return 0;
  };
  // hs_scan takes an unsigned length: feed huge buffers in pieces cut at line ends, so no
  // match spans two pieces (patterns never cross a line).
  constexpr std::size_t kPiece = std::size_t{1} << 30;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t len = std::min(kPiece, text.size() - pos);
    if (pos + len < text.size()) {
      std::size_t cut = text.rfind('\n', pos + len);
      if (cut != std::string_view::npos && cut > pos) len = cut + 1 - pos;
    }
    ctx.base = pos;
    if (hs_scan(pf_.impl_->db, text.data() + pos, static_cast<unsigned>(len), 0,
                static_cast<hs_scratch_t*>(scratch_), handler, &ctx) != HS_SUCCESS)
      return false;
    pos += len;
  }
  return true;
}

bool Prefilter::Session::candidates(std::string_view text, std::vector<int>& out) {
  if (!line_scratch_) {
    hs_scratch_t* n = nullptr;
    if (!scratch_ || hs_clone_scratch(pf_.impl_->prototype, &n) != HS_SUCCESS) return false;
    line_scratch_ = n;
  }
  auto handler = [](unsigned id, unsigned long long, unsigned long long, unsigned, void* c) -> int {
    static_cast<std::vector<int>*>(c)->push_back(static_cast<int>(id));
    return 0;
  };
  return hs_scan(pf_.impl_->db, text.data(),
                 static_cast<unsigned>(std::min<std::size_t>(text.size(), 0xffffffffu)), 0,
                 static_cast<hs_scratch_t*>(line_scratch_), handler, &out) == HS_SUCCESS;
}

}  // namespace ff::analysis
