#include "cli/sigbus_guard.hpp"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <mutex>

namespace ff::cli::sigbus {

namespace {

constexpr int kSlots = 4096;

struct Slot {
  std::atomic<std::uintptr_t> begin{0};
  std::atomic<std::size_t> len{0};
  std::atomic<bool> faulted{false};
  std::atomic<bool> used{false};
};

Slot g_slots[kSlots];
struct sigaction g_previous;
std::once_flag g_installed;

void forward(int sig, siginfo_t* info, void* ctx) {
  if (g_previous.sa_flags & SA_SIGINFO) {
    if (g_previous.sa_sigaction) {
      g_previous.sa_sigaction(sig, info, ctx);
      return;
    }
  } else if (g_previous.sa_handler != SIG_DFL && g_previous.sa_handler != SIG_IGN) {
    g_previous.sa_handler(sig);
    return;
  }
  // Default action: restore it; returning re-executes the access, which now kills us.
  signal(sig, SIG_DFL);
}

void on_sigbus(int sig, siginfo_t* info, void* ctx) {
  auto addr = reinterpret_cast<std::uintptr_t>(info->si_addr);
  for (auto& s : g_slots) {
    if (!s.used.load(std::memory_order_acquire)) continue;
    std::uintptr_t b = s.begin.load(std::memory_order_relaxed);
    std::size_t n = s.len.load(std::memory_order_relaxed);
    if (addr < b || addr >= b + n) continue;
    static const std::uintptr_t page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
    void* at = reinterpret_cast<void*>(addr & ~(page - 1));
    // mmap is a plain system call; it is what makes the retried read succeed.
    if (::mmap(at, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
      break;
    s.faulted.store(true, std::memory_order_relaxed);
    return;
  }
  forward(sig, info, ctx);
}

void install() {
  struct sigaction sa {};
  sa.sa_sigaction = on_sigbus;
  sa.sa_flags = SA_SIGINFO | SA_NODEFER;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGBUS, &sa, &g_previous);
}

}  // namespace

int protect(const void* addr, std::size_t len) {
  std::call_once(g_installed, install);
  static std::mutex mu;  // claims are serialised; the handler only reads
  std::lock_guard<std::mutex> lock(mu);
  for (int i = 0; i < kSlots; ++i) {
    if (g_slots[i].used.load(std::memory_order_relaxed)) continue;
    g_slots[i].begin.store(reinterpret_cast<std::uintptr_t>(addr), std::memory_order_relaxed);
    g_slots[i].len.store(len, std::memory_order_relaxed);
    g_slots[i].faulted.store(false, std::memory_order_relaxed);
    g_slots[i].used.store(true, std::memory_order_release);
    return i;
  }
  return -1;
}

void unprotect(int slot) {
  if (slot < 0 || slot >= kSlots) return;
  g_slots[slot].used.store(false, std::memory_order_release);
}

bool faulted(int slot) {
  return slot >= 0 && slot < kSlots && g_slots[slot].faulted.load(std::memory_order_relaxed);
}

}  // namespace ff::cli::sigbus
