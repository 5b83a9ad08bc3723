#!/bin/bash
# Flight Recorder dumps end to end: generated 64-rank dump sets (gen_dumps.py, which follows
# PyTorch's dump code) for every mismatch class and a missing rank, the culprit named in each,
# rank 0 included; JSON and pickle agree; every layout version and file naming; unreadable
# dumps give an error naming the file and the byte. Usage: fr_cli_test.sh FIRSTFAULT TESTS_DIR
set -euo pipefail
ff=$1
gen=$2/flight_recorder/gen_dumps.py
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

# Each report is written to a file and all are judged by one Python process at the end
# (a Python start costs more than an analysis). verdict ID EXPECTED WHAT DIR...:
# EXPECTED is "category rank mismatch ranks collateral_count rule" or a prefix of it.
verdict() {
  local id=$1 want=$2 what=$3; shift 3
  "$ff" analyze -f json "$@" >"$tmp/report-$id.json" 2>/dev/null || echo '{"error": true}' >"$tmp/report-$id.json"
  printf '%s\t%s\t%s\n' "$id" "$want" "$what" >>"$tmp/expected"
}
judge() {
  python3 - "$tmp" <<'PY' || fails=$((fails + 1))
import json, sys
tmp = sys.argv[1]
bad = 0
for line in open(tmp + "/expected"):
    id, want, what = line.rstrip("\n").split("\t")
    d = json.load(open("%s/report-%s.json" % (tmp, id)))
    if "error" in d:
        got = "error"
    elif not d["diagnoses"]:
        got = "none"
    else:
        x = d["diagnoses"][0]
        c = x.get("captures") or {}
        got = " ".join(str(v) for v in (x["category"], x["initiating"]["rank"], c.get("mismatch"), c.get("ranks"),
                                        len(x.get("collateral", [])), x["rule"]))
    if not (got + " ").startswith(want + " "):
        print("FAIL: %s: expected '%s', got '%s'" % (what, want, got), file=sys.stderr)
        bad += 1
sys.exit(1 if bad else 0)
PY
}

# The generated sets are listed first and written by one generator process (a Python start
# per set costs more than the analysis).
n=0
declare -a want what
check() {  # check SCENARIO CULPRIT CATEGORY MISMATCH [gen options...]
  local s=$1 c=$2 cat=$3 mm=$4; shift 4
  n=$((n + 1))
  echo "--out $tmp/$n --scenario $s --culprit $c $*" >>"$tmp/batch"
  want[$n]="$cat $c $mm [$c]"
  what[$n]="$s culprit $c $*"
}

# Rank 0 as the culprit: fr_trace's reference rank, which a majority vote must not trust.
check missing 0 straggler MISSING_RANKS
check ahead 0 collective-mismatch EXTRA_COLLECTIVE
check type 0 collective-mismatch COLLECTIVE_TYPE_MISMATCH
check size 0 collective-mismatch SIZE_OR_SYNTAX_MISMATCH
check dtype 0 collective-mismatch COLLECTIVE_DTYPE_MISMATCH
check state 0 straggler COLLECTIVE_STATE_MISMATCH
check nodump 0 straggler NO_DUMP
check nodump 37 straggler NO_DUMP --format json
check ahead 37 collective-mismatch EXTRA_COLLECTIVE --format json
# Every layout, both forms, both namings, Python's newer pickle protocols.
check missing 63 straggler MISSING_RANKS --version 2.4
check type 1 collective-mismatch COLLECTIVE_TYPE_MISMATCH --version 2.7 --format json
check type 40 collective-mismatch COLLECTIVE_TYPE_MISMATCH --version 2.4 --format json
check missing 12 straggler MISSING_RANKS --naming host
check size 12 collective-mismatch SIZE_OR_SYNTAX_MISMATCH --naming host --format json
check dtype 9 collective-mismatch COLLECTIVE_DTYPE_MISMATCH --protocol 5
check state 9 straggler COLLECTIVE_STATE_MISMATCH --protocol 4
for s in missing size; do
  echo "--out $tmp/p-$s --scenario $s --culprit 0" >>"$tmp/batch"
  echo "--out $tmp/j-$s --scenario $s --culprit 0 --format json" >>"$tmp/batch"
done
echo "--out $tmp/host --scenario missing --culprit 12 --naming host" >>"$tmp/batch"
echo "--out $tmp/logs --scenario missing --culprit 0 --log" >>"$tmp/batch"
echo "--out $tmp/healthy --scenario healthy" >>"$tmp/batch"
echo "--out $tmp/bad --scenario missing --culprit 3 --ranks 8" >>"$tmp/batch"
# The watchdog lines of a 32-rank and a 2-rank job, for NCCL RAS reports of the same job (tests/data/ras).
echo "--out $tmp/ras-lagging --ranks 32 --scenario nodump --culprit 0 --log" >>"$tmp/batch"
echo "--out $tmp/ras-missing --ranks 2 --scenario nodump --culprit 1 --log" >>"$tmp/batch"
python3 "$gen" --batch "$tmp/batch"
for i in $(seq 1 $n); do
  verdict "$i" "${want[$i]}" "${what[$i]}" "$tmp/$i"
done

# JSON and pickle give the same answer: the whole report but the file names and the
# frames (dump_json writes none).
for s in missing size; do
  a=$("$ff" analyze "$tmp/p-$s" | sed "s#$tmp/p-$s/##g; s#; issued from .*##")
  echo "$a" | grep -q "Flight Recorder: rank 0" || fail "no finding for $s"
  b=$("$ff" analyze "$tmp/j-$s" | sed "s#$tmp/j-$s/##; s#\.json##g")
  [ "$a" = "$b" ] || fail "json and pickle differ for $s: $(diff <(echo "$a") <(echo "$b") | head -5)"
done

# The host in the file name is carried to the finding.
"$ff" analyze "$tmp/host" | grep -q 'rank 12 (host node01) never enqueued collective 12' ||
  fail "host from the file name not shown"

# Dumps beside the text logs: one diagnosis, the watchdog lines its collateral.
verdict logs "straggler 0 MISSING_RANKS [0] 63 flight-recorder-missing-rank" "dumps and logs" "$tmp/logs"
# Healthy dumps: no culprit; the logs alone decide.
verdict healthy "none" "healthy dumps" "$tmp/healthy"

# NCCL RAS output: alone it names the ranks behind (or missing) as initiating; beside the
# text logs of the same job the watchdog timeouts are its collateral.
ras=$2/data/ras
for d in lagging missing; do
  mkdir -p "$tmp/ras-$d-logs" && mv "$tmp/ras-$d/train.log" "$tmp/ras-$d-logs/"
done
cp "$ras/doc-mismatch-lagging.txt" "$tmp/ras-lagging-logs/ncclras.txt"
cp "$ras/doc-report.json" "$tmp/ras-missing-logs/ncclras.json"
verdict ras-alone "straggler 0 None [0, 2-5, 7] 0 nccl-ras-ranks-behind" "RAS report alone" "$ras/doc-mismatch-lagging.txt"
verdict ras-logs "straggler 0 None [0, 2-5, 7] 31 nccl-ras-ranks-behind" "RAS report and logs" "$tmp/ras-lagging-logs"
verdict ras-json-logs "remote-peer 1 None [1] 1 nccl-ras-missing-rank" "RAS JSON and a 2-rank job's logs" "$tmp/ras-missing-logs"
verdict ras-dead "remote-peer 21 None [21] 0 nccl-ras-missing-rank" "RAS: a dead process" "$ras/doc-dead.txt"
cat "$ras/doc-mismatch-lagging.txt" "$ras/doc-mismatch-lagging.txt" >"$tmp/ras-twice.txt"
verdict ras-frozen "straggler 0 None [0, 2-5, 7] 0 nccl-ras-stuck-ranks" "RAS: the same counts twice" "$tmp/ras-twice.txt"

# Hostile dumps: an error naming the file and the byte, never a crash.
f=$tmp/bad/nccl_trace_rank_2
head -c 700 "$f" >"$f.cut" && mv "$f.cut" "$f"
out=$("$ff" analyze "$tmp/bad" 2>&1 >/dev/null)
echo "$out" | grep -q "warning: $f: byte 700: truncated" || fail "truncated dump: $out"
verdict bad "straggler 3 MISSING_RANKS [3]" "one truncated dump of 8" "$tmp/bad"
python3 - "$tmp/v3/nccl_trace_rank_0" <<'PY'
import os, pickle, sys
os.makedirs(os.path.dirname(sys.argv[1]))
pickle.dump({"version": "3.0", "entries": []}, open(sys.argv[1], "wb"), protocol=2)
PY
out=$("$ff" analyze "$tmp/v3/nccl_trace_rank_0" 2>&1) && fail "a wrong-version dump alone must be an error"
echo "$out" | grep -q "nccl_trace_rank_0: byte [0-9]*: Flight Recorder dump version \"3.0\" is not supported" ||
  fail "wrong version: $out"
mkdir -p "$tmp/garbage"
printf '\x80\x02\xff\xfe\x00garbage' >"$tmp/garbage/nccl_trace_rank_1"
out=$("$ff" analyze "$tmp/garbage/nccl_trace_rank_1" 2>&1) && fail "a garbage dump alone must be an error"
echo "$out" | grep -q "nccl_trace_rank_1: byte 2: unknown pickle opcode 0xff" || fail "garbage: $out"
printf '\x80\x02cos\nsystem\n(S"true"\ntR.' >"$tmp/garbage/nccl_trace_rank_2"
out=$("$ff" analyze "$tmp/garbage/nccl_trace_rank_2" 2>&1) && fail "a code-running pickle must be an error"
echo "$out" | grep -q "byte 2: opcode 0x63 (GLOBAL) is not plain data" || fail "GLOBAL: $out"
printf '{"version": "2.10", "pg_config": {"0": ' >"$tmp/garbage/nccl_trace_rank_3.json"
out=$("$ff" analyze "$tmp/garbage/nccl_trace_rank_3.json" 2>&1) && fail "truncated JSON must be an error"
echo "$out" | grep -q "nccl_trace_rank_3.json: byte [0-9]*: not valid JSON" || fail "truncated JSON: $out"

# A JSON dump whose content is wrong: the entry and field, no byte (JSON values keep none).
printf '{"version": "2.10", "entries": [{"record_id": "x"}]}' >"$tmp/garbage/nccl_trace_rank_4.json"
out=$("$ff" analyze "$tmp/garbage/nccl_trace_rank_4.json" 2>&1) && fail "a bad JSON entry must be an error"
echo "$out" | grep -q 'nccl_trace_rank_4.json: entry 0: "record_id" is not an integer' || fail "bad JSON entry: $out"

judge
echo "$n generated dump sets checked"
[ $fails -eq 0 ] || { echo "$fails failures" >&2; exit 1; }
