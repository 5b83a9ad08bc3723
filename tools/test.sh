#!/bin/bash
# Runs every test: the unit, corpus, rule, CLI, topology and language-server tests in the
# normal build, then the same suite in an AddressSanitizer + UBSan build.
# Options: --no-sanitize skips the sanitizer build (quicker local runs).
set -euo pipefail
cd "$(dirname "$0")/.."
sanitize=1
for a in "$@"; do
  case "$a" in
    --no-sanitize) sanitize=0 ;;
    *) echo "usage: tools/test.sh [--no-sanitize]" >&2; exit 2 ;;
  esac
done
jobs=$(nproc)
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$jobs"
ctest --test-dir build --output-on-failure -j"$jobs" --timeout 300
if [ "$sanitize" = 1 ]; then
  cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DFF_SANITIZE=ON >/dev/null
  cmake --build build-asan -j"$jobs"
  # hwloc's optional plugins (PCI, OpenCL...) are dlopen'ed and leak a little at unload, in
  # code LeakSanitizer cannot even name; the sanitized run loads hwloc without them (the
  # normal run above covers the plugins).
  HWLOC_PLUGINS_PATH=/nonexistent \
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir build-asan --output-on-failure -j"$jobs" --timeout 600
fi
