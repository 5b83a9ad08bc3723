// /dev/shm size for containers: docker run lines, compose services, Kubernetes pod specs.
// YAML is edited as text, line by line, with the indentation the file already uses.
#include <algorithm>

#include "fix/generators.hpp"
#include "fix/shell_parse.hpp"

namespace ff::fix {

namespace {

std::size_t indent_of(std::string_view l) {
  std::size_t i = 0;
  while (i < l.size() && l[i] == ' ') ++i;
  return i;
}
bool skip_line(std::string_view l) {
  auto t = trim(l);
  return t.empty() || t[0] == '#';
}
bool key_is(std::string_view l, std::string_view key) {
  auto t = trim(l);
  if (t.substr(0, 2) == "- ") t = trim(t.substr(2));
  return t.substr(0, key.size()) == key && t.size() > key.size() && t[key.size()] == ':';
}
// Index just past the last non-blank line of [from, to).
std::size_t last_content(const std::vector<Line>& lines, std::size_t from, std::size_t to) {
  std::size_t last = from;
  for (std::size_t i = from; i < to; ++i)
    if (!skip_line(lines[i].text)) last = i;
  return last;
}
// End (exclusive) of the block under line i: lines more indented than `ind`, or blank.
std::size_t block_end(const std::vector<Line>& lines, std::size_t i, std::size_t ind) {
  std::size_t j = i + 1;
  while (j < lines.size() && (skip_line(lines[j].text) || indent_of(lines[j].text) > ind)) ++j;
  return j;
}
// Insertion point after line i (handles a last line without line ending).
TextEdit insert_after(std::string_view, const Line& l, std::string s, const std::string& eol) {
  if (l.next == l.end) return {l.end, l.end, eol + s.substr(0, s.size() - eol.size())};
  return {l.next, l.next, s};
}

std::string compose_size(std::string_view s) {
  std::string v(s);
  if (!v.empty() && std::isalpha(static_cast<unsigned char>(v.back())) && v.back() != 'b') v += 'b';
  return v;
}
std::string k8s_size(std::string_view s) {
  std::string v(s);
  if (v.empty()) return v;
  char u = static_cast<char>(std::tolower(static_cast<unsigned char>(v.back())));
  if (u == 'b')
    v.pop_back(),
        u = v.empty() ? 0 : static_cast<char>(std::tolower(static_cast<unsigned char>(v.back())));
  if (u == 'g' || u == 'm' || u == 'k') {
    v.pop_back();
    v += u == 'g' ? "Gi" : u == 'm' ? "Mi" : "Ki";
  }
  return v;
}

}  // namespace

GenResult docker_shm_edits(std::string_view text, std::string_view size) {
  GenResult res;
  for (const auto& c : parse_shell(text)) {
    auto ch = launch_chain(c);
    auto it = std::find_if(ch.begin(), ch.end(),
                           [](const Stage& s) { return s.kind == Launcher::Docker; });
    if (it == ch.end()) continue;
    res.found_target = true;
    const auto& w = c.words;
    bool done = false, ipc_host = false;
    for (std::size_t i = it->cmd + 2; i < it->program; ++i) {
      const std::string& v = w[i].value;
      if (v == "--ipc=host" || (v == "--ipc" && i + 1 < w.size() && w[i + 1].value == "host"))
        ipc_host = true;
      if (v.substr(0, 11) == "--shm-size=") {
        std::string repl = "--shm-size=" + std::string(size);
        if (text.substr(w[i].begin, w[i].end - w[i].begin) != repl)
          res.edits.push_back({w[i].begin, w[i].end, repl});
        done = true;
      } else if (v == "--shm-size" && i + 1 < w.size()) {
        if (w[i + 1].value != size)
          res.edits.push_back({w[i + 1].begin, w[i + 1].end, std::string(size)});
        done = true;
      }
    }
    if (ipc_host) {
      res.notes.push_back(
          "docker run --ipc=host uses the host's /dev/shm; check its size there (df -h /dev/shm)");
      continue;
    }
    if (!done)
      res.edits.push_back(
          {w[it->cmd + 1].end, w[it->cmd + 1].end, " --shm-size=" + std::string(size)});
  }
  return res;
}

GenResult compose_shm_edits(std::string_view text, std::string_view size) {
  GenResult res;
  // Appended, not `"'" + compose_size(size)`: GCC 12 at -O3 reports a false -Wrestrict
  // (PR 105329) in operator+(const char*, std::string&&).
  const std::string eol = line_ending(text),
                    value = std::string("'").append(compose_size(size)).append("'");
  auto lines = split_lines(text);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].text.substr(0, 9) != "services:") continue;
    std::size_t end = block_end(lines, i, 0);
    std::size_t s_ind = std::string::npos;
    for (std::size_t j = i + 1; j < end; ++j) {
      if (skip_line(lines[j].text)) continue;
      std::size_t ind = indent_of(lines[j].text);
      if (s_ind == std::string::npos) s_ind = ind;
      if (ind != s_ind || trim(lines[j].text).back() != ':') continue;
      // A service: its keys are the lines under it.
      res.found_target = true;
      std::size_t send = block_end(lines, j, s_ind);
      std::size_t c_ind = std::string::npos;
      bool done = false;
      for (std::size_t k = j + 1; k < send; ++k) {
        if (skip_line(lines[k].text)) continue;
        std::size_t ki = indent_of(lines[k].text);
        if (c_ind == std::string::npos) c_ind = ki;
        if (ki != c_ind) continue;
        if (key_is(lines[k].text, "ipc") && lines[k].text.find("host") != std::string_view::npos) {
          res.notes.push_back("service " + std::string(trim(lines[j].text)) +
                              " uses ipc: host (the host's /dev/shm)");
          done = true;
        } else if (key_is(lines[k].text, "shm_size")) {
          std::string repl = std::string(c_ind, ' ') + "shm_size: " + value;
          if (lines[k].text != repl) res.edits.push_back({lines[k].begin, lines[k].end, repl});
          done = true;
        }
      }
      if (!done) {
        if (c_ind == std::string::npos) c_ind = s_ind + 2;
        res.edits.push_back(insert_after(
            text, lines[j], std::string(c_ind, ' ') + "shm_size: " + value + eol, eol));
      }
    }
    break;
  }
  return res;
}

GenResult k8s_shm_edits(std::string_view text, std::string_view size_limit) {
  GenResult res;
  const std::string eol = line_ending(text), limit = k8s_size(size_limit);
  auto lines = split_lines(text);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (!key_is(lines[i].text, "containers") || trim(lines[i].text).substr(0, 2) == "- ") continue;
    res.found_target = true;
    std::size_t p = indent_of(lines[i].text);
    if (trim(lines[i].text) != "containers:") {
      res.notes.push_back("containers: on line " + std::to_string(i + 1) +
                          " is not a block list; add the /dev/shm volume by hand");
      continue;
    }
    // The pod spec: from the parent key to the next line indented less than `p`.
    std::size_t spec_end = i + 1;
    while (spec_end < lines.size() &&
           (skip_line(lines[spec_end].text) || indent_of(lines[spec_end].text) >= p) &&
           lines[spec_end].text.substr(0, 3) != "---")
      ++spec_end;
    std::size_t spec_begin = i;
    while (spec_begin > 0 &&
           (skip_line(lines[spec_begin - 1].text) || indent_of(lines[spec_begin - 1].text) >= p) &&
           lines[spec_begin - 1].text.substr(0, 3) != "---")
      --spec_begin;
    // Containers: list items under containers:.
    std::size_t cend = i + 1;
    while (cend < spec_end &&
           (skip_line(lines[cend].text) || indent_of(lines[cend].text) > p ||
            (indent_of(lines[cend].text) == p && trim(lines[cend].text).substr(0, 2) == "- ")))
      ++cend;
    std::size_t item_ind = std::string::npos;
    for (std::size_t j = i + 1; j < cend; ++j) {
      if (skip_line(lines[j].text)) continue;
      if (item_ind == std::string::npos) item_ind = indent_of(lines[j].text);
      if (indent_of(lines[j].text) != item_ind || trim(lines[j].text).substr(0, 2) != "- ")
        continue;
      std::size_t ci = item_ind + 2;
      std::size_t iend = j + 1;
      while (iend < cend && (skip_line(lines[iend].text) || indent_of(lines[iend].text) > item_ind))
        ++iend;
      bool has_shm = false;
      std::size_t vm = std::string::npos;
      for (std::size_t k = j; k < iend; ++k) {
        if (lines[k].text.find("mountPath:") != std::string_view::npos &&
            (lines[k].text.find("/dev/shm") != std::string_view::npos))
          has_shm = true;
        if (key_is(lines[k].text, "volumeMounts") &&
            (k == j ? item_ind + 2 : indent_of(lines[k].text)) == ci)
          vm = k;
      }
      if (has_shm) continue;
      if (vm != std::string::npos) {
        std::size_t vend = vm + 1, m_ind = std::string::npos;
        while (vend < iend && (skip_line(lines[vend].text) || indent_of(lines[vend].text) > ci ||
                               (indent_of(lines[vend].text) == ci &&
                                trim(lines[vend].text).substr(0, 2) == "- "))) {
          if (!skip_line(lines[vend].text) && m_ind == std::string::npos)
            m_ind = indent_of(lines[vend].text);
          ++vend;
        }
        if (m_ind == std::string::npos) m_ind = ci;
        std::string m(m_ind, ' ');
        res.edits.push_back(
            insert_after(text, lines[last_content(lines, vm, vend)],
                         m + "- name: dshm" + eol + m + "  mountPath: /dev/shm" + eol, eol));
      } else {
        std::string c(ci, ' ');
        res.edits.push_back(insert_after(text, lines[last_content(lines, j, iend)],
                                         c + "volumeMounts:" + eol + c + "- name: dshm" + eol + c +
                                             "  mountPath: /dev/shm" + eol,
                                         eol));
      }
    }
    // The volume.
    std::size_t vol = std::string::npos;
    for (std::size_t j = spec_begin; j < spec_end; ++j)
      if (indent_of(lines[j].text) == p && key_is(lines[j].text, "volumes") &&
          trim(lines[j].text).substr(0, 2) != "- ")
        vol = j;
    std::string volume_item = "- name: dshm" + eol + "  emptyDir:" + eol + "    medium: Memory" +
                              eol + "    sizeLimit: " + limit + eol;
    auto indented = [&](std::size_t n) {
      std::string out, pad(n, ' ');
      for (const auto& l : split_lines(volume_item)) out += pad + std::string(l.text) + eol;
      return out;
    };
    if (vol != std::string::npos) {
      std::size_t vend = vol + 1, v_ind = std::string::npos;
      bool has = false;
      while (vend < spec_end &&
             (skip_line(lines[vend].text) || indent_of(lines[vend].text) > p ||
              (indent_of(lines[vend].text) == p && trim(lines[vend].text).substr(0, 2) == "- "))) {
        if (!skip_line(lines[vend].text) && v_ind == std::string::npos)
          v_ind = indent_of(lines[vend].text);
        auto t = trim(lines[vend].text);
        if (t == "- name: dshm" || t == "name: dshm") has = true;
        ++vend;
      }
      if (!has)
        res.edits.push_back(insert_after(text, lines[last_content(lines, vol, vend)],
                                         indented(v_ind == std::string::npos ? p : v_ind), eol));
    } else {
      res.edits.push_back(insert_after(text, lines[last_content(lines, i, spec_end)],
                                       std::string(p, ' ') + "volumes:" + eol + indented(p), eol));
    }
    i = spec_end - 1;
  }
  sort_edits(res.edits);
  return res;
}

}  // namespace ff::fix
