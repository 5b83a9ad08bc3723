# Shared by the shell test scripts: a scratch directory removed on exit, pass/fail counters,
# `check NAME COMMAND...` and the closing "N passed, M failed" line.
# Source it after setting `ff` and `tests`; call `finish` last.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
check() {  # check NAME CONDITION...
  local name=$1
  shift
  if "$@"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $name"; fi
}
finish() {
  echo "$pass passed, $fail failed"
  test "$fail" -eq 0
}
