// Memory-mapped inputs and files that shrink under us. Reading a page of a mapping that lies
// past the end of a file truncated after mmap() raises SIGBUS. The guard catches it for the
// ranges registered here, maps a page of zeros over the faulting page and lets the read go
// on, so the scan (on any thread) sees NUL bytes instead of the lost part and the CLI can
// warn that the file changed. Faults outside registered ranges go to the previous handler.
// The analysis core never knows: this lives in the CLI layer only.
#pragma once

#include <cstddef>

namespace ff::cli::sigbus {

// Registers a mapping; returns a slot, or -1 when the table is full (the range is then
// unguarded, as before). Installs the handler on first use.
int protect(const void* addr, std::size_t len);
void unprotect(int slot);
// True when a read in the slot's range faulted (the file shrank while mapped).
bool faulted(int slot);

}  // namespace ff::cli::sigbus
