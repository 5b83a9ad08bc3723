// Parsers on malformed, truncated and odd input: errors are values naming file and line.
#include <catch2/catch.hpp>
#include <fstream>

#include "topology/binding.hpp"
#include "topology/cpulist.hpp"
#include "topology/findings.hpp"
#include "topology/hwloc_loader.hpp"
#include "topology/if_list.hpp"
#include "topology/load_result.hpp"
#include "topology/nccl_log_topology.hpp"
#include "topology/nccl_topo_parser.hpp"
#include "topology/nvidia_smi_parser.hpp"
#include "topology/xml_reader.hpp"
#include "topology_test_util.hpp"

using namespace ff::topology;
using ff::topology::test::data;
using ff::topology::test::dev;
using ff::topology::test::path;

namespace {

std::string slurp(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

}  // namespace

TEST_CASE("cpulists and NCCL hex masks", "[topology]") {
  CHECK(format_cpulist(*parse_cpulist("0-23,48-71")) == "0-23,48-71");
  CHECK(format_cpulist(*parse_cpulist("3,1,2")) == "1-3");
  CHECK_FALSE(parse_cpulist("24-47,"));
  CHECK_FALSE(parse_cpulist("5-3"));
  CHECK_FALSE(parse_cpulist("0-99999999"));
  CHECK(format_cpulist(*parse_hex_mask("00000000,ffffffff,00000000,ffffffff")) == "0-31,64-95");
  CHECK(format_cpulist(*parse_hex_mask("000000ff,fff00000")) == "20-39");
  CHECK_FALSE(parse_hex_mask("zz"));
}

TEST_CASE("bus ids in every spelling", "[topology]") {
  CHECK(normalize_bus_id("0000:3B:00.0") == "0000:3b:00.0");
  CHECK(normalize_bus_id("3b:00.0") == "0000:3b:00.0");
  CHECK(normalize_bus_id("3b000") == "0000:3b:00.0");
  CHECK(normalize_bus_id("13b010") == "0001:3b:01.0");
  CHECK_FALSE(normalize_bus_id("hello"));
  CHECK_FALSE(normalize_bus_id(""));
}

TEST_CASE("nvidia-smi parser: bad input is an error naming file and line", "[topology]") {
  SECTION("no table") {
    auto r = parse_nvidia_smi("hello\nworld\n", "x.txt");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error->file == "x.txt");
    CHECK(r.error->to_string().find("x.txt: no 'nvidia-smi topo -m' table") == 0);
  }
  SECTION("a row cut in the middle of its path columns") {
    std::string text = slurp(data("topologies/nvidia-smi-topo/NVIDIA-nccl-933.txt"));
    text = text.substr(0, text.find("\nGPU3") + 40);
    auto r = parse_nvidia_smi(text, "cut.txt");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error->line == 5);
    CHECK(r.error->message.find("row GPU3") != std::string::npos);
    CHECK(r.error->message.find("cut off") != std::string::npos);
  }
  SECTION("columns run together (tabs lost in the paste)") {
    auto r = parse_nvidia_smi(
        "\tGPU0\tGPU1\tNIC0\n"
        "GPU0\t X \tNODENODE\tPIX\n",
        "mangled.txt");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error->line == 2);
    CHECK(r.error->message.find("NODENODE") != std::string::npos);
  }
  SECTION("spaces and tabs, missing trailing columns, CRLF") {
    auto r = parse_nvidia_smi(
        "        GPU0    GPU1    mlx5_0  CPU Affinity    NUMA Affinity\r\n"
        "GPU0     X      SOC     PIX     0-7             0\r\n"
        "GPU1\tSYS\t X \tSYS\r\n",
        "mixed.txt");
    REQUIRE(r.ok());
    const auto& t = *r.topology;
    CHECK(path(t, "GPU0", "GPU1") == "SYS");  // SOC is the old name of SYS
    CHECK(path(t, "GPU0", "mlx5_0") == "PIX");
    CHECK(t.at(dev(t, "GPU0")).cpulist == "0-7");
    CHECK(t.at(dev(t, "GPU1")).cpulist.empty());
  }
  SECTION("missing file") {
    auto r = load_nvidia_smi_file(data("no-such-file.txt"));
    REQUIRE_FALSE(r.ok());
    CHECK(r.error->to_string().find("no-such-file.txt") != std::string::npos);
  }
}

TEST_CASE("XML reader and NCCL topology parser on broken XML", "[topology]") {
  SECTION("a cut-off dump names the element left open") {
    std::string text = slurp(data("topologies/nccl-topo-dump/aliyun-SimAI-topo_8A100_4CX6.xml"));
    text.resize(text.size() / 2);
    auto r = parse_nccl_topo(text, "dump.xml");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error->file == "dump.xml");
    CHECK(r.error->line > 0);
    INFO(r.error->to_string());
    CHECK(r.error->message.find("file ends") != std::string::npos);
  }
  SECTION("mismatched tags") {
    auto r =
        parse_nccl_topo("<system version=\"1\">\n<cpu numaid=\"0\">\n</pci>\n</system>", "m.xml");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error->line == 3);
    CHECK(r.error->message.find("</pci>") != std::string::npos);
  }
  SECTION("not an NCCL file") {
    auto r = parse_nccl_topo("<?xml version=\"1.0\"?>\n<topology version=\"2.0\"/>", "h.xml");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error->element == "topology");
  }
  SECTION("unquoted attribute, deep nesting, empty input") {
    XmlError e;
    CHECK(parse_xml("<a b=c/>", e) == nullptr);
    CHECK(e.message.find("not quoted") != std::string::npos);
    std::string deep;
    for (int i = 0; i < 100; ++i) deep += "<p>";
    CHECK(parse_xml(deep, e) == nullptr);
    CHECK(e.message.find("deeper than 64") != std::string::npos);
    CHECK(parse_xml("", e) == nullptr);
  }
  SECTION("comments, entities, NIC with two ports") {
    auto r = parse_nccl_topo(
        "<!-- hand written -->\n<system version=\"1\">\n"
        "<cpu numaid=\"0\" affinity=\"0000ffff\">\n"
        "<pci busid=\"0000:17:00.0\" class=\"0x060400\">\n"
        "<pci busid=\"0000:18:00.0\" class=\"0x030200\" vendor=\"0x10de\"><gpu dev=\"0\"/></pci>\n"
        "<pci busid=\"0000:19:00.0\" class=\"0x020700\" vendor=\"0x15b3\"><nic>\n"
        "<net name=\"mlx5_0\" port=\"1\" guid=\"0x1\"/><net name=\"mlx5_0\" port=\"2\" "
        "guid=\"0x2\"/>"
        "</nic></pci>\n</pci></cpu></system>",
        "tiny.xml");
    REQUIRE(r.ok());
    const auto& t = *r.topology;
    CHECK(path(t, "GPU0", "mlx5_0") == "PIX");
    CHECK(t.at(dev(t, "mlx5_0")).ports == std::vector<int>{1, 2});
    CHECK(t.at(dev(t, "GPU0")).cpulist == "0-15");
  }
}

TEST_CASE("hwloc loader: bad files are clean errors", "[topology]") {
  auto r = load_hwloc_xml(data("topologies/nvidia-smi-topo/NVIDIA-nccl-243.txt"));
  REQUIRE_FALSE(r.ok());
  CHECK(r.error->message.find("not an hwloc XML export") != std::string::npos);
  auto m = load_hwloc_xml(data("does-not-exist.xml"));
  REQUIRE_FALSE(m.ok());
  CHECK(m.error->to_string().find("does-not-exist.xml") != std::string::npos);
  auto d = load_hwloc_xml(data("topologies"));
  REQUIRE_FALSE(d.ok());
  CHECK(d.error->message.find("directory") != std::string::npos);
}

TEST_CASE("device classification", "[topology]") {
  CHECK(is_nvidia_gpu(0x10de, 0x0302, false));
  CHECK(is_nvidia_gpu(0x10de, 0x0300, false));
  CHECK_FALSE(is_nvidia_gpu(0x10de, 0x0680, false));  // NVSwitch
  CHECK_FALSE(is_nvidia_gpu(0x1002, 0x0300, false));  // AMD
  CHECK(is_rdma_nic(0x15b3, 0x6746, 0x0c06, false));  // old ConnectX, serial-bus class
  CHECK(is_rdma_nic(0x15b3, 0x1003, 0x0280, false));
  CHECK(is_rdma_nic(0x1d0f, 0xefa0, 0x0200, false));        // EFA
  CHECK_FALSE(is_rdma_nic(0x1d0f, 0xec20, 0x0200, false));  // ENA
  CHECK_FALSE(is_rdma_nic(0x8086, 0x1521, 0x0200, false));
  CHECK(is_rdma_nic(0x0000, 0x0000, 0x0207, false));
  CHECK(looks_like_rdma_name("mlx4_0"));
  CHECK_FALSE(looks_like_rdma_name("eth0"));
}

TEST_CASE("NCCL log: a partial topology from INFO lines", "[topology]") {
  auto r = load_nccl_log_file(data("topologies/nccl-log/two-node-ib.log"));
  REQUIRE(r.ok());
  const auto& t = *r.topology;
  CHECK(t.rdma_nics().size() == 3);
  REQUIRE(t.gpus.size() == 2);  // node02's rank is another host
  CHECK(t.at(t.gpus[0]).bus_id == "0000:1b:00.0");
  CHECK(t.at(t.gpus[1]).bus_id == "0000:3b:00.0");
  CHECK(t.recorded_env.at("NCCL_IB_HCA") == "mlx5_1");
  CHECK(std::find(t.other_netdevs.begin(), t.other_netdevs.end(), "eth0") != t.other_netdevs.end());
  CHECK(path(t, "GPU0", "mlx5_0") == "?");
  REQUIRE(t.observed.size() == 2);
  auto rec = recommend_binding(t);
  CHECK(rec.ranks[0].hca == "mlx5_0");
  CHECK(rec.ranks[0].from_log);
  CHECK(rec.ranks[1].hca == "mlx5_0");
  auto f = topology_findings(t, rec, {});
  std::map<std::string, Finding> by;
  for (const auto& x : f) by[x.check + "/" + x.subject] = x;
  CHECK(by["nic-sharing/NICs"].status == Status::Warn);  // 3 HCAs, 2 GPUs on mlx5_0
  CHECK(by["nccl-ib-hca/NCCL_IB_HCA"].status == Status::Warn);
  CHECK(by["nccl-ib-hca/NCCL_IB_HCA"].reason.find("mlx5_10") != std::string::npos);
  CHECK(by["nearest-nic/GPU0"].status == Status::Skip);
  CHECK(by["nccl-socket-ifname/NCCL_SOCKET_IFNAME"].status == Status::Pass);

  auto none = parse_nccl_log("just some text\n", "plain.log");
  REQUIRE_FALSE(none.ok());
  CHECK(none.error->message.find("no NCCL topology lines") != std::string::npos);
}

TEST_CASE("NCCL_IB_HCA syntax, as NCCL matches it", "[topology]") {
  std::vector<Candidate> hcas;
  for (int k : {0, 1, 2, 10, 11}) hcas.push_back({"mlx5_" + std::to_string(k), {1}});
  hcas.push_back({"mlx4_0", {1, 2}});
  auto sel = [&](const std::string& v) {
    std::string s;
    for (const auto& x : check_if_list(parse_if_list(v, true), hcas, true).selected)
      s += (s.empty() ? "" : " ") + x;
    return s;
  };
  CHECK(sel("mlx5_1") == "mlx5_1:1 mlx5_10:1 mlx5_11:1");  // prefix
  CHECK(sel("=mlx5_1") == "mlx5_1:1");                     // exact
  CHECK(sel("=mlx5_1,mlx5_2") == "mlx5_1:1 mlx5_2:1");     // '=' covers the list
  CHECK(sel("^mlx5_1") == "mlx5_0:1 mlx5_2:1 mlx4_0:1 mlx4_0:2");
  CHECK(sel("^=mlx5_1") == "mlx5_0:1 mlx5_2:1 mlx5_10:1 mlx5_11:1 mlx4_0:1 mlx4_0:2");
  CHECK(sel("mlx4_0:2") == "mlx4_0:2");
  CHECK(sel("mlx4") == "mlx4_0:1 mlx4_0:2");
  CHECK(sel("mlx5_0:2") == "");
  CHECK(sel("mlx5_0, mlx5_2") == "mlx5_0:1 mlx5_2:1");

  auto c = check_if_list(parse_if_list("mlx5_1,mlx6_0,mlx5", true), hcas, true);
  CHECK(c.dead_items == std::vector<std::string>{"mlx6_0"});
  REQUIRE(c.overbroad.size() == 1);
  CHECK(c.overbroad[0].first == "mlx5_1");
  CHECK(c.overbroad[0].second == "mlx5_10, mlx5_11");

  auto l = parse_if_list("^=eth0,ib", false);
  CHECK(l.exclude);
  CHECK(l.exact);
  REQUIRE(l.items.size() == 2);
  CHECK(l.items[0].port == -1);
  CHECK(selects(l, "eth1", -1));
  CHECK_FALSE(selects(l, "eth0", -1));
}
