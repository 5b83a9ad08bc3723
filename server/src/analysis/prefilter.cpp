#include "analysis/prefilter.hpp"

#include <hs/hs.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <mutex>

namespace ff::analysis {

struct Prefilter::Impl {
  hs_database_t* db = nullptr;
  // Scratch space is per thread in Vectorscan; keep a prototype and clone per scan.
  hs_scratch_t* prototype = nullptr;
  ~Impl() {
    if (prototype) hs_free_scratch(prototype);
    if (db) hs_free_database(db);
  }
};

Prefilter::~Prefilter() = default;

namespace {

constexpr std::string_view kBlobMagic = "ffpf1";

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

}  // namespace

std::string Prefilter::serialize(const std::vector<std::string>& patterns) const {
  char* bytes = nullptr;
  std::size_t len = 0;
  if (hs_serialize_database(impl_->db, &bytes, &len) != HS_SUCCESS) return {};
  std::string fp = fingerprint(prefilter_inputs(patterns));
  std::string out(kBlobMagic);
  out.push_back(static_cast<char>(fp.size()));
  out += fp;
  out.append(bytes, len);
  std::free(bytes);
  return out;
}

std::unique_ptr<Prefilter> Prefilter::load(std::string_view bytes,
                                           const std::vector<std::string>& patterns) {
  if (bytes.size() < kBlobMagic.size() + 1 || bytes.substr(0, kBlobMagic.size()) != kBlobMagic)
    return nullptr;
  std::size_t fp_len = static_cast<unsigned char>(bytes[kBlobMagic.size()]);
  std::size_t at = kBlobMagic.size() + 1;
  if (bytes.size() < at + fp_len || bytes.substr(at, fp_len) != fingerprint(prefilter_inputs(patterns)))
    return nullptr;
  at += fp_len;
  hs_database_t* db = nullptr;
  if (hs_deserialize_database(bytes.data() + at, bytes.size() - at, &db) != HS_SUCCESS) return nullptr;
  auto pf = std::unique_ptr<Prefilter>(new Prefilter());
  pf->impl_ = std::make_unique<Impl>();
  pf->impl_->db = db;
  if (hs_alloc_scratch(db, &pf->impl_->prototype) != HS_SUCCESS) return nullptr;
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

// What Vectorscan is given: every pattern widened. Lines with bytes strip_ansi() removes
// are the caller's to find (find_control_byte()): as a Vectorscan pattern, that character
// class cost a sixth of the scan of a coloured log. (The bare "[0m" residue is looked for by
// neither: as a pattern it has no literal to anchor on and costs a third of the scan. Such a
// residue only matters when it sits inside a signature, i.e. when colour codes inside the
// message lost their ESC.)
std::vector<std::string> prefilter_inputs(const std::vector<std::string>& patterns) {
  std::vector<std::string> pats;
  pats.reserve(patterns.size());
  for (const auto& p : patterns) pats.push_back(prefilter_pattern(p));
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
  hs_scratch_t* s = nullptr;
  hs_scratch_t* n = nullptr;
  if (hs_clone_scratch(pf.impl_->prototype, &s) != HS_SUCCESS) return;
  if (hs_clone_scratch(pf.impl_->prototype, &n) != HS_SUCCESS) {
    hs_free_scratch(s);
    return;
  }
  scratch_ = s;
  line_scratch_ = n;
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
  if (!line_scratch_) return false;
  auto handler = [](unsigned id, unsigned long long, unsigned long long, unsigned, void* c) -> int {
    static_cast<std::vector<int>*>(c)->push_back(static_cast<int>(id));
    return 0;
  };
  return hs_scan(pf_.impl_->db, text.data(),
                 static_cast<unsigned>(std::min<std::size_t>(text.size(), 0xffffffffu)), 0,
                 static_cast<hs_scratch_t*>(line_scratch_), handler, &out) == HS_SUCCESS;
}

}  // namespace ff::analysis
