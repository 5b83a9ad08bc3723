// Crash reports of the communication libraries under distributed jobs, with the shipped
// catalog: a signal handler's block (UCX's, Open MPI's), a debugger's or glibc's backtrace takes
// the category of its innermost recognised frame. The reports are composed from the producers'
// formats (UCX src/ucs/debug/debug.c, Open MPI opal/util/stacktrace.c, glibc backtrace_symbols,
// gdb, lldb), with frames named as the libraries name their functions.
#include <catch2/catch.hpp>

#include <string>

#include "analysis/analyze.hpp"
#include "builtin_catalog.hpp"

using namespace ff::analysis;

namespace {

Analysis run(std::string_view text) {
  LogInput in{"test.log", text};
  return analyze(ff::test::builtin_catalog(), std::span(&in, 1));
}

const std::string& rule_id(std::size_t rule) {
  return ff::test::builtin_catalog().rules()[rule].id;
}

// UCX's handler: the crash line, then its backtrace, innermost frame first, with the handler's
// own frames (UCX 1.x leaves them out when it can; older builds and backtrace_symbols keep them).
std::string ucx_block(const std::string& frames) {
  return "[gpu-node07:48211:0:48211] Caught signal 11 (Segmentation fault: address not mapped to "
         "object at address 0x8)\n"
         "==== backtrace (tid:  48211) ====\n" +
         frames + "=================================\n";
}

// Open MPI's handler block.
std::string ompi_block(const std::string& signal, const std::string& frames) {
  return "[gpu-node07:48211] *** Process received signal ***\n"
         "[gpu-node07:48211] Signal: " +
         signal +
         "\n"
         "[gpu-node07:48211] Signal code: Address not mapped (1)\n"
         "[gpu-node07:48211] Failing at address: 0x8\n"
         "[gpu-node07:48211] [ 0] /lib/x86_64-linux-gnu/libc.so.6(+0x42520)[0x7f6c1b042520]\n" +
         frames + "[gpu-node07:48211] *** End of error message ***\n";
}

}  // namespace

TEST_CASE("a crash report of a communication library is placed by its innermost frame",
          "[frames][crash]") {
  struct Case {
    const char* what;
    std::string text;
    const char* category;    // the diagnosis's category
    const char* frame_rule;  // the frame rule that placed it, or nullptr (not placed)
  };
  const std::string handler =
      " 0  /usr/lib/x86_64-linux-gnu/libucs.so.0(ucs_handle_error+0x2e4) [0x7f6c1a6b82f4]\n"
      " 1  /usr/lib/x86_64-linux-gnu/libucs.so.0(+0x2f4bc) [0x7f6c1a6b84bc]\n"
      " 2  /usr/lib/x86_64-linux-gnu/libucs.so.0(+0x2f68a) [0x7f6c1a6b868a]\n"
      " 3  /lib/x86_64-linux-gnu/libc.so.6(+0x42520) [0x7f6c1b042520]\n";
  const Case cases[] = {
      {"UCX, backtrace_symbols frames: the mm transport's short send",
       ucx_block(
           handler +
           " 4  /usr/lib/x86_64-linux-gnu/libuct.so.0(uct_mm_ep_am_short+0x8e) [0x7f6c1a4d2a1e]\n"
           " 5  /usr/lib/x86_64-linux-gnu/libucp.so.0(ucp_tag_send_nbx+0x6a1) [0x7f6c1a5f3b11]\n"
           " 6  "
           "/usr/lib/x86_64-linux-gnu/openmpi/lib/openmpi3/mca_pml_ucx.so(mca_pml_ucx_send+0x1a1) "
           "[0x7f6c19a0d8e1]\n"),
       "shm", "frame-ucx-shm"},
      {"UCX, detailed frames: the ud transport under a verbs frame",
       ucx_block(" 0 0x0000000000054d3c ucs_debug_print_backtrace()  "
                 "/build-result/src/ucx-39c8f9b/src/ucs/debug/debug.c:656\n"
                 " 1 0x000000000002f8a1 mlx5_poll_cq_v1()  ??:0\n"
                 " 2 0x0000000000021e3c uct_ud_mlx5_iface_progress()  "
                 "/build-result/src/ucx-39c8f9b/src/uct/ib/ud/accel/ud_mlx5.c:506\n"
                 " 3 0x000000000004a8e1 ucp_worker_progress()  "
                 "/build-result/src/ucx-39c8f9b/src/ucp/core/ucp_worker.c:2889\n"),
       "ib", "frame-verbs"},
      {"UCX, detailed frames: the rc accelerated transport",
       ucx_block(" 0 0x000000000003b1a4 uct_rc_mlx5_iface_progress_cyclic()  "
                 "/build-result/src/ucx-39c8f9b/src/uct/ib/rc/accel/rc_mlx5_iface.c:183\n"
                 " 1 0x000000000004a8e1 ucp_worker_progress()  "
                 "/build-result/src/ucx-39c8f9b/src/ucp/core/ucp_worker.c:2889\n"),
       "ib", "frame-ucx-ib"},
      {"UCX: CUDA IPC handle mapping",
       ucx_block(
           handler +
           " 4  /usr/lib/x86_64-linux-gnu/ucx/libuct_cuda.so.0(uct_cuda_ipc_map_memhandle+0x2d4) "
           "[0x7f6c19e12a84]\n"),
       "p2p", "frame-ucx-cuda-ipc"},
      {"UCX: the CUDA copy transport over the driver",
       ucx_block(handler +
                 " 4  /usr/lib/x86_64-linux-gnu/libcuda.so.1(+0x2a3f1b) [0x7f1b22c4a9b2]\n"
                 " 5  "
                 "/usr/lib/x86_64-linux-gnu/ucx/"
                 "libuct_cuda.so.0(uct_cuda_copy_post_cuda_async_copy+0x8c) [0x7f6c19e0a6bc]\n"),
       "version", "frame-cuda-driver"},
      {"UCX: the gdr_copy transport",
       ucx_block(handler + " 4  /usr/lib/x86_64-linux-gnu/ucx/libuct_cuda_gdrcopy.so.0(+0x2b3a) "
                           "[0x7f6c19c01b3a]\n"),
       "gdr", "frame-ucx-gdr-copy"},
      {"UCX: the tcp transport",
       ucx_block(handler + " 4  /usr/lib/x86_64-linux-gnu/libuct.so.0(uct_tcp_ep_am_bcopy+0x9e) "
                           "[0x7f6c1a4e81ee]\n"),
       "socket", "frame-ucx-tcp"},
      {"UCX: nothing but the handler and UCP frames",
       ucx_block(handler + " 4  /usr/lib/x86_64-linux-gnu/libucp.so.0(ucp_worker_progress+0x2a) "
                           "[0x7f6c1a5e1f9a]\n"),
       "process-crash", nullptr},
      {"UCX's async thread (thread name a), through mpirun's tag",
       "[1,3]<stderr>:[gpu-node07:48211:a:48290] Caught signal 11 (Segmentation fault: invalid "
       "permissions for mapped object at address 0x7f0a00001000)\n"
       "[1,3]<stderr>:==== backtrace (tid:  48290) ====\n"
       "[1,3]<stderr>: 0  /opt/hpcx/ucx/lib/ucx/libuct_cma.so.0(uct_cma_ep_tx+0x1b4) "
       "[0x7f6c1a2b3e10]\n",
       "shm", "frame-ucx-shm"},
      {"Open MPI: btl openib under pml ob1",
       ompi_block("Segmentation fault (11)",
                  "[gpu-node07:48211] [ 1] "
                  "/usr/lib64/openmpi/lib/openmpi/mca_btl_openib.so(+0x1f2a4)[0x7f6c1891f2a4]\n"
                  "[gpu-node07:48211] [ 2] "
                  "/usr/lib64/openmpi/lib/libopen-pal.so.40(opal_progress+0x2c)[0x7f6c1a1f0f2c]\n"
                  "[gpu-node07:48211] [ 3] "
                  "/usr/lib64/openmpi/lib/openmpi/"
                  "mca_pml_ob1.so(mca_pml_ob1_send+0x4a1)[0x7f6c19a1c2e1]\n"),
       "ib", "frame-ompi-btl-ib"},
      {"Open MPI: btl vader",
       ompi_block("Segmentation fault (11)",
                  "[gpu-node07:48211] [ 1] "
                  "/usr/lib/x86_64-linux-gnu/openmpi/lib/openmpi3/"
                  "mca_btl_vader.so(mca_btl_vader_poll_handle_frag+0x4e)[0x7f6c18a0b1ce]\n"),
       "shm", "frame-ompi-btl-shm"},
      {"Open MPI 5: btl sm built into libopen-pal",
       ompi_block("Segmentation fault (11)",
                  "[gpu-node07:48211] [ 1] "
                  "/opt/openmpi-5.0.5/lib/"
                  "libopen-pal.so.80(mca_btl_sm_component_progress+0x2b1)[0x7f6c1a2611e1]\n"),
       "shm", "frame-ompi-btl-shm"},
      {"Open MPI: btl tcp",
       ompi_block("Segmentation fault (11)",
                  "[gpu-node07:48211] [ 1] "
                  "/usr/lib/x86_64-linux-gnu/openmpi/lib/openmpi3/"
                  "mca_btl_tcp.so(mca_btl_tcp_endpoint_recv_handler+0x1a1)[0x7f6c189f3a21]\n"),
       "socket", "frame-ompi-btl-tcp"},
      {"Open MPI: pml ucx leaves it to the UCX frame below",
       ompi_block("Segmentation fault (11)",
                  "[gpu-node07:48211] [ 1] "
                  "/usr/lib/x86_64-linux-gnu/ucx/"
                  "libuct_ib.so.0(uct_dc_mlx5_ep_am_short+0x4f1)[0x7f6c1a3e4a91]\n"
                  "[gpu-node07:48211] [ 2] "
                  "/usr/lib/x86_64-linux-gnu/openmpi/lib/openmpi3/"
                  "mca_pml_ucx.so(mca_pml_ucx_send+0x1a1)[0x7f6c19a0d8e1]\n"),
       "ib", "frame-ucx-ib"},
      {"Open MPI: libfabric's EFA provider under aws-ofi-nccl",
       ompi_block("Segmentation fault (11)",
                  "[gpu-node07:48211] [ 1] "
                  "/opt/amazon/efa/lib/libfabric.so.1(efa_rdm_ep_progress+0x1b4)[0x7f0e8c2c4a14]\n"
                  "[gpu-node07:48211] [ 2] "
                  "/opt/amazon/ofi-nccl/lib/libnccl-net.so(+0x1a3c4)[0x7f0e8c41a3c4]\n"),
       "net-plugin", "frame-libfabric-efa"},
      {"Open MPI: libfabric's shm provider",
       ompi_block(
           "Bus error (7)",
           "[gpu-node07:48211] [ 1] "
           "/opt/amazon/efa/lib/libfabric.so.1(smr_progress_cmd+0x2a1)[0x7f0e8c2d1e41]\n"
           "[gpu-node07:48211] [ 2] "
           "/opt/amazon/efa/lib/libfabric.so.1(efa_rdm_ep_progress+0x1b4)[0x7f0e8c2c4a14]\n"),
       "shm", "frame-libfabric-shm"},
      {"gdb: libfabric's verbs provider",
       "Thread 1 \"python\" received signal SIGSEGV, Segmentation fault.\n"
       "#0  0x00007f0e8c2a1b21 in vrb_poll_cq (cq=0x55d0c1e2a0, wc=0x7ffd5a3c1f80) at "
       "prov/verbs/src/verbs_cq.c:244\n"
       "#1  0x00007f0e8c41a3c4 in nccl_net_ofi_rdma_test () from "
       "/opt/amazon/ofi-nccl/lib/libnccl-net.so\n",
       "ib", "frame-libfabric-verbs"},
      {"gdb: libfabric's tcp provider",
       "Thread 1 \"python\" received signal SIGSEGV, Segmentation fault.\n"
       "#0  0x00007f0e8c2e61c4 in xnet_progress_rx (ep=0x55d0c1e2a0) at "
       "prov/tcp/src/xnet_progress.c:771\n",
       "socket", "frame-libfabric-tcp"},
      {"the kernel names the HIP runtime on the crash line",
       "[1203441.120843] pt_main_thread[48211]: segfault at 0 ip 00007f1b22c4a9b2 sp "
       "00007f1a9bffe7a0 error 4 in libamdhip64.so.6.2.60200[7f1b22800000+3ee000]\n",
       "version", "frame-hip-runtime"},
      {"gdb on RCCL: the HIP runtime below RCCL's frames",
       "Thread 5 \"python\" received signal SIGSEGV, Segmentation fault.\n"
       "#0  0x00007f1b22c4a9b2 in hipMemcpyAsync () from /opt/rocm/lib/libamdhip64.so.6\n"
       "#1  0x00007f3a2c1b4e10 in ncclGroupEnd () from /opt/rocm/lib/librccl.so.1\n",
       "version", "frame-hip-runtime"},
      {"gdb on RCCL: its shm transport keeps NCCL's names",
       "Thread 5 \"python\" received signal SIGBUS, Bus error.\n"
       "#0  0x00007f3a2c1b4e10 in shmSendProxyProgress(ncclProxyState*, ncclProxyArgs*) () from "
       "/opt/rocm/lib/librccl.so.1\n",
       "shm", "frame-nccl-shm"},
      {"TVM FFI's handler (FlashInfer in vLLM): NCCL's shm transport, frames innermost first",
       "!!!!!!! Segfault encountered !!!!!!!\n"
       "  File \"<unknown>\", line 0, in shmRecvProxyProgress(ncclProxyState*, ncclProxyArgs*)\n"
       "  File \"<unknown>\", line 0, in ncclProxyProgress(void*)\n"
       "  File \"<unknown>\", line 0, in start_thread\n",
       "shm", "frame-nccl-shm"},
      {"TVM FFI's handler: UCX's init, without line numbers",
       "!!!!!!! Segfault encountered !!!!!!!\n"
       "  File \"<unknown>\", in uct_tcp_iface_progress\n"
       "  File \"<unknown>\", in ucs_init\n",
       "socket", "frame-ucx-tcp"},
      {"lldb: the HSA runtime",
       "* thread #1, name = 'python', stop reason = signal SIGSEGV: invalid address (fault "
       "address: 0x8)\n"
       "  * frame #0: 0x00007f1b21a4b6ee libhsa-runtime64.so.1`rocr::core::Runtime::Unload() + "
       "46\n",
       "version", "frame-hip-runtime"},
  };
  for (const auto& c : cases) {
    INFO(c.what);
    auto a = run(c.text);
    REQUIRE_FALSE(a.diagnoses.empty());
    CHECK(a.diagnoses.front().category == c.category);
    CHECK(a.diagnoses.front().initiating < a.events.size());
    // The crash line leads: the handler's line, or Open MPI's "Signal:" line of its block.
    const std::size_t crash_line = c.text.find("] Signal: ") != std::string::npos ? 1 : 0;
    CHECK(a.events[a.diagnoses.front().initiating].line == crash_line);
    if (c.frame_rule) {
      CHECK_THAT(a.diagnoses.front().reasoning, Catch::Contains(c.frame_rule));
    }
  }
}

TEST_CASE("UCX's handler frames and other text never place a crash", "[frames][crash]") {
  // Lines that name UCX or a transport but are no frame of a communication library.
  const char* lines[] = {
      " 0  /usr/lib/x86_64-linux-gnu/libucs.so.0(ucs_handle_error+0x2e4) [0x7f6c1a6b82f4]",
      " 0 0x0000000000054d3c ucs_debug_print_backtrace()  /build/src/ucs/debug/debug.c:656",
      " 1 0x000000000002f2ac ucs_error_signal_handler()  /build/src/ucs/debug/debug.c:1089",
      "[1717000000.123456] [gpu-node07:48211:0]      mm_posix.c:233  UCX  ERROR open failed",
      "UCX_TLS=rc,sm,cuda_ipc,cuda_copy,gdr_copy",
      "#4  0x00007f0e8c2e61c4 in sock_recv_impl (s=0x7f0e8c0a1f40) at Modules/socketmodule.c:3780",
      "#4  0x00007f1b3e0b2d41 in c10::hip::HIPCachingAllocator::Native::DeviceCachingAllocator::"
      "malloc(signed char, unsigned long, ihipStream_t*) () from libtorch_hip.so",
  };
  const auto& rules = ff::test::builtin_catalog().rules();
  for (const char* line : lines) {
    INFO(line);
    auto a = run(ucx_block(std::string(line) + "\n"));
    REQUIRE_FALSE(a.diagnoses.empty());
    CHECK(a.diagnoses.front().category == "process-crash");
    for (const auto& e : a.events) {
      CHECK(rules[e.rule].decode != Decode::kFrame);
    }
  }
}

TEST_CASE("UCX's crash line names its signal", "[frames][crash]") {
  // SIGBUS with no frame to place it reads as shared memory, as an exit status would; a bus
  // error on a nonexistent physical address is UCX's own shared-memory rule.
  auto bus = run(
      "[gpu-node07:48211:0:48211] Caught signal 7 (Bus error: invalid address alignment)\n");
  REQUIRE_FALSE(bus.diagnoses.empty());
  CHECK(bus.diagnoses.front().category == "shm");
  auto adrerr = run(
      "[gpu-node07:48211:0:48211] Caught signal 7 (Bus error: nonexistent physical address)\n");
  REQUIRE_FALSE(adrerr.diagnoses.empty());
  CHECK(adrerr.diagnoses.front().category == "shm");
  CHECK(rule_id(adrerr.events[adrerr.diagnoses.front().initiating].rule) == "ucx-bus-error");
  auto segv = run(ucx_block(""));
  REQUIRE_FALSE(segv.diagnoses.empty());
  CHECK(segv.diagnoses.front().category == "process-crash");
  CHECK(rule_id(segv.events[segv.diagnoses.front().initiating].rule) == "ucx-caught-signal");
  // A frame of another process does not place it.
  auto other = run(
      "[gpu-node07:48211:0:48211] Caught signal 11 (Segmentation fault: address not mapped to "
      "object at address 0x8)\n"
      "[gpu-node07:50000] [ 1] /usr/lib/x86_64-linux-gnu/libuct.so.0(uct_mm_ep_am_short+0x8e)"
      "[0x7f6c1a4d2a1e]\n");
  REQUIRE_FALSE(other.diagnoses.empty());
  CHECK(other.diagnoses.front().category == "process-crash");
}

TEST_CASE("Open MPI's report header leads only when the report was cut off after it",
          "[frames][crash]") {
  // A paste that ends at the header, after NCCL's INFO lines: the header is what there is.
  auto cut =
      run("gpu-node07:48211:48300 [0] NCCL INFO RAS client listening socket at ::1<28028>\n"
          "[gpu-node07:48211] *** Process received signal ***\n");
  REQUIRE_FALSE(cut.diagnoses.empty());
  CHECK(cut.diagnoses.front().category == "process-crash");
  CHECK(rule_id(cut.events[cut.diagnoses.front().initiating].rule) == "ompi-signal-header");
  // The whole block: its signal line leads, not the header above it.
  auto whole = run(ompi_block("Segmentation fault (11)", ""));
  REQUIRE_FALSE(whole.diagnoses.empty());
  CHECK(rule_id(whole.events[whole.diagnoses.front().initiating].rule) ==
        "ompi-process-received-signal");
  // An abort after an error its process printed: the error leads, as without the header.
  auto abort = run("RuntimeError: CUDA error: an illegal memory access was encountered\n" +
                   ompi_block("Aborted (6)", ""));
  REQUIRE_FALSE(abort.diagnoses.empty());
  CHECK(abort.diagnoses.front().category == "cuda");
}

// NCCL 2.20+ prints the source file that made a failed CUDA call; the file, not the CUDA
// error text, says which part of NCCL failed (rules/nccl-cuda-failure.json, decode
// nccl-source).
TEST_CASE("a CUDA failure inside NCCL takes the subsystem of the file that called CUDA",
          "[nccl-source]") {
  struct Row {
    const char* line;
    const char* category;
  };
  const Row rows[] = {
      {"node1:30344:30344 [0] transport/p2p.cc:298 NCCL WARN Cuda failure 'invalid argument'",
       "p2p"},
      {"node1:30344:30344 [0] transport/shm.cc:170 NCCL WARN Cuda failure 'invalid argument'",
       "shm"},
      {"node1:30344:30344 [0] enqueue.cc:1672 NCCL WARN Cuda failure 'unspecified launch failure'",
       "cuda"},
      {"node1:30344:30344 [0] NCCL WARN Cuda failure 'invalid argument'", "cuda"},
  };
  for (const auto& r : rows) {
    INFO(r.line);
    auto a = run(std::string(r.line) + "\n");
    REQUIRE_FALSE(a.diagnoses.empty());
    CHECK(a.diagnoses.front().category == r.category);
  }
}
