#!/usr/bin/env python3
"""Writes the logs of a live job, one file per rank, at a given rate, and injects a GPU
out-of-memory on one rank after a given time (then watchdog timeouts on the others), as
`firstfault watch` sees a job die. The noise is bench/gen_log.py's NCCL INFO lines.

usage: live_writer.py DIR [--files N] [--rate-mb R] [--fault-after S] [--duration S]
                          [--seed N] [--no-fault]
Each file is appended R MB/s (whole lines, every 10 ms). Prints one JSON object on stdout
when done: the victim's rank and file, and `fault_at`, the time.time() right after the
fault's lines were written and flushed (null without a fault).
"""
import argparse
import bisect
import json
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_log import BUS, SUBSYS_LINES, WEIGHTS  # noqa: E402


def noise_block(rank, ranks, rnd, size=1024 * 1024):
    """One rank's noise as bytes and the offsets where its lines end (written in slices of
    whole lines, so that 64 files at 1 MB/s cost the writer little)."""
    host = "gpu-node-%03d" % (rank // 8)
    pid = 10000 + rank
    d = rank % 8
    lines = []
    total = 0
    while total < size:
        tpl = rnd.choices(SUBSYS_LINES, WEIGHTS)[0]
        p, q = (rank + 1) % ranks, (rank - 1) % ranks
        body = tpl.format(c=rnd.randrange(32), r=rank, d=d, p=p, pd=p % 8, q=q, h=rnd.getrandbits(40),
                          h2=rnd.getrandbits(60), n=ranks, bus=BUS[d], a=rnd.randrange(1 << 20, 1 << 28))
        line = ("%s:%d:%d [%d] %s\n" % (host, pid, pid + rnd.randrange(400), d, body)).encode()
        lines.append(line)
        total += len(line)
    ends = []
    at = 0
    for line in lines:
        at += len(line)
        ends.append(at)
    return b"".join(lines), ends


def oom_lines(rank):
    return ("[rank%d]:Traceback (most recent call last):\n"
            "[rank%d]:  File \"/workspace/train.py\", line 231, in <module>\n"
            "[rank%d]:    loss.backward()\n"
            "[rank%d]:torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU %d "
            "has a total capacity of 79.11 GiB of which 1.20 GiB is free.\n"
            % (rank, rank, rank, rank, rank % 8)).encode()


def timeout_line(rank):
    return ("[rank%d]:[E1126 02:14:31.123456 ProcessGroupNCCL.cpp:632] [Rank %d] Watchdog caught "
            "collective operation timeout: WorkNCCL(SeqNum=9000, OpType=ALLREDUCE, NumelIn=26214400, "
            "NumelOut=26214400, Timeout(ms)=600000) ran for 600321 milliseconds before timing out.\n"
            % (rank, rank)).encode()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--files", type=int, default=4)
    ap.add_argument("--rate-mb", type=float, default=0.1)
    ap.add_argument("--fault-after", type=float, default=2.0)
    ap.add_argument("--duration", type=float, default=4.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-fault", action="store_true")
    args = ap.parse_args()
    rnd = random.Random(args.seed)
    os.makedirs(args.dir, exist_ok=True)
    paths = [os.path.join(args.dir, "rank%03d.log" % r) for r in range(args.files)]
    fds = [os.open(p, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644) for p in paths]
    blocks = [noise_block(r, args.files, rnd) for r in range(args.files)]
    cursor = [0] * args.files
    victim = rnd.randrange(args.files)
    tick = 0.01
    per_tick = args.rate_mb * 1024 * 1024 * tick
    owed = [0.0] * args.files
    start = time.time()
    fault_at = None
    timeouts_done = False
    next_tick = start
    while True:
        now = time.time()
        if now - start >= args.duration:
            break
        for r in range(args.files):
            owed[r] += per_tick
            data, ends = blocks[r]
            want = cursor[r] + int(owed[r])
            if want >= len(data):  # to the block's end, the rest at the next tick
                end = len(data)
            else:
                k = bisect.bisect_left(ends, want)
                end = ends[k]
            if end > cursor[r]:
                os.write(fds[r], data[cursor[r]:end])
                owed[r] -= end - cursor[r]
            cursor[r] = end % len(data)
        if not args.no_fault and fault_at is None and now - start >= args.fault_after:
            os.write(fds[victim], oom_lines(victim))
            fault_at = time.time()
        if fault_at is not None and not timeouts_done and time.time() - fault_at >= 0.5:
            for r in range(args.files):
                if r != victim:
                    os.write(fds[r], timeout_line(r))
            timeouts_done = True
        next_tick += tick
        delay = next_tick - time.time()
        if delay > 0:
            time.sleep(delay)
        else:
            next_tick = time.time()  # behind: write what is owed at the next tick
    for fd in fds:
        os.close(fd)
    json.dump({"rank": None if args.no_fault else victim,
               "file": None if args.no_fault else paths[victim],
               "fault_at": fault_at, "files": paths}, sys.stdout)
    print()


if __name__ == "__main__":
    main()
