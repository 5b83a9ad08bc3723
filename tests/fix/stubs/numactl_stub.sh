#!/bin/sh
# numactl --cpunodebind=N --membind=N PROG...: records N, runs PROG.
node=
while [ $# -gt 0 ]; do
  case "$1" in
    --cpunodebind=*) node=${1#--cpunodebind=} ;;
    --membind=*) ;;
    *) break ;;
  esac
  shift
done
FF_NUMA=$node exec "$@"
