#!/bin/bash
# tools/check_portable.sh BINARY...: fails unless each ELF binary runs on any Linux of its
# architecture with glibc 2.28 or newer (RHEL 8, Ubuntu 20.04, Debian 10 and later):
#   - no NEEDED shared library other than libc, libm, libpthread, libdl and the dynamic
#     loader (ld-linux*); a fully static binary has none and passes;
#   - no symbol version above GLIBC_2.28 (nor any GLIBCXX_/CXXABI_/GCC_ version: those
#     would mean libstdc++ or libgcc_s is needed at run time).
# readelf reads ELF files of any architecture, so this checks the aarch64 binary too.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: tools/check_portable.sh BINARY..." >&2; exit 2; }
max=2.28
status=0
for bin in "$@"; do
  fail() { echo "check_portable: $bin: $*" >&2; status=1; }
  if [ ! -f "$bin" ] || [ "$(head -c4 "$bin" | od -An -tx1 | tr -d ' ')" != 7f454c46 ]; then
    fail "not an ELF file"; continue
  fi
  machine=$(readelf -h "$bin" | sed -n 's/^ *Machine: *//p')
  bad=0
  while read -r lib; do
    case "$lib" in
      libc.so.*|libm.so.*|libpthread.so.*|libdl.so.*|ld-linux*.so.*) ;;
      *) fail "needs shared library $lib"; bad=1 ;;
    esac
  done < <(readelf -dW "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
  # Every version the binary requires (.gnu.version_r), e.g. "Name: GLIBC_2.17".
  while read -r ver; do
    case "$ver" in
      GLIBC_PRIVATE) fail "needs GLIBC_PRIVATE"; bad=1 ;;
      GLIBC_[0-9]*)
        v=${ver#GLIBC_}
        if [ "$(printf '%s\n%s\n' "$v" "$max" | sort -V | tail -1)" != "$max" ]; then
          fail "needs $ver (newer than GLIBC_$max)"; bad=1
        fi ;;
      *) fail "needs symbol version $ver (not glibc's)"; bad=1 ;;
    esac
  done < <(readelf -VW "$bin" | sed -n 's/.*Name: \([A-Za-z_][A-Za-z0-9_.]*\).*Flags.*/\1/p' | sort -u)
  if readelf -lW "$bin" | grep -q 'Requesting program interpreter'; then
    kind="dynamic, $(readelf -lW "$bin" | sed -n 's/.*Requesting program interpreter: \(.*\)\]/\1/p')"
  else
    kind="static"
  fi
  [ "$bad" = 0 ] && echo "check_portable: $bin: OK ($machine, $kind)"
done
exit $status
