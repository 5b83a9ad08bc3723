#include "topology/xml_reader.hpp"

#include <cctype>

namespace ff::topology {

namespace {

class Reader {
 public:
  Reader(const std::string& s, XmlError& e) : s_(s), err_(e) {}

  std::unique_ptr<XmlElement> run() {
    std::vector<XmlElement*> stack;
    std::unique_ptr<XmlElement> root;
    while (pos_ < s_.size()) {
      if (s_[pos_] != '<') {
        if (s_[pos_] == '\n') ++line_;
        ++pos_;
        continue;
      }
      if (starts("<?")) {
        if (!skip_past("?>")) return fail("unterminated processing instruction");
      } else if (starts("<!--")) {
        if (!skip_past("-->")) return fail("unterminated comment");
      } else if (starts("<![CDATA[")) {
        if (!skip_past("]]>")) return fail("unterminated CDATA section");
      } else if (starts("<!")) {
        if (!skip_past(">")) return fail("unterminated declaration");
      } else if (starts("</")) {
        pos_ += 2;
        std::string name = read_name();
        skip_ws();
        if (pos_ >= s_.size() || s_[pos_] != '>') return fail("unterminated closing tag </" + name);
        ++pos_;
        if (stack.empty()) return fail("closing tag </" + name + "> without an open element");
        if (stack.back()->name != name)
          return fail("closing tag </" + name + "> does not match <" + stack.back()->name +
                          "> opened on line " + std::to_string(stack.back()->line),
                      stack.back()->name);
        stack.pop_back();
      } else {
        ++pos_;
        auto el = std::make_unique<XmlElement>();
        el->line = line_;
        el->name = read_name();
        if (el->name.empty()) return fail("'<' not followed by an element name");
        if (++count_ > kMaxXmlElements) return fail("more than a million elements; refused");
        bool self_closing = false;
        while (true) {
          skip_ws();
          if (pos_ >= s_.size())
            return fail("file ends inside the tag <" + el->name + " (is it cut off?)", el->name);
          if (s_[pos_] == '>') {
            ++pos_;
            break;
          }
          if (starts("/>")) {
            pos_ += 2;
            self_closing = true;
            break;
          }
          std::string key = read_name();
          skip_ws();
          if (pos_ >= s_.size())
            return fail("file ends inside the tag <" + el->name + " (is it cut off?)", el->name);
          if (key.empty()) return fail("bad character in tag <" + el->name, el->name);
          skip_ws();
          if (pos_ >= s_.size() || s_[pos_] != '=')
            return fail("attribute '" + key + "' has no value", el->name);
          ++pos_;
          skip_ws();
          if (pos_ >= s_.size())
            return fail("file ends inside the tag <" + el->name + " (is it cut off?)", el->name);
          if (s_[pos_] != '"' && s_[pos_] != '\'')
            return fail("attribute '" + key + "' value is not quoted", el->name);
          char q = s_[pos_++];
          std::string raw;
          while (pos_ < s_.size() && s_[pos_] != q) {
            if (s_[pos_] == '\n') ++line_;
            raw.push_back(s_[pos_++]);
          }
          if (pos_ >= s_.size())
            return fail("file ends inside an attribute value (is it cut off?)", el->name);
          ++pos_;
          el->attrs[key] = decode(raw);
        }
        XmlElement* raw_el = el.get();
        if (stack.empty()) {
          if (root) return fail("a second top-level element <" + el->name + ">", el->name);
          root = std::move(el);
        } else {
          stack.back()->children.push_back(std::move(el));
        }
        if (!self_closing) {
          if (static_cast<int>(stack.size()) >= kMaxXmlDepth)
            return fail("elements nested deeper than 64 levels; refused", raw_el->name);
          stack.push_back(raw_el);
        }
      }
    }
    if (!stack.empty())
      return fail("file ends before </" + stack.back()->name + "> (opened on line " +
                      std::to_string(stack.back()->line) + "); is it cut off?",
                  stack.back()->name);
    if (!root) return fail("no XML element found");
    return root;
  }

 private:
  bool starts(const char* p) const {
    return s_.compare(pos_, std::char_traits<char>::length(p), p) == 0;
  }
  bool skip_past(const char* end) {
    auto at = s_.find(end, pos_);
    if (at == std::string::npos) return false;
    for (std::size_t i = pos_; i < at; ++i)
      if (s_[i] == '\n') ++line_;
    pos_ = at + std::char_traits<char>::length(end);
    return true;
  }
  void skip_ws() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) {
      if (s_[pos_] == '\n') ++line_;
      ++pos_;
    }
  }
  std::string read_name() {
    std::string out;
    while (pos_ < s_.size()) {
      char c = s_[pos_];
      if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' ||
          c == ':') {
        out.push_back(c);
        ++pos_;
      } else {
        break;
      }
    }
    return out;
  }
  static std::string decode(const std::string& raw) {
    std::string out;
    for (std::size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] != '&') {
        out.push_back(raw[i]);
        continue;
      }
      auto semi = raw.find(';', i);
      if (semi == std::string::npos || semi - i > 10) {
        out.push_back('&');
        continue;
      }
      std::string ent = raw.substr(i + 1, semi - i - 1);
      if (ent == "amp")
        out.push_back('&');
      else if (ent == "lt")
        out.push_back('<');
      else if (ent == "gt")
        out.push_back('>');
      else if (ent == "quot")
        out.push_back('"');
      else if (ent == "apos")
        out.push_back('\'');
      else if (ent.size() > 1 && ent[0] == '#') {
        long v = ent[1] == 'x' ? std::strtol(ent.c_str() + 2, nullptr, 16)
                               : std::strtol(ent.c_str() + 1, nullptr, 10);
        out.push_back(v > 0 && v < 128 ? static_cast<char>(v) : '?');
      } else {
        out += "&" + ent + ";";
      }
      i = semi;
    }
    return out;
  }
  std::unique_ptr<XmlElement> fail(const std::string& msg, const std::string& element = "") {
    err_.line = line_;
    err_.element = element;
    err_.message = msg;
    return nullptr;
  }

  const std::string& s_;
  XmlError& err_;
  std::size_t pos_ = 0;
  int line_ = 1;
  std::size_t count_ = 0;
};

}  // namespace

std::unique_ptr<XmlElement> parse_xml(const std::string& text, XmlError& err) {
  return Reader(text, err).run();
}

}  // namespace ff::topology
