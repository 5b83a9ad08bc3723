// The job's outcome as input (analysis/outcome.hpp), crash reports placed by their frames,
// the component a line names outranking a generic rule, and INFO lines that never lead
// alone. Rules here are small and written for each case, independent of the shipped catalog.
#include "analysis/outcome.hpp"

#include <catch2/catch.hpp>

#include "analysis/analyze.hpp"
#include "diagnosis_test_util.hpp"

using namespace ff::analysis;
using namespace ff::test;

namespace {

// A finding that explains failures of its own category only (with no `explains`, a finding
// explains any failure evidence in the log, the fallback's error line included).
Rule finding(std::string id, std::string category, double weight, std::string pattern) {
  Rule r = make(std::move(id), category, Role::kFinding, weight, std::move(pattern));
  r.explains = {category};
  return r;
}

}  // namespace

TEST_CASE("outcome: an exit code is read as the shell or Python reports it", "[outcome]") {
  CHECK(parse_exit_code("0") == 0);
  CHECK(parse_exit_code("137") == 137);
  CHECK(parse_exit_code("255") == 255);
  CHECK(parse_exit_code("-9") == -9);
  CHECK_FALSE(parse_exit_code("256").has_value());
  CHECK_FALSE(parse_exit_code("-65").has_value());
  CHECK_FALSE(parse_exit_code("12x").has_value());
  CHECK_FALSE(parse_exit_code("").has_value());
  CHECK_FALSE(parse_exit_code("99999999999999999999").has_value());

  CHECK(JobOutcome{}.known_failure() == false);
  CHECK(JobOutcome{JobEnd::kUnknown, 0}.known_failure() == false);
  CHECK(JobOutcome{JobEnd::kUnknown, 1}.known_failure());
  CHECK(hung().known_failure());
  CHECK_THAT(describe_outcome({JobEnd::kUnknown, 137}), Catch::Contains("SIGKILL"));
  CHECK_THAT(describe_outcome({JobEnd::kUnknown, -11}), Catch::Contains("SIGSEGV"));
  CHECK_THAT(describe_outcome(hung()), Catch::Contains("hung"));
  CHECK(describe_outcome({}).empty());
}

TEST_CASE("outcome: under a known failure, a finding nothing else explains leads", "[outcome]") {
  auto c = catalog({finding("lo-bootstrap", "socket", 0.6, "Bootstrap : Using lo:"),
                    make("err", "process-crash", Role::kFallback, 0.2, "ERROR")});
  const std::string log =
      "node1:1:1 [0] NCCL INFO Bootstrap : Using lo:127.0.0.1<0>\n"
      "node1:1:1 [0] NCCL INFO Connected all rings\n";
  // Without the outcome: a healthy run prints the same, so it stays a finding.
  auto plain = run(c, log);
  CHECK(plain.diagnoses.empty());
  CHECK(plain.findings.size() == 1);
  CHECK_FALSE(plain.unexplained);
  // With it: the observation is the hypothesis, and says why.
  for (JobOutcome o : {failed(), hung(), JobOutcome{JobEnd::kUnknown, 1}}) {
    auto a = run(c, log, o);
    REQUIRE(a.diagnoses.size() == 1);
    CHECK(a.diagnoses.front().category == "socket");
    CHECK(initiating(a).line == 0);
    CHECK_THAT(a.diagnoses.front().reasoning, Catch::Contains("can explain it"));
    CHECK(a.findings.empty());
    CHECK_FALSE(a.unexplained);
  }
  // An exit code of 0 says the job succeeded: nothing changes.
  CHECK(run(c, log, {JobEnd::kUnknown, 0}).diagnoses.empty());
}

TEST_CASE("outcome: an observation that waits for a known failure is not listed before one",
          "[outcome]") {
  Rule p2p = make("p2p-channel", "p2p", Role::kFinding, 0.25, "via P2P/IPC");
  p2p.only_under_failure = true;
  auto c = catalog({p2p, make("timeout", "straggler", Role::kSymptom, 0.5, "Watchdog caught"),
                    make("err", "process-crash", Role::kFallback, 0.2, "ERROR")});
  const std::string channels =
      "box:7:9 [0] NCCL INFO Channel 00 : 0[3b000] -> 1[5e000] via P2P/IPC\n"
      "box:8:10 [1] NCCL INFO Channel 00 : 1[5e000] -> 0[3b000] via P2P/IPC\n";
  // What every working single-node job prints: neither a diagnosis nor a finding.
  check_silent(c, channels);
  // A job known to hang with nothing else in its log: the hypothesis, led by the first line.
  auto a = check_lead(c, channels, hung(), "p2p", 0);
  // The log shows a failure (a timeout, the first error line): that leads, and without the
  // outcome the observation is neither a hypothesis nor listed.
  for (std::string more :
       {"[Rank 1] Watchdog caught collective operation timeout\n", "ERROR: rank 1 died\n"}) {
    auto b = run(c, channels + more, hung());
    REQUIRE_FALSE(b.diagnoses.empty());
    CHECK(b.diagnoses.front().category != "p2p");
    auto quiet = run(c, channels + more);
    REQUIRE_FALSE(quiet.diagnoses.empty());
    for (const auto& d : quiet.diagnoses) CHECK(d.category != "p2p");
    CHECK(quiet.findings.empty());
  }
}

TEST_CASE("outcome: a setup step explains a failure only where its process stopped there",
          "[outcome]") {
  Rule p2p = make("p2p-channel", "p2p", Role::kFinding, 0.15, "via P2P/IPC");
  p2p.only_under_failure = true;
  Rule nvls = make("nvls-step", "nvlink-fabric", Role::kFinding, 0.2, "NCCL INFO NVLS \\w+");
  nvls.only_under_failure = true;
  nvls.setup_step = true;
  Rule done = make("init-complete", "none", Role::kContext, 0.05, "Init COMPLETE");
  done.progress = true;
  auto c = catalog({p2p, nvls, done});
  const std::string steps =
      "box:7:9 [0] NCCL INFO Channel 00 : 0[0] -> 1[1] via P2P/IPC\n"
      "box:7:9 [0] NCCL INFO NVLS Creating Multicast group nranks 8\n"
      "box:8:10 [1] NCCL INFO NVLS Creating Multicast group nranks 8\n"
      "box:7:9 [0] NCCL INFO NVLS Bind mem 0xac0000000 size 1073741824\n";
  // A working job prints the same steps: nothing without a known failure.
  check_silent(c, steps);
  // Hung with no Init COMPLETE: the later setup step leads (the P2P channels were passed
  // before NVLS began), and of the steps the last one printed.
  auto a = run(c, steps, hung());
  REQUIRE_FALSE(a.diagnoses.empty());
  CHECK(a.diagnoses.front().category == "nvlink-fabric");
  CHECK(initiating(a).line == 3);
  CHECK_THAT(a.diagnoses.front().reasoning,
             Catch::Contains("the last setup step its process printed"));
  // Every process finished setting up its communicator: the steps were passed and explain
  // nothing; the P2P channels, which a hang in the first collective follows, still may.
  const std::string passed = steps +
                             "box:7:9 [0] NCCL INFO comm 0x1 rank 0 nranks 8 - Init COMPLETE\n"
                             "box:8:10 [1] NCCL INFO comm 0x2 rank 1 nranks 8 - Init COMPLETE\n";
  auto b = run(c, passed, hung());
  for (const auto& d : b.diagnoses) CHECK(d.category != "nvlink-fabric");
  REQUIRE_FALSE(b.diagnoses.empty());
  CHECK(b.diagnoses.front().category == "p2p");
  // One process finished and the other did not: the one that stopped leads.
  const std::string one =
      steps + "box:7:9 [0] NCCL INFO comm 0x1 rank 0 nranks 8 - Init COMPLETE\n";
  auto d = run(c, one, hung());
  REQUIRE_FALSE(d.diagnoses.empty());
  CHECK(d.diagnoses.front().category == "nvlink-fabric");
  CHECK(initiating(d).line == 2);
}

TEST_CASE(
    "outcome: a line of a thread that reports to no caller is evidence only of a known failure",
    "[outcome]") {
  // NCCL's proxy service thread closes the one connection that failed and goes on: at the
  // end of a run whose ranks exit without destroying their communicator it prints these,
  // with an INFO back-trace, and the job has completed.
  Rule peer = make("proxy-peer", "remote-peer", Role::kSymptom, 0.25,
                   "\\[Service thread\\] (?:Accept failed|Could not receive type)");
  peer.background = true;
  Rule trace = make("trace", "socket", Role::kSymptom, 0.1, "NCCL INFO \\S+\\.cc:\\d+ -> 3");
  Rule generic = make("generic", "process-crash", Role::kFallback, 0.2, "NCCL WARN|RuntimeError:");
  auto c = catalog({peer, trace, generic});
  const std::string teardown =
      "box:7:9 [0] proxy.cc:1458 NCCL WARN [Service thread] Accept failed Resource temporarily "
      "unavailable\n"
      "box:7:9 [0] NCCL INFO misc/socket.cc:826 -> 3\n"
      "box:7:9 [0] proxy.cc:1497 NCCL WARN [Service thread] Could not receive type from localRank "
      "0, res=3, closed=0\n";
  // No diagnosis; the lines may be listed as observations, as INFO-level teardown lines are.
  CHECK(run(c, teardown, JobOutcome{}).diagnoses.empty());
  // Without the flag the same WARN lines are a failure the log shows.
  Rule loud = peer;
  loud.background = false;
  auto c2 = catalog({loud, trace, generic});
  REQUIRE_FALSE(run(c2, teardown, JobOutcome{}).diagnoses.empty());
  // The job is known to have failed: they are the symptom their rule says, and lead.
  auto a = run(c, teardown, failed());
  REQUIRE_FALSE(a.diagnoses.empty());
  CHECK(a.diagnoses.front().category == "remote-peer");
  // An error the application raised is a failure the log shows, and leads.
  auto b = run(c, teardown + "RuntimeError: CUDA error: an illegal memory access was encountered\n",
               JobOutcome{});
  REQUIRE_FALSE(b.diagnoses.empty());
  CHECK(b.diagnoses.front().category == "process-crash");
}

TEST_CASE(
    "outcome: a warning at its producer's own warning level is evidence only of a known failure",
    "[outcome]") {
  // c10's C10D_WARNING: TCPStore warns of a lost connection and rethrows; a caller that
  // retries goes on, one that does not fails with an exception of its own.
  Rule store = make("store-reset", "rendezvous", Role::kSymptom, 0.2,
                    "recvValue failed on SocketImpl|Connection reset by peer.*TCPStore");
  Rule nccl =
      make("nccl-remote", "remote-peer", Role::kSymptom, 0.3, "Connection closed by remote peer");
  auto c = catalog({store, nccl});
  const std::string warned =
      "[W506 00:43:56.240378877 TCPStore.cpp:125] [c10d] recvValue failed on SocketImpl(fd=3): "
      "Connection reset by peer\n";
  CHECK(run(c, warned, JobOutcome{}).diagnoses.empty());
  auto a = run(c, warned, failed());
  REQUIRE_FALSE(a.diagnoses.empty());
  CHECK(a.diagnoses.front().category == "rendezvous");
  // NCCL's WARN is its error level: it stays evidence alone.
  const std::string nccl_warn =
      "box:7:9 [0] misc/socket.cc:47 NCCL WARN socketProgress: Connection closed by remote peer\n";
  REQUIRE_FALSE(run(c, nccl_warn, JobOutcome{}).diagnoses.empty());
}

TEST_CASE("a failed attempt its process retries is no failure; the last attempt is", "[outcome]") {
  Rule retry =
      make("retrying", "socket", Role::kSymptom, 0.4,
           "connect returned (?P<error>.+?), retrying \\((?P<attempt>\\d+)/(?P<attempts>\\d+)\\)");
  // An error-level line (a warning alone is never a diagnosis without a known failure).
  Rule generic = make("generic", "process-crash", Role::kFallback, 0.2, "NCCL ERROR");
  auto c = catalog({retry, generic});
  // An error line of process 7, then a retry notice of `writer` at attempt `attempt`.
  auto log = [](const std::string& writer, const std::string& attempt) {
    return "box:7:9 [0] misc/socket.cc:602 NCCL ERROR socketPollConnect poll() failed\n" + writer +
           " NCCL INFO socketPollConnect: connect returned Connection timed out, retrying (" +
           attempt + "/34)\n";
  };
  CHECK(run(c, log("box:7:9 [0]", "1"), JobOutcome{}).diagnoses.empty());
  // Another process's retry says nothing of this one's failure.
  REQUIRE_FALSE(run(c, log("box:8:10 [1]", "1"), JobOutcome{}).diagnoses.empty());
  // The last attempt failing is the failure.
  REQUIRE_FALSE(run(c, log("box:7:9 [0]", "34"), JobOutcome{}).diagnoses.empty());
}

TEST_CASE("outcome: a failure the log shows is not explained by an unrelated observation",
          "[outcome]") {
  auto c = catalog({finding("lo-bootstrap", "socket", 0.9, "Bootstrap : Using lo:"),
                    make("oom", "gpu-oom", Role::kCause, 0.8, "CUDA out of memory")});
  auto a = run(c,
               "node1:1:1 [0] NCCL INFO Bootstrap : Using lo:127.0.0.1<0>\n"
               "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB\n",
               failed());
  REQUIRE_FALSE(a.diagnoses.empty());
  CHECK(a.diagnoses.front().category == "gpu-oom");
}

TEST_CASE("outcome: a finding leads the first error line only when it weighs more", "[outcome]") {
  auto weak = catalog({finding("old-release", "version", 0.2, "NCCL version 2\\.4\\."),
                       make("err", "process-crash", Role::kFallback, 0.2, "ERROR")});
  const std::string log = "NCCL version 2.4.8+cuda10.2\nERROR: step 3 failed\n";
  auto a = run(weak, log, failed());
  REQUIRE_FALSE(a.diagnoses.empty());
  CHECK(a.diagnoses.front().category == "process-crash");  // 0.2 beats 0.2 * 0.7
  auto strong = catalog({finding("old-release", "version", 0.8, "NCCL version 2\\.4\\."),
                         make("err", "process-crash", Role::kFallback, 0.2, "ERROR")});
  auto b = run(strong, log, failed());
  REQUIRE_FALSE(b.diagnoses.empty());
  CHECK(b.diagnoses.front().category == "version");
}

TEST_CASE("outcome: a failure nothing explains is unexplained, with the capture fix", "[outcome]") {
  Rule capture = make(std::string(kEvidenceCaptureRule), "straggler", Role::kContext, 0.2,
                      "FlightRecorder is disabled");
  capture.fix.env = {{"TORCH_FR_BUFFER_SIZE", "2000"}};
  auto c = catalog({capture, make("oom", "gpu-oom", Role::kCause, 0.8, "CUDA out of memory")});
  const std::string log = "epoch 1 step 10 loss 0.5\nepoch 1 step 20 loss 0.4\n";
  auto plain = run(c, log);
  CHECK(plain.diagnoses.empty());
  CHECK_FALSE(plain.unexplained);
  auto a = run(c, log, hung());
  CHECK(a.diagnoses.empty());
  CHECK(a.unexplained);
  REQUIRE(a.capture_rule.has_value());
  CHECK(c.rules()[*a.capture_rule].id == kEvidenceCaptureRule);
  CHECK(a.outcome.hung());
}

TEST_CASE("INFO lines never lead alone without a known failure", "[outcome]") {
  auto c = catalog(
      {make("peer-closed", "remote-peer", Role::kSymptom, 0.5, "Connection closed by localRank")});
  const std::string log =
      "node1:7:9 [0] NCCL INFO [Service thread] Connection closed by localRank 1\n";
  auto plain = run(c, log);
  CHECK(plain.diagnoses.empty());
  CHECK(plain.findings.size() == 1);  // listed, not lost
  auto a = run(c, log, failed());
  REQUIRE_FALSE(a.diagnoses.empty());
  CHECK(a.diagnoses.front().category == "remote-peer");
  // The same words at WARN level are evidence on their own.
  auto w = run(c, "node1:7:9 [0] NCCL WARN [Service thread] Connection closed by localRank 1\n");
  CHECK_FALSE(w.diagnoses.empty());
}

TEST_CASE("the NCCL source file outranks a generic rule", "[precedence]") {
  auto c = catalog({make("syscall", "socket", Role::kCause, 0.35, "Call to \\w+ failed")});
  auto a = run(c,
               "gpu2:2143:2561 [1] include/shm.h:28 NCCL WARN Call to posix_fallocate failed : "
               "No space left on device\n");
  REQUIRE_FALSE(a.diagnoses.empty());
  CHECK(a.diagnoses.front().category == "shm");
  // A specific rule keeps its own category.
  auto specific = catalog({make("syscall", "socket", Role::kCause, 0.8, "Call to \\w+ failed")});
  auto b =
      run(specific,
          "gpu2:2143:2561 [1] include/shm.h:28 NCCL WARN Call to posix_fallocate failed : x\n");
  REQUIRE_FALSE(b.diagnoses.empty());
  CHECK(b.diagnoses.front().category == "socket");
}

TEST_CASE("a crash report takes its category from its innermost recognised frame", "[frames]") {
  Rule crash = make("signal-handler", "process-crash", Role::kCause, 0.7,
                    "\\*\\*\\* Process received signal \\*\\*\\*");
  Rule shm_frame = make("frame-shm", "shm", Role::kContext, 0.6, "\\(ncclShm\\w*\\+0x[0-9a-f]+\\)");
  shm_frame.decode = Decode::kFrame;
  Rule ib_frame = make("frame-ib", "ib", Role::kContext, 0.6, "libmlx5\\.so[.\\d]*\\(");
  ib_frame.decode = Decode::kFrame;
  Rule kernel = make("kernel-segv", "process-crash", Role::kCause, 0.55,
                     "segfault at [0-9a-f]+ ip [0-9a-f]+ sp [0-9a-f]+ error \\d+ in \\S+");
  Rule lib_frame = make("frame-lib-ib", "ib", Role::kContext, 0.5, " in libmlx5\\.so[.\\d]*\\[");
  lib_frame.decode = Decode::kFrame;
  auto c = catalog({crash, shm_frame, ib_frame, kernel, lib_frame});

  const std::string block =
      "[node1:4242] *** Process received signal ***\n"
      "[node1:4242] Signal: Bus error (7)\n"
      "[node1:4242] [ 0] /lib/x86_64-linux-gnu/libc.so.6(+0x42520)[0x7f00]\n"
      "[node1:4242] [ 1] /usr/lib/libnccl.so.2(ncclShmOpen+0x1c2)[0x7f01]\n"
      "[node1:4242] [ 2] /usr/lib/libmlx5.so.1(+0x99)[0x7f02]\n";
  auto a = check_first(c, block, "shm", 0);  // the innermost recognised frame
  CHECK_THAT(a.diagnoses.front().reasoning, Catch::Contains("line 4"));
  CHECK(a.context.empty());  // frames are read beside their crash, not listed

  // Frames of another process, or far below, do not place the crash.
  auto other = run(c,
                   "[node1:4242] *** Process received signal ***\n"
                   "[node2:77] [ 1] /usr/lib/libnccl.so.2(ncclShmOpen+0x1c2)[0x7f01]\n");
  REQUIRE_FALSE(other.diagnoses.empty());
  CHECK(other.diagnoses.front().category == "process-crash");
  std::string far = "[node1:4242] *** Process received signal ***\n";
  for (int i = 0; i < 80; ++i) far += "noise\n";
  far += "[node1:4242] [ 1] /usr/lib/libnccl.so.2(ncclShmOpen+0x1c2)[0x7f01]\n";
  CHECK(run(c, far).diagnoses.front().category == "process-crash");

  // The kernel names the library on the crash line itself.
  auto k = run(c,
               "[12.5] python[4242]: segfault at 8 ip 00007f sp 00007e error 4 in "
               "libmlx5.so.1[7f00+1000]\n");
  REQUIRE_FALSE(k.diagnoses.empty());
  CHECK(k.diagnoses.front().category == "ib");
}

TEST_CASE("an uncaught exception takes its category from its traceback's frames", "[frames]") {
  Rule exception = make("exception", "process-crash", Role::kFallback, 0.25,
                        "^(?:\\[rank\\d+\\]: )?(?P<exception>[A-Z]\\w*Error): (?P<message>.+)$");
  Rule plain = make("error", "process-crash", Role::kFallback, 0.2, "^ERROR: ");
  Rule frame = make("frame-rdzv", "rendezvous", Role::kContext, 0.7,
                    "File \"[^\"]*/torch/distributed/rendezvous\\.py\", line \\d+");
  frame.decode = Decode::kFrame;
  auto c = catalog({exception, plain, frame});
  const std::string frames =
      "Traceback (most recent call last):\n"
      "  File \"/w/train.py\", line 9, in <module>\n"
      "  File \"/py/torch/distributed/rendezvous.py\", line 176, in _create_c10d_store\n"
      "  File \"/py/torch/_ops.py\", line 12, in __call__\n";
  // The nearest placed frame above the exception, passing over frames nothing places.
  auto a = run(c, frames + "RuntimeError: the peer went away\n");
  REQUIRE_FALSE(a.diagnoses.empty());
  CHECK(a.diagnoses.front().category == "rendezvous");
  CHECK(initiating(a).line == 4);
  CHECK_THAT(a.diagnoses.front().reasoning, Catch::Contains("which places it in rendezvous"));
  // A frame below the exception, another rank's, or one too far above does not place it.
  auto below = run(c, "RuntimeError: the peer went away\n" + frames);
  CHECK(below.diagnoses.front().category == "process-crash");
  auto other = run(c,
                   "[rank1]:   File \"/py/torch/distributed/rendezvous.py\", line 176, in f\n"
                   "[rank0]: RuntimeError: the peer went away\n");
  CHECK(other.diagnoses.front().category == "process-crash");
  std::string far = frames;
  for (int i = 0; i < 60; ++i) far += "noise\n";
  CHECK(run(c, far + "RuntimeError: the peer went away\n").diagnoses.front().category ==
        "process-crash");
  // A line that does not name an exception type is no traceback's end.
  CHECK(run(c, frames + "ERROR: the peer went away\n").diagnoses.front().category ==
        "process-crash");
}

TEST_CASE("a log that shows its job completing makes no failure of its error lines", "[outcome]") {
  Rule done = make("tests-done", "none", Role::kContext, 0.05, "Out of bounds values : 0 OK");
  done.success = true;
  auto c = catalog({done, make("err", "process-crash", Role::kFallback, 0.2, "NCCL WARN \\S"),
                    make("oom", "gpu-oom", Role::kCause, 0.8, "CUDA out of memory")});
  const std::string log =
      "node1:7:9 [0] NCCL WARN a plugin could not be loaded\n# Out of bounds values : 0 OK\n";
  auto plain = run(c, log);
  CHECK(plain.diagnoses.empty());
  CHECK(plain.findings.size() == 1);
  // Told that the job failed, the error line is a lead again.
  CHECK_FALSE(run(c, log, failed()).diagnoses.empty());
  // A specific cause is never hidden by a success line.
  CHECK_FALSE(run(c, "CUDA out of memory\n# Out of bounds values : 0 OK\n").diagnoses.empty());
}

TEST_CASE("an error line after which its process went on working is no failure", "[outcome]") {
  Rule init = make("init-done", "none", Role::kContext, 0.05, "Init COMPLETE");
  init.progress = true;
  auto c = catalog({init, make("err", "process-crash", Role::kFallback, 0.2, "\\[E\\d{4} \\S")});
  const std::string error =
      "[rank0]:[E1203 10:11:12.123456 helper.cpp:88] an optional feature failed\n";
  const std::string done =
      "[rank0]:node1:7:9 [0] NCCL INFO comm 0x1 rank 0 nranks 2 - Init COMPLETE\n";
  const std::string other =
      "[rank1]:node1:8:9 [1] NCCL INFO comm 0x1 rank 1 nranks 2 - Init COMPLETE\n";
  // The same process completed its communicator after the error.
  CHECK(run(c, error + done).diagnoses.empty());
  // Another process's progress, or progress before the error, says nothing about it.
  CHECK_FALSE(run(c, error + other).diagnoses.empty());
  CHECK_FALSE(run(c, done + error).diagnoses.empty());
}

TEST_CASE("warnings no rule knows are no failure alone, and lead under one", "[outcome]") {
  auto c =
      catalog({make("err", "process-crash", Role::kFallback, 0.2, "NCCL WARN \\S"),
               make("timeout", "straggler", Role::kSymptom, 0.5, "Watchdog caught"),
               make("trace", "process-crash", Role::kSymptom, 0.1, "NCCL INFO \\S+ -> \\d+$")});
  const std::string warn = "node1:7:9 [0] NCCL WARN NET/OFI declined to initialise\n";
  // NCCL warns of what it goes on from: alone, the warning is listed, not a cause.
  auto alone = run(c, warn);
  CHECK(alone.diagnoses.empty());
  CHECK(alone.findings.size() == 1);
  // Nor beside INFO-level lines only (NCCL's return-code trace during a teardown).
  CHECK(run(c, warn + "node1:7:9 [0] NCCL INFO proxy.cc:996 -> 3\n").diagnoses.empty());
  // Under a known failure it is the best lead there is.
  auto failed_run = run(c, warn, failed());
  REQUIRE_FALSE(failed_run.diagnoses.empty());
  CHECK(failed_run.diagnoses[0].category == "process-crash");
  // Beside a sign of failure (a watchdog timeout after it), it leads as before.
  auto shown = run(c, warn + "[rank1]:[E1203 10:11:12.1 ProcessGroupNCCL.cpp:1] Watchdog caught\n");
  REQUIRE_FALSE(shown.diagnoses.empty());
  CHECK(shown.diagnoses[0].category == "process-crash");
}

TEST_CASE("outcome: a line that says in words that a subsystem failed leads a known failure",
          "[outcome]") {
  Rule err = make("err", "process-crash", Role::kFallback, 0.2, "ERROR");
  err.words = {{"/dev/shm|shared memory", "shm"}, {"ibv_|infiniband", "ib"}};
  Rule worded = make("worded", "process-crash", Role::kFallback, 0.1,
                     "(?i)\\b(?:failed|could not|unable to)\\b");
  worded.only_under_failure = true;
  auto c = catalog({err, worded, make("timeout", "straggler", Role::kSymptom, 0.5, "Watchdog")});
  const std::string log =
      "step 10 loss 1.2\n"
      "worker 3: could not open /dev/infiniband/uverbs0, retrying\n"
      "the data loader could not open shard 7\n"
      "step 11 loss 1.1\n";
  // A working job prints such lines too: nothing, not even a finding.
  check_silent(c, log);
  // Known to have failed: the earliest placed line leads; the unplaced one says nothing.
  auto a = check_lead(c, log, failed(), "ib", 1);
  CHECK_THAT(a.diagnoses.front().reasoning, Catch::Contains("in words"));
  // A line that names no subsystem is no lead: the failure stays unexplained.
  auto unplaced = run(c, "the data loader could not open shard 7\n", failed());
  CHECK(unplaced.diagnoses.empty());
  CHECK(unplaced.unexplained);
  // A timeout in the log shows the failure, and the worded line before it leads it.
  auto t = run(c, log + "[Rank 1] Watchdog caught collective operation timeout\n");
  REQUIRE_FALSE(t.diagnoses.empty());
  CHECK(t.diagnoses.front().category == "ib");
  // An error-level line no rule knows outranks words alone.
  auto e = run(c, "ERROR: step 3 failed\n" + log, failed());
  REQUIRE_FALSE(e.diagnoses.empty());
  CHECK(e.diagnoses.front().category == "process-crash");
  CHECK(initiating(e).line == 0);
}
