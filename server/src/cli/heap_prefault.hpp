// Faulting in the heap the catalog is about to fill, in one call.
#pragma once

#include <cstddef>

namespace ff::cli {

// Grows the heap by `bytes` ahead of use and has the kernel map those pages at once. Loading
// the built-in catalog fills about 2 MB of fresh heap, and on virtual machines each first
// touch of a page is a fault costing several microseconds (about 12 on the development
// machine: 400 of them were a fifth of a 10-line run). Populating the range in one madvise
// costs a fraction of that. Does nothing where the kernel or allocator cannot (the pages are
// then faulted one by one, as before).
void prefault_heap(std::size_t bytes);

}  // namespace ff::cli
