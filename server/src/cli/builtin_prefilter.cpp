#include "cli/builtin_prefilter.hpp"

// The blob is pulled in by the assembler, so a multi-megabyte file costs nothing to
// compile. FF_PREFILTER_BLOB is its path, set by the build.
__asm__(".section .rodata\n"
        ".balign 64\n"
        ".global ff_builtin_prefilter_begin\n"
        "ff_builtin_prefilter_begin:\n"
        ".incbin \"" FF_PREFILTER_BLOB "\"\n"
        ".global ff_builtin_prefilter_end\n"
        "ff_builtin_prefilter_end:\n"
        ".byte 0\n"
        ".previous\n");

extern "C" const char ff_builtin_prefilter_begin[];
extern "C" const char ff_builtin_prefilter_end[];

namespace ff::cli {

std::string_view builtin_prefilter_bytes() {
  return std::string_view(ff_builtin_prefilter_begin,
                          static_cast<std::size_t>(ff_builtin_prefilter_end - ff_builtin_prefilter_begin));
}

}  // namespace ff::cli
