#include "analysis/prefilter.hpp"

#include <hs/hs.h>

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

std::string prefilter_pattern(const std::string& p) {
  std::string out = p;
  // Vectorscan's multiline anchors know only "\n"; a line may also end in "\r". Widen the
  // anchors to accept a carriage return too (a superset is always fine for a prefilter).
  if (!out.empty() && out.front() == '^') out = "(?:^|\\r)" + out.substr(1);
  if (!out.empty() && out.back() == '$') {
    std::size_t backslashes = 0;
    for (std::size_t i = out.size() - 1; i > 0 && out[i - 1] == '\\'; --i) ++backslashes;
    if (backslashes % 2 == 0) {
      out.pop_back();
      out += "(?:$|\\r)";
    }
  }
  return out;
}

std::unique_ptr<Prefilter> Prefilter::build(const std::vector<std::string>& patterns,
                                            std::string* why) {
  std::vector<std::string> pats;
  pats.reserve(patterns.size() + 1);
  for (const auto& p : patterns) pats.push_back(prefilter_pattern(p));
  // Bytes that strip_ansi() removes: the line must go to the exact path.
  pats.push_back("[\\x00-\\x08\\x0b\\x0c\\x0e-\\x1a\\x1c-\\x1f\\x7f]|\\[[0-9;]{0,12}m");
  std::vector<const char*> exprs;
  std::vector<unsigned> flags, ids;
  for (std::size_t i = 0; i < pats.size(); ++i) {
    exprs.push_back(pats[i].c_str());
    flags.push_back(HS_FLAG_PREFILTER | HS_FLAG_MULTILINE | HS_FLAG_ALLOWEMPTY);
    ids.push_back(static_cast<unsigned>(i));
  }
  hs_database_t* db = nullptr;
  hs_compile_error_t* err = nullptr;
  if (hs_compile_multi(exprs.data(), flags.data(), ids.data(), static_cast<unsigned>(exprs.size()),
                       HS_MODE_BLOCK, nullptr, &db, &err) != HS_SUCCESS) {
    if (why) {
      *why = err ? err->message : "unknown error";
      if (err && err->expression >= 0 && static_cast<std::size_t>(err->expression) < patterns.size())
        *why += " in pattern: " + patterns[static_cast<std::size_t>(err->expression)];
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
  if (hs_clone_scratch(pf.impl_->prototype, &s) == HS_SUCCESS) scratch_ = s;
}

Prefilter::Session::~Session() {
  if (scratch_) hs_free_scratch(static_cast<hs_scratch_t*>(scratch_));
}

bool Prefilter::Session::scan(std::string_view text,
                              const std::function<void(std::size_t)>& on_match) {
  if (!scratch_) return false;
  struct Ctx {
    const std::function<void(std::size_t)>* cb;
    std::size_t base;
    std::size_t last = std::numeric_limits<std::size_t>::max();
  } ctx{&on_match, 0};
  auto handler = [](unsigned, unsigned long long, unsigned long long to, unsigned, void* c) -> int {
    auto* x = static_cast<Ctx*>(c);
    std::size_t end = x->base + static_cast<std::size_t>(to);
    if (end != x->last) {
      x->last = end;
      (*x->cb)(end);
    }
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

bool Prefilter::Session::any(std::string_view text) {
  if (!scratch_) return true;
  bool hit = false;
  auto handler = [](unsigned, unsigned long long, unsigned long long, unsigned, void* c) -> int {
    *static_cast<bool*>(c) = true;
    return 1;  // stop at the first match
  };
  hs_error_t rc = hs_scan(pf_.impl_->db, text.data(), static_cast<unsigned>(std::min<std::size_t>(text.size(), 0xffffffffu)), 0,
                          static_cast<hs_scratch_t*>(scratch_), handler, &hit);
  return hit || (rc != HS_SUCCESS && rc != HS_SCAN_TERMINATED);
}

}  // namespace ff::analysis
