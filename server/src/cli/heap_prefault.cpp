#include "cli/heap_prefault.hpp"

#include "memory/populate.hpp"

#if defined(__linux__) && defined(__GLIBC__)
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#endif

namespace ff::cli {

void prefault_heap([[maybe_unused]] std::size_t bytes) {
#if defined(__linux__) && defined(__GLIBC__) && defined(MADV_POPULATE_WRITE)
  // glibc extends the heap by M_TOP_PAD beyond each request that does not fit in it:
  // blocks below the mmap threshold are taken until one does not fit (the first heap has
  // some room), which makes the heap `bytes` larger; freeing them leaves the room at the
  // top for what follows.
  char* before = static_cast<char*>(::sbrk(0));
  if (::mallopt(M_TOP_PAD, static_cast<int>(bytes)) == 0) return;
  void* held[8] = {};
  int n = 0;
  while (n < 8 && static_cast<char*>(::sbrk(0)) == before) held[n++] = std::malloc(100 * 1024);
  for (int i = 0; i < n; ++i) std::free(held[i]);
  char* after = static_cast<char*>(::sbrk(0));
  if (after > before) memory::populate_for_write(before, static_cast<std::size_t>(after - before));
  // Later growth goes back to glibc's default padding (128 KiB). Setting any of these
  // parameters ends glibc's dynamic mmap threshold, which would have risen to the size of
  // the first large block freed (up to 32 MiB) and the trim threshold with it: set both to
  // where that adjustment ends, so big vectors that grow and are freed still reuse the heap
  // instead of being mapped and faulted in afresh each time.
  ::mallopt(M_TOP_PAD, 128 * 1024);
  ::mallopt(M_MMAP_THRESHOLD, 32 << 20);
  ::mallopt(M_TRIM_THRESHOLD, 64 << 20);
#endif
}

}  // namespace ff::cli
