// The built-in catalog's prefilter, compiled at build time (server/src/tools/prefilter_gen.cpp).
#pragma once

#include <string_view>

namespace ff::cli {

std::string_view builtin_prefilter_bytes();

}  // namespace ff::cli
