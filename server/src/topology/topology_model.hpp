// The one topology model every input is turned into: a tree of CPU-side objects, host
// bridges, PCI bridges and end devices (GPUs, NICs), plus an optional matrix of path types
// that an input states directly (nvidia-smi text has no tree, only the matrix).
//
// The model is plain data. Loaders build it, path_matrix.hpp reads paths out of it,
// findings/binding/report consume it. Nothing here does I/O.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ff::topology {

enum class DeviceKind {
  Machine,     // the root of a tree
  Package,     // a CPU socket (or NCCL's <cpu> element, which is one NUMA node)
  Group,       // any other CPU-side object that I/O hangs under (hwloc Group, Die, ...)
  HostBridge,  // a PCI root complex: paths through it are PHB
  Bridge,      // a PCI-to-PCI bridge (switch port or root port)
  Gpu,
  Nic,
  PciDevice,  // any other PCI function (kept so counts and trees are complete)
};

const char* to_string(DeviceKind k);

struct Device {
  DeviceKind kind = DeviceKind::PciDevice;
  std::string label;   // "GPU0", "NIC3": numbering assigned by Topology::finalize()
  std::string name;    // model string, when the input has one
  std::string bus_id;  // "0000:3b:00.0" (lower case); empty when unknown
  std::uint16_t vendor = 0, device_id = 0, class_id = 0;  // class as 0xCCSS (0x0302)
  std::vector<int> numa_nodes;  // OS indexes of the NUMA nodes the device is local to
  std::string cpulist;          // local CPUs as a list ("0-23,48-71"); empty when unknown
  // NICs only.
  std::string rdma_name;                   // "mlx5_0", "rdmap197s0"; empty when unknown
  std::vector<int> ports;                  // IB ports; empty means unknown (NCCL's default is 1)
  std::vector<std::string> netdevs;        // network interfaces on this function (ib0, ens1f0)
  std::map<int, std::string> port_netdev;  // port -> netdev, when the input says
  bool rdma = false;  // usable by NCCL's IB/RoCE/EFA transports, not just sockets
  // Tree links (indexes into Topology::devices); -1 when the input has no tree.
  int parent = -1;
  std::vector<int> children;

  int numa() const { return numa_nodes.empty() ? -1 : numa_nodes.front(); }
};

// Path types in nvidia-smi's vocabulary, ordered from closest to farthest so that the
// enum order is the preference order.
enum class PathType { Self, NVLink, PIX, PXB, PHB, NODE, SYS, Unknown };

struct Link {
  PathType type = PathType::Unknown;
  int nvlinks = 0;  // for NVLink: the number of bonded links (NV12)
  std::string str() const;
  bool operator==(const Link&) const = default;
};

std::optional<Link> parse_link(const std::string& cell);  // "X", "NV12", "PIX", "SOC"...
const char* to_string(PathType t);

enum class Source { Live, HwlocXml, NvidiaSmi, NcclTopo, NcclLog };
const char* to_string(Source s);

// Something a loader noticed but could work around (a cut-off row, a missing legend).
struct Note {
  int line = 0;  // 0 when not tied to a line
  std::string message;
};

// What NCCL reported it used: local GPU (cuda device) -> NIC label, from channel lines.
struct ObservedUse {
  int gpu = -1;  // device index
  int nic = -1;  // device index
  int line = 0;
};

struct Topology {
  Source source = Source::Live;
  std::string origin = "live";  // the file name, or "live"
  std::vector<Device> devices;
  // NCCL's XML writes one <pci> element per switch and none for downstream ports; the
  // path rules are written for hwloc's shape, so this flag adds the missing port.
  bool pci_elements_are_switches = false;
  // Paths stated by the input (nvidia-smi text, NCCL NVLink counts). They win over the
  // tree: NVLink is not visible in a PCI tree, and nvidia-smi text has no tree at all.
  std::map<std::pair<int, int>, Link> given;
  std::vector<Note> notes;
  std::vector<ObservedUse> observed;
  // Environment the input itself records (NCCL logs print NCCL_IB_HCA etc.).
  std::map<std::string, std::string> recorded_env;
  // Network interfaces the input knows that are not on an RDMA NIC (on-board Ethernet,
  // NCCL's OOB interface): candidates for NCCL_SOCKET_IFNAME.
  std::vector<std::string> other_netdevs;
  // Counts for the summary ("no GPUs found" still says what was there).
  int packages = 0, numa_node_count = 0, pci_devices = 0;
  // Device indexes in numbering order (set by finalize()).
  std::vector<int> gpus, nics;

  int add(Device d, int parent);            // returns the new index; links the parent
  void finalize();                          // numbers GPUs and NICs by PCI bus id, sets labels
  bool has_tree() const;                    // at least one end device has a parent
  std::vector<int> ancestors(int i) const;  // parent first, root last
  const Device& at(int i) const { return devices.at(static_cast<std::size_t>(i)); }
  int find_label(const std::string& label) const;  // -1 when absent
  std::vector<int> rdma_nics() const;              // NICs usable by NCCL's net transports
};

// PCI bus id helpers. Accepts "0000:3b:00.0", "3b:00.0", and NCCL's "3b000" forms.
std::optional<std::string> normalize_bus_id(const std::string& text);

}  // namespace ff::topology
