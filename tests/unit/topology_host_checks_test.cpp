// Live-only checks against the fake sysfs trees in tests/data/sysfs-*/.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "topology/binding.hpp"
#include "topology/findings.hpp"
#include "topology/host_checks.hpp"
#include "topology/hwloc_loader.hpp"
#include "topology_test_util.hpp"

using namespace ff::topology;
using ff::topology::test::data;

namespace {

Topology server() {
  auto r = load_hwloc_xml(data("topologies/synthetic/server-8gpu-8nic.xml"));
  REQUIRE(r.ok());
  return *r.topology;
}

Finding find(const std::vector<Finding>& f, const std::string& check) {
  for (const auto& x : f)
    if (x.check == check) return x;
  FAIL("no " << check);
  return {};
}

CheckOptions live(const std::string& tree) {
  CheckOptions o;
  o.live = true;
  o.sysfs_root = data(tree);
  return o;
}

// A 4 KiB config space with an ACS extended capability at 0x100 (control at +6).
std::string config_with_acs(std::uint16_t control) {
  std::string c(4096, '\0');
  c[0x100] = 0x0d;  // id 0x000d, version 1, next 0
  c[0x102] = 0x01;
  c[0x104] = 0x1f;  // capabilities
  c[0x106] = static_cast<char>(control & 0xff);
  c[0x107] = static_cast<char>(control >> 8);
  return c;
}

}  // namespace

TEST_CASE("host checks are skipped for file inputs", "[topology]") {
  auto f = host_findings(server(), CheckOptions{});
  REQUIRE(f.size() == 6);
  for (const auto& x : f) {
    CHECK(x.status == Status::Skip);
    CHECK(x.reason == "skipped (input is a file)");
  }
}

TEST_CASE("peer-memory module present or absent", "[topology]") {
  auto t = server();
  CHECK(find(host_findings(t, live("sysfs-peermem")), "peermem").status == Status::Pass);
  auto legacy = find(host_findings(t, live("sysfs-iommu")), "peermem");
  CHECK(legacy.status == Status::Pass);
  CHECK(legacy.reason.find("nv_peer_mem") != std::string::npos);
  auto absent = find(host_findings(t, live("sysfs-no-peermem")), "peermem");
  CHECK(absent.status == Status::Warn);
  CHECK(absent.reason.find("nvidia_peermem") != std::string::npos);
  // Without an RDMA NIC there is nothing for it to do.
  auto nonic = load_hwloc_xml(data("topologies/synthetic/pcie-4gpu-nonic.xml"));
  REQUIRE(nonic.ok());
  CHECK(find(host_findings(*nonic.topology, live("sysfs-no-peermem")), "peermem").status ==
        Status::Skip);
}

TEST_CASE("IOMMU units in sysfs", "[topology]") {
  auto t = server();
  auto on = find(host_findings(t, live("sysfs-iommu")), "iommu");
  CHECK(on.status == Status::Warn);
  CHECK(on.reason.find("dmar0, dmar1") != std::string::npos);
  CHECK(find(host_findings(t, live("sysfs-peermem")), "iommu").status == Status::Pass);
}

TEST_CASE("socket interface check sees sysfs interfaces when live", "[topology]") {
  auto t = server();
  auto o = live("sysfs-iommu");
  o.env["NCCL_SOCKET_IFNAME"] = "bond0";
  auto f = topology_findings(t, recommend_binding(t), o);
  CHECK(find(f, "nccl-socket-ifname").status == Status::Pass);
  o.env["NCCL_SOCKET_IFNAME"] = "enp1s0";
  f = topology_findings(t, recommend_binding(t), o);
  CHECK(find(f, "nccl-socket-ifname").status == Status::Fail);  // live: a definite miss
}

TEST_CASE("CPU binding of the process versus its GPU", "[topology]") {
  auto t = server();
  auto o = live("sysfs-peermem");
  CHECK(find(host_findings(t, o), "cpu-binding").status == Status::Skip);  // which GPU?
  o.env["LOCAL_RANK"] = "5";
  o.process_cpus = CpuSet{4, 5};
  CHECK(find(host_findings(t, o), "cpu-binding").status == Status::Pass);
  o.process_cpus = CpuSet{0, 1};
  CHECK(find(host_findings(t, o), "cpu-binding").status == Status::Fail);
  o.process_cpus = CpuSet{0, 1, 2, 3, 4, 5, 6, 7};
  CHECK(find(host_findings(t, o), "cpu-binding").status == Status::Warn);
  // CUDA_VISIBLE_DEVICES renumbers: local rank 1 of "6,1" drives GPU1 (CPUs 0-3).
  o.env["LOCAL_RANK"] = "1";
  o.env["CUDA_VISIBLE_DEVICES"] = "6,1";
  o.process_cpus = CpuSet{2};
  CHECK(find(host_findings(t, o), "cpu-binding").status == Status::Pass);
}

TEST_CASE("memlock limit", "[topology]") {
  auto o = live("sysfs-peermem");
  o.memlock_bytes = 64 * 1024;
  CHECK(find(host_findings(server(), o), "memlock").status == Status::Warn);
  o.memlock_bytes = ULLONG_MAX;
  CHECK(find(host_findings(server(), o), "memlock").status == Status::Pass);
}

TEST_CASE("ACS on the bridges above the GPUs", "[topology]") {
  bool ext = false;
  CHECK(acs_control(config_with_acs(0x001d), ext) == std::uint16_t{0x001d});
  CHECK(ext);
  CHECK_FALSE(acs_control(std::string(256, '\0'), ext));
  CHECK_FALSE(ext);

  namespace fs = std::filesystem;
  auto root = fs::temp_directory_path() / ("ff-acs-test-" + std::to_string(::getpid()));
  fs::remove_all(root);
  auto t = server();
  auto write = [&](const std::string& bus, const std::string& bytes) {
    auto dir = root / "sys/bus/pci/devices" / bus;
    fs::create_directories(dir);
    std::ofstream(dir / "config", std::ios::binary) << bytes;
  };
  CheckOptions o;
  o.live = true;
  o.sysfs_root = root.string();
  CHECK(find(host_findings(t, o), "acs").status == Status::Skip);  // nothing readable
  // GPU0's downstream port 0000:12:00.0 has Request+Completion Redirect on.
  write("0000:12:00.0", config_with_acs(0x000c));
  write("0000:11:00.0", config_with_acs(0x0000));
  write("0000:10:00.0", std::string(256, '\0'));  // non-root view: no extended space
  auto f = find(host_findings(t, o), "acs");
  CHECK(f.status == Status::Warn);
  REQUIRE(!f.evidence.empty());
  CHECK(f.evidence[0].find("0000:12:00.0") != std::string::npos);
  write("0000:12:00.0", config_with_acs(0x0001));  // source validation only
  CHECK(find(host_findings(t, o), "acs").status == Status::Pass);
  fs::remove_all(root);
}
