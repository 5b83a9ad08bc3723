#!/bin/bash
# tests/release/release_test.sh: proves that what tools/release.sh put in dist/ runs where the
# GPUs are. Run after tools/release.sh (tools/test.sh does both unless --no-release).
#  1. every binary shipped (tarballs, wheels, .vsix) passes tools/check_portable.sh: no
#     shared library but libc/libm/libpthread/libdl/ld-linux, no glibc symbol above 2.28;
#  2. the x86-64 release code scores the corpus and the healthy set, and the shipped binary
#     analyses, runs `topo` live and `topo --xml` on every hwloc XML of
#     tests/data/topologies with the same results as the normal build, inside a minimal
#     Debian root (debootstrap --variant=minbase: no -dev package, no Boost, no hwloc, no
#     libstdc++ beyond the base system) when one can be made, else with an empty environment;
#  3. the x86-64 wheel installs into a fresh virtualenv (pip --no-index) and its command runs;
#  4. the aarch64 binary scores the corpus and reads the topologies under qemu-user, with the
#     same results as the x86-64 one;
#  5. each .vsix is marked for its platform and carries its binary where the extension looks.
# Environment: FF_MINBASE_ROOT (default /var/cache/firstfault-minbase-bookworm) is the
# minimal root, made once with debootstrap and reused.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
version=$(sed -n 's/^project(firstfault VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
dist=$repo/dist
work=$(mktemp -d)
mounts=()
cleanup() {
  for m in "${mounts[@]}"; do umount "$m" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
fails=0
ok() { echo "release_test: ok: $*"; }
bad() { echo "release_test: FAIL: $*" >&2; fails=$((fails + 1)); }
ref=${FF_REFERENCE_BIN:-build/bin/firstfault}   # the normal build, for comparisons
[ -x "$ref" ] || { echo "release_test: $ref missing (build the normal tree first)" >&2; exit 2; }
(cd "$dist" && sha256sum -c --quiet SHA256SUMS) && ok "SHA256SUMS match" || bad "SHA256SUMS"

# --- 1. every shipped binary -------------------------------------------------------------
extract() {  # extract ARCHIVE MEMBER DEST (zip archives: wheels and .vsix)
  python3 - "$@" <<'PY'
import sys, zipfile, os
z = zipfile.ZipFile(sys.argv[1]); data = z.read(sys.argv[2])
open(sys.argv[3], "wb").write(data); os.chmod(sys.argv[3], 0o755)
PY
}
for arch in x86_64 aarch64; do
  vscode=$([ $arch = x86_64 ] && echo linux-x64 || echo linux-arm64)
  name=firstfault-$version-linux-$arch
  mkdir -p "$work/$arch"
  tar -C "$work/$arch" -xzf "$dist/$name.tar.gz" || { bad "$name.tar.gz unreadable"; continue; }
  extract "$dist/firstfault-$version-py3-none-manylinux_2_28_$arch.whl" \
    "firstfault-$version.data/scripts/firstfault" "$work/$arch/wheel-firstfault"
  extract "$dist/firstfault-$version-$vscode.vsix" "extension/bin/$vscode/firstfault" \
    "$work/$arch/vsix-firstfault"
  if bash tools/check_portable.sh "$work/$arch/$name/firstfault" "$work/$arch/wheel-firstfault" \
       "$work/$arch/vsix-firstfault"; then
    ok "$arch: tarball, wheel and .vsix binaries are portable"
  else
    bad "$arch: a shipped binary is not portable"
  fi
  want=$([ $arch = x86_64 ] && echo X86-64 || echo AArch64)
  readelf -h "$work/$arch/$name/firstfault" | grep -q "Machine:.*$want" && ok "$arch: ELF machine $want" ||
    bad "$arch: the binary is not $want"
  for f in README.md LICENSE; do [ -s "$work/$arch/$name/$f" ] || bad "$name.tar.gz lacks $f"; done
  # 5. the .vsix: its manifest names the platform, and the binary is where bundledServerPath looks
  python3 - "$dist/firstfault-$version-$vscode.vsix" "$vscode" <<'PY' && ok "$vscode.vsix targets $vscode" || bad "$vscode.vsix"
import sys, zipfile
z = zipfile.ZipFile(sys.argv[1]); t = sys.argv[2]
m = z.read("extension.vsixmanifest").decode()
assert f'TargetPlatform="{t}"' in m, "no TargetPlatform"
names = z.namelist()
assert f"extension/bin/{t}/firstfault" in names, "no binary"
other = [n for n in names if n.startswith("extension/bin/") and f"/{t}/" not in n]
assert not other, f"binaries of other platforms: {other}"
PY
done
# The checker is not vacuous: the normal build (shared RE2, hwloc... and glibc 2.34+) fails it.
if bash tools/check_portable.sh "$ref" >/dev/null 2>&1; then bad "check_portable.sh accepts the normal, dynamic build"
else ok "check_portable.sh rejects the normal, dynamic build"; fi
x86=$work/x86_64/firstfault-$version-linux-x86_64/firstfault
arm=$work/aarch64/firstfault-$version-linux-aarch64/firstfault

# --- 2. x86-64 --------------------------------------------------------------------------
build-portable-x86_64/bin/ff_corpus_test --min-category 0.75 --min-line 0.75 tests/corpus | tail -1 &&
  ok "x86_64 release code: corpus" || bad "x86_64 corpus"
build-portable-x86_64/bin/ff_corpus_test --healthy tests/healthy | tail -1 &&
  ok "x86_64 release code: healthy set" || bad "x86_64 healthy set"
# Every saved topology, each with its reader: hwloc XML (through the linked-in hwloc), NCCL
# topology dumps, nvidia-smi matrices, NCCL logs.
xmls=()
for f in tests/data/topologies/hwloc-xml/*.xml tests/data/topologies/synthetic/*.xml; do xmls+=("--xml $f"); done
for f in tests/data/topologies/nccl-topo-dump/*.xml; do xmls+=("--nccl-topo $f"); done
for f in tests/data/topologies/nvidia-smi-topo/*.txt; do xmls+=("--nvidia-smi $f"); done
for f in tests/data/topologies/nccl-log/*.log; do xmls+=("--from-log $f"); done
for t in "${xmls[@]}"; do
  set -- $t
  "$ref" topo "$1" "$2" --format json > "$work/ref-$(basename "$2").json" 2>&1 || bad "the normal build fails on topo $t"
done
set --
"$ref" analyze --format json server/samples/oom-watchdog.log > "$work/ref-analyze.json"
"$ref" topo --format json > "$work/ref-live.json" 2>/dev/null || true

root=${FF_MINBASE_ROOT:-/var/cache/firstfault-minbase-bookworm}
inroot=0
if [ ! -x "$root/bin/sh" ] && command -v debootstrap >/dev/null && [ "$(id -u)" = 0 ]; then
  echo "release_test: making the minimal root $root (debootstrap --variant=minbase bookworm)"
  if debootstrap --variant=minbase bookworm "$root.tmp" http://deb.debian.org/debian >"$work/debootstrap.log" 2>&1; then
    mv "$root.tmp" "$root"
  else
    tail -5 "$work/debootstrap.log" >&2; rm -rf "$root.tmp"
  fi
fi
if [ -x "$root/bin/sh" ] && chroot "$root" /bin/true 2>/dev/null; then
  inroot=1
  # What the root lacks is the point: no -dev packages, no hwloc, no Boost, no RE2.
  for lib in libhwloc.so.15 libre2.so.9 libhs.so.5 libboost_program_options.so.1.74.0 libsimdjson.so.14; do
    [ -z "$(find "$root/usr/lib" "$root/lib" -name "$lib" 2>/dev/null | head -1)" ] || bad "the minimal root has $lib"
  done
  rm -rf "$root/ff" && mkdir -p "$root/ff"
  cp "$x86" "$root/ff/firstfault"
  cp -r server/samples tests/corpus "$root/ff/"
  mkdir -p "$root/ff/topologies"
  for t in "${xmls[@]}"; do cp "${t#* }" "$root/ff/topologies/"; done
  # Live discovery reads /sys (PCI devices, NICs) and /proc: bind them when we may.
  mounted=
  if mountpoint -q "$root/sys"; then mounted=1
  elif mount --bind /sys "$root/sys" 2>/dev/null; then mounted=1; mounts+=("$root/sys"); fi
  if ! mountpoint -q "$root/proc" && mount -t proc proc "$root/proc" 2>/dev/null; then mounts+=("$root/proc"); fi
  run_x86() { chroot "$root" /usr/bin/env -i PATH=/usr/bin:/bin /ff/firstfault "$@"; }
  where="inside the minimal root $root"
  f2p() { echo "/ff/topologies/$(basename "$1")"; }
  sample=/ff/samples/oom-watchdog.log
  corpus=/ff/corpus
else
  echo "release_test: no minimal root (debootstrap or chroot unavailable here): running the binary with an empty environment instead"
  run_x86() { env -i LD_LIBRARY_PATH= PATH=/usr/bin:/bin "$x86" "$@"; }
  where="with env -i"
  f2p() { echo "$repo/$1"; }
  sample=$repo/server/samples/oom-watchdog.log
  corpus=$repo/tests/corpus
fi
run_x86 --version | grep -q "firstfault $version" && ok "x86_64 --version $where" || bad "x86_64 --version $where"
run_x86 analyze --format json "$sample" > "$work/x86-analyze.json" &&
  diff <(sed "s#$sample#S#g" "$work/x86-analyze.json") \
       <(sed "s#server/samples/oom-watchdog.log#S#g" "$work/ref-analyze.json") >/dev/null &&
  ok "x86_64 analyze $where = normal build" || bad "x86_64 analyze $where differs from the normal build"
# Every corpus case, read by the shipped binary where no library but its own exists.
n=0
for d in tests/corpus/*/; do
  c=$(basename "$d")
  if run_x86 analyze "$corpus/$c" >/dev/null 2>"$work/err"; then n=$((n + 1)); else bad "x86_64 analyze $c $where: $(head -1 "$work/err")"; fi
done
[ $n -gt 0 ] && ok "x86_64 analyze on $n corpus cases $where"
same=0
for t in "${xmls[@]}"; do
  flag=${t%% *} f=${t#* }
  if run_x86 topo "$flag" "$(f2p "$f")" --format json 2>&1 | sed "s#$(f2p "$f")#$f#g" |
      diff -q - "$work/ref-$(basename "$f").json" >/dev/null; then same=$((same + 1)); else bad "x86_64 topo $t $where differs"; fi
done
[ $same = ${#xmls[@]} ] && ok "x86_64 topo --xml/--nccl-topo/--nvidia-smi/--from-log: $same/${#xmls[@]} saved topologies as the normal build $where"
# Live discovery: the machine as hwloc sees it (packages, NUMA, PCI devices, GPUs, NICs, the
# matrix, the binding) must be the normal build's. The host checks (/dev/shm, memlock...)
# describe the root the binary runs in, so they are left out of the comparison.
same_machine() {
  python3 - "$1" "$2" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
keys = ["summary", "devices", "matrix", "binding", "no_gpus"]
diff = [k for k in keys if a.get(k) != b.get(k)]
if diff: print("differs in", diff, file=sys.stderr); sys.exit(1)
print(f"  {a['summary']}")
PY
}
if [ $inroot = 0 ] || [ -n "${mounted:-}" ]; then
  run_x86 topo --format json > "$work/x86-live.json" 2>"$work/err" || true
  same_machine "$work/x86-live.json" "$work/ref-live.json" &&
    ok "x86_64 topo (live: PCI and OS devices from sysfs) = normal build $where" ||
    bad "x86_64 live topo differs from the normal build $where: $(head -2 "$work/err")"
else
  echo "release_test: /sys cannot be mounted in the root: live topo checked outside it"
  env -i "$x86" topo --format json > "$work/x86-live.json" 2>"$work/err" || true
  same_machine "$work/x86-live.json" "$work/ref-live.json" && ok "x86_64 topo (live) = normal build" ||
    bad "x86_64 live topo differs from the normal build: $(head -2 "$work/err")"
fi

# --- 3. the wheel in a fresh virtualenv ---------------------------------------------------
if python3 -m venv "$work/venv" >/dev/null 2>&1; then
  if "$work/venv/bin/pip" install -q --no-index --disable-pip-version-check \
      "$dist/firstfault-$version-py3-none-manylinux_2_28_x86_64.whl"; then
    "$work/venv/bin/firstfault" --version | grep -q "firstfault $version" && ok "wheel: firstfault --version" || bad "wheel --version"
    "$work/venv/bin/firstfault" analyze server/samples/oom-watchdog.log | grep -q "^Root cause: CUDA out of memory" &&
      ok "wheel: firstfault analyze" || bad "wheel analyze"
  else
    bad "pip install of the wheel"
  fi
else
  bad "python3 -m venv (python3-venv missing?)"
fi

# --- 4. aarch64 under qemu ----------------------------------------------------------------
qemu=$(command -v qemu-aarch64-static || command -v qemu-aarch64 || true)
if [ -z "$qemu" ]; then
  bad "qemu-aarch64(-static) not found"
else
  "$qemu" "$arm" --version | grep -q "firstfault $version" && ok "aarch64 --version under qemu" || bad "aarch64 --version"
  "$qemu" build-portable-aarch64/bin/ff_corpus_test --min-category 0.75 --min-line 0.75 tests/corpus | tail -1 &&
    ok "aarch64 release code under qemu: corpus" || bad "aarch64 corpus under qemu"
  "$qemu" build-portable-aarch64/bin/ff_corpus_test --healthy tests/healthy | tail -1 &&
    ok "aarch64 release code under qemu: healthy set" || bad "aarch64 healthy set under qemu"
  "$qemu" "$arm" analyze --format json server/samples/oom-watchdog.log | diff -q - "$work/ref-analyze.json" >/dev/null &&
    ok "aarch64 analyze under qemu = normal build" || bad "aarch64 analyze under qemu differs"
  same=0
  for t in "${xmls[@]}"; do
    flag=${t%% *} f=${t#* }
    "$qemu" "$arm" topo "$flag" "$f" --format json 2>&1 | diff -q - "$work/ref-$(basename "$f").json" >/dev/null &&
      same=$((same + 1)) || bad "aarch64 topo $t under qemu differs"
  done
  [ $same = ${#xmls[@]} ] && ok "aarch64 topo --xml/--nccl-topo/--nvidia-smi/--from-log under qemu: $same/${#xmls[@]} saved topologies as the normal build"
fi

if [ $fails -gt 0 ]; then echo "release_test: $fails failure(s)" >&2; exit 1; fi
echo "release_test: PASS"
