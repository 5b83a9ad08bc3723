// report::Masker: what --mask replaces, with which pseudonyms, and that one value keeps one
// pseudonym throughout a report.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <span>

#include "analysis/analyze.hpp"
#include "cli/rule_set.hpp"
#include "report/mask.hpp"
#include "report/report.hpp"

using ff::report::Masker;

TEST_CASE("mask: IPv4 addresses get stable ip-N pseudonyms", "[mask]") {
  Masker m;
  std::string out = m.mask("connect to 10.1.2.3:29500 failed; retry 10.1.2.3, peer 192.168.0.7<0>");
  CHECK(out == "connect to ip-1:29500 failed; retry ip-1, peer ip-2<0>");
  // The same masker keeps the table across calls (one report).
  CHECK(m.mask("again 192.168.0.7") == "again ip-2");
}

TEST_CASE("mask: loopback, unspecified, versions and timestamps are left alone", "[mask]") {
  Masker m;
  const std::string s =
      "bind 0.0.0.0 and 127.0.0.1 ::1; NCCL 2.18.1.2.3; at 10:11:12.345 c10d::ProcessGroupNCCL "
      "std::string 999.1.1.1";
  CHECK(m.mask(s) == s);
}

TEST_CASE("mask: IPv6 addresses", "[mask]") {
  Masker m;
  CHECK(m.mask("peer fe80::1c2:3ff:fe4d:5e6f%ib0 and [2001:db8::1]:8080 and fe80::1c2:3ff:fe4d:5e6f") ==
        "peer ip6-1%ib0 and [ip6-2]:8080 and ip6-1");
  CHECK(m.mask("full 2001:0db8:0000:0000:0000:ff00:0042:8329 end") == "full ip6-3 end");
}

TEST_CASE("mask: home paths and user names", "[mask]") {
  Masker m;
  std::string out = m.mask("File \"/home/alice/train.py\", line 3; cwd /Users/bob/x; owner alice");
  CHECK(out == "File \"/home/user-1/train.py\", line 3; cwd /Users/user-2/x; owner user-1");
}

TEST_CASE("mask: user@host, and the user and host elsewhere", "[mask]") {
  Masker m;
  // learn-before-replace: "node7" is masked even before the user@host that names it.
  std::string out = m.mask("node7 said hi; ssh carol@node7.cluster.local; node7.cluster.local up; carol");
  CHECK(out == "host-1 said hi; ssh user-1@host-2; host-2 up; user-1");
  CHECK(m.mask("mail carol@10.0.0.9") == "mail user-1@ip-1");
}

TEST_CASE("mask: tokens and keys", "[mask]") {
  Masker m;
  std::string hex = "0123456789abcdef0123456789abcdef";
  std::string out = m.mask("HF_TOKEN=hf_AbCdEfGhIjKlMnOpQrStUvWxYz012345 GH=ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 "
                           "AWS AKIAIOSFODNN7EXAMPLE sha " + hex + " again " + hex +
                           " short deadbeef");
  CHECK(out == "HF_TOKEN=token-1 GH=token-2 AWS token-3 sha token-4 again token-4 short deadbeef");
}

TEST_CASE("mask: known hosts are masked as whole words only", "[mask]") {
  Masker m;
  m.add_host("gpu-node-3");
  m.add_host("a");          // too short to mask as a word: ignored
  m.add_host("localhost");  // never sensitive
  CHECK(m.mask("gpu-node-3: NCCL WARN; gpu-node-33 fine; logs/gpu-node-3.log; a localhost") ==
        "host-1: NCCL WARN; gpu-node-33 fine; logs/host-1.log; a localhost");
}

TEST_CASE("mask: colour escapes do not hide a word boundary", "[mask]") {
  Masker m;
  m.add_host("node1");
  CHECK(m.mask("\x1b[1mnode1\x1b[0m 10.0.0.1") == "\x1b[1mhost-1\x1b[0m ip-1");
}

TEST_CASE("mask: pseudonyms are never re-masked", "[mask]") {
  Masker m;
  std::string once = m.mask("alice@node1 /home/alice 10.0.0.1");
  Masker m2;
  CHECK(m2.mask(once) == once);
  CHECK(ff::report::is_pseudonym("host-12"));
  CHECK_FALSE(ff::report::is_pseudonym("host-"));
  CHECK_FALSE(ff::report::is_pseudonym("hostile-1"));
}

TEST_CASE("mask: JSON strings are masked, keys are not, one table for the document", "[mask]") {
  Masker m;
  nlohmann::json j = {{"files", {{{"name", "/home/dave/logs/node2.log"}}}},
                      {"10.0.0.1", "key stays"},
                      {"evidence", {"dave@node2 10.0.0.1", "node2 again"}}};
  m.mask(j);
  CHECK(j["files"][0]["name"] == "/home/user-1/logs/host-1.log");
  CHECK(j["10.0.0.1"] == "key stays");
  CHECK(j["evidence"][0] == "user-1@host-1 ip-1");
  CHECK(j["evidence"][1] == "host-1 again");
}

TEST_CASE("mask: hosts known from the analysis are masked in every format", "[mask]") {
  auto loaded = ff::cli::load_catalog({}, true);
  std::string log =
      "gpunode17:12345:12345 [0] NCCL INFO Bootstrap : Using ib0:10.20.30.40<0>\n"
      "gpunode17:12345:12345 [0] misc/socket.cc:50 NCCL WARN socket connect to 10.20.30.41<34567> failed\n"
      "gpunode17:12345:12345 [0] NCCL WARN Call to ibv_create_qp failed\n"
      "torch.distributed.DistBackendError: NCCL error in: /home/erin/pytorch/ProcessGroupNCCL.cpp:1269, "
      "unhandled system error, NCCL version 2.18.1\n";
  ff::analysis::LogInput in{"/home/erin/job/gpunode17.log", log};
  auto a = ff::analysis::analyze(loaded.catalog, std::span(&in, 1));
  bool host_seen = false;
  for (const auto& e : a.events) host_seen |= e.source.host == "gpunode17";
  REQUIRE(host_seen);
  for (int format = 0; format < 3; ++format) {
    Masker m;
    m.add_hosts_from(a);
    std::string out;
    if (format == 0) {
      auto j = ff::report::to_json(loaded.catalog, a);
      m.mask(j);
      out = j.dump();
    } else if (format == 1) {
      auto j = ff::report::to_sarif(loaded.catalog, a);
      m.mask(j);
      out = j.dump();
    } else {
      out = m.mask(ff::report::to_text(loaded.catalog, a, {}));
    }
    INFO(out);
    CHECK(out.find("gpunode17") == std::string::npos);
    CHECK(out.find("erin") == std::string::npos);
    CHECK(out.find("10.20.30.4") == std::string::npos);
    CHECK(out.find("host-1") != std::string::npos);
  }
}

TEST_CASE("mask: hostile text is bounded and never breaks", "[mask][hostile]") {
  Masker m;
  std::string s(200000, 'a');
  s += std::string(100000, ':') + std::string(100000, '1') + "\xff\xfe\x00" + std::string(5000, '.');
  s.push_back('\0');
  std::string out = m.mask(s);
  CHECK(out.size() > 0);
  std::string dots;
  for (int i = 0; i < 20000; ++i) dots += "1.";
  CHECK(m.mask(dots).size() == dots.size());
}
