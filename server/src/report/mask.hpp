// Masking of personal and secret data in reports (`firstfault analyze --mask`), so that a
// report can be pasted into a public issue. A Masker is pure: text or JSON in, masked text
// or JSON out; it owns the table of pseudonyms, so everything masked with one Masker (one
// report) uses the same pseudonym for the same value. The language server can reuse it on
// any JSON it sends.
//
// What is replaced, and by what (docs/SECURITY.md):
//   host names      host-N   hosts the analysis saw (event sources), the host of user@host,
//                            and hosts added with add_host(); whole words only
//   user names      user-N   from /home/<user>/, /Users/<user>/, user@host, add_user()
//   home paths      /home/user-N/... (the rest of the path is kept)
//   IPv4 addresses  ip-N     except 0.0.0.0, 127.x.x.x and 255.255.255.255
//   IPv6 addresses  ip6-N    except ::1 and ::
//   tokens          token-N  hex strings of 32+ digits, hf_..., ghp_/gho_/ghu_/ghs_/ghr_...,
//                            github_pat_..., AWS access key ids (AKIA/ASIA...), sk-..., xox?-...,
//                            JSON web tokens (eyJ...)
// N counts from 1 per kind in order of first appearance.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/diagnosis.hpp"

namespace ff::report {

class Masker {
 public:
  Masker();
  ~Masker();
  Masker(const Masker&) = delete;
  Masker& operator=(const Masker&) = delete;

  // Values known to be sensitive; masked wherever they appear as whole words.
  void add_host(std::string_view host);
  void add_user(std::string_view user);
  // Every host the analysis attributed an event to.
  void add_hosts_from(const analysis::Analysis& a);

  // Learns users and hosts from `text` (home paths, user@host) without changing it. Call on
  // everything before masking so a name is masked even where it appears first.
  void learn(std::string_view text);
  void learn_json(const nlohmann::json& j);

  // Learns from the text, then returns it masked.
  std::string mask(std::string_view text);
  // Learns from every string of the document, then masks every string value in place
  // (object keys are the schema's and are left alone).
  void mask(nlohmann::json& j);

  // original -> pseudonym, for tests and for a local "what was masked" listing.
  const std::map<std::string, std::string>& table() const { return table_; }

 private:
  std::string pseudonym(const std::string& kind, const std::string& value);
  std::string replace_all(std::string_view text);
  void mask_strings(nlohmann::json& j);
  void rebuild();

  struct Impl;
  Impl* impl_;
  std::map<std::string, std::string> table_;
  std::map<std::string, int> counters_;
  std::vector<std::string> hosts_, users_;
  bool dirty_ = true;
};

// True for the pseudonyms a Masker produces (host-3, ip-1, ...), which are never re-masked.
bool is_pseudonym(std::string_view s);

}  // namespace ff::report
