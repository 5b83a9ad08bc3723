#!/usr/bin/env python3
"""Writes a set of per-rank PyTorch Flight Recorder dumps (and optionally the text logs of
the same job) for firstfault's tests. Standard library only.

Each dump follows PyTorch's dump code field by field:
  version 2.10: pytorch/pytorch v2.10.0 torch/csrc/distributed/c10d/FlightRecorderDetail.hpp
                (dump_dict: version, pg_config, comm_lib_version, pg_status, entries,
                nccl_comm_state; getCollectiveTrace: frames, record_id, pg_id,
                process_group, thread_name, thread_id, collective_seq_id, p2p_seq_id,
                op_id, profiling_name, time_created_ns, input_sizes, input_dtypes,
                output_sizes, output_dtypes, state, time_discovered_started_ns,
                time_discovered_completed_ns, retired, timeout_ms, is_p2p; dump_json:
                the same without frames, process_group as a list, missing times as 0,
                pg_status values as strings, entries left out when empty)
  version 2.7:  pytorch/pytorch v2.7.0 torch/csrc/distributed/c10d/FlightRecorder.hpp
                (nccl_version instead of comm_lib_version)
  version 2.4:  pytorch/pytorch v2.5.0 torch/csrc/distributed/c10d/NCCLUtils.hpp
                (NCCLTraceBuffer: no nccl_version, no thread_id/thread_name)
File names are <prefix><global rank> as DebugInfoWriter writes them (NCCLUtils.cpp:
c10::str(fileName, rank)); --naming host puts the host in the prefix, as a
TORCH_FR_DUMP_TEMP_FILE=/shared/fr/$(hostname)_ launch line does.

Scenarios (the hung collective is the last of process group 0):
  healthy   every rank completed every collective
  missing   the culprit never enqueued it (its pg_status stops one earlier)
  ahead     the culprit enqueued one more collective the others never did
  type      the culprit ran all_gather where the others ran all_reduce
  size      the culprit's tensor has another size
  dtype     the culprit's tensor has another dtype
  state     the culprit's collective is scheduled where the others' started
  nodump    every rank waits in it; the culprit wrote no dump
"""
import argparse
import json
import os
import pickle

STEPS = int(os.environ.get("FR_STEPS", "12"))  # collectives per process group before the hang
NUMEL = 1 << 20


def ranks_str(ranks):
    # ranks_str in FlightRecorder.hpp: "[0, 1, 2]"
    return "[" + ", ".join(str(r) for r in ranks) + "]"


def entry(rec, pg_id, pg, seq, name, sizes, dtype, state, t0, version, rank, frames):
    started = state in ("started", "completed")
    completed = state == "completed"
    e = {}
    if frames:
        e["frames"] = [
            {"name": "all_reduce", "filename": "/opt/torch/distributed/distributed_c10d.py", "line": 2816},
            {"name": "train_step", "filename": "/workspace/train.py", "line": 88},
        ]
    e["record_id"] = rec
    e["pg_id"] = pg_id
    e["process_group"] = pg  # a tuple (pg_name, desc)
    if version != "2.4":
        e["thread_name"] = "pt_main_thread"
        e["thread_id"] = "140%09d" % rank
    e["collective_seq_id"] = seq
    e["p2p_seq_id"] = 0
    e["op_id"] = seq
    e["profiling_name"] = name
    e["time_created_ns"] = t0 + rec * 1_000_000
    e["input_sizes"] = [list(sizes[0])]
    e["input_dtypes"] = [dtype]
    e["output_sizes"] = [list(sizes[1])]
    e["output_dtypes"] = [dtype]
    e["state"] = state
    e["time_discovered_started_ns"] = t0 + rec * 1_000_000 + 500 if started else None
    e["time_discovered_completed_ns"] = t0 + rec * 1_000_000 + 900 if completed else None
    e["retired"] = completed
    e["timeout_ms"] = 600000
    e["is_p2p"] = False
    return e


def rank_dump(rank, world, scenario, culprit, version):
    pgs = [("0", "default_pg"), ("1", "dp_replicate")]
    t0 = 1_733_220_000_000_000_000
    entries = []
    status = {}
    rec = 0
    me = rank == culprit
    for pg_id, pg in enumerate(pgs):
        last = STEPS
        enq = comp = 0
        for seq in range(1, last + 1):
            hung = pg_id == 0 and seq == last
            if hung and me and scenario == "missing":
                break
            name, sizes, dtype, state = "nccl:all_reduce", ((NUMEL,), (NUMEL,)), "Float", "completed"
            if hung and scenario != "healthy":
                state = "started"
                if me and scenario == "type":
                    name, sizes = "nccl:all_gather", ((NUMEL,), (NUMEL * world,))
                if me and scenario == "size":
                    sizes = ((NUMEL // 2,), (NUMEL // 2,))
                if me and scenario == "dtype":
                    dtype = "BFloat16"
                if me and scenario == "state":
                    state = "scheduled"
                if scenario == "ahead":
                    state = "completed"
            entries.append(entry(rec, pg_id, pg, seq, name, sizes, dtype, state, t0, version, rank, True))
            rec += 1
            enq = seq
            if state == "completed":
                comp = seq
        if pg_id == 0 and me and scenario == "ahead":
            entries.append(entry(rec, pg_id, pg, last + 1, "nccl:all_reduce", ((NUMEL,), (NUMEL,)), "Float",
                                 "scheduled", t0, version, rank, True))
            rec += 1
            enq = last + 1
        # ProcessGroupStatus: lastEnqueuedSeq, lastStartedSeq, lastCompletedSeq
        status[str(pg_id)] = {"last_enqueued_collective": enq, "last_started_collective": enq,
                              "last_completed_collective": comp}
    # The process group 1 ran first in time; keep entries oldest first by record_id.
    d = {"version": version,
         "pg_config": {name: {"name": name, "desc": desc, "ranks": ranks_str(range(world))} for name, desc in pgs}}
    if version == "2.10":
        d["comm_lib_version"] = "2.27.5"
    elif version == "2.7":
        d["nccl_version"] = "2.26.2"
    d["pg_status"] = status
    d["entries"] = entries
    return d


def to_json_form(d):
    # dump_json: no frames, tuples become lists, missing times 0, pg_status values strings
    j = dict(d)
    j["pg_status"] = {k: {kk: str(vv) for kk, vv in v.items()} for k, v in d["pg_status"].items()}
    out = []
    for e in d["entries"]:
        e = {k: v for k, v in e.items() if k != "frames"}
        e["process_group"] = list(e["process_group"])
        for k in ("time_discovered_started_ns", "time_discovered_completed_ns"):
            if e[k] is None:
                e[k] = 0
        out.append(e)
    if out:
        j["entries"] = out
    else:
        j.pop("entries", None)
    return j


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--out")
    ap.add_argument("--batch", help="a file of argument lines, one dump set each (one process for many sets)")
    ap.add_argument("--ranks", type=int, default=64)
    ap.add_argument("--scenario", default="missing")
    ap.add_argument("--culprit", type=int, default=5)
    ap.add_argument("--version", default="2.10", choices=["2.4", "2.7", "2.10"])
    ap.add_argument("--format", default="pickle", choices=["pickle", "json"])
    ap.add_argument("--protocol", type=int, default=2)
    ap.add_argument("--naming", default="plain", choices=["plain", "host"])
    ap.add_argument("--log", action="store_true", help="also write train.log with the watchdog lines")
    a = ap.parse_args(argv)
    if a.batch:
        with open(a.batch) as f:
            for line in f:
                if line.strip():
                    main(line.split())
        return
    if not a.out:
        ap.error("--out is required")
    os.makedirs(a.out, exist_ok=True)
    for r in range(a.ranks):
        if a.scenario == "nodump" and r == a.culprit:
            continue
        d = rank_dump(r, a.ranks, a.scenario, a.culprit, a.version)
        host = "node%02d" % (r // 8)
        prefix = "nccl_trace_rank_" if a.naming == "plain" else "nccl_trace_rank_%s_" % host
        path = os.path.join(a.out, prefix + str(r) + (".json" if a.format == "json" else ""))
        if a.format == "json":
            with open(path, "w") as f:
                json.dump(to_json_form(d), f, sort_keys=True)
        else:
            with open(path, "wb") as f:
                pickle.dump(d, f, protocol=a.protocol)
    if a.log:
        # ProcessGroupNCCL.cpp's watchdog line (v2.4+), on every rank that waited.
        with open(os.path.join(a.out, "train.log"), "w") as f:
            for r in range(a.ranks):
                if r == a.culprit:
                    continue
                f.write("[rank%d]:[E1203 12:00:%02d.000000001 ProcessGroupNCCL.cpp:632] [Rank %d] Watchdog caught "
                        "collective operation timeout: WorkNCCL(SeqNum=%d, OpType=ALLREDUCE, NumelIn=%d, "
                        "NumelOut=%d, Timeout(ms)=600000) ran for 600021 milliseconds before timing out.\n"
                        % (r, r % 60, r, STEPS, NUMEL, NUMEL))


if __name__ == "__main__":
    main()
