#include "topology/nvidia_smi_parser.hpp"

#include <cctype>
#include <sstream>

#include "topology/cpulist.hpp"

namespace ff::topology {

namespace {

std::vector<std::string> split_ws(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream is(line);
  std::string tok;
  while (is >> tok) out.push_back(tok);
  return out;
}

enum class Extra { CpuAffinity, NumaAffinity, GpuNumaId };

bool is_gpu_column(const std::string& s) {
  if (s.size() < 4 || s.compare(0, 3, "GPU") != 0) return false;
  for (std::size_t i = 3; i < s.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  return true;
}

struct Header {
  std::vector<std::string> columns;  // device columns in order
  std::vector<Extra> extras;         // trailing non-path columns in order
};

// The header is the first line whose first token is GPU0. Multi-word column names are
// joined back ("CPU Affinity"); anything else is a device column: GPUn, NICn or an old
// driver's mlx5_N.
std::optional<Header> parse_header(const std::vector<std::string>& toks) {
  if (toks.empty() || toks[0] != "GPU0") return std::nullopt;
  Header h;
  for (std::size_t i = 0; i < toks.size(); ++i) {
    const auto& t = toks[i];
    auto next = [&](std::size_t k) { return i + k < toks.size() ? toks[i + k] : std::string(); };
    if (t == "CPU" && next(1) == "Affinity") {
      h.extras.push_back(Extra::CpuAffinity);
      ++i;
    } else if (t == "NUMA" && next(1) == "Affinity") {
      h.extras.push_back(Extra::NumaAffinity);
      ++i;
    } else if (t == "GPU" && next(1) == "NUMA" && next(2) == "ID") {
      h.extras.push_back(Extra::GpuNumaId);
      i += 2;
    } else if (h.extras.empty()) {
      h.columns.push_back(t);
    } else {
      // A device column after "CPU Affinity" is not a layout we know; ignore it rather
      // than misread the rows.
      continue;
    }
  }
  return h;
}

// The text's lines, without their '\r'.
std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::string cur;
  for (char c : text) {
    if (c == '\n') {
      lines.push_back(cur);
      cur.clear();
    } else if (c != '\r') {
      cur.push_back(c);
    }
  }
  if (!cur.empty()) lines.push_back(cur);
  return lines;
}

// The table being read: the header's columns as devices, and which rows were seen.
struct SmiTable {
  SmiTable(const std::string& origin, Header header) : origin(origin), header(std::move(header)) {}

  const std::string& origin;
  Topology t;
  Header header;
  std::map<std::string, int> by_column;  // column name -> device index
  std::vector<int> col_dev;
  std::map<int, bool> has_row;
  bool in_nic_legend = false;

  std::optional<InputError> add_columns(int header_line);
  std::optional<InputError> read_line(const std::string& text, int lineno);
  std::optional<InputError> read_row(const std::vector<std::string>& toks, int a, int lineno);
  void read_extras(const std::vector<std::string>& toks, Device& d, int lineno);
  void note_gaps();
};

// One device per header column, in order: the column index is the device's place.
std::optional<InputError> SmiTable::add_columns(int header_line) {
  for (const auto& c : header.columns) {
    if (by_column.count(c))
      return InputError{origin, header_line, "", "column '" + c + "' appears twice"};
    Device d;
    if (is_gpu_column(c)) {
      d.kind = DeviceKind::Gpu;
    } else {
      // nvidia-smi lists only RDMA NICs (the /sys/class/infiniband devices).
      d.kind = DeviceKind::Nic;
      d.rdma = true;
      if (c.rfind("NIC", 0) != 0) d.rdma_name = c;  // old drivers name the column mlx5_N
    }
    d.name = c;
    int idx = t.add(std::move(d), -1);
    by_column[c] = idx;
    col_dev.push_back(idx);
  }
  return std::nullopt;
}

// A line after the header: a legend (the NIC Legend names the NICs), a device's row, or
// anything else, which is skipped.
std::optional<InputError> SmiTable::read_line(const std::string& text, int lineno) {
  auto toks = split_ws(text);
  if (toks.empty()) return std::nullopt;
  if (toks[0] == "Legend:") {
    in_nic_legend = false;
    return std::nullopt;
  }
  if (toks[0] == "NIC" && toks.size() >= 2 && toks[1] == "Legend:") {
    in_nic_legend = true;
    return std::nullopt;
  }
  if (in_nic_legend) {
    // "  NIC0: mlx5_0"
    if (toks.size() == 2 && toks[0].size() > 1 && toks[0].back() == ':') {
      auto it = by_column.find(toks[0].substr(0, toks[0].size() - 1));
      if (it != by_column.end())
        t.devices[static_cast<std::size_t>(it->second)].rdma_name = toks[1];
    }
    return std::nullopt;
  }
  auto row = by_column.find(toks[0]);
  if (row == by_column.end()) return std::nullopt;  // legend lines ("X = Self"), prompts, prose
  return read_row(toks, row->second, lineno);
}

// Device `a`'s row: its path type to every column, then the affinity columns.
std::optional<InputError> SmiTable::read_row(const std::vector<std::string>& toks, int a,
                                             int lineno) {
  const std::size_t n = col_dev.size();
  if (toks.size() < n + 1)
    return InputError{origin, lineno, "",
                      "row " + toks[0] + " has " + std::to_string(toks.size() - 1) + " of " +
                          std::to_string(n) + " path columns (is the file cut off?)"};
  if (has_row[a]) return InputError{origin, lineno, "", "second row for " + toks[0]};
  has_row[a] = true;
  for (std::size_t c = 0; c < n; ++c) {
    auto link = parse_link(toks[c + 1]);
    if (!link)
      return InputError{origin, lineno, "",
                        "unknown path type '" + toks[c + 1] + "' in row " + toks[0] + ", column " +
                            header.columns[c] + " (columns run together?)"};
    const int b = col_dev[c];
    if (a == b) continue;
    // The row of a device wins over the column of the other one: GPU rows come first
    // and are the ones that survive in cut-off pastes.
    if (!t.given.count({a, b}) && !t.given.count({b, a})) t.given[{a, b}] = *link;
  }
  read_extras(toks, t.devices[static_cast<std::size_t>(a)], lineno);
  return std::nullopt;
}

// "CPU Affinity", "NUMA Affinity" and "GPU NUMA ID" after the path columns.
void SmiTable::read_extras(const std::vector<std::string>& toks, Device& d, int lineno) {
  std::size_t k = col_dev.size() + 1;
  for (Extra e : header.extras) {
    if (k >= toks.size()) break;
    const std::string& v = toks[k++];
    if (v == "N/A") continue;
    if (e == Extra::CpuAffinity) {
      if (auto cpus = parse_cpulist(v)) {
        d.cpulist = format_cpulist(*cpus);
      } else {
        t.notes.push_back({lineno, "CPU Affinity of " + toks[0] + " ('" + v +
                                       "') is malformed or cut off; ignored"});
      }
    } else if (e == Extra::NumaAffinity) {
      if (auto nodes = parse_cpulist(v)) d.numa_nodes.assign(nodes->begin(), nodes->end());
    }
  }
}

// What a cut-off or legend-less paste leaves unknown, said as notes.
void SmiTable::note_gaps() {
  for (int dev : col_dev) {
    if (!has_row[dev] && t.at(dev).kind == DeviceKind::Gpu)
      t.notes.push_back({0, t.at(dev).name +
                                " is in the header but has no row (the file is cut off); "
                                "its paths are taken from the other rows where they exist"});
  }
  bool any_nic_unnamed = false;
  for (int dev : col_dev)
    if (t.at(dev).kind == DeviceKind::Nic && t.at(dev).rdma_name.empty()) any_nic_unnamed = true;
  if (any_nic_unnamed)
    t.notes.push_back({0, "no NIC Legend: the mlx5 names of the NICn columns are unknown"});
}

}  // namespace

LoadResult parse_nvidia_smi(const std::string& text, const std::string& origin) {
  std::vector<std::string> lines = split_lines(text);
  std::optional<Header> header;
  std::size_t li = 0;
  for (; li < lines.size(); ++li) {
    header = parse_header(split_ws(lines[li]));
    if (header) break;
  }
  if (!header)
    return LoadResult::fail({origin, 0, "",
                             "no 'nvidia-smi topo -m' table found (expected a header line "
                             "starting with GPU0)"});
  SmiTable table(origin, std::move(*header));
  Topology& t = table.t;
  t.source = Source::NvidiaSmi;
  t.origin = origin;
  const int header_line = static_cast<int>(li) + 1;
  if (auto e = table.add_columns(header_line)) return LoadResult::fail(std::move(*e));
  for (++li; li < lines.size(); ++li)
    if (auto e = table.read_line(lines[li], static_cast<int>(li) + 1))
      return LoadResult::fail(std::move(*e));
  table.note_gaps();
  t.finalize();
  // Keep the file's own labels: the columns are the numbering nvidia-smi used.
  for (int dev : table.col_dev) t.devices[static_cast<std::size_t>(dev)].label = t.at(dev).name;
  return LoadResult::success(std::move(t));
}

LoadResult load_nvidia_smi_file(const std::string& path) {
  return load_file_with(path, [](const std::string& text, const std::string& name) {
    return parse_nvidia_smi(text, name);
  });
}

}  // namespace ff::topology
