#include "report/mask.hpp"

#include <arpa/inet.h>
#include <re2/re2.h>

#include <algorithm>
#include <cctype>
#include <memory>
#include <set>

namespace ff::report {

namespace {

// Secrets first: at one position the first alternative that matches wins.
constexpr const char* kTokens =
    R"((hf_[A-Za-z0-9]{20,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})"
    R"(|\b(?:AKIA|ASIA)[A-Z0-9]{16}\b|\bsk-[A-Za-z0-9_-]{20,}|\bxox[abprs]-[A-Za-z0-9-]{10,})"
    R"(|\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}|\b[0-9A-Fa-f]{32,}\b))";
constexpr const char* kHome = R"((/home/|/Users/)([A-Za-z0-9._-]+))";
constexpr const char* kUserAtHost =
    R"(\b([A-Za-z_][A-Za-z0-9_.-]*)@((?:\d{1,3}\.){3}\d{1,3}\b|[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?)"
    R"((?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*))";
constexpr const char* kIpv6 =
    R"((::[fF]{4}:(?:\d{1,3}\.){3}\d{1,3}|(?:[0-9A-Fa-f]{1,4}:){7}[0-9A-Fa-f]{1,4})"
    R"(|(?:[0-9A-Fa-f]{1,4}(?::[0-9A-Fa-f]{1,4}){0,6})?::(?:[0-9A-Fa-f]{1,4}(?::[0-9A-Fa-f]{1,4}){0,6})?))";
constexpr const char* kIpv4 = R"((\b(?:\d{1,3}\.){3}\d{1,3}\b))";

// Group numbers in the combined pattern.
enum Group { kGToken = 1, kGHomePrefix, kGHomeUser, kGUser, kGHost, kGIpv6, kGIpv4, kGWord, kGroups };

bool is_word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

bool is_ipv4(const std::string& s) {
  in_addr a;
  return ::inet_pton(AF_INET, s.c_str(), &a) == 1;
}

bool is_ipv6(const std::string& s) {
  in6_addr a;
  return ::inet_pton(AF_INET6, s.c_str(), &a) == 1;
}

bool keep_ipv4(const std::string& s) {
  return s == "0.0.0.0" || s == "255.255.255.255" || s.rfind("127.", 0) == 0;
}

bool maskable_word(std::string_view w) {
  return w.size() >= 2 && w != "localhost" && !is_pseudonym(w) && !is_ipv4(std::string(w));
}

RE2::Options re_options() {
  RE2::Options o;
  o.set_log_errors(false);
  o.set_max_mem(64 << 20);
  return o;
}

}  // namespace

bool is_pseudonym(std::string_view s) {
  for (std::string_view kind : {"host-", "user-", "ip-", "ip6-", "token-"}) {
    if (s.size() > kind.size() && s.substr(0, kind.size()) == kind &&
        std::all_of(s.begin() + static_cast<std::ptrdiff_t>(kind.size()), s.end(),
                    [](char c) { return c >= '0' && c <= '9'; }))
      return true;
  }
  return false;
}

struct Masker::Impl {
  RE2 learn_home{kHome, re_options()};
  RE2 learn_user_at{kUserAtHost, re_options()};
  std::unique_ptr<RE2> all;
};

Masker::Masker() : impl_(new Impl) {}
Masker::~Masker() { delete impl_; }

void Masker::add_host(std::string_view host) {
  if (!maskable_word(host)) return;
  std::string h(host);
  if (std::find(hosts_.begin(), hosts_.end(), h) != hosts_.end()) return;
  hosts_.push_back(h);
  dirty_ = true;
  // The short name of a fully qualified one is the same machine.
  if (auto dot = h.find('.'); dot != std::string::npos && dot > 0) add_host(h.substr(0, dot));
}

void Masker::add_user(std::string_view user) {
  if (!maskable_word(user)) return;
  std::string u(user);
  if (std::find(users_.begin(), users_.end(), u) != users_.end()) return;
  users_.push_back(u);
  dirty_ = true;
}

void Masker::add_hosts_from(const analysis::Analysis& a) {
  for (const auto& e : a.events)
    if (!e.source.host.empty()) add_host(e.source.host);
}

void Masker::learn(std::string_view text) {
  re2::StringPiece in(text.data(), text.size());
  std::string prefix, user, host;
  while (RE2::FindAndConsume(&in, impl_->learn_home, &prefix, &user)) add_user(user);
  in = re2::StringPiece(text.data(), text.size());
  while (RE2::FindAndConsume(&in, impl_->learn_user_at, &user, &host)) {
    add_user(user);
    add_host(host);
  }
}

void Masker::learn_json(const nlohmann::json& j) {
  if (j.is_string()) {
    learn(std::string_view(j.get_ref<const std::string&>()));
  } else if (j.is_structured()) {
    for (const auto& v : j) learn_json(v);
  }
}

std::string Masker::pseudonym(const std::string& kind, const std::string& value) {
  auto it = table_.find(value);
  if (it != table_.end()) return it->second;
  std::string p = kind + "-" + std::to_string(++counters_[kind]);
  table_.emplace(value, p);
  return p;
}

void Masker::rebuild() {
  std::vector<std::string> words = hosts_;
  words.insert(words.end(), users_.begin(), users_.end());
  // Longest first, so "node1.cluster" wins over "node1" at the same position.
  std::sort(words.begin(), words.end(),
            [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  std::string pattern = std::string(kTokens) + "|" + kHome + "|" + kUserAtHost + "|" + kIpv6 + "|" + kIpv4;
  pattern += "|(";
  if (words.empty()) {
    pattern += "[^\\x00-\\x{10FFFF}]";  // matches nothing; keeps the group numbers
  } else {
    pattern += "\\b(?:";
    for (std::size_t i = 0; i < words.size(); ++i) {
      if (i) pattern += "|";
      pattern += RE2::QuoteMeta(words[i]);
    }
    pattern += ")\\b";
  }
  pattern += ")";
  impl_->all = std::make_unique<RE2>(pattern, re_options());
  dirty_ = false;
}

std::string Masker::replace_all(std::string_view text) {
  if (dirty_ || !impl_->all) rebuild();
  const RE2& re = *impl_->all;
  if (!re.ok()) return "<masked>";  // never leak because a pattern could not be built
  re2::StringPiece in(text.data(), text.size());
  re2::StringPiece m[kGroups];
  std::string out;
  out.reserve(text.size());
  std::size_t pos = 0;
  while (pos < text.size() && re.Match(in, pos, text.size(), RE2::UNANCHORED, m, kGroups)) {
    std::size_t begin = static_cast<std::size_t>(m[0].data() - text.data());
    std::size_t end = begin + m[0].size();
    if (m[0].empty()) {  // defensive: never loop on an empty match
      out.append(text.substr(pos, begin + 1 - pos));
      pos = begin + 1;
      continue;
    }
    out.append(text.substr(pos, begin - pos));
    auto str = [&](int g) { return std::string(m[g].data(), m[g].size()); };
    char before = begin > 0 ? text[begin - 1] : ' ';
    char after = end < text.size() ? text[end] : ' ';
    std::string replacement;
    bool reject = false;
    if (m[kGToken].data()) {
      replacement = pseudonym("token", str(kGToken));
    } else if (m[kGHomeUser].data()) {
      std::string u = str(kGHomeUser);
      replacement = str(kGHomePrefix) + (is_pseudonym(u) ? u : pseudonym("user", u));
    } else if (m[kGUser].data()) {
      std::string u = str(kGUser), h = str(kGHost);
      std::string hm = is_pseudonym(h) ? h
                       : is_ipv4(h)    ? (keep_ipv4(h) ? h : pseudonym("ip", h))
                       : h == "localhost" ? h
                                          : pseudonym("host", h);
      replacement = (is_pseudonym(u) ? u : pseudonym("user", u)) + "@" + hm;
    } else if (m[kGIpv6].data()) {
      std::string a = str(kGIpv6);
      if (is_word_char(before) || before == ':' || before == '.' || is_word_char(after) ||
          after == ':' || !is_ipv6(a)) {
        reject = true;
      } else if (a == "::1" || a == "::") {
        replacement = a;
      } else {
        replacement = pseudonym("ip6", a);
      }
    } else if (m[kGIpv4].data()) {
      std::string a = str(kGIpv4);
      bool version_like = before == '.' || (after == '.' && end + 1 < text.size() &&
                                            std::isdigit(static_cast<unsigned char>(text[end + 1])));
      if (version_like || !is_ipv4(a)) reject = true;
      else replacement = keep_ipv4(a) ? a : pseudonym("ip", a);
    } else if (m[kGWord].data()) {
      std::string w = str(kGWord);
      bool host = std::find(hosts_.begin(), hosts_.end(), w) != hosts_.end();
      replacement = pseudonym(host ? "host" : "user", w);
    } else {
      reject = true;
    }
    if (reject) {  // not what it looked like: keep one byte and look again after it
      out.push_back(text[begin]);
      pos = begin + 1;
      continue;
    }
    out += replacement;
    pos = end;
  }
  if (pos < text.size()) out.append(text.substr(pos));
  return out;
}

std::string Masker::mask(std::string_view text) {
  learn(text);
  // Terminal escapes (coloured text) are copied as they are, and the text between them is
  // masked piece by piece, so "\x1b[1mnode1" still has a word boundary before "node1".
  std::string out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t esc = text.find('\x1b', pos);
    if (esc == std::string_view::npos) esc = text.size();
    out += replace_all(text.substr(pos, esc - pos));
    if (esc == text.size()) break;
    std::size_t end = esc + 1;
    if (end < text.size() && text[end] == '[') {
      ++end;
      while (end < text.size() && !(text[end] >= 0x40 && text[end] <= 0x7e)) ++end;
      if (end < text.size()) ++end;
    }
    out.append(text.substr(esc, end - esc));
    pos = end;
  }
  return out;
}

void Masker::mask_strings(nlohmann::json& j) {
  if (j.is_string()) {
    j = replace_all(j.get_ref<const std::string&>());
  } else if (j.is_structured()) {
    for (auto& v : j) mask_strings(v);
  }
}

void Masker::mask(nlohmann::json& j) {
  learn_json(j);
  mask_strings(j);
}

}  // namespace ff::report
