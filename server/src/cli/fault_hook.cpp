#include "cli/fault_hook.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

extern char** environ;

namespace ff::cli {

namespace {

// The input as a file the command reads at its own pace: an anonymous file in memory (a
// pipe would block watching once the command stops reading, or kill it with SIGPIPE).
int input_file(const std::string& input, std::string& error) {
  int fd = ::memfd_create("firstfault-diagnosis", MFD_CLOEXEC);
  if (fd < 0) {
    error = std::string("cannot make its input: ") + std::strerror(errno);
    return -1;
  }
  std::size_t done = 0;
  while (done < input.size()) {
    ssize_t n = ::write(fd, input.data() + done, input.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      error = std::string("cannot write its input: ") + std::strerror(errno);
      ::close(fd);
      return -1;
    }
    done += static_cast<std::size_t>(n);
  }
  ::lseek(fd, 0, SEEK_SET);
  return fd;
}

}  // namespace

bool FaultHook::start(const std::string& input,
                      const std::vector<std::pair<std::string, std::string>>& env,
                      std::string& error) {
  int fd = input_file(input, error);
  if (fd < 0) return false;
  std::vector<std::string> vars;
  for (char** e = environ; e && *e; ++e) {
    std::string v = *e;
    bool replaced = false;
    for (const auto& [k, _] : env) replaced = replaced || v.rfind(k + "=", 0) == 0;
    if (!replaced) vars.push_back(std::move(v));
  }
  for (const auto& [k, v] : env) vars.push_back(k + "=" + v);
  std::vector<char*> envp;
  for (auto& v : vars) envp.push_back(v.data());
  envp.push_back(nullptr);
  std::string sh = "/bin/sh", dash_c = "-c";
  std::vector<char*> argv{sh.data(), dash_c.data(), command_.data(), nullptr};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fd, STDIN_FILENO);
  // Its output goes where watch's diagnostics go, never into a JSON stream on stdout.
  posix_spawn_file_actions_adddup2(&actions, STDERR_FILENO, STDOUT_FILENO);
  int rc = ::posix_spawn(&pid_, sh.c_str(), &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  ::close(fd);
  if (rc != 0) {
    pid_ = -1;
    error = std::string("cannot run /bin/sh: ") + std::strerror(rc);
    return false;
  }
  return true;
}

std::optional<std::string> FaultHook::ended(bool wait) {
  if (pid_ <= 0) return std::nullopt;
  int status = 0;
  pid_t r;
  do r = ::waitpid(pid_, &status, wait ? 0 : WNOHANG);
  while (r < 0 && errno == EINTR);
  if (r == 0) return std::nullopt;
  pid_ = -1;
  if (r < 0) return std::string("ended (its status is lost: ") + std::strerror(errno) + ")";
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status))
    return "was killed by signal " + std::to_string(WTERMSIG(status)) + " (" +
           strsignal(WTERMSIG(status)) + ")";
  return std::string("ended");
}

}  // namespace ff::cli
