// A small, strict XML reader for NCCL's topology files: elements, attributes and line
// numbers, nothing else (text, comments, processing instructions and DOCTYPE are skipped).
// NCCL's own writer produces a tiny subset of XML, so a full parser buys nothing, and a
// hand-written one lets every failure say exactly where the file is broken.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ff::topology {

struct XmlElement {
  std::string name;
  std::map<std::string, std::string> attrs;
  std::vector<std::unique_ptr<XmlElement>> children;
  int line = 0;
  const std::string* attr(const std::string& k) const {
    auto it = attrs.find(k);
    return it == attrs.end() ? nullptr : &it->second;
  }
};

struct XmlError {
  int line = 0;
  std::string element;
  std::string message;
};

inline constexpr int kMaxXmlDepth = 64;
inline constexpr std::size_t kMaxXmlElements = 1'000'000;

// Returns the root element, or nullptr with `err` set.
std::unique_ptr<XmlElement> parse_xml(const std::string& text, XmlError& err);

}  // namespace ff::topology
