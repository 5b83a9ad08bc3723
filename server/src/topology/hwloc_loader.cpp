#include "topology/hwloc_loader.hpp"

#include <hwloc.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>

#include "topology/cpulist.hpp"

namespace ff::topology {

bool is_nvidia_gpu(std::uint16_t vendor, std::uint16_t class_id, bool has_cuda_or_nvml_osdev) {
  // 0x0300 VGA and 0x0302 3D controller. NVSwitches (0x0680) and audio functions of a GPU
  // (0x0403) share the vendor but are not GPUs.
  if (vendor == 0x10de && (class_id == 0x0300 || class_id == 0x0302)) return true;
  // A CUDA/NVML OS device is authoritative even where the PCI ids were edited or odd.
  return has_cuda_or_nvml_osdev;
}

bool is_rdma_nic(std::uint16_t vendor, std::uint16_t device_id, std::uint16_t class_id,
                 bool has_openfabrics_osdev) {
  if (has_openfabrics_osdev) return true;  // the kernel registered it with the RDMA core
  if (class_id == 0x0207) return true;     // InfiniBand controller
  const bool network = (class_id >> 8) == 0x02;
  // Mellanox/NVIDIA ConnectX: every network function does RDMA (IB or RoCE). Old HCAs
  // report the serial-bus class 0x0c06 instead of a network class.
  if (vendor == 0x15b3 && (network || class_id == 0x0c06)) return true;
  // Amazon: only EFA (0xefa0..0xefa3) does RDMA; ENA (0xec20...) is a plain Ethernet NIC.
  if (vendor == 0x1d0f && network && (device_id & 0xfff0) == 0xefa0) return true;
  return false;
}

bool looks_like_rdma_name(const std::string& n) {
  // Old hwloc exports type mlx4_0 as a Network osdev; recognise RDMA names by shape too.
  for (const char* p : {"mlx4_", "mlx5_", "rdmap", "efa_", "bnxt_re", "irdma", "hfi1_", "qib",
                        "erdma", "rxe", "ionic_"}) {
    if (n.rfind(p, 0) == 0) return true;
  }
  return false;
}

namespace {

struct TopologyDeleter {
  void operator()(hwloc_topology* t) const { hwloc_topology_destroy(t); }
};
using HwlocPtr = std::unique_ptr<hwloc_topology, TopologyDeleter>;

std::string bitmap_list(hwloc_const_bitmap_t b) {
  if (b == nullptr || hwloc_bitmap_iszero(b)) return "";
  char* s = nullptr;
  if (hwloc_bitmap_list_asprintf(&s, b) < 0 || s == nullptr) return "";
  std::string out(s);
  std::free(s);
  return out;
}

std::string bus_id(unsigned domain, unsigned bus, unsigned dev, unsigned func) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04x:%02x:%02x.%x", domain, bus, dev, func);
  return buf;
}

// Where an I/O object is local: the CPU-side object it hangs under. A cgroup can leave
// that object's cpuset/nodeset empty (the allowed set excludes it); the complete sets still
// say where the device is, and that is what placement needs.
void set_locality(hwloc_topology_t topo, hwloc_obj_t obj, Device& d) {
  hwloc_obj_t anc = hwloc_get_non_io_ancestor_obj(topo, obj);
  if (anc == nullptr) return;
  hwloc_const_bitmap_t cpus = anc->cpuset;
  if (cpus == nullptr || hwloc_bitmap_iszero(cpus)) cpus = anc->complete_cpuset;
  d.cpulist = bitmap_list(cpus);
  hwloc_const_bitmap_t nodes = anc->nodeset;
  if (nodes == nullptr || hwloc_bitmap_iszero(nodes)) nodes = anc->complete_nodeset;
  if (nodes != nullptr && !hwloc_bitmap_iszero(nodes)) {
    int i = hwloc_bitmap_first(nodes);
    while (i >= 0 && d.numa_nodes.size() < 4096) {
      d.numa_nodes.push_back(i);
      i = hwloc_bitmap_next(nodes, i);
    }
  }
}

void add_pci_device(hwloc_topology_t topo, hwloc_obj_t obj, int parent, Topology& out) {
  const auto& a = obj->attr->pcidev;
  Device d;
  d.bus_id = bus_id(a.domain, a.bus, a.dev, a.func);
  d.vendor = a.vendor_id;
  d.device_id = a.device_id;
  d.class_id = a.class_id;
  if (const char* model = hwloc_obj_get_info_by_name(obj, "PCIDevice")) d.name = model;
  set_locality(topo, obj, d);

  bool gpu_osdev = false, openfabrics = false;
  std::string cuda_model;
  for (hwloc_obj_t c = obj->io_first_child; c != nullptr; c = c->next_sibling) {
    if (c->type != HWLOC_OBJ_OS_DEVICE || c->name == nullptr) continue;
    std::string name = c->name;
    std::string sub = c->subtype ? c->subtype : "";
    auto type = c->attr->osdev.type;
    if (sub == "CUDA" || sub == "NVML" || name.rfind("cuda", 0) == 0 || name.rfind("nvml", 0) == 0)
      gpu_osdev = true;
    if (type == HWLOC_OBJ_OSDEV_OPENFABRICS || looks_like_rdma_name(name)) {
      openfabrics = openfabrics || type == HWLOC_OBJ_OSDEV_OPENFABRICS;
      if (d.rdma_name.empty()) d.rdma_name = name;
      // OpenFabrics osdevs carry Port<N>State infos, one per IB port.
      for (unsigned i = 0; i < c->infos_count; ++i) {
        int port = 0;
        char rest[16] = {0};
        if (std::sscanf(c->infos[i].name, "Port%d%15s", &port, rest) == 2 &&
            std::string(rest) == "State" && port > 0 && port < 256)
          d.ports.push_back(port);
      }
    } else if (type == HWLOC_OBJ_OSDEV_NETWORK) {
      d.netdevs.push_back(name);
      if (const char* p = hwloc_obj_get_info_by_name(c, "Port")) {
        int port = std::atoi(p);
        if (port > 0 && !d.port_netdev.count(port)) d.port_netdev[port] = name;
      }
    }
    if (d.name.empty()) {
      if (const char* m = hwloc_obj_get_info_by_name(c, "GPUModel")) cuda_model = m;
    }
  }
  if (d.name.empty()) d.name = cuda_model;
  if (is_nvidia_gpu(d.vendor, d.class_id, gpu_osdev)) {
    d.kind = DeviceKind::Gpu;
  } else if (is_rdma_nic(d.vendor, d.device_id, d.class_id, openfabrics) || !d.rdma_name.empty()) {
    d.kind = DeviceKind::Nic;
    d.rdma = true;
  } else {
    d.kind = DeviceKind::PciDevice;
    for (const auto& n : d.netdevs) out.other_netdevs.push_back(n);
  }
  out.add(std::move(d), parent);
}

void walk(hwloc_topology_t topo, hwloc_obj_t obj, int parent, Topology& out, int depth) {
  if (depth > 256) return;  // hwloc trees are shallow; this only guards odd XML
  int self = parent;
  switch (obj->type) {
    case HWLOC_OBJ_MACHINE:
    case HWLOC_OBJ_PACKAGE:
    case HWLOC_OBJ_GROUP:
    case HWLOC_OBJ_DIE: {
      Device d;
      d.kind = obj->type == HWLOC_OBJ_MACHINE   ? DeviceKind::Machine
               : obj->type == HWLOC_OBJ_PACKAGE ? DeviceKind::Package
                                                : DeviceKind::Group;
      d.name = hwloc_obj_type_string(obj->type);
      if (obj->os_index != HWLOC_UNKNOWN_INDEX) d.name += " P#" + std::to_string(obj->os_index);
      d.cpulist = bitmap_list(obj->cpuset);
      self = out.add(std::move(d), parent);
      break;
    }
    case HWLOC_OBJ_BRIDGE: {
      Device d;
      const auto& b = obj->attr->bridge;
      if (b.upstream_type == HWLOC_OBJ_BRIDGE_HOST) {
        d.kind = DeviceKind::HostBridge;
        d.name = "HostBridge";
      } else {
        d.kind = DeviceKind::Bridge;
        const auto& u = b.upstream.pci;
        d.bus_id = bus_id(u.domain, u.bus, u.dev, u.func);
        d.vendor = u.vendor_id;
        d.device_id = u.device_id;
        d.class_id = u.class_id;
        d.name = "PCIBridge";
      }
      set_locality(topo, obj, d);
      self = out.add(std::move(d), parent);
      break;
    }
    case HWLOC_OBJ_PCI_DEVICE:
      add_pci_device(topo, obj, parent, out);
      return;
    case HWLOC_OBJ_OS_DEVICE:
    case HWLOC_OBJ_MISC:
      return;
    default:
      // Caches, cores, NUMA nodes: only interesting when I/O hangs directly below them.
      if (obj->io_arity > 0) {
        Device d;
        d.kind = DeviceKind::Group;
        d.name = hwloc_obj_type_string(obj->type);
        self = out.add(std::move(d), parent);
      }
      break;
  }
  for (unsigned i = 0; i < obj->arity; ++i) walk(topo, obj->children[i], self, out, depth + 1);
  for (hwloc_obj_t c = obj->io_first_child; c != nullptr; c = c->next_sibling)
    walk(topo, c, self, out, depth + 1);
}

// Every use of hwloc in the process goes through load(), which holds this lock throughout:
// the language server discovers topologies on worker threads, two at once at most, and
// hwloc's (and its XML backend's) global state is not documented as thread-safe.
std::mutex& hwloc_lock() {
  static std::mutex mu;
  return mu;
}

// hwloc 2.9's XML import crashes on some malformed files (found by fuzz/fuzz_topology;
// tests/hostile/regressions/topology). A file from another machine is untrusted input, so
// hwloc first reads it in a child process: a crash there becomes a clear error here.
// The process may have other threads (the language server's protocol, analysis and worker
// threads), and a forked child inherits only the forking thread, with every lock as it was.
// The child therefore runs nothing but hwloc (and the allocator and stdio it calls) and
// _exit: no other thread can hold a lock hwloc needs, since every hwloc call in the process
// is made under hwloc_lock(), which the caller holds across the fork; glibc's fork takes the
// allocator's locks and resets stdio's in the child. A child that still hangs is killed by
// its alarm and reported as unreadable, never waited on for ever.
bool hwloc_survives(const std::string& data) {
  pid_t pid = ::fork();
  if (pid < 0) return true;  // cannot probe; load it directly
  if (pid == 0) {
    ::alarm(20);  // a hang is a failure too
    // The crash is expected and reported by the parent: no core file, and no crash
    // handler inherited from the parent (a sanitizer's or a fuzzer's) reporting it as ours.
    struct rlimit no_core = {0, 0};
    ::setrlimit(RLIMIT_CORE, &no_core);
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) ::signal(sig, SIG_DFL);
    hwloc_topology_t t = nullptr;
    if (hwloc_topology_init(&t) != 0) ::_exit(0);
    hwloc_topology_set_io_types_filter(t, HWLOC_TYPE_FILTER_KEEP_ALL);
    hwloc_topology_set_components(t, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, "gl");
    if (hwloc_topology_set_xmlbuffer(t, data.c_str(), static_cast<int>(data.size() + 1)) == 0)
      hwloc_topology_load(t);
    ::_exit(0);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return true;
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

LoadResult load(const std::string* xml_path) {
  std::lock_guard<std::mutex> lock(hwloc_lock());
  hwloc_topology_t raw = nullptr;
  const std::string file = xml_path ? *xml_path : std::string("live");
  if (hwloc_topology_init(&raw) != 0)
    return LoadResult::fail({file, 0, "", "hwloc_topology_init failed"});
  HwlocPtr topo(raw);
  // hwloc drops I/O objects by default; keep all of them, bridges included, since the
  // path types are read from the bridges.
  hwloc_topology_set_io_types_filter(raw, HWLOC_TYPE_FILTER_KEEP_ALL);
  // Never touch the network: hwloc's "gl" plugin opens X displays (TCP 127.0.0.1:6000+ and
  // X11 sockets) to find GPUs. Proven by tests/hostile/no_network_test.sh.
  hwloc_topology_set_components(raw, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, "gl");
  if (xml_path) {
    InputError err;
    // Read it ourselves first: missing files and oversized inputs get our own clear
    // message, and hwloc parses from memory so the file is read only once.
    auto data = read_input_file(*xml_path, err);
    if (!data) return LoadResult::fail(err);
    if (data->find("<topology") == std::string::npos)
      return LoadResult::fail({file, 0, "", "not an hwloc XML export (no <topology> element)"});
    if (!hwloc_survives(*data))
      return LoadResult::fail({file, 0, "", "malformed hwloc XML: hwloc crashed reading it"});
    if (hwloc_topology_set_xmlbuffer(raw, data->c_str(), static_cast<int>(data->size() + 1)) != 0)
      return LoadResult::fail({file, 0, "",
                               "hwloc cannot read this XML (hwloc 2.9 reads "
                               "format 1.x and 2.x; 3.0 exports are refused)"});
  }
  if (hwloc_topology_load(raw) != 0)
    return LoadResult::fail({file, 0, "", "hwloc could not load the topology"});

  Topology t;
  t.source = xml_path ? Source::HwlocXml : Source::Live;
  t.origin = file;
  walk(raw, hwloc_get_root_obj(raw), -1, t, 0);
  t.packages = hwloc_get_nbobjs_by_type(raw, HWLOC_OBJ_PACKAGE);
  t.numa_node_count = hwloc_get_nbobjs_by_type(raw, HWLOC_OBJ_NUMANODE);
  t.pci_devices = hwloc_get_nbobjs_by_type(raw, HWLOC_OBJ_PCI_DEVICE);
  t.finalize();
  return LoadResult::success(std::move(t));
}

}  // namespace

LoadResult load_live() {
  return load(nullptr);
}
LoadResult load_hwloc_xml(const std::string& path) {
  return load(&path);
}

}  // namespace ff::topology
