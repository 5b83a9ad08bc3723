#include "topology/if_list.hpp"

#include <cstdlib>

namespace ff::topology {

IfList parse_if_list(const std::string& value, bool with_ports) {
  IfList out;
  std::size_t i = 0;
  if (i < value.size() && value[i] == '^') {
    out.exclude = true;
    ++i;
  }
  if (i < value.size() && value[i] == '=') {
    out.exact = true;
    ++i;
  }
  std::string cur;
  auto flush = [&]() {
    if (cur.empty()) return;
    IfList::Item item;
    auto colon = with_ports ? cur.find(':') : std::string::npos;
    if (colon != std::string::npos) {
      item.prefix = cur.substr(0, colon);
      item.port = std::atoi(cur.c_str() + colon + 1);
    } else {
      item.prefix = cur;
    }
    out.items.push_back(item);
    cur.clear();
  };
  for (; i < value.size(); ++i) {
    if (value[i] == ',')
      flush();
    else if (value[i] != ' ')
      cur.push_back(value[i]);
  }
  flush();
  return out;
}

bool item_matches(const IfList& list, const IfList::Item& item, const std::string& name, int port) {
  bool name_ok =
      list.exact ? name == item.prefix : name.compare(0, item.prefix.size(), item.prefix) == 0;
  bool port_ok = item.port == -1 || port == -1 || item.port == port;
  return name_ok && port_ok;
}

bool selects(const IfList& list, const std::string& name, int port) {
  if (list.items.empty()) return !list.exclude;  // NCCL: an empty list matches everything
  bool any = false;
  for (const auto& item : list.items) any = any || item_matches(list, item, name, port);
  return list.exclude ? !any : any;
}

ListCheck check_if_list(const IfList& list, const std::vector<Candidate>& candidates,
                        bool with_ports) {
  ListCheck out;
  for (const auto& c : candidates) {
    std::vector<int> ports = c.ports.empty() ? std::vector<int>{1} : c.ports;
    if (!with_ports) ports = {-1};
    for (int p : ports)
      if (selects(list, c.name, p))
        out.selected.push_back(p > 0 ? c.name + ":" + std::to_string(p) : c.name);
  }
  for (const auto& item : list.items) {
    std::vector<std::string> hits;
    bool exact_hit = false;
    for (const auto& c : candidates) {
      std::vector<int> ports = c.ports.empty() ? std::vector<int>{1} : c.ports;
      if (!with_ports) ports = {-1};
      bool hit = false;
      for (int p : ports) hit = hit || item_matches(list, item, c.name, p);
      if (!hit) continue;
      if (c.name == item.prefix)
        exact_hit = true;
      else
        hits.push_back(c.name);
    }
    // Appended piece by piece: GCC 12 at -O3 sees a false overlap (-Wrestrict, PR 105329)
    // in `":" + std::to_string(...)`, which inserts at the front of a temporary.
    std::string shown = item.prefix;
    if (item.port > 0) shown.append(":").append(std::to_string(item.port));
    if (!exact_hit && hits.empty()) out.dead_items.push_back(shown);
    if (exact_hit && !hits.empty()) {
      std::string others;
      for (const auto& h : hits) others += (others.empty() ? "" : ", ") + h;
      out.overbroad.emplace_back(shown, others);
    }
  }
  return out;
}

}  // namespace ff::topology
