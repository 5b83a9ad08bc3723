#!/bin/bash
# Builds the libFuzzer targets (clang, -fsanitize=fuzzer,address,undefined, in build-fuzz/)
# and runs each for a bounded time, seeded from the test data. Fails on any crash, leak,
# timeout or sanitizer report; the input that did it is left in build-fuzz/crashes/ and
# should become a file under tests/hostile/regressions/<target>/ (replayed by the
# hostile_regressions test).
# Usage: fuzz/run.sh [SECONDS_PER_TARGET (default 20)] [TARGET...]
#   FF_FUZZ_JOBS  build parallelism (default 2)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
secs=${1:-20}
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(analyze rule topology lsp_frames mask fix lsp_server flight_recorder ras summary)
build=$root/build-fuzz
jobs=${FF_FUZZ_JOBS:-2}
command -v clang++ >/dev/null || { echo "fuzz/run.sh: clang++ not found (apt-get install clang libclang-rt-14-dev)" >&2; exit 2; }
flags="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g"
cmake -S . -B "$build" -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFF_FUZZ=ON -DFF_BUILD_TESTS=OFF \
  -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" >/dev/null
make -C "$build" -j"$jobs" "${targets[@]/#/fuzz_}" >"$build/make.log" 2>&1 || { tail -30 "$build/make.log"; exit 2; }

# Seed corpora: what the tests already hold, plus the regressions.
seed() {  # seed TARGET DIR
  local t=$1 d=$2
  mkdir -p "$d"
  case $t in
    analyze|mask)
      for f in tests/corpus/*/log.txt tests/development/cases/*/log.txt server/samples/*.log; do head -c 65536 "$f" >"$d/$(echo "$f" | tr / _)"; done ;;
    rule) cp rules/*.json "$d/" ;;
    ras) cp tests/data/ras/*.txt tests/data/ras/*.json "$d/" ;;
    summary) cp tests/data/summary/*.json "$d/" ;;
    topology)
      i=0
      for f in tests/data/topologies/nvidia-smi-topo/* tests/data/topologies/nccl-topo-dump/*.xml \
               tests/data/topologies/nccl-topo-dump/*.xml tests/data/topologies/nccl-log/*.log \
               tests/data/topologies/hwloc-xml/devel09-pci.xml; do
        case $f in
          *nvidia-smi-topo*) b='\x00' ;;
          *nccl-log*) b='\x03' ;;
          *hwloc-xml*) b='\x05' ;;
          *) b=$([ $((i % 2)) -eq 0 ] && echo '\x01' || echo '\x02') ;;
        esac
        { printf "$b"; head -c 200000 "$f"; } >"$d/seed$i"
        i=$((i + 1))
      done ;;
    fix)  # launch files from the fix tests, each behind every generator's selector byte
      i=0
      for f in tests/fix/data/*; do
        [ -f "$f" ] || continue
        for g in 0 1 2 3 4 5 6; do { printf "\\x0$g"; head -c 65536 "$f"; } >"$d/seed$i-$g"; done
        i=$((i + 1))
      done ;;
    lsp_server)  # the transcripts' messages, one body per line, files inlined (8 KB)
      for f in tests/lsp/*.lsp; do
        python3 -c "
import json, re, sys
out = []
for line in open(sys.argv[1]):
    if not line.startswith('send '):
        continue
    b = line[5:].strip().replace('\${ROOTURI}', 'file:///fuzz').replace('\${ROOT}', '/fuzz')
    b = re.sub(r'@file\(([^)]*)\)', lambda m: json.dumps(open(m.group(1), errors='replace').read(8192)), b)
    out.append(b)
sys.stdout.write('\n'.join(out) + '\n')" "$f" >"$d/$(basename "$f")"
      done ;;
    flight_recorder)  # small generated dump sets in each layout and form (gen_dumps.py)
      local g=$build/fr-seed
      rm -rf "$g"
      printf '%s\n' "--out $g/a --ranks 2 --scenario missing --culprit 1" \
        "--out $g/b --ranks 2 --scenario type --culprit 0 --version 2.4 --protocol 4" \
        "--out $g/c --ranks 2 --scenario size --culprit 1 --version 2.7 --format json" >"$build/fr-seed.batch"
      python3 tests/flight_recorder/gen_dumps.py --batch "$build/fr-seed.batch"
      for f in "$g"/*/*; do head -c 65536 "$f" >"$d/$(basename "$(dirname "$f")")-$(basename "$f")"; done ;;
    lsp_frames)
      for f in tests/lsp/*.lsp; do
        python3 -c "
import sys,re
out=b'\x07\x40'
for line in open(sys.argv[1]):
    if line.startswith('send '):
        b=line[5:].strip().encode(); out+=b'Content-Length: %d\r\n\r\n'%len(b)+b
sys.stdout.buffer.write(out)" "$f" >"$d/$(basename "$f")"
      done ;;
  esac
  if [ -d "tests/hostile/regressions/$t" ]; then cp tests/hostile/regressions/"$t"/* "$d/" 2>/dev/null || true; fi
}

status=0
mkdir -p "$build/crashes"
for t in "${targets[@]}"; do
  corpus=$build/corpus/$t
  seed "$t" "$corpus"
  echo "== fuzz_$t for ${secs}s"
  if ! LSAN_OPTIONS=suppressions=$root/tools/lsan.supp:print_suppressions=0 "$build/bin/fuzz_$t" "$corpus" -max_total_time="$secs" -seed=1 -timeout=10 -rss_limit_mb=2048 \
       -max_len=262144 -print_final_stats=1 -artifact_prefix="$build/crashes/${t}-" \
       >"$build/fuzz_$t.log" 2>&1; then
    status=1
    echo "fuzz_$t FAILED; tail of $build/fuzz_$t.log:"
    tail -40 "$build/fuzz_$t.log"
  else
    grep -E "^stat::number_of_executed_units|^stat::peak_rss_mb" "$build/fuzz_$t.log" | tr '\n' ' '
    echo
  fi
done
ls "$build/crashes" | sed 's/^/artifact: /'
exit $status
