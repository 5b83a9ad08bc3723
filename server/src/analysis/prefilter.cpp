#include "analysis/prefilter.hpp"

#include <hs/hs.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>

#include "analysis/prefilter_plan.hpp"

namespace ff::analysis {

struct Prefilter::Impl {
  hs_database_t* db = nullptr;
  // How `db` is held: compiled by Vectorscan (hs_free_database), copied into memory of our
  // own (std::free), or used in place from bytes that outlive the prefilter (nothing).
  enum class Owner { kVectorscan, kCopy, kBorrowed } owner = Owner::kVectorscan;
  // Scratch space is per thread in Vectorscan; keep a prototype and clone per scan.
  hs_scratch_t* prototype = nullptr;
  // Expression id -> the patterns it stands for (PrefilterPlan::offsets and targets).
  std::vector<std::uint32_t> offsets, targets;
  ~Impl() {
    if (prototype) hs_free_scratch(prototype);
    if (!db) return;
    if (owner == Owner::kVectorscan) hs_free_database(db);
    if (owner == Owner::kCopy) std::free(db);
  }
};

Prefilter::~Prefilter() = default;

namespace {

// The blob: magic, fingerprint, the plan's expression -> patterns map (little-endian
// 32-bit counts and indices), zero padding to a multiple of kImageAlign, then the
// database as Vectorscan lays it out in memory (not its serialised form). Deserialising
// the 0.9 MB database of the built-in catalog cost 2.8 ms of every start-up, nearly all of
// it faulting in fresh pages; the image is used where it lies instead (the binary's own
// read-only pages, only those a scan touches read from the page cache). Vectorscan's
// database is position-independent (its bytecode is found by an offset from the header),
// and its layout depends only on the address modulo 64, hence the alignment.
constexpr std::string_view kBlobMagic = "ffpf3";
constexpr std::size_t kImageAlign = 64;

std::string fingerprint(const std::vector<std::string>& patterns) {
  // FNV-1a over the patterns and their separators: identifies the pattern list exactly
  // enough for "is this blob for this catalog" (the magic names the plan's format).
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
  for (int i = 0; i < 8; ++i)
    out[static_cast<std::size_t>(i)] = static_cast<char>((h >> (8 * i)) & 0xff);
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

void put_u32(std::string& out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

// A count, then that many values, from bytes[at...]; false when the bytes end first.
bool get_u32s(std::string_view bytes, std::size_t& at, std::vector<std::uint32_t>& out) {
  auto get = [&](std::uint32_t& v) {
    if (bytes.size() - at < 4) return false;
    v = 0;
    for (int i = 0; i < 4; ++i)
      v |= static_cast<std::uint32_t>(
               static_cast<unsigned char>(bytes[at + static_cast<std::size_t>(i)]))
           << (8 * i);
    at += 4;
    return true;
  };
  std::uint32_t n = 0;
  if (at > bytes.size() || !get(n) || n > (bytes.size() - at) / 4) return false;
  out.resize(n);
  for (auto& v : out) get(v);
  return true;
}

// Offsets that rise from 0 to the number of targets, targets that name a pattern.
bool valid_map(const std::vector<std::uint32_t>& offsets, const std::vector<std::uint32_t>& targets,
               std::size_t patterns) {
  if (offsets.empty() || offsets.front() != 0 || offsets.back() != targets.size()) return false;
  for (std::size_t i = 1; i < offsets.size(); ++i)
    if (offsets[i] < offsets[i - 1]) return false;
  for (std::uint32_t t : targets)
    if (t >= patterns) return false;
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
  const bool ok =
      hs_deserialize_database_at(bytes, len, static_cast<hs_database_t*>(image)) == HS_SUCCESS;
  std::free(bytes);
  std::string out;
  if (ok) {
    std::string fp = fingerprint(patterns);
    out = kBlobMagic;
    out.push_back(static_cast<char>(fp.size()));
    out += fp;
    put_u32(out, static_cast<std::uint32_t>(impl_->offsets.size()));
    for (std::uint32_t v : impl_->offsets) put_u32(out, v);
    put_u32(out, static_cast<std::uint32_t>(impl_->targets.size()));
    for (std::uint32_t v : impl_->targets) put_u32(out, v);
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
  if (bytes.size() < at + fp_len || bytes.substr(at, fp_len) != fingerprint(patterns))
    return nullptr;
  at += fp_len;
  std::vector<std::uint32_t> offsets, targets;
  if (!get_u32s(bytes, at, offsets) || !get_u32s(bytes, at, targets) ||
      !valid_map(offsets, targets, patterns.size()))
    return nullptr;
  at = (at + kImageAlign - 1) / kImageAlign * kImageAlign;
  if (bytes.size() <= at) return nullptr;
  std::string_view image = bytes.substr(at);
  auto pf = std::unique_ptr<Prefilter>(new Prefilter());
  pf->impl_ = std::make_unique<Impl>();
  pf->impl_->offsets = std::move(offsets);
  pf->impl_->targets = std::move(targets);
  const bool in_place = storage == Storage::kStatic &&
                        reinterpret_cast<std::uintptr_t>(image.data()) % kImageAlign == 0;
  if (in_place) {
    // Vectorscan only reads a database; the bytes are the binary's read-only data.
    pf->impl_->db = reinterpret_cast<hs_database_t*>(const_cast<char*>(image.data()));
    pf->impl_->owner = Impl::Owner::kBorrowed;
  } else {
    // Room for a whole header even when the bytes are shorter (they are then refused).
    std::size_t padded =
        (std::max<std::size_t>(image.size(), 4096) + kImageAlign - 1) / kImageAlign * kImageAlign;
    void* copy = std::aligned_alloc(kImageAlign, padded);
    if (!copy) return nullptr;
    std::memset(copy, 0, padded);
    std::memcpy(copy, image.data(), image.size());
    pf->impl_->db = static_cast<hs_database_t*>(copy);
    pf->impl_->owner = Impl::Owner::kCopy;
  }
  // The header names the Vectorscan version and the length of what follows.
  std::size_t db_len = 0;
  if (hs_database_size(pf->impl_->db, &db_len) != HS_SUCCESS || db_len > image.size())
    return nullptr;
  if (!runs_here(pf->impl_->db)) return nullptr;
  // The database's expression count is not in its header; a map for another database is
  // caught by the fingerprint, and ids past the map are ignored by the scans.
  if (hs_alloc_scratch(pf->impl_->db, &pf->impl_->prototype) != HS_SUCCESS) return nullptr;
  return pf;
}

std::unique_ptr<Prefilter> Prefilter::build(const std::vector<std::string>& patterns,
                                            std::string* why) {
  PrefilterPlan plan = plan_prefilter(patterns);
  std::vector<const char*> exprs;
  std::vector<unsigned> ids;
  for (std::size_t i = 0; i < plan.expressions.size(); ++i) {
    exprs.push_back(plan.expressions[i].text.c_str());
    ids.push_back(static_cast<unsigned>(i));
  }
  // The pattern a regex expression stands for (each stands for one, or for identical ones).
  auto pattern_of = [&](std::size_t expr) -> const std::string& {
    return patterns[plan.targets[plan.offsets[expr]]];
  };
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
  std::vector<unsigned> flags;
  for (const auto& e : plan.expressions) flags.push_back(e.literal ? HS_FLAG_CASELESS : exact);
  // Settled: a gate string (always compiles exactly) or a regex already approximated.
  auto settled = [&](std::size_t expr) {
    return plan.expressions[expr].literal || (flags[expr] & HS_FLAG_PREFILTER);
  };
  auto approximate_rejected = [&] {
    for (std::size_t i = 0; i < exprs.size(); ++i) {
      if (settled(i)) continue;
      hs_database_t* probe = nullptr;
      hs_compile_error_t* perr = nullptr;
      if (hs_compile(exprs[i], exact, HS_MODE_BLOCK, nullptr, &probe, &perr) == HS_SUCCESS)
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
    const bool known = bad >= 0 && static_cast<std::size_t>(bad) < exprs.size();
    if (known && !settled(static_cast<std::size_t>(bad))) {
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
      if (known) *why += " in pattern: " + pattern_of(static_cast<std::size_t>(bad));
    }
    if (err) hs_free_compile_error(err);
    return nullptr;
  }
  auto pf = std::unique_ptr<Prefilter>(new Prefilter());
  pf->impl_ = std::make_unique<Impl>();
  pf->impl_->db = db;
  pf->impl_->offsets = std::move(plan.offsets);
  pf->impl_->targets = std::move(plan.targets);
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
    const Impl* impl;
  } ctx{&on_match, 0, pf_.impl_.get()};
  auto handler = [](unsigned id, unsigned long long, unsigned long long to, unsigned,
                    void* c) -> int {
    auto* x = static_cast<Ctx*>(c);
    const auto& offsets = x->impl->offsets;
    if (id + 1 >= offsets.size()) return 0;
    const std::size_t end = x->base + static_cast<std::size_t>(to);
    for (std::uint32_t t = offsets[id]; t < offsets[id + 1]; ++t)
      (*x->cb)(x->impl->targets[t], end);
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
  struct Ctx {
    std::vector<int>* out;
    const Impl* impl;
  } ctx{&out, pf_.impl_.get()};
  auto handler = [](unsigned id, unsigned long long, unsigned long long, unsigned, void* c) -> int {
    auto* x = static_cast<Ctx*>(c);
    const auto& offsets = x->impl->offsets;
    if (id + 1 >= offsets.size()) return 0;
    for (std::uint32_t t = offsets[id]; t < offsets[id + 1]; ++t)
      x->out->push_back(static_cast<int>(x->impl->targets[t]));
    return 0;
  };
  return hs_scan(pf_.impl_->db, text.data(),
                 static_cast<unsigned>(std::min<std::size_t>(text.size(), 0xffffffffu)), 0,
                 static_cast<hs_scratch_t*>(line_scratch_), handler, &ctx) == HS_SUCCESS;
}

}  // namespace ff::analysis
