// The mechanisms that hold on wordings no rule knows: exit statuses decoded to what they
// imply, the first-error fallback, error lines only one rank printed, summaries that never
// outrank the evidence they summarise, and findings that are no failure by themselves.
// Rules here are small and written for each case, independent of the shipped catalog.
#include <catch2/catch.hpp>

#include "analysis/analyze.hpp"
#include "analysis/exit_status.hpp"
#include "analysis/nccl_source.hpp"
#include "diagnosis_test_util.hpp"

using namespace ff::analysis;
using namespace ff::test;

namespace {

Rule exit_rule() {
  Rule r =
      make("exit", "process-crash", Role::kCause, 0.5, "exitcode\\s*:\\s*(?P<returncode>-?\\d+)");
  r.patterns.push_back("exited with exit code (?P<exitcode>\\d+)");
  r.patterns.push_back("exited on signal (?P<signal>\\w+)");
  r.decode = Decode::kExitStatus;
  return r;
}

Rule fallback_rule() {
  return make("err", "process-crash", Role::kFallback, 0.2, "\\[E\\d{4} [^\\]]*\\]|ERROR");
}

}  // namespace

TEST_CASE("exit statuses decode in the three conventions", "[exit-status]") {
  struct Row {
    const char* signal;
    const char* returncode;
    const char* exitcode;
    std::optional<int> want_signal;
    std::optional<int> want_code;
  };
  const Row rows[] = {
      {"", "-9", "", 9, std::nullopt},
      {"", "-11", "", 11, std::nullopt},
      {"", "1", "", std::nullopt, 1},
      {"", "", "137", 9, std::nullopt},
      {"", "", "139", 11, std::nullopt},
      {"", "", "1", std::nullopt, 1},
      {"", "", "0", std::nullopt, 0},
      {"SIGSEGV", "", "", 11, std::nullopt},
      {"KILL", "", "", 9, std::nullopt},
      {"Killed", "", "", 9, std::nullopt},
      {"Segmentation fault (core dumped)", "", "", 11, std::nullopt},
      {"Aborted", "", "", 6, std::nullopt},
      {"Bus error", "", "", 7, std::nullopt},
      {"7", "", "", 7, std::nullopt},
      {"SIGBOGUS", "-6", "", 6, std::nullopt},  // an unknown name falls through to the next capture
  };
  for (const auto& r : rows) {
    INFO(r.signal << "|" << r.returncode << "|" << r.exitcode);
    auto s = decode_exit_status(r.signal, r.returncode, r.exitcode);
    REQUIRE(s.has_value());
    CHECK(s->signal == r.want_signal);
    CHECK(s->exit_code == r.want_code);
  }
  CHECK_FALSE(decode_exit_status("", "", "").has_value());
  CHECK_FALSE(decode_exit_status("sometimes", "x", "").has_value());
  CHECK_FALSE(decode_exit_status("", "-9999999999999", "").has_value());
}

TEST_CASE("what an ending implies", "[exit-status]") {
  auto crash = read_exit_status({11, std::nullopt}, false, false);
  CHECK(crash.category == "process-crash");
  CHECK(crash.role == Role::kCause);
  CHECK_THAT(crash.meaning, Catch::Contains("SIGSEGV"));
  // SIGKILL is the OOM killer only with its own evidence; otherwise a kill from outside.
  CHECK(read_exit_status({9, std::nullopt}, true, false).role == Role::kCause);
  CHECK(read_exit_status({9, std::nullopt}, false, false).role == Role::kSymptom);
  // SIGBUS is shared memory's unless a hardware error stands beside it.
  CHECK(read_exit_status({7, std::nullopt}, false, true).category == "shm");
  CHECK(read_exit_status({7, std::nullopt}, false, false).category == "shm");
  CHECK_THAT(read_exit_status({7, std::nullopt}, false, false).meaning,
             Catch::Contains("/dev/shm"));
  CHECK(read_exit_status({7, std::nullopt}, false, false, true).category == "process-crash");
  // SIGILL: code built for another CPU, a version problem.
  CHECK(read_exit_status({4, std::nullopt}, false, false).category == "version");
  CHECK_THAT(read_exit_status({4, std::nullopt}, false, false).meaning,
             Catch::Contains("another CPU"));
  CHECK(read_exit_status({15, std::nullopt}, false, false).role == Role::kSymptom);
  CHECK(read_exit_status({std::nullopt, 1}, false, false).role == Role::kFallback);
  CHECK(read_exit_status({std::nullopt, 0}, false, false).category.empty());
}

TEST_CASE("a crash signal with nothing else is the diagnosis, named by its signal",
          "[exit-status]") {
  auto c = catalog({exit_rule()});
  auto a = run(c, "[rank3]: exitcode  : -11 (pid: 4242)\n");
  REQUIRE(a.diagnoses.size() == 1);
  CHECK(a.diagnoses[0].category == "process-crash");
  CHECK_THAT(a.diagnoses[0].headline, Catch::Contains("rank 3") && Catch::Contains("SIGSEGV"));
}

TEST_CASE("a crash report naming SIGBUS reads as shared memory unless hardware failed",
          "[exit-status]") {
  // A rule of category process-crash that captures the signal the way crash reports write
  // it: faulthandler's words, a signal handler's number, a debugger's name.
  Rule fatal = make("fatal", "process-crash", Role::kCause, 0.65,
                    "Fatal (?:Python )?error: (?P<signal_name>Segmentation fault|Bus error)|"
                    "Signal: (?P<signo>\\d+)$|received signal (?P<signal>SIG[A-Z]+),");
  Rule xid = make("xid", "hardware", Role::kCause, 0.9, "NVRM: Xid \\(PCI:[^)]*\\): 48,");
  auto c = catalog({fatal, xid});
  for (const char* line :
       {"(RayWorker pid=7) Fatal Python error: Bus error\n", "[node3:01234] Signal: 7\n",
        "Thread 1 \"python\" received signal SIGBUS, Bus error.\n"}) {
    INFO(line);
    auto a = run(c, line);
    REQUIRE_FALSE(a.diagnoses.empty());
    CHECK(a.diagnoses[0].category == "shm");
  }
  // SIGILL, named any way, is a build for another CPU.
  Rule ill = fatal;
  ill.id = "ill";
  ill.patterns = {"Fatal (?:Python )?error: (?P<signal_name>Illegal instruction)"};
  auto ci = catalog({ill});
  auto a = run(ci, "Fatal Python error: Illegal instruction\n");
  REQUIRE_FALSE(a.diagnoses.empty());
  CHECK(a.diagnoses[0].category == "version");
  // Other signals stay crashes.
  auto segv = run(c, "Fatal Python error: Segmentation fault\n");
  REQUIRE_FALSE(segv.diagnoses.empty());
  CHECK(segv.diagnoses[0].category == "process-crash");
  // With a GPU's uncorrectable memory error before it, the bus error is not shm's.
  auto hw = run(c,
                "NVRM: Xid (PCI:0000:3b:00): 48, pid=1234, An uncorrectable double bit error\n"
                "Fatal Python error: Bus error\n");
  REQUIRE_FALSE(hw.diagnoses.empty());
  CHECK(hw.diagnoses[0].category == "hardware");
  for (const auto& d : hw.diagnoses) CHECK(d.category != "shm");
}

TEST_CASE("SIGKILL without OOM evidence is not host-oom's root cause", "[exit-status]") {
  Rule store = make("store", "rendezvous", Role::kCause, 0.6, "client socket has timed out");
  auto c = catalog({exit_rule(), store});
  auto a = run(c,
               "[E521 15:43:02] The client socket has timed out after 600000ms\n"
               "  exitcode  : -9 (pid: 14750)\n");
  REQUIRE_FALSE(a.diagnoses.empty());
  CHECK(a.diagnoses[0].category == "rendezvous");
  CHECK(a.diagnoses[0].collateral.size() == 1);  // the kill is the teardown

  // Alone, a SIGKILL is still reported, as a symptom, at a discount.
  auto alone = run(c, "  exitcode  : -9 (pid: 14750)\n");
  REQUIRE(alone.diagnoses.size() == 1);
  CHECK(alone.diagnoses[0].category == "host-oom");
  CHECK(alone.diagnoses[0].confidence < 0.5);

  // With the OOM killer's own line, SIGKILL is host-oom's evidence.
  auto oom = catalog(
      {exit_rule(), make("oomk", "host-oom", Role::kCause, 0.85, "Out of memory: Killed process")});
  auto b = run(
      oom, "  exitcode  : -9 (pid: 14750)\n[123.4] Out of memory: Killed process 14750 (python)\n");
  REQUIRE_FALSE(b.diagnoses.empty());
  CHECK(b.diagnoses[0].category == "host-oom");
}

TEST_CASE("a launcher's summary never outranks direct evidence", "[exit-status]") {
  Rule weak = make("weak", "ib", Role::kCause, 0.3, "NET/IB : something odd");
  auto c = catalog({exit_rule(), weak});
  auto a = run(c, "  exitcode  : -6 (pid: 1)\nh:1:2 [0] NCCL WARN NET/IB : something odd\n");
  REQUIRE_FALSE(a.diagnoses.empty());
  CHECK(a.diagnoses[0].category == "ib");  // weight 0.3 < 0.5, yet the summary does not lead
}

TEST_CASE("exit 0 is no failure; a plain non-zero exit is an error line", "[exit-status]") {
  auto c = catalog({exit_rule()});
  CHECK(run(c, "srun: task 3: exited with exit code 0\n").diagnoses.empty());
  auto a = run(c, "srun: task 3: exited with exit code 2\n");
  REQUIRE(a.diagnoses.size() == 1);
  CHECK(a.diagnoses[0].confidence <= 0.3);
}

TEST_CASE("no rule knows the failure: the earliest error line is the lead", "[fallback]") {
  auto c = catalog({fallback_rule()});
  auto a = run(c,
               "step 10 loss 0.5\n"
               "2024-05-01 10:00:00,200 ERROR shard 7 is corrupt\n"
               "2024-05-01 10:00:00,100 ERROR reading shard 7\n");
  REQUIRE(a.diagnoses.size() == 1);
  CHECK(initiating(a).line == 2);  // earlier by timestamp
  CHECK(a.diagnoses[0].confidence <= 0.25);
  CHECK_THAT(a.diagnoses[0].reasoning, Catch::Contains("no rule names this failure"));
}

TEST_CASE("a fallback line never outranks a cause, and leads symptoms only when earlier",
          "[fallback]") {
  auto c =
      catalog({fallback_rule(), make("oom", "gpu-oom", Role::kCause, 0.9, "CUDA out of memory"),
               make("wd", "straggler", Role::kSymptom, 0.5, "Watchdog caught")});
  auto a = run(c, "[rank1]: ERROR something\n[rank2]: CUDA out of memory.\n");
  CHECK(a.diagnoses[0].category == "gpu-oom");

  auto before = run(
      c, "[rank1]: ERROR unknown fault\n[rank0]: Watchdog caught x\n[rank2]: Watchdog caught x\n");
  CHECK(a.diagnoses[0].category == "gpu-oom");
  CHECK(before.diagnoses[0].category == "process-crash");
  CHECK(initiating(before).line == 0);
  CHECK(before.diagnoses[0].collateral.size() == 2);

  auto after =
      run(c, "[rank0]: Watchdog caught x\n[rank2]: Watchdog caught x\n[rank1]: ERROR teardown\n");
  CHECK(after.diagnoses[0].category == "straggler");
}

TEST_CASE("a line template only one rank printed leads the fallback", "[fallback]") {
  auto c = catalog({fallback_rule()});
  auto a = run(c,
               "[rank0]:[E1203 10:00:01.000 x.cc:1] waiting for peer 3 at step 100\n"
               "[rank1]:[E1203 10:00:01.500 x.cc:1] waiting for peer 3 at step 100\n"
               "[rank3]:[E1203 10:00:02.000 y.cc:9] lost device 0x1f on bus 0000:3b:00.0\n"
               "[rank2]:[E1203 10:00:02.100 x.cc:1] waiting for peer 3 at step 101\n");
  REQUIRE_FALSE(a.diagnoses.empty());
  CHECK(initiating(a).source.rank == 3);
  CHECK_THAT(a.diagnoses[0].reasoning, Catch::Contains("only rank 3"));

  // Two participants are no majority: the earliest line leads.
  auto two = run(c,
                 "[rank0]:[E1203 10:00:01.000 x.cc:1] waiting for peer\n"
                 "[rank1]:[E1203 10:00:02.000 y.cc:9] lost device\n");
  CHECK(initiating(two).source.rank == 0);
}

TEST_CASE("a finding alone is no failure", "[finding]") {
  Rule nogdr = make("nogdr", "gdr", Role::kFinding, 0.35, "via NET/IB/\\d+$");
  nogdr.explains = {"ib", "straggler"};
  auto c = catalog({nogdr, make("wd", "straggler", Role::kSymptom, 0.5, "Watchdog caught"),
                    make("sock", "socket", Role::kCause, 0.6, "Connection refused")});
  auto healthy = run(c,
                     "h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via NET/IB/3\nh:1:2 [0] NCCL "
                     "INFO comm 0x1 rank 0 nranks 2 - Init COMPLETE\n");
  CHECK(healthy.diagnoses.empty());
  REQUIRE(healthy.findings.size() == 1);

  // Next to a failure it explains, it becomes a hypothesis.
  auto hang = run(
      c,
      "h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via NET/IB/3\n[rank0]: Watchdog caught x\n");
  REQUIRE_FALSE(hang.diagnoses.empty());
  CHECK(hang.diagnoses[0].category == "gdr");
  CHECK(hang.findings.empty());

  // Next to a failure it does not explain, it stays a finding.
  auto other = run(c,
                   "h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via NET/IB/3\nconnect: "
                   "Connection refused\n");
  REQUIRE(other.diagnoses.size() == 1);
  CHECK(other.diagnoses[0].category == "socket");
  CHECK(other.findings.size() == 1);
}

TEST_CASE("an observation just before a cause, in the same process, is its reason and leads",
          "[finding]") {
  // A producer concludes ("no usable RDMA device") a few lines after what made it conclude so
  // ("device mlx5_3 port not active"): the category is the cause's, the first fault is the
  // observation.
  Rule skipped = make("skipped", "ib", Role::kFinding, 0.5, "Device \\S+ port not active");
  skipped.explains = {"ib"};
  auto c = catalog({skipped, make("none-left", "ib", Role::kCause, 0.7, "No available RNIC")});
  const std::string log =
      "W0911 06:19:37.204383  3746 rdma_context.cpp:433] Device mlx5_3 port not active\n"
      "E0911 06:19:37.204720  3746 rdma_context.cpp:70] Failed to open device mlx5_3\n"
      "E0911 06:19:37.204734  3746 rdma_transport.cpp:426] RdmaTransport: No available RNIC\n";
  auto a = check_first(c, log, "ib", 0);
  CHECK(a.diagnoses.front().reasoning.find("says why") != std::string::npos);
  // Far above the cause, it is another moment's observation; the cause leads.
  std::string far =
      "W0911 06:19:37.204383  3746 rdma_context.cpp:433] Device mlx5_3 port not active\n";
  for (int i = 0; i < 12; ++i) far += "I0911 06:19:38.000000  3746 x.cpp:1] step\n";
  far += "E0911 06:19:39.204734  3746 rdma_transport.cpp:426] RdmaTransport: No available RNIC\n";
  check_first(c, far, "ib", 13);
  // Printed by another process (another host's prefix), it is not this cause's reason.
  check_first(c,
              "nodeA:11:11 [0] Device mlx5_3 port not active\n"
              "nodeB:22:22 [0] RdmaTransport: No available RNIC\n",
              "ib", 1);
}

TEST_CASE("an NCCL warning's caller repeats the error: the thread's first warning leads",
          "[chain]") {
  // The caller's warning is the stronger rule, the call that failed the weaker one; NCCL's
  // trace joins them in one thread, so the failed call is where the error happened.
  auto c = catalog({make("call", "shm", Role::kCause, 0.35, "Call to \\w+ failed"),
                    make("segment", "shm", Role::kCause, 0.85, "Error while creating shared"),
                    make("trace", "socket", Role::kSymptom, 0.2, "NCCL INFO \\S+:\\d+ -> 2$")});
  const std::string call =
      "n:27106:27302 [0] include/shm.h:27 NCCL WARN Call to shm_open failed : "
      "Permission denied\n";
  const std::string trace = "n:27106:27302 [0] NCCL INFO include/shm.h:41 -> 2\n";
  const std::string segment =
      "n:27106:27302 [0] include/shm.h:48 NCCL WARN Error while creating shared memory segment "
      "nccl-shm-recv-0 (size 4460544)\n";
  auto a = check_first(c, call + trace + segment, "shm", 0);
  CHECK_THAT(a.diagnoses.front().reasoning, Catch::Contains("error trace"));
  // Adjacent, with no trace between, it is the same chain.
  check_first(c, call + segment, "shm", 0);
  // Another thread's warning is another report: the stronger line leads.
  std::string other = call;
  other.replace(other.find(":27302"), 6, ":27399");
  check_first(c, other + trace + segment, "shm", 2);
  // A line no rule reads between them ends the chain.
  check_first(c, call + "some unrelated output\n" + trace + segment, "shm", 3);
}

TEST_CASE("of equally strong lines, the more severe leads; NCCL's WARN is an error level",
          "[lead]") {
  auto c = catalog({make("ima", "cuda", Role::kCause, 0.6, "an illegal memory access")});
  // A producer's warning, then its error for the same failure: the error concludes it.
  check_first(
      c,
      "[rank0]:[W504 23:32:58.000000000 ProcessGroupNCCL.cpp:1] an illegal memory access "
      "(retrying)\n"
      "[rank0]:[E504 23:32:59.000000000 ProcessGroupNCCL.cpp:1896] an illegal memory access "
      "was encountered\n",
      "cuda", 1);
  // NCCL reports a failed CUDA call at WARN, its error level: it is not outranked by the
  // c10 E line that repeats the failure after it.
  check_first(
      c,
      "[2025-05-04 23:32:59] h:940929:940929 [1] enqueue.cc:1556 NCCL WARN Cuda failure 700 "
      "'an illegal memory access was encountered'\n"
      "[rank0]:[E504 23:32:59.338859795 ProcessGroupNCCL.cpp:1896] watchdog thread "
      "terminated with exception: CUDA error: an illegal memory access was encountered\n",
      "cuda", 0);
}

TEST_CASE("an INFO teardown line does not make a warning the cause of a working job", "[finding]") {
  Rule warned = make("warned", "net-plugin", Role::kFinding, 0.4, "NCCL WARN NET/OFI \\S");
  warned.explains = {"net-plugin", "remote-peer"};
  auto c = catalog({warned, make("closed", "remote-peer", Role::kSymptom, 0.3,
                                 "Connection closed by localRank")});
  const std::string log =
      "node:21:585 [0] NCCL WARN NET/OFI Attempt to call recv_close with outstanding requests!\n"
      "node:21:22 [0] NCCL INFO [Service thread] Connection closed by localRank 0\n";
  // A job that ended normally prints both: an observation, no cause.
  auto a = run(c, log);
  CHECK(a.diagnoses.empty());
  REQUIRE_FALSE(a.findings.empty());
  CHECK(a.events[a.findings.front()].line == 0);  // the warning, listed
  // Known to have failed, the teardown line is evidence the warning can explain.
  check_first(c, log, "net-plugin", 0, failed());
}

TEST_CASE("line precedence: specific rules, then context, then fallback", "[fallback]") {
  Rule benign = make("benign", "none", Role::kContext, 0.1, "NCCL WARN NET/Plugin");
  benign.benign = true;
  auto c = catalog({make("any-warn", "process-crash", Role::kFallback, 0.2, "NCCL WARN"), benign});
  auto a = run(c, "h:1:2 [0] NCCL WARN NET/Plugin : Plugin load returned 2\n");
  CHECK(a.diagnoses.empty());
  CHECK(a.context.size() == 1);
}

TEST_CASE("an error line on the rank the launcher reports as failed is surer", "[fallback]") {
  auto c = catalog({fallback_rule(), exit_rule()});
  auto alone = run(c, "[rank1]: ERROR no such file /data/x\n");
  auto ended = run(c, "[rank1]: ERROR no such file /data/x\n[rank1]: exitcode  : 1 (pid: 4713)\n");
  auto other = run(c, "[rank1]: ERROR no such file /data/x\n[rank0]: exitcode  : 1 (pid: 4713)\n");
  REQUIRE_FALSE(ended.diagnoses.empty());
  CHECK(initiating(ended).line == 0);
  CHECK(ended.diagnoses[0].confidence > alone.diagnoses[0].confidence);
  CHECK(other.diagnoses[0].confidence == Approx(alone.diagnoses[0].confidence));
  CHECK_THAT(ended.diagnoses[0].reasoning, Catch::Contains("exited with an error"));
}

TEST_CASE("an NCCL source file names the subsystem that failed", "[nccl-source]") {
  struct Row {
    const char* file;
    const char* category;  // nullptr: a file every subsystem passes through
  };
  const Row rows[] = {
      {"transport/net_ib.cc:1295", "ib"},
      {"transport/net_ib/connect.cc", "ib"},
      {"misc/ibvwrap.cc:284", "ib"},
      {"misc/socket.cc:567", "socket"},
      {"include/socket.h:344", "socket"},
      {"transport/net_socket.cc", "socket"},
      {"bootstrap.cc:270", "socket"},
      {"include/shm.h:48", "shm"},
      {"misc/shmutils.cc", "shm"},
      {"transport/p2p.cc:417", "p2p"},
      {"transport/nvls.cc:244", "nvlink-fabric"},
      {"graph/xml.cc:850", "config"},
      {"graph/topo.cc", "config"},
      {"misc/gdrwrap.cc", "gdr"},
      {"ib_plugin.c:1615", "ib"},  // the RDMA/SHARP network plugin's files
      {"ucx_plugin.c:498", "net-plugin"},
      {"ucx_rma_plugin.c", "net-plugin"},
      {"sharp_plugin.c:288", nullptr},
      {"init.cc:1548", nullptr},
      {"group.cc:418", nullptr},
      {"enqueue.cc:1981", nullptr},
      {"proxy.cc:1119", nullptr},
      {"", nullptr},
      {"mysocketlib.cc", nullptr},
  };
  for (const auto& r : rows) {
    INFO(r.file);
    auto c = category_of_nccl_file(r.file);
    if (r.category)
      CHECK(c == std::optional<std::string_view>(r.category));
    else
      CHECK_FALSE(c.has_value());
  }
}

TEST_CASE("an NCCL WARN no rule knows takes its category from the file it names", "[nccl-source]") {
  Rule any = make("any-warn", "process-crash", Role::kFallback, 0.2, "NCCL WARN \\S");
  any.decode = Decode::kNcclSource;
  Rule trace = make("trace", "socket", Role::kSymptom, 0.1,
                    "NCCL INFO (?:(?P<nccl_file>\\S+\\.cc):\\d+ )?-> 2$");
  trace.decode = Decode::kNcclSource;
  auto c = catalog({any, trace});
  // A warning alone leads only under a known failure (docs/OUTCOME.md).
  auto failed_run = [&](const std::string& text) {
    LogInput in{"test.log", text};
    return analyze(c, std::span(&in, 1), JobOutcome{JobEnd::kFailed, std::nullopt});
  };
  auto ib = failed_run(
      "gpu1:10:11 [0] transport/net_ib.cc:1999 NCCL WARN NET/IB : a message from a newer "
      "release\n");
  REQUIRE_FALSE(ib.diagnoses.empty());
  CHECK(ib.diagnoses[0].category == "ib");
  auto plain = failed_run("gpu1:10:11 [0] NCCL WARN a message with no file\n");
  REQUIRE_FALSE(plain.diagnoses.empty());
  CHECK(plain.diagnoses[0].category == "process-crash");
  // NCCL prints its return-code trace at INFO level: alone, it leads only under a known
  // failure (docs/OUTCOME.md); otherwise it is listed.
  const std::string trace_only =
      "gpu1:10:11 [0] NCCL INFO misc/shmutils.cc:91 -> 2\ngpu1:10:11 [0] NCCL INFO "
      "init.cc:1548 -> 2\n";
  CHECK(run(c, trace_only).diagnoses.empty());
  LogInput in{"test.log", trace_only};
  auto shm = analyze(c, std::span(&in, 1), JobOutcome{JobEnd::kFailed, std::nullopt});
  REQUIRE_FALSE(shm.diagnoses.empty());
  CHECK(shm.diagnoses[0].category == "shm");
}

TEST_CASE("values a job must agree on: two of them are the root cause", "[agree]") {
  Rule banner =
      make("banner", "none", Role::kContext, 0.1, "NCCL version (?P<version>\\d+\\.\\d+\\.\\d+)");
  banner.agree = Agreement{"version", "", "version", 0.8};
  Rule wheel = make("wheel", "none", Role::kContext, 0.1,
                    "^(?P<package>nvidia-nccl-cu\\d+)==(?P<version>[\\d.]+)$");
  wheel.agree = Agreement{"version", "package", "version", 0.8};
  Rule sock = make("sock", "socket", Role::kCause, 0.6, "family 0 is neither AF_INET");
  auto c = catalog({banner, wheel, sock});
  const std::string error =
      "n1:1:1 [0] NCCL WARN connecting to address with family 0 is neither AF_INET\n";
  // Three nodes say 2.19.3, one 2.20.5: the odd one leads, ahead of the error it causes.
  auto a = run(c,
               "n1:1:1 [0] NCCL INFO NCCL version 2.19.3+cuda12.3\n"
               "n2:1:1 [0] NCCL INFO NCCL version 2.20.5+cuda12.3\n"
               "n3:1:1 [0] NCCL INFO NCCL version 2.19.3+cuda12.3\n"
               "n4:1:1 [0] NCCL INFO NCCL version 2.19.3+cuda12.3\n" +
                   error);
  REQUIRE_FALSE(a.diagnoses.empty());
  CHECK(a.diagnoses[0].category == "version");
  CHECK(initiating(a).line == 1);
  CHECK_THAT(a.diagnoses[0].reasoning, Catch::Contains("2.20.5") && Catch::Contains("2.19.3"));
  // All the same: nothing to say; the error leads.
  auto same = run(c,
                  "n1:1:1 [0] NCCL INFO NCCL version 2.19.3+cuda12.3\n"
                  "n2:1:1 [0] NCCL INFO NCCL version 2.19.3+cuda12.3\n" +
                      error);
  REQUIRE_FALSE(same.diagnoses.empty());
  CHECK(same.diagnoses[0].category == "socket");
  // Different packages may differ (the CUDA 11 and CUDA 12 wheels); one package may not.
  auto two = run(c, "nvidia-nccl-cu11==2.14.3\nnvidia-nccl-cu12==2.20.5\n" + error);
  CHECK(two.diagnoses[0].category == "socket");
  auto odd = run(c, "nvidia-nccl-cu12==2.20.5\nnvidia-nccl-cu12==2.19.3\n" + error);
  CHECK(odd.diagnoses[0].category == "version");
}

TEST_CASE("values no two members may share: a rank claimed twice in one start-up", "[agree]") {
  Rule claim = make("claim", "none", Role::kContext, 0.1,
                    "GLOBAL_RANK: (?P<rank>\\d+), MEMBER: \\d+/(?P<world>\\d+)");
  claim.agree = Agreement{"rank", "", "config", 0.75, true, "world"};
  auto c = catalog({claim});
  auto line = [](int rank, int world) {
    return "initializing ddp: GLOBAL_RANK: " + std::to_string(rank) +
           ", MEMBER: " + std::to_string(rank + 1) + "/" + std::to_string(world) + "\n";
  };
  // Two launches of four processes each computed ranks 0-3 of a world of 8: ranks 4-7 never
  // come, and the repeated claim of rank 1 leads.
  std::string twice;
  for (int r : {1, 1, 2, 2, 3, 3, 0, 0}) twice += line(r, 8);
  auto a = run(c, twice);
  REQUIRE_FALSE(a.diagnoses.empty());
  CHECK(a.diagnoses[0].category == "config");
  CHECK(initiating(a).line == 1);
  CHECK_THAT(a.diagnoses[0].reasoning, Catch::Contains("only 4 of 8"));
  // A restarted job announces every rank again, in a second round: no conflict.
  std::string restarted;
  for (int round = 0; round < 2; ++round)
    for (int r : {0, 1, 2, 3}) restarted += line(r, 4);
  CHECK(run(c, restarted).diagnoses.empty());
  // One node's log across a restart: every claim repeated, but only after the round ended.
  std::string one_node;
  for (int round = 0; round < 2; ++round)
    for (int r : {0, 1, 2, 3}) one_node += line(r, 8);
  CHECK(run(c, one_node).diagnoses.empty());
  // Fewer claims than members (an excerpt) say nothing, repeated or not.
  CHECK(run(c, line(0, 8) + line(0, 8) + line(1, 8)).diagnoses.empty());
  // Every value claimed: the world is complete, whatever else repeats.
  std::string full;
  for (int r : {0, 0, 1, 1}) full += line(r, 2);
  CHECK(run(c, full).diagnoses.empty());
}

TEST_CASE("a line only the fallback knows is named by the subsystem its words name", "[words]") {
  Rule error = make("error", "process-crash", Role::kFallback, 0.2,
                    "(?:^|\\] )(?:ERROR|FATAL)[: ]|NCCL WARN");
  error.words = {{"/dev/shm|shared memory", "shm"}, {"\\bibv_\\w+|\\bmlx5", "ib"}};
  auto c = catalog({error});
  // First match wins, case-insensitive, read after the line's prefixes.
  CHECK(run(c, "[E] ERROR: could not grow Shared Memory segment\n").diagnoses.at(0).category ==
        "shm");
  CHECK(run(c, "ERROR: ibv_create_cq returned 12 on mlx5_2\n").diagnoses.at(0).category == "ib");
  // No word it knows: the rule's own category.
  CHECK(run(c, "ERROR: something unexpected\n").diagnoses.at(0).category == "process-crash");
  // NCCL's WARN lines alone lead only in a job known to have failed.
  auto failed = [](const Catalog& cat, std::string_view text) {
    LogInput in{"test.log", text};
    return analyze(cat, std::span(&in, 1), JobOutcome{JobEnd::kFailed, std::nullopt});
  };
  // The prefix does not count: a host named after shm says nothing.
  CHECK(
      failed(c, "shm-node-1:12:12 [0] NCCL WARN something unexpected\n").diagnoses.at(0).category ==
      "process-crash");
  // The NCCL source file a WARN names is read first (the fallback's nccl-source decode).
  Rule warn = error;
  warn.id = "warn";
  warn.decode = Decode::kNcclSource;
  auto cw = catalog({warn});
  CHECK(failed(cw, "n1:12:12 [0] transport/net_ib.cc:120 NCCL WARN posix_fallocate on /dev/shm\n")
            .diagnoses.at(0)
            .category == "ib");
}

TEST_CASE("a fallback rule without words reads the vocabulary of those with some", "[words]") {
  Rule error = make("error", "process-crash", Role::kFallback, 0.2, "ERROR: ");
  error.words = {{"cannot import name|undefined symbol", "version"}};
  Rule exception = make("exception", "process-crash", Role::kFallback, 0.25,
                        "^(?P<exception>[A-Z]\\w*Error): (?P<message>.+)$");
  auto c = catalog({error, exception});
  CHECK(run(c, "ImportError: cannot import name 'ReduceOp' from 'torch.distributed'\n")
            .diagnoses.at(0)
            .category == "version");
  CHECK(run(c, "RuntimeError: the step failed\n").diagnoses.at(0).category == "process-crash");
  // A rule that is not a fallback never takes the vocabulary.
  Rule cause = make("cause", "cuda", Role::kCause, 0.6, "CUDA error: (?P<what>.+)");
  auto cc = catalog({error, cause});
  CHECK(run(cc, "CUDA error: undefined symbol cuLaunchKernelEx\n").diagnoses.at(0).category ==
        "cuda");
}

TEST_CASE("a job on one host reads a network-or-shm result code as shared memory", "[scope]") {
  Rule table =
      make("table", "none", Role::kContext, 0.1,
           "^#\\s+Rank\\s+(?P<rank>\\d+)\\s+Pid\\s+\\d+\\s+on\\s+(?P<host>\\S+)\\s+device");
  table.members = true;
  Rule comm = make("comm", "none", Role::kContext, 0.1, "nRanks \\d+ nNodes (?P<nodes>\\d+)");
  comm.members = true;
  Rule sys = make("sys", "socket", Role::kCause, 0.3, "'unhandled system error'");
  sys.on_one_host = "shm";
  Rule noib = make("noib", "ib", Role::kFinding, 0.45, "NET/IB : No device found");
  noib.on_one_host = "none";
  auto c = catalog({table, comm, sys, noib});
  const std::string error = "box: Test NCCL failure common.cu:777 'unhandled system error'\n";
  auto rows = [](std::initializer_list<const char*> hosts) {
    std::string s;
    int r = 0;
    for (const char* h : hosts)
      s += "#   Rank  " + std::to_string(r++) + " Pid   1688 on " + h + " device  0 [0x18] GPU\n";
    return s;
  };
  auto one = run(c, rows({"box", "box", "box"}) + error);
  REQUIRE_FALSE(one.diagnoses.empty());
  CHECK(one.diagnoses[0].category == "shm");
  // Two hosts in the table, or nothing that says where the job runs: the rule's category.
  CHECK(run(c, rows({"box", "box", "other"}) + error).diagnoses[0].category == "socket");
  CHECK(run(c, error).diagnoses[0].category == "socket");
  // NCCL's communicator summary: every communicator on one node, or one that spans two.
  CHECK(run(c, "n1:1:1 [0] NCCL INFO comm 0x1 rank 0 nRanks 4 nNodes 1 localRanks 4\n" + error)
            .diagnoses[0]
            .category == "shm");
  CHECK(run(c,
            "n1:1:1 [0] NCCL INFO comm 0x1 rank 0 nRanks 4 nNodes 1 localRanks 4\n"
            "n1:1:1 [0] NCCL INFO comm 0x2 rank 0 nRanks 8 nNodes 2 localRanks 4\n" +
                error)
            .diagnoses[0]
            .category == "socket");
  // An observation about traffic between hosts explains nothing on one host.
  const std::string noib_line = "box:1:1 [0] NCCL INFO NET/IB : No device found.\n";
  auto failed_run = [&](const std::string& text) {
    LogInput in{"test.log", text};
    return analyze(c, std::span(&in, 1), JobOutcome{JobEnd::kFailed, std::nullopt});
  };
  CHECK(failed_run(rows({"box"}) + noib_line).diagnoses.empty());
  auto two = failed_run(rows({"box", "other"}) + noib_line);
  REQUIRE_FALSE(two.diagnoses.empty());
  CHECK(two.diagnoses[0].category == "ib");
}

TEST_CASE("an exception that quotes an earlier line is led by that line", "[first-report]") {
  auto c = catalog(
      {make("flush", "ib", Role::kSymptom, 0.25, "Got completion from peer \\S+ with status=5"),
       make("remote", "remote-peer", Role::kSymptom, 0.5, "remote process exited")});
  const std::string warn =
      "node-a:11:12 [4] transport/net_ib.cc:1673 NCCL WARN NET/IB: Got completion from peer "
      "10.0.1.23<34696> with status=5 opcode=0 len=0 vendor err 249 (Recv)\n";
  const std::string exception =
      "[rank4]:[E1229 16:47:25.333 ProcessGroupNCCL.cpp:541] [Rank 4] found async exception: "
      "NCCL error: remote process exited or there was a network error\n"
      "ncclRemoteError: A call failed possibly due to a network error\n"
      "Last error:\n"
      "NET/IB: Got completion from peer 10.0.1.23<34696> with status=5 opcode=0 len=0 vendor err "
      "249 (Recv)\n";
  // The exception's reading names the category; the warning it quotes is where it began.
  auto a = check_first(c, warn + "node-a:11:11 [4] NCCL INFO proxy.cc:819 -> 6\n" + exception,
                       "remote-peer", 0);
  CHECK_THAT(a.diagnoses.front().reasoning, Catch::Contains("first reported"));
  // A warning about another peer is another failure: the exception's own line leads.
  std::string other = warn;
  other.replace(other.find("10.0.1.23"), 9, "10.0.1.99");
  check_first(c, other + exception, "remote-peer", 1);
  // Without the warning above it, the exception leads.
  check_first(c, exception, "remote-peer", 0);
}

TEST_CASE("a SIGABRT of a rank that reported its own error is that error's consequence",
          "[exit-status]") {
  auto c = catalog({exit_rule(), make("remote", "remote-peer", Role::kSymptom, 0.5,
                                      "remote process exited or there was a network error")});
  const std::string error =
      "[rank5]:[E207 19:37:09.983 ProcessGroupNCCL.cpp:1895] [Rank 5] Process group watchdog "
      "thread terminated with exception: NCCL error: remote process exited or there was a "
      "network error\n";
  // PyTorch took rank 5 down after the error it printed: the error's reading leads.
  auto a = check_first(c, error + "[rank5]: worker exited on signal SIGABRT\n", "remote-peer", 0,
                       failed());
  CHECK(a.diagnoses.front().collateral.size() == 1);
  // Another rank's abort is a crash of its own, and a launcher's account outranks symptoms.
  check_first(c, error + "[rank3]: worker exited on signal SIGABRT\n", "process-crash", 1,
              failed());
  // A kill is no report of one's own error.
  check_first(c, error + "[rank5]: worker exited on signal SIGSEGV\n", "process-crash", 1,
              failed());
}

TEST_CASE("a process's end before the first timeout leads the timeouts", "[symptoms]") {
  auto c = catalog({make("timeout", "straggler", Role::kSymptom, 0.5, "Watchdog caught"),
                    make("died", "process-crash", Role::kSymptom, 0.35, "A worker died"),
                    make("terminate", "process-crash", Role::kSymptom, 0.15, "terminate called")});
  const std::string died = "(raylet) A worker died or was killed while executing a task\n";
  const std::string timeout = "[rank1]: [Rank 1] Watchdog caught collective operation timeout\n";
  check_first(c, died + timeout, "process-crash", 0, failed());
  // After the timeout, the death is the timeout's consequence.
  check_first(c, timeout + died, "straggler", 0, failed());
  // std::terminate after the watchdog's exception is teardown, not an end of its own.
  check_first(c,
              "terminate called after throwing an instance of 'c10::DistBackendError'\n" + timeout,
              "straggler", 1, failed());
}
