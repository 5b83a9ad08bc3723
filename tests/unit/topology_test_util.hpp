// Helpers shared by the topology tests.
#pragma once

#include <string>

#include "topology/path_matrix.hpp"
#include "topology/topology_model.hpp"

namespace ff::topology::test {

inline std::string data(const std::string& rel) {
  return std::string(FF_TEST_DATA) + "/" + rel;
}

// A device by label ("GPU0", "NIC3", "mlx5_1" column), RDMA name or PCI bus id.
inline int dev(const Topology& t, const std::string& key) {
  for (int i = 0; i < static_cast<int>(t.devices.size()); ++i) {
    const Device& d = t.at(i);
    if (d.kind != DeviceKind::Gpu && d.kind != DeviceKind::Nic) continue;
    if (d.label == key || d.rdma_name == key || d.bus_id == key) return i;
  }
  return -1;
}

inline std::string path(const Topology& t, const std::string& a, const std::string& b) {
  int ia = dev(t, a), ib = dev(t, b);
  if (ia < 0) return "no device " + a;
  if (ib < 0) return "no device " + b;
  return path_between(t, ia, ib).str();
}

}  // namespace ff::topology::test
