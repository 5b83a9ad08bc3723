#!/usr/bin/env python3
"""Writes a realistic multi-rank training log of a given size, seeded and reproducible.

NCCL INFO noise of every subsystem, training-loop prints, Python warnings, tqdm bars
redrawn with carriage returns, ANSI colour, several hosts interleaved, and one injected
failure (a GPU out-of-memory on one rank, at a random point past the middle) with its
collateral spread over the other ranks: watchdog timeouts, service-thread closures,
torchrun tearing the job down. With --healthy nothing is injected: the log of a job that
ran fine (the healthy set in tests/healthy uses a few such logs).

With --context-density F, a fraction F of the lines are NCCL INFO lines that context rules
or check evidence match, as a job run with NCCL_DEBUG=INFO prints at every communicator
init (`NET/IB : Using ...`, `via NET/IB/N/GDRDMA`, `via SHM/direct/direct`, the version
banner): an event-dense log. 0 (the default) keeps the log as it always was.

usage: gen_log.py SIZE_MB OUT [--seed N] [--ranks N] [--healthy] [--context-density F]
Prints the injected rank and line number as JSON on stdout (null with --healthy).
"""
import argparse
import json
import random
import sys

SUBSYS_LINES = [
    "NCCL INFO Channel {c:02d}/0 : {r}[{d}] -> {p}[{pd}] via P2P/IPC/read",
    "NCCL INFO Channel {c:02d}/0 : {r}[{d}] -> {p}[{pd}] [send] via NET/IB/{d}/GDRDMA",
    "NCCL INFO Channel {c:02d}/0 : {p}[{pd}] -> {r}[{d}] [receive] via NET/IB/{d}/GDRDMA",
    "NCCL INFO Connected all rings",
    "NCCL INFO Connected all trees",
    "NCCL INFO threadThresholds 8/8/64 | 256/8/64 | 512 | 512",
    "NCCL INFO 32 coll channels, 32 collnet channels, 0 nvls channels, 32 p2p channels, 32 p2p channels per peer",
    "NCCL INFO Trees [0] {p}/-1/-1->{r}->{q} [1] {p}/-1/-1->{r}->{q}",
    "NCCL INFO Ring 00 : {q} -> {r} -> {p}",
    "NCCL INFO Setting affinity for GPU {d} to ffff,ffffffff,00000000,0000ffff,ffffffff",
    "NCCL INFO NVLS multicast support is not available on dev {d}",
    "NCCL INFO comm 0x{h:x} rank {r} nranks {n} cudaDev {d} nvmlDev {d} busId {bus} commId 0x{h2:x} - Init START",
    "NCCL INFO comm 0x{h:x} rank {r} nranks {n} cudaDev {d} busId {bus} commId 0x{h2:x} - Init COMPLETE",
    "NCCL INFO Using non-device net plugin version 0",
    "NCCL INFO Using network IB",
    "NCCL INFO P2P Chunksize set to 524288",
    "NCCL INFO CC Off, Multi-GPU CC Off, workFifoBytes 1048576",
    "NCCL INFO ncclCommInitRank comm 0x{h:x} rank {r} nranks {n} cudaDev {d} nvmlDev {d} busId {bus} commId 0x{h2:x} localSize 8 node 1",
    "NCCL INFO Allocated {a} bytes of device memory",
    "NCCL INFO MNNVL busId 0x{bus} fabric UUID 0.0 cliqueId 0x0 state 3 healthMask 0x0",
]
# Lines printed once per communicator and rank (init, topology) are far rarer in a long
# log than the per-connection channel lines; weight them accordingly.
ONCE_PER_INIT = ("Init START", "Init COMPLETE", "NVLS multicast", "Setting affinity", "Using network",
                 "non-device net plugin", "ncclCommInitRank", "CC Off", "MNNVL", "P2P Chunksize",
                 "coll channels", "threadThresholds")
WEIGHTS = [0.1 if any(k in t for k in ONCE_PER_INIT) else 1.0 for t in SUBSYS_LINES]
# Lines that context rules (or check evidence) match, printed at every communicator init by
# jobs run with NCCL_DEBUG=INFO (NVIDIA/nccl src/transport/net_ib.cc, src/transport/shm.cc,
# src/init.cc wordings).
CONTEXT_LINES = [
    "NCCL INFO NET/IB : Using [0]mlx5_{d}:1/IB [1]mlx5_{d2}:1/IB ; OOB eth0:10.1.{hi}.{lo}<0>",
    "NCCL INFO Channel {c:02d}/0 : {r}[{d}] -> {p}[{pd}] [send] via NET/IB/{d}/GDRDMA",
    "NCCL INFO Channel {c:02d}/0 : {p}[{pd}] -> {r}[{d}] [receive] via NET/IB/{d}/GDRDMA",
    "NCCL INFO Channel {c:02d} : {r}[{d}] -> {p}[{pd}] via SHM/direct/direct",
    "NCCL INFO NCCL version 2.21.5+cuda12.4",
]
BUS = ["18000", "2a000", "3a000", "5d000", "9a000", "ab000", "ba000", "db000"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("size_mb", type=float)
    ap.add_argument("out")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--ranks", type=int, default=64)
    ap.add_argument("--healthy", action="store_true", help="inject no failure")
    ap.add_argument("--context-density", type=float, default=0.0,
                    help="fraction of lines that context rules match (0: as before)")
    args = ap.parse_args()
    rnd = random.Random(args.seed)
    target = int(args.size_mb * 1024 * 1024)
    n = args.ranks
    hosts = ["gpu-node-%03d" % i for i in range((n + 7) // 8)]
    victim = rnd.randrange(n)
    inject_at = int(target * rnd.uniform(0.55, 0.8))
    written = 0
    line_no = 0
    injected_line = None
    step = 0
    out = open(args.out, "w", encoding="utf-8", newline="")

    def emit(s):
        nonlocal written, line_no
        out.write(s)
        out.write("\n")
        written += len(s.encode()) + 1
        line_no += s.count("\n") + s.count("\r") + 1

    while written < target:
        r = rnd.randrange(n)
        d = r % 8
        host = hosts[r // 8]
        pid = 10000 + r
        kind = rnd.random()
        if args.context_density and rnd.random() < args.context_density:
            p = (r + 1) % n
            body = rnd.choice(CONTEXT_LINES).format(c=rnd.randrange(32), r=r, d=d, d2=(d + 1) % 8, p=p,
                                                    pd=p % 8, hi=r // 8, lo=10 + r % 8)
            emit("%s:%d:%d [%d] %s" % (host, pid, pid + rnd.randrange(400), d, body))
            continue
        if not args.healthy and injected_line is None and written >= inject_at:
            emit("[rank%d]:Traceback (most recent call last):" % victim)
            emit('[rank%d]:  File "/workspace/train.py", line 231, in <module>' % victim)
            emit("[rank%d]:    loss.backward()" % victim)
            emit("[rank%d]:torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU %d has a total capacity of 79.11 GiB of which 1.20 GiB is free." % (victim, victim % 8))
            injected_line = line_no
            for other in range(n):
                if other == victim:
                    continue
                if other // 8 == victim // 8:
                    emit("%s:%d:%d [%d] NCCL INFO [Service thread] Connection closed by localRank %d" % (hosts[other // 8], 10000 + other, 10500 + other, other % 8, victim % 8))
            continue
        if injected_line is not None and kind < 0.01:
            o = rnd.randrange(n)
            if o != victim:
                emit("[rank%d]:[E1126 02:14:31.%06d ProcessGroupNCCL.cpp:632] [Rank %d] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=%d, OpType=ALLREDUCE, NumelIn=26214400, NumelOut=26214400, Timeout(ms)=600000) ran for 600%03d milliseconds before timing out." % (o, rnd.randrange(10**6), o, 9000, rnd.randrange(1000)))
                continue
        if kind < 0.82:
            tpl = rnd.choices(SUBSYS_LINES, WEIGHTS)[0]
            p = (r + 1) % n
            q = (r - 1) % n
            body = tpl.format(c=rnd.randrange(32), r=r, d=d, p=p, pd=p % 8, q=q, h=rnd.getrandbits(40),
                              h2=rnd.getrandbits(60), n=n, bus=BUS[d], a=rnd.randrange(1 << 20, 1 << 28))
            emit("%s:%d:%d [%d] %s" % (host, pid, pid + rnd.randrange(400), d, body))
        elif kind < 0.90:
            step += 1
            emit("[rank%d]:\x1b[32m{'loss': %.4f, 'grad_norm': %.3f, 'learning_rate': 2e-05, 'epoch': %.2f}\x1b[0m" % (r, 2.5 - step * 1e-5, rnd.random() * 3, step / 1e5))
        elif kind < 0.95:
            bars = "\r".join("Training:  %2d%%|%s%s| %d/100000 [%02d:%02d<10:00,  1.11it/s]" % (s % 100, "#" * (s % 10), " " * (10 - s % 10), s, s // 60 % 60, s % 60) for s in range(step, step + 5))
            emit("[rank%d]:%s" % (r, bars))
        elif kind < 0.98:
            emit("[rank%d]:/usr/lib/python3/dist-packages/torch/utils/checkpoint.py:460: UserWarning: torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly." % r)
        else:
            emit("[2024-11-26 02:%02d:%02d,%03d] [INFO] [rank %d] step %d throughput %.1f samples/s" % (rnd.randrange(60), rnd.randrange(60), rnd.randrange(1000), r, step, 100 + rnd.random() * 20))
    out.close()
    json.dump({"rank": None if args.healthy else victim, "line": injected_line, "bytes": written}, sys.stdout)
    print()


if __name__ == "__main__":
    main()
