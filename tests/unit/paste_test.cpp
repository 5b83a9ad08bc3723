// Text as pasted (analysis/paste.hpp): quoting, code indentation and hard wraps are undone
// on a copy with the same line count; a log that was not pasted is left alone.
#include "analysis/paste.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <string>

#include "analysis/line_source.hpp"

using namespace ff::analysis;

namespace {

std::size_t line_count(const std::string& s) {
  return std::count(s.begin(), s.end(), '\n');
}

// Cuts every line longer than `width` into pieces of `width` bytes, as a terminal does.
std::string fold(const std::string& text, std::size_t width) {
  std::string out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    std::string line = text.substr(pos, nl - pos);
    for (std::size_t i = 0; i < line.size() || i == 0; i += width) {
      out += line.substr(i, width);
      out += '\n';
      if (line.empty()) break;
    }
    pos = nl + 1;
  }
  return out;
}

const std::string kLog =
    "[rank1]:[E1203 10:11:12.123456 ProcessGroupNCCL.cpp:607] [Rank 1] Watchdog caught collective "
    "operation timeout: WorkNCCL(SeqNum=42, OpType=ALLREDUCE, NumelIn=1024, NumelOut=1024, "
    "Timeout(ms)=600000) ran for 600123 milliseconds before timing out.\n"
    "[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a "
    "total capacity of 79.10 GiB of which 1.02 GiB is free.\n"
    "short line\n";

}  // namespace

TEST_CASE("paste: a log that was not pasted is left as it is", "[paste]") {
  CHECK_FALSE(depaste(kLog).has_value());
  CHECK_FALSE(depaste("").has_value());
  CHECK_FALSE(depaste("one line\n").has_value());
  // Records that share the longest length are records, not a wrap.
  std::string same;
  for (int r = 0; r < 8; ++r)
    same += "[rank" + std::to_string(r) +
            "]:[E1203 10:11:12.123456 ProcessGroupNCCL.cpp:607] Watchdog caught collective "
            "operation timeout: WorkNCCL(SeqNum=42, OpType=ALLREDUCE) ran for 600123 ms\n";
  CHECK_FALSE(depaste(same).has_value());
  CHECK_FALSE(depaste(std::string(kDepasteMaxBytes + 1, 'x')).has_value());
}

TEST_CASE("paste: hard wraps are joined back, line numbers kept", "[paste]") {
  for (std::size_t width : {80, 120, 160}) {
    INFO(width);
    std::string wrapped = fold(kLog, width);
    PasteRepair what;
    auto repaired = depaste(wrapped, &what);
    REQUIRE(repaired.has_value());
    CHECK(what.wrap_width == width);
    CHECK(line_count(*repaired) == line_count(wrapped));
    // Each original line is whole again, on the line where its first piece was.
    std::size_t first = repaired->find("[rank1]:");
    CHECK(repaired->find("before timing out.") > first);
    CHECK(repaired->substr(first, repaired->find('\n') - first).size() == kLog.find('\n'));
  }
}

TEST_CASE("paste: a row a terminal padded to its width ends its line", "[paste]") {
  // A copy of a terminal's screen keeps the blanks after each line's end: every row is as
  // wide as the terminal, and the last row of a cut line ends in spaces. The line after that
  // row is a record of its own (here another rank's watchdog line), not more of the first.
  const std::size_t width = 120;
  std::string screen;
  for (std::size_t at = 0; at < kLog.size();) {
    std::size_t nl = kLog.find('\n', at);
    std::string line = kLog.substr(at, nl - at);
    for (std::size_t i = 0; i < line.size(); i += width) {
      std::string row = line.substr(i, width);
      row.resize(width, ' ');
      screen += row + "\n";
    }
    at = nl + 1;
  }
  PasteRepair what;
  auto repaired = depaste(screen, &what);
  REQUIRE(repaired.has_value());
  CHECK(what.wrap_width == width);
  CHECK(line_count(*repaired) == line_count(screen));
  // Each record is whole, without the padding, and the next record starts a line of its own.
  const std::string first = kLog.substr(0, kLog.find('\n') + 1);
  CHECK(repaired->substr(0, first.size()) == first);
  CHECK(repaired->find("\n[rank0]: torch.OutOfMemoryError") != std::string::npos);
  CHECK(repaired->find("  \n") == std::string::npos);
}

TEST_CASE("paste: one message cut once or many times is joined back", "[paste]") {
  // Cut once at a common width, between two words: the piece after it is the rest of a
  // sentence (lower case, no prefix), where a record would start with a capital or a prefix.
  const std::string sentence =
      "  RuntimeError: Detected mismatch between collectives on ranks. Rank 1 is running "
      "collective: CollectiveFingerPrint(SequenceNumber=1OpType=BARRIER), but Rank 0 is running "
      "collective: CollectiveFingerPrint(SequenceNumber=0OpType=BARRIER).\n"
      "short line\n";
  auto once = depaste(fold(sentence, 160));
  REQUIRE(once.has_value());
  CHECK(once->find("but Rank 0 is running collective") != std::string::npos);
  // Cut just before the space between two words: the rest starts with that one space.
  const std::string spaced = " " + sentence;  // one byte longer: the cut moves onto the space
  REQUIRE(fold(spaced, 160).find("\n is running") != std::string::npos);
  auto at_space = depaste(fold(spaced, 160));
  REQUIRE(at_space.has_value());
  CHECK(at_space->find("Rank 0 is running collective") != std::string::npos);
  // A line indented as code under a traceback frame is a line of its own.
  std::string code = fold(sentence, 160);
  code.replace(161, 0, "    ");
  CHECK_FALSE(depaste(code).has_value());
  // The same cut before a word that is a prefix ("node01: ...") stays as it is.
  std::string prefixed = fold(sentence, 160);
  prefixed.replace(160 + 1, 0, "node01: ");
  CHECK_FALSE(depaste(prefixed).has_value());
  // A long message cut into four pieces, one of which starts like the first by chance
  // ("Memory on" and "Killed th": a capitalised word of six letters): most do not.
  auto piece = [](std::string start) {
    start.resize(160, '.');
    return start + "\n";
  };
  const std::string message = piece("Memory on the node (IP: 10.0.0.2) where the task ran") +
                              piece("Killed this worker because the node ran low") +
                              piece("(0.96) of the memory usage threshold") +
                              "so Ray killed it.\nnext record\n";
  auto many = depaste(message);
  REQUIRE(many.has_value());
  CHECK(many->find("so Ray killed it.") < many->find('\n'));
}

TEST_CASE("paste: Markdown quotes and code indentation are removed", "[paste]") {
  std::string quoted, indented, crlf;
  std::size_t pos = 0;
  while (pos < kLog.size()) {
    std::size_t nl = kLog.find('\n', pos);
    std::string line = kLog.substr(pos, nl - pos);
    quoted += "> " + line + "\n";
    indented += "    " + line + "\n";
    crlf += "> " + line + "\r\n";
    pos = nl + 1;
  }
  PasteRepair what;
  auto q = depaste(quoted, &what);
  REQUIRE(q.has_value());
  CHECK(what.quoted);
  CHECK(*q == kLog);
  auto i = depaste(indented, &what);
  REQUIRE(i.has_value());
  CHECK(what.indented);
  CHECK(*i == kLog);
  auto c = depaste(crlf);
  REQUIRE(c.has_value());
  CHECK(c->find("\r\n") != std::string::npos);  // line ends are kept as they were
  CHECK(line_count(*c) == line_count(crlf));
}

TEST_CASE("carrier prefixes: what launchers and collectors put before a line", "[paste]") {
  CHECK(carrier_prefix_length("3: RuntimeError: boom") == 3);
  CHECK(carrier_prefix_length("[1,3]<stderr>:RuntimeError: boom") == 14);
  CHECK(carrier_prefix_length("2025-03-04T05:06:07.123456789Z RuntimeError: boom") == 31);
  CHECK(carrier_prefix_length("trainer-1  | RuntimeError: boom") == 13);
  CHECK(carrier_prefix_length("> > RuntimeError: boom") == 4);
  CHECK(carrier_prefix_length("Mar  4 05:06:07 node1 python3[42]: x") == 35);
  CHECK(carrier_prefix_length("0: [rank3]: RuntimeError: boom") == 12);  // nested
  // TorchX's role/replica (NeMo-Run's local executor), before torchrun's tags.
  CHECK(carrier_prefix_length("ining-demo/0 [default2]:[rank2]: Exception: boom") == 33);
  CHECK(carrier_prefix_length("layers/0 weight shape") == 0);  // a word and a slash alone
  CHECK(carrier_prefix_length("RuntimeError: boom") == 0);
  CHECK(carrier_prefix_length("") == 0);
  CHECK(carrier_prefix_length("\x01\x02 binary") == 0);
}

TEST_CASE("paste: whitespace every line starts with is removed, as dedent does", "[paste]") {
  // A harness printed the job's output two spaces in; the traceback's own indentation stays.
  const std::string traceback =
      "Traceback (most recent call last):\n"
      "  File \"<string>\", line 1, in <module>\n"
      "ImportError: /opt/lib/libexample.so.1: undefined symbol: example_symbol\n";
  std::string shifted, tabbed;
  std::size_t pos = 0;
  while (pos < traceback.size()) {
    std::size_t nl = traceback.find('\n', pos);
    shifted += "  " + traceback.substr(pos, nl - pos) + "\n";
    tabbed += "\t" + traceback.substr(pos, nl - pos) + "\n";
    pos = nl + 1;
  }
  shifted += "\n";  // a blank line does not count
  PasteRepair what;
  auto d = depaste(shifted, &what);
  REQUIRE(d.has_value());
  CHECK(what.indented);
  CHECK(*d == traceback + "\n");
  auto t = depaste(tabbed);
  REQUIRE(t.has_value());
  CHECK(*t == traceback);
  // One line at the margin: nothing is common, and a traceback's frames keep their indent.
  CHECK_FALSE(depaste(traceback).has_value());
}

TEST_CASE("paste: a line wrapped inside a parenthesis is joined to the line that closes it",
          "[paste]") {
  PasteRepair what;
  // Wrapped at a word, the space dropped after a comma; the rest of a record from PyTorch's
  // watchdog (its format: ProcessGroupNCCL.cpp, WorkNCCL's operator<<).
  const std::string watchdog =
      "[Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=7, "
      "OpType=ALLGATHER,\n"
      "NumelIn=4, NumelOut=16, Timeout(ms)=600000) ran for 600083 milliseconds before timing "
      "out.\n";
  auto a = depaste(watchdog, &what);
  REQUIRE(a);
  CHECK(*a ==
        "[Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=7, "
        "OpType=ALLGATHER, NumelIn=4, NumelOut=16, Timeout(ms)=600000) ran for 600083 "
        "milliseconds before timing out.\n\n");
  CHECK(what.groups == 1);
  CHECK(line_count(*a) == line_count(watchdog));
  // Cut inside a word: joined as it is. An indented continuation: one space.
  auto b = depaste("RuntimeError: NCCL error (run with NCCL_DEBUG=INFO for deta\nils)\n");
  REQUIRE(b);
  CHECK(*b == "RuntimeError: NCCL error (run with NCCL_DEBUG=INFO for details)\n\n");
  auto c = depaste("2 Workers (tasks /\n      actors) killed due to memory pressure (OOM)\n");
  REQUIRE(c);
  CHECK(*c == "2 Workers (tasks / actors) killed due to memory pressure (OOM)\n\n");
  // Closed on the second line after: joined over both.
  auto d = depaste("WorkNCCL(SeqNum=7,\nOpType=ALLREDUCE,\nNumelIn=1) ran for 5 ms\n");
  REQUIRE(d);
  CHECK(*d == "WorkNCCL(SeqNum=7, OpType=ALLREDUCE, NumelIn=1) ran for 5 ms\n\n\n");
}

TEST_CASE("paste: a parenthesis left open is no wrap when the next lines do not close it",
          "[paste]") {
  // A record cut short (truncated) before records of its own: nothing closes its group.
  CHECK_FALSE(
      depaste("RuntimeError: NCCL communicator was aborted (\n"
              "frame #0: c10::Error::Error() + 0x57 (0x7f in libc10.so)\n"
              "frame #1: <unknown function> + 0x1 (0x7f in libtorch.so)\n"));
  // The next line closes more than the first opened.
  CHECK_FALSE(depaste("a (b\nc) d) e\n"));
  // Closed only on the third line after: too far to be one record.
  CHECK_FALSE(depaste("x (1,\n2,\n3,\n4)\n"));
  // The next line starts the way the first does: a record of its own, never a rest.
  CHECK_FALSE(depaste("node1:7:9 [0] NCCL INFO Open (a\nnode1:7:9 [0] NCCL INFO closed b)\n"));
  // Balanced lines and a blank line between: nothing to do.
  CHECK_FALSE(depaste("f(a) b\n\ng(c)\n"));
  CHECK_FALSE(depaste("open (\n\nclose)\n"));
}

TEST_CASE("paste: non-breaking spaces a page or a chat put in are made plain", "[paste]") {
  PasteRepair what;
  // U+00A0 between every word (copied from a rendered page), U+202F once.
  const std::string pasted =
      "node1:7:9\xC2\xA0[0]\xC2\xA0NCCL\xC2\xA0INFO\xC2\xA0ncclOsSocketStartConnect:\xC2\xA0"
      "connect"
      "\xE2\x80\xAFto 127.0.0.1<52243> returned Connection refused, retrying (1/34)\n"
      "second line\n";
  auto a = depaste(pasted, &what);
  REQUIRE(a);
  CHECK(what.nbsp);
  CHECK(*a ==
        "node1:7:9 [0] NCCL INFO ncclOsSocketStartConnect: connect to 127.0.0.1<52243> returned "
        "Connection refused, retrying (1/34)\nsecond line\n");
  CHECK(line_count(*a) == line_count(pasted));
  // Other UTF-8 is left alone, and a text without them is not copied.
  CHECK_FALSE(depaste("caf\xC3\xA9 \xE2\x80\x94 ok\nnext\n"));
}
