// NCCL's interface/HCA list syntax, as NCCL_IB_HCA and NCCL_SOCKET_IFNAME use it:
//   "mlx5_0,mlx5_1"   prefix match (mlx5_1 also selects mlx5_10 .. mlx5_17)
//   "=mlx5_0"          exact match (the '=' applies to the whole list)
//   "^mlx5_0"          exclude what matches (may be combined: "^=mlx5_0")
//   "mlx5_0:1"         only port 1 (HCA lists only)
// This mirrors NCCL's parseStringList/matchIfList so the answers are NCCL's answers.
#pragma once

#include <string>
#include <vector>

namespace ff::topology {

struct IfList {
  struct Item {
    std::string prefix;
    int port = -1;  // -1: any port
  };
  bool exclude = false;
  bool exact = false;
  std::vector<Item> items;
};

IfList parse_if_list(const std::string& value, bool with_ports);
bool item_matches(const IfList& list, const IfList::Item& item, const std::string& name, int port);
// Whether NCCL would use (name, port) under this list.
bool selects(const IfList& list, const std::string& name, int port);

struct Candidate {
  std::string name;
  std::vector<int> ports;  // empty: port 1
};

struct ListCheck {
  std::vector<std::string> selected;    // "mlx5_0:1"
  std::vector<std::string> dead_items;  // items that match nothing
  // Items that name one device exactly but also catch others by prefix, with what else
  // they catch: {"mlx5_1", "mlx5_10, mlx5_11"}.
  std::vector<std::pair<std::string, std::string>> overbroad;
};
ListCheck check_if_list(const IfList& list, const std::vector<Candidate>& candidates,
                        bool with_ports);

}  // namespace ff::topology
