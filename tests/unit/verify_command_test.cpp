// Verification commands (fix/verify_command.hpp): placeholders are filled from what the
// diagnosis knows, shell-quoted; a command with one left is never runnable. Every built-in
// rule's command, as the language server would send it to a terminal, is valid shell.
#include "fix/verify_command.hpp"

#include <catch2/catch.hpp>
#include <cstdlib>

#include "builtin_catalog.hpp"
#include "fix/shell_parse.hpp"

using namespace ff;

namespace {

fix::VerifyFacts full_facts() {
  fix::VerifyFacts f;
  f.gpu = 3;
  f.pid = 41005;
  f.rank = 5;
  f.host = "gpu-node-02";
  f.peer = "10.0.0.7";
  f.log = "/var/log/job 7/rank5.log";  // a space: must stay one word
  f.logs = {"/var/log/job 7/rank5.log", "/var/log/job 7/rank6.log"};
  return f;
}

bool valid_shell(const std::string& command) {
  std::string check = "sh -n -c " + fix::shell_quote(command) + " 2>/dev/null";
  return std::system(check.c_str()) == 0;
}

}  // namespace

TEST_CASE("placeholders are filled from the diagnosis and quoted", "[verify]") {
  auto f = fix::fill_verify_command("nvidia-smi -q -d ECC,ROW_REMAPPER -i <gpu>", full_facts());
  CHECK(f.runnable());
  CHECK(f.text == "nvidia-smi -q -d ECC,ROW_REMAPPER -i 3");
  f = fix::fill_verify_command("grep -n -E 'stack smashing' <job log>", full_facts());
  CHECK(f.text == "grep -n -E 'stack smashing' '/var/log/job 7/rank5.log'");
  f = fix::fill_verify_command("grep \"NCCL version\" <logs> | sort | uniq -c", full_facts());
  CHECK(f.text ==
        "grep \"NCCL version\" '/var/log/job 7/rank5.log' '/var/log/job 7/rank6.log' | sort | uniq "
        "-c");
  f = fix::fill_verify_command("firstfault analyze <log dir>", full_facts());
  CHECK(f.text == "firstfault analyze '/var/log/job 7'");
  f = fix::fill_verify_command("py-spy dump --native --pid <pid of the lead rank>", full_facts());
  CHECK(f.text == "py-spy dump --native --pid 41005");
}

TEST_CASE("a placeholder nothing fills leaves the command not runnable", "[verify]") {
  auto f = fix::fill_verify_command("NCCL_DEBUG=INFO <your launch command> 2>&1 | grep NET",
                                    full_facts());
  CHECK_FALSE(f.runnable());
  REQUIRE(f.missing.size() == 1);
  CHECK(f.missing[0] == "<your launch command>");
  CHECK(f.text == "NCCL_DEBUG=INFO <your launch command> 2>&1 | grep NET");
  // Known names without a value stay too.
  f = fix::fill_verify_command("nvidia-smi -i <gpu>", {});
  CHECK_FALSE(f.runnable());
  CHECK(f.missing == std::vector<std::string>{"<gpu>"});
}

TEST_CASE("the shell's own angle brackets are left alone", "[verify]") {
  for (const char* c : {"cat <<EOF\nx\nEOF", "sort < in > out 2>&1", "echo <$HOME>", "a<b"}) {
    auto f = fix::fill_verify_command(c, full_facts());
    CHECK(f.runnable());
    CHECK(f.text == c);
  }
}

TEST_CASE("every built-in verification command the server would run is valid shell", "[verify]") {
  std::size_t runnable = 0, left = 0;
  for (const auto& rule : test::builtin_catalog().rules()) {
    if (rule.verify.command.empty()) continue;
    for (const auto& facts : {full_facts(), fix::VerifyFacts{}}) {
      auto f = fix::fill_verify_command(rule.verify.command, facts);
      INFO(rule.id << ": " << f.text);
      if (!f.runnable()) {
        // Shown to the user to complete, never sent: it must say what is missing.
        CHECK(f.text.find(f.missing.front()) != std::string::npos);
        ++left;
        continue;
      }
      CHECK(valid_shell(f.text));
      ++runnable;
    }
  }
  CHECK(runnable >= 100);
  CHECK(left >= 50);
}
