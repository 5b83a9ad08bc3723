// The built-in catalog, loaded once per test binary, as the CLI and the server load it.
#pragma once

#include "cli/rule_set.hpp"

namespace ff::test {

inline const analysis::Catalog& builtin_catalog() {
  static auto loaded = cli::load_catalog({}, true);
  return loaded.catalog;
}

}  // namespace ff::test
