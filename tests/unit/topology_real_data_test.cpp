// Every real topology under tests/data/topologies/ is loaded, and the GPU<->NIC pairings
// and path types its README states are asserted. The expectations below cite the README
// section they come from; the files are verbatim copies (sources in the READMEs).
#include <catch2/catch.hpp>
#include <tuple>
#include <vector>

#include "topology/binding.hpp"
#include "topology/findings.hpp"
#include "topology/hwloc_loader.hpp"
#include "topology/nccl_topo_parser.hpp"
#include "topology/nvidia_smi_parser.hpp"
#include "topology_test_util.hpp"

using namespace ff::topology;
using ff::topology::test::data;
using ff::topology::test::dev;
using ff::topology::test::path;

namespace {

struct Pair {
  std::string a, b, type;
};

struct Expect {
  std::string file;
  std::size_t gpus, rdma_nics;
  std::vector<Pair> paths;
  // GPU label -> the NIC (label or RDMA name or bus id) the binding must choose.
  std::vector<std::pair<std::string, std::string>> binding;
};

void check(const Topology& t, const Expect& e) {
  INFO(e.file);
  CHECK(t.gpus.size() == e.gpus);
  CHECK(t.rdma_nics().size() == e.rdma_nics);
  for (const auto& p : e.paths) {
    INFO(p.a << " <-> " << p.b);
    CHECK(path(t, p.a, p.b) == p.type);
  }
  auto rec = recommend_binding(t);
  for (const auto& [g, n] : e.binding) {
    INFO("binding of " << g);
    int gi = dev(t, g);
    REQUIRE(gi >= 0);
    bool found = false;
    for (const auto& r : rec.ranks) {
      if (r.gpu != gi) continue;
      found = true;
      REQUIRE(r.nic >= 0);
      CHECK(r.nic == dev(t, n));
    }
    CHECK(found);
  }
}

}  // namespace

TEST_CASE("hwloc XML exports: pairings from hwloc-xml/README.md", "[topology]") {
  const std::vector<Expect> table = {
      // 1. mirage004: GPU0 PHB, GPU1/GPU2 SYS to mlx4_0 (class 0c06); GPU1-GPU2 PHB.
      {"24em64t-2n6c2t-pci.xml",
       3,
       1,
       {{"GPU0", "mlx4_0", "PHB"},
        {"GPU1", "mlx4_0", "SYS"},
        {"GPU2", "mlx4_0", "SYS"},
        {"GPU1", "GPU2", "PHB"},
        {"GPU0", "GPU1", "SYS"},
        {"GPU0", "GPU2", "SYS"}},
       {{"GPU0", "mlx4_0"}, {"GPU1", "mlx4_0"}}},
      // 2 and 3. conan (hand-edited): GPU0 SYS, GPU1 PHB, GPU2 PIX; GPU1-GPU2 PHB.
      {"32em64t-2n8c2t-pci-normalio.xml",
       3,
       1,
       {{"GPU0", "mlx5_0", "SYS"},
        {"GPU1", "mlx5_0", "PHB"},
        {"GPU2", "mlx5_0", "PIX"},
        {"GPU1", "GPU2", "PHB"},
        {"GPU0", "GPU1", "SYS"}},
       {{"GPU2", "mlx5_0"}}},
      {"32em64t-2n8c2t-pci-wholeio.xml",
       3,
       1,
       {{"GPU0", "mlx5_0", "SYS"},
        {"GPU1", "mlx5_0", "PHB"},
        {"GPU2", "mlx5_0", "PIX"},
        {"GPU1", "GPU2", "PHB"},
        {"GPU0", "GPU2", "SYS"}},
       {}},
      // 4. DGX-2H: 16 GPUs, no HCA; PIX 0-1, PXB 0/1-2/3, NODE across trees, SYS across
      // packages.
      {"nvidiaDGX2.xml",
       16,
       0,
       {{"GPU0", "GPU1", "PIX"},
        {"GPU2", "GPU3", "PIX"},
        {"GPU4", "GPU5", "PIX"},
        {"GPU6", "GPU7", "PIX"},
        {"GPU0", "GPU2", "PXB"},
        {"GPU1", "GPU3", "PXB"},
        {"GPU4", "GPU6", "PXB"},
        {"GPU0", "GPU4", "NODE"},
        {"GPU3", "GPU7", "NODE"},
        {"GPU8", "GPU12", "NODE"},
        {"GPU0", "GPU8", "SYS"},
        {"GPU7", "GPU15", "SYS"}},
       {}},
      // 5. Minsky: 0-1 NODE, 2-3 NODE, cross-socket SYS; no HCA.
      {"power8gpudistances.xml",
       4,
       0,
       {{"GPU0", "GPU1", "NODE"},
        {"GPU2", "GPU3", "NODE"},
        {"GPU0", "GPU2", "SYS"},
        {"GPU1", "GPU3", "SYS"}},
       {}},
      // 6. SGI UV 2000: no GPU, one ConnectX-3 (class 0280) with mlx4_0.
      {"192em64t-24n8c2t.xml", 0, 1, {}, {}},
      // 7. UV partition: two class-0300 GPUs under cgroup-emptied packages; SYS.
      {"64intel64-3g2n+2n-irregulargroups+pci.xml", 2, 0, {{"GPU0", "GPU1", "SYS"}}, {}},
      // 8. devel09: no GPU; mlx4_0 typed Network, class 0c06.
      {"devel09-pci.xml", 0, 1, {}, {}},
      // 9 and 10. lassen: NODE to the same-socket pair, SYS across; binding k -> mlx5_k.
      {"coral-lassen.xml",
       4,
       4,
       {{"GPU0", "mlx5_0", "NODE"},
        {"GPU0", "mlx5_1", "NODE"},
        {"GPU0", "mlx5_2", "SYS"},
        {"GPU1", "mlx5_3", "SYS"},
        {"GPU2", "mlx5_0", "SYS"},
        {"GPU2", "mlx5_2", "NODE"},
        {"GPU3", "mlx5_3", "NODE"},
        {"GPU0", "GPU1", "PIX"},
        {"GPU2", "GPU3", "PIX"},
        {"GPU0", "GPU2", "SYS"}},
       {{"GPU0", "mlx5_0"}, {"GPU1", "mlx5_1"}, {"GPU2", "mlx5_2"}, {"GPU3", "mlx5_3"}}},
      {"coral-lassen-hwloc1.xml",
       4,
       4,
       {{"GPU0", "mlx5_0", "NODE"},
        {"GPU1", "mlx5_1", "NODE"},
        {"GPU0", "mlx5_2", "SYS"},
        {"GPU2", "mlx5_2", "NODE"},
        {"GPU3", "mlx5_3", "NODE"},
        {"GPU3", "mlx5_0", "SYS"},
        {"GPU0", "GPU1", "PIX"},
        {"GPU2", "GPU3", "PIX"},
        {"GPU1", "GPU2", "SYS"}},
       {{"GPU0", "mlx5_0"}, {"GPU1", "mlx5_1"}, {"GPU2", "mlx5_2"}, {"GPU3", "mlx5_3"}}},
      // 11. pascal: both GPUs PIX to mlx5_0 behind one PLX switch.
      {"cts1-pascal.xml",
       2,
       1,
       {{"GPU0", "mlx5_0", "PIX"}, {"GPU1", "mlx5_0", "PIX"}, {"GPU0", "GPU1", "PIX"}},
       {{"GPU0", "mlx5_0"}, {"GPU1", "mlx5_0"}}},
      // 12. g4dn.metal: EFA rdmap197s0 (class 0200) SYS to GPU0-3, NODE to GPU4-7; the ENA
      // is not RDMA. GPU pairs on one host bridge PHB.
      {"g4dnmetal.xml",
       8,
       1,
       {{"GPU0", "rdmap197s0", "SYS"},
        {"GPU3", "rdmap197s0", "SYS"},
        {"GPU4", "rdmap197s0", "NODE"},
        {"GPU7", "rdmap197s0", "NODE"},
        {"GPU0", "GPU1", "PHB"},
        {"GPU2", "GPU3", "PHB"},
        {"GPU6", "GPU7", "PHB"},
        {"GPU0", "GPU2", "NODE"},
        {"GPU0", "GPU4", "SYS"}},
       {{"GPU4", "rdmap197s0"}}},
      // 13. corona: AMD GPUs only, so no GPU for an NVIDIA tool; mlx5_0 present.
      {"epyc-corona.xml", 0, 1, {}, {}},
  };
  for (const auto& e : table) {
    auto r = load_hwloc_xml(data("topologies/hwloc-xml/" + e.file));
    INFO(e.file);
    REQUIRE(r.ok());
    check(*r.topology, e);
  }
}

TEST_CASE("hwloc XML: locality details the README calls out", "[topology]") {
  SECTION("GPU locality from complete_nodeset when the package is cgroup-empty (file 7)") {
    auto r = load_hwloc_xml(data("topologies/hwloc-xml/64intel64-3g2n+2n-irregulargroups+pci.xml"));
    REQUIRE(r.ok());
    const auto& t = *r.topology;
    CHECK(t.at(dev(t, "GPU0")).numa() == 4);
    CHECK(t.at(dev(t, "GPU1")).numa() == 7);
  }
  SECTION("non-contiguous NUMA ids on lassen (0 and 8); HCA without a Package ancestor") {
    for (const char* f : {"coral-lassen.xml", "coral-lassen-hwloc1.xml"}) {
      auto r = load_hwloc_xml(data(std::string("topologies/hwloc-xml/") + f));
      REQUIRE(r.ok());
      const auto& t = *r.topology;
      INFO(f);
      CHECK(t.at(dev(t, "mlx5_2")).numa() == 8);
      CHECK(t.at(dev(t, "GPU3")).numa() == 8);
      CHECK(t.at(dev(t, "mlx5_0")).netdevs == std::vector<std::string>{"hsi0"});
    }
  }
  SECTION("the UV 2000 HCA is local to NUMA 6 only (file 6)") {
    auto r = load_hwloc_xml(data("topologies/hwloc-xml/192em64t-24n8c2t.xml"));
    REQUIRE(r.ok());
    const auto& t = *r.topology;
    CHECK(t.at(dev(t, "mlx4_0")).numa_nodes == std::vector<int>{6});
    CHECK(t.numa_node_count == 24);
  }
  SECTION("the DGX-2 has GPUs and no HCA: the tool says so") {
    auto r = load_hwloc_xml(data("topologies/hwloc-xml/nvidiaDGX2.xml"));
    REQUIRE(r.ok());
    auto rec = recommend_binding(*r.topology);
    auto f = topology_findings(*r.topology, rec, {});
    REQUIRE(!f.empty());
    CHECK(f[0].check == "nearest-nic");
    CHECK(f[0].status == Status::Warn);
    CHECK(f[0].reason.find("no RDMA NIC") != std::string::npos);
    CHECK(rec.nccl_ib_hca.empty());
  }
}

TEST_CASE("nvidia-smi topo -m pastes: pairings from nvidia-smi-topo/README.md", "[topology]") {
  const std::vector<Expect> table = {
      {"NVIDIA-nccl-1530.txt",
       8,
       2,
       {{"GPU0", "NIC0", "SYS"},
        {"GPU7", "NIC1", "SYS"},
        {"GPU3", "NIC0", "SYS"},
        {"NIC0", "NIC1", "PIX"},
        {"GPU0", "GPU1", "SYS"}},
       {}},
      {"NVIDIA-nccl-243.txt",
       6,
       2,
       {{"GPU2", "mlx5_0", "PIX"},
        {"GPU5", "mlx5_1", "PIX"},
        {"GPU0", "mlx5_0", "NODE"},
        {"GPU1", "mlx5_0", "NODE"},
        {"GPU3", "mlx5_1", "NODE"},
        {"GPU4", "mlx5_1", "NODE"},
        {"GPU0", "mlx5_1", "SYS"},
        {"GPU2", "mlx5_1", "SYS"},
        {"GPU3", "mlx5_0", "SYS"},
        {"GPU5", "mlx5_0", "SYS"}},
       {{"GPU2", "mlx5_0"}, {"GPU5", "mlx5_1"}, {"GPU0", "mlx5_0"}, {"GPU3", "mlx5_1"}}},
      {"noonghunna-club-3090-46.txt",
       5,
       0,
       {{"GPU1", "GPU2", "PHB"},
        {"GPU3", "GPU4", "PHB"},
        {"GPU0", "GPU1", "SYS"},
        {"GPU0", "GPU4", "SYS"},
        {"GPU1", "GPU3", "NODE"},
        {"GPU2", "GPU4", "NODE"}},
       {}},
      {"NVIDIA-nccl-428.txt",
       4,
       0,
       {{"GPU0", "GPU1", "SYS"},
        {"GPU0", "GPU3", "SYS"},
        {"GPU1", "GPU2", "NODE"},
        {"GPU2", "GPU3", "NODE"}},
       {}},
      {"NVIDIA-nccl-tests-29.txt",
       8,
       2,
       {{"GPU2", "mlx5_0", "PIX"},
        {"GPU2", "mlx5_1", "PIX"},
        {"GPU3", "mlx5_0", "PIX"},
        {"GPU3", "mlx5_1", "PIX"},
        {"GPU0", "mlx5_0", "NODE"},
        {"GPU1", "mlx5_1", "NODE"},
        {"GPU4", "mlx5_0", "SYS"},
        {"GPU7", "mlx5_1", "SYS"},
        {"GPU0", "GPU1", "NV2"},
        {"GPU0", "GPU3", "NV1"}},
       {{"GPU2", "mlx5_0"}, {"GPU3", "mlx5_1"}}},
      {"NVIDIA-nccl-tests-78.txt",
       16,
       10,
       {{"GPU0", "mlx5_0", "PIX"},
        {"GPU0", "mlx5_1", "PXB"},
        {"GPU1", "mlx5_0", "PIX"},
        {"GPU1", "mlx5_1", "PXB"},
        {"GPU2", "mlx5_1", "PIX"},
        {"GPU2", "mlx5_0", "PXB"},
        {"GPU3", "mlx5_1", "PIX"},
        {"GPU4", "mlx5_2", "PIX"},
        {"GPU4", "mlx5_3", "PXB"},
        {"GPU0", "mlx5_2", "NODE"},
        {"GPU0", "mlx5_4", "SYS"},
        {"GPU4", "mlx5_9", "SYS"},
        {"GPU5", "mlx5_0", "?"},
        {"GPU0", "GPU15", "NV6"}},
       {{"GPU0", "mlx5_0"}, {"GPU2", "mlx5_1"}, {"GPU4", "mlx5_2"}}},
      {"NVIDIA-nccl-1453.txt",
       8,
       9,
       {{"GPU0", "NIC8", "PIX"},
        {"GPU1", "NIC7", "PIX"},
        {"GPU2", "NIC6", "PIX"},
        {"GPU3", "NIC5", "PIX"},
        {"GPU4", "NIC4", "PIX"},
        {"GPU5", "NIC3", "PIX"},
        {"GPU6", "NIC2", "PIX"},
        {"GPU7", "NIC1", "PIX"},
        {"GPU0", "NIC0", "SYS"},
        {"GPU7", "NIC0", "SYS"},
        {"GPU0", "NIC4", "SYS"},
        {"GPU4", "NIC5", "SYS"},
        {"GPU0", "NIC5", "NODE"},
        {"NIC0", "NIC1", "SYS"}},
       {{"GPU0", "NIC8"}, {"GPU3", "NIC5"}, {"GPU4", "NIC4"}, {"GPU7", "NIC1"}}},
      {"vllm-project-vllm-16359.txt",
       8,
       18,
       {{"GPU0", "NIC0", "PXB"},
        {"GPU0", "NIC1", "PXB"},
        {"GPU1", "NIC3", "PXB"},
        {"GPU1", "NIC4", "PXB"},
        {"GPU2", "NIC5", "PXB"},
        {"GPU2", "NIC6", "PXB"},
        {"GPU3", "NIC7", "PXB"},
        {"GPU3", "NIC8", "PXB"},
        {"GPU4", "NIC9", "PXB"},
        {"GPU4", "NIC10", "PXB"},
        {"GPU5", "NIC12", "PXB"},
        {"GPU5", "NIC13", "PXB"},
        {"GPU6", "NIC14", "PXB"},
        {"GPU6", "NIC15", "PXB"},
        {"GPU7", "NIC16", "PXB"},
        {"GPU7", "NIC17", "PXB"},
        {"GPU0", "NIC2", "NODE"},
        {"GPU4", "NIC11", "NODE"},
        {"GPU0", "NIC9", "SYS"}},
       {{"GPU0", "NIC0"},
        {"GPU1", "NIC3"},
        {"GPU2", "NIC5"},
        {"GPU3", "NIC7"},
        {"GPU4", "NIC9"},
        {"GPU5", "NIC12"},
        {"GPU6", "NIC14"},
        {"GPU7", "NIC16"}}},
      {"NVIDIA-nccl-1435.txt",
       8,
       6,
       {{"GPU0", "NIC1", "PXB"},
        {"GPU1", "NIC1", "PXB"},
        {"GPU2", "NIC0", "PXB"},
        {"GPU3", "NIC0", "PXB"},
        {"GPU4", "NIC5", "PXB"},
        {"GPU5", "NIC5", "PXB"},
        {"GPU6", "NIC2", "PXB"},
        {"GPU0", "NIC0", "SYS"},
        {"GPU0", "NIC3", "SYS"},
        {"GPU6", "NIC4", "SYS"},
        {"GPU7", "NIC2", "?"}},
       {{"GPU0", "NIC1"}, {"GPU1", "NIC1"}, {"GPU2", "NIC0"}, {"GPU6", "NIC2"}}},
      {"NVIDIA-nccl-933.txt",
       8,
       9,
       {{"GPU0", "NIC2", "PIX"},
        {"GPU1", "NIC4", "PIX"},
        {"GPU2", "NIC6", "PIX"},
        {"GPU3", "NIC8", "PIX"},
        {"GPU4", "NIC1", "PIX"},
        {"GPU5", "NIC3", "PIX"},
        {"GPU6", "NIC5", "PIX"},
        {"GPU0", "NIC0", "NODE"},
        {"GPU4", "NIC0", "SYS"},
        {"GPU0", "NIC1", "SYS"}},
       {{"GPU0", "NIC2"}, {"GPU3", "NIC8"}, {"GPU6", "NIC5"}}},
      {"NVIDIA-nccl-1357.txt",
       8,
       6,
       {{"GPU0", "NIC0", "PIX"},
        {"GPU2", "NIC1", "PIX"},
        {"GPU4", "NIC2", "PIX"},
        {"GPU6", "NIC3", "PIX"},
        {"GPU1", "NIC0", "SYS"},
        {"GPU1", "NIC1", "SYS"},
        {"GPU3", "NIC5", "SYS"},
        {"GPU5", "NIC2", "SYS"},
        {"GPU0", "NIC4", "SYS"}},
       {{"GPU0", "NIC0"}, {"GPU2", "NIC1"}, {"GPU4", "NIC2"}, {"GPU6", "NIC3"}}},
      {"deepseek-ai-DeepEP-128.txt",
       8,
       10,
       {{"GPU0", "NIC0", "PIX"},
        {"GPU1", "NIC1", "PIX"},
        {"GPU2", "NIC2", "PIX"},
        {"GPU3", "NIC3", "PIX"},
        {"GPU4", "NIC4", "PIX"},
        {"GPU5", "NIC5", "PIX"},
        {"GPU0", "NIC1", "SYS"},
        {"GPU0", "NIC8", "SYS"},
        {"GPU5", "NIC9", "SYS"},
        {"GPU0", "GPU1", "SYS"}},
       {{"GPU0", "NIC0"}, {"GPU5", "NIC5"}}},
      {"sgl-project-sglang-13973.txt",
       8,
       9,
       {{"GPU0", "NIC0", "PIX"},
        {"GPU1", "NIC1", "PIX"},
        {"GPU2", "NIC2", "PIX"},
        {"GPU3", "NIC4", "PIX"},
        {"GPU4", "NIC5", "PIX"},
        {"GPU5", "NIC6", "PIX"},
        {"GPU3", "NIC3", "NODE"},
        {"GPU3", "NIC0", "SYS"},
        {"GPU0", "NIC8", "SYS"}},
       {{"GPU0", "NIC0"}, {"GPU3", "NIC4"}, {"GPU5", "NIC6"}}},
  };
  for (const auto& e : table) {
    auto r = load_nvidia_smi_file(data("topologies/nvidia-smi-topo/" + e.file));
    INFO(e.file);
    REQUIRE(r.ok());
    check(*r.topology, e);
  }
}

TEST_CASE("nvidia-smi pastes: legends, NUMA, and cut-off files", "[topology]") {
  auto load = [](const char* f) {
    auto r = load_nvidia_smi_file(data(std::string("topologies/nvidia-smi-topo/") + f));
    REQUIRE(r.ok());
    return *r.topology;
  };
  SECTION("NIC Legend names the NICs; binding gives exact NCCL_IB_HCA syntax") {
    auto t = load("NVIDIA-nccl-1530.txt");
    CHECK(t.at(dev(t, "NIC0")).rdma_name == "mlx5_0");
    CHECK(t.at(dev(t, "NIC1")).rdma_name == "mlx5_1");
    CHECK(t.at(dev(t, "GPU3")).numa() == 1);
    CHECK(t.at(dev(t, "GPU3")).cpulist == "16-31,80-95");
    auto rec = recommend_binding(t);
    CHECK(rec.ranks[0].nccl_ib_hca == "=mlx5_0:1");
    CHECK(rec.ranks[1].nccl_ib_hca == "=mlx5_1:1");  // equally far: spread by load
    CHECK(rec.nccl_ib_hca == "=mlx5_0:1,mlx5_1:1");
    // Every candidate NIC is SYS (README: "Test use: every candidate NIC is SYS").
    auto f = topology_findings(t, rec, {});
    int fails = 0;
    for (const auto& x : f)
      if (x.check == "nearest-nic" && x.status == Status::Fail) ++fails;
    CHECK(fails == 8);
  }
  SECTION("old layout: NIC columns out of order keep their own names") {
    auto t = load("NVIDIA-nccl-243.txt");
    CHECK(t.at(t.nics[0]).rdma_name == "mlx5_1");
    CHECK(t.at(t.nics[1]).rdma_name == "mlx5_0");
    CHECK(t.at(dev(t, "GPU3")).cpulist == "14-27,42-55");
  }
  SECTION("cut-off CPU Affinity is noted, not misread (tests-29 GPU7)") {
    auto t = load("NVIDIA-nccl-tests-29.txt");
    CHECK(t.at(dev(t, "GPU7")).cpulist.empty());
    REQUIRE(!t.notes.empty());
    CHECK(t.notes[0].line == 9);  // header on line 1, GPU7 on line 9
    CHECK(t.notes[0].message.find("GPU7") != std::string::npos);
  }
  SECTION("missing GPU rows are partial results with a note (1435: GPU7)") {
    auto t = load("NVIDIA-nccl-1435.txt");
    bool noted = false;
    for (const auto& n : t.notes) noted = noted || n.message.find("GPU7") != std::string::npos;
    CHECK(noted);
    auto rec = recommend_binding(t);
    CHECK(rec.ranks[7].nic == -1);
    CHECK(rec.nccl_ib_hca.empty());  // no NIC Legend: names unknown
    CHECK(rec.ranks[0].nic_label == "NIC1");
    CHECK(rec.ranks[0].hca.empty());
  }
  SECTION("1357: GPUs without a local NIC fail the nearest-NIC check") {
    auto t = load("NVIDIA-nccl-1357.txt");
    auto rec = recommend_binding(t);
    auto f = topology_findings(t, rec, {});
    std::map<std::string, Status> st;
    for (const auto& x : f)
      if (x.check == "nearest-nic") st[x.subject] = x.status;
    CHECK(st["GPU0"] == Status::Pass);
    CHECK(st["GPU1"] == Status::Fail);
    CHECK(st["GPU3"] == Status::Fail);
    CHECK(st["GPU5"] == Status::Fail);
    CHECK(st["GPU6"] == Status::Pass);
    CHECK(st["GPU7"] == Status::Skip);  // row cut off
  }
}

TEST_CASE("NCCL topology XML: pairings from nccl-topo-dump/README.md", "[topology]") {
  const std::vector<Expect> table = {
      // aliyun SimAI: two GPUs per RoCE bond, PXB; bond_0 is the CPU-attached host NIC.
      {"aliyun-SimAI-topo_8A100_4CX6.xml",
       8,
       5,
       {{"GPU0", "mlx5_bond_1", "PXB"},
        {"GPU1", "mlx5_bond_1", "PXB"},
        {"GPU2", "mlx5_bond_2", "PXB"},
        {"GPU3", "mlx5_bond_2", "PXB"},
        {"GPU4", "mlx5_bond_3", "PXB"},
        {"GPU5", "mlx5_bond_3", "PXB"},
        {"GPU6", "mlx5_bond_4", "PXB"},
        {"GPU7", "mlx5_bond_4", "PXB"},
        {"GPU0", "mlx5_bond_0", "PHB"},
        {"GPU3", "mlx5_bond_0", "PHB"},
        {"GPU4", "mlx5_bond_0", "SYS"},
        {"GPU0", "mlx5_bond_3", "SYS"},
        {"GPU0", "GPU7", "NV12"}},
       {{"GPU0", "mlx5_bond_1"},
        {"GPU1", "mlx5_bond_1"},
        {"GPU2", "mlx5_bond_2"},
        {"GPU3", "mlx5_bond_2"},
        {"GPU4", "mlx5_bond_3"},
        {"GPU5", "mlx5_bond_3"},
        {"GPU6", "mlx5_bond_4"},
        {"GPU7", "mlx5_bond_4"}}},
      // ND A100 v4: 2 GPUs + 2 NICs per placeholder bridge, all PIX; else SYS.
      {"azure-azhpc-images-ndv4-topo.xml",
       8,
       8,
       {{"0003:00:00.0", "0103:00:00.0", "PIX"},
        {"0003:00:00.0", "0104:00:00.0", "PIX"},
        {"0004:00:00.0", "0103:00:00.0", "PIX"},
        {"0001:00:00.0", "0101:00:00.0", "PIX"},
        {"0002:00:00.0", "0102:00:00.0", "PIX"},
        {"000d:00:00.0", "0107:00:00.0", "PIX"},
        {"000e:00:00.0", "0108:00:00.0", "PIX"},
        {"000b:00:00.0", "0105:00:00.0", "PIX"},
        {"000c:00:00.0", "0106:00:00.0", "PIX"},
        {"0003:00:00.0", "0101:00:00.0", "SYS"},
        {"000d:00:00.0", "0105:00:00.0", "SYS"}},
       {{"0001:00:00.0", "0101:00:00.0"},
        {"0002:00:00.0", "0102:00:00.0"},
        {"0003:00:00.0", "0103:00:00.0"},
        {"0004:00:00.0", "0104:00:00.0"},
        {"000b:00:00.0", "0105:00:00.0"},
        {"000e:00:00.0", "0108:00:00.0"}}},
      // ND H100 v5: one GPU and one NIC per bridge, PIX 1:1.
      {"azure-azhpc-images-ndv5-topo.xml",
       8,
       8,
       {{"0001:00:00.0", "0101:00:00.0", "PIX"},
        {"0002:00:00.0", "0102:00:00.0", "PIX"},
        {"0003:00:00.0", "0103:00:00.0", "PIX"},
        {"0008:00:00.0", "0104:00:00.0", "PIX"},
        {"0009:00:00.0", "0105:00:00.0", "PIX"},
        {"000a:00:00.0", "0106:00:00.0", "PIX"},
        {"000b:00:00.0", "0107:00:00.0", "PIX"},
        {"000c:00:00.0", "0108:00:00.0", "PIX"},
        {"0001:00:00.0", "0102:00:00.0", "PHB"},
        {"0001:00:00.0", "0105:00:00.0", "SYS"}},
       {{"0001:00:00.0", "0101:00:00.0"},
        {"0008:00:00.0", "0104:00:00.0"},
        {"0009:00:00.0", "0105:00:00.0"},
        {"000c:00:00.0", "0108:00:00.0"}}},
      // ND v2: one NIC under CPU 0; GPUs 1-4 PHB, 5-8 SYS.
      {"azure-azhpc-images-ndv2-topo.xml",
       8,
       1,
       {{"0001:00:00.0", "0101:00:00.0", "PHB"},
        {"0004:00:00.0", "0101:00:00.0", "PHB"},
        {"0005:00:00.0", "0101:00:00.0", "SYS"},
        {"0008:00:00.0", "0101:00:00.0", "SYS"}},
       {{"0005:00:00.0", "0101:00:00.0"}}},
      // NC A100 v4: the only NIC is eth0 under CPU 0, not an IB HCA.
      {"azure-azhpc-images-ncv4-topo.xml", 4, 0, {}, {}},
  };
  for (const auto& e : table) {
    auto r = load_nccl_topo_file(data("topologies/nccl-topo-dump/" + e.file));
    INFO(e.file);
    REQUIRE(r.ok());
    check(*r.topology, e);
  }
  SECTION("ncv4: eth0 is a socket NIC; it is where NCCL_SOCKET_IFNAME can point") {
    auto r =
        load_nccl_topo_file(data("topologies/nccl-topo-dump/azure-azhpc-images-ncv4-topo.xml"));
    REQUIRE(r.ok());
    const auto& t = *r.topology;
    REQUIRE(t.nics.size() == 1);
    CHECK_FALSE(t.at(t.nics[0]).rdma);
    CHECK(t.at(t.nics[0]).netdevs == std::vector<std::string>{"eth0"});
    CheckOptions o;
    o.env["NCCL_SOCKET_IFNAME"] = "eth0";
    auto f = topology_findings(t, recommend_binding(t), o);
    for (const auto& x : f)
      if (x.check == "nccl-socket-ifname") CHECK(x.status == Status::Pass);
  }
  SECTION("ndv4: NUMA order is not bus-id order; locality comes from the <cpu>") {
    auto r =
        load_nccl_topo_file(data("topologies/nccl-topo-dump/azure-azhpc-images-ndv4-topo.xml"));
    REQUIRE(r.ok());
    const auto& t = *r.topology;
    CHECK(t.at(dev(t, "GPU0")).bus_id == "0001:00:00.0");
    CHECK(t.at(dev(t, "GPU0")).numa() == 1);
    CHECK(t.at(dev(t, "GPU0")).cpulist == "24-47");
    CHECK(t.at(dev(t, "GPU2")).numa() == 0);
    CHECK(t.at(dev(t, "GPU2")).cpulist == "0-23");
  }
}
