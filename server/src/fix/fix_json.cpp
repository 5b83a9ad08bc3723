#include "fix/fix_json.hpp"

namespace ff::fix {

nlohmann::json to_json(const TextEdit& e) {
  return {{"begin", e.begin}, {"end", e.end}, {"text", e.text}};
}

nlohmann::json to_json(const FileEdit& e) {
  nlohmann::json j = {{"path", e.path}};
  if (e.create) {
    j["create"] = true;
    j["content"] = e.content;
    j["executable"] = e.executable;
  } else {
    j["edits"] = nlohmann::json::array();
    for (const auto& t : e.edits) j["edits"].push_back(to_json(t));
  }
  return j;
}

nlohmann::json to_json(const WorkspaceEdit& e) {
  nlohmann::json j = nlohmann::json::array();
  for (const auto& f : e.files) j.push_back(to_json(f));
  return j;
}

nlohmann::json to_json(const FixAction& a) {
  return {{"schema", "firstfault.fix/1"},
          {"rule", a.rule},
          {"kind", a.kind},
          {"title", a.title},
          {"files", to_json(a.edit)},
          {"notes", a.notes},
          {"warnings", a.warnings},
          {"verify", {{"command", a.verify_command}, {"expect", a.verify_expect}}}};
}

}  // namespace ff::fix
