#!/usr/bin/env python3
"""Splits a multi-rank log written by bench/gen_log.py into one log per node, as a job's
node-local logs would be: a line goes to the node of the rank or host that wrote it
(`[rankN]:` and `[rank N]` prefixes: node N // RANKS_PER_NODE; NCCL's `gpu-node-NNN:` header:
node NNN), in the order it was written. Lines that name neither go to node 0.

usage: split_by_node.py LOG OUTDIR [--ranks-per-node 8] [--nodes N]
Writes OUTDIR/node-NNN.log for every node (empty ones too, up to --nodes).
"""
import argparse
import os
import re

RANK = re.compile(rb"^\[rank(\d+)\]:|\[rank (\d+)\]")
HOST = re.compile(rb"^gpu-node-(\d+):")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("log")
    ap.add_argument("outdir")
    ap.add_argument("--ranks-per-node", type=int, default=8)
    ap.add_argument("--nodes", type=int, default=0)
    args = ap.parse_args()
    os.makedirs(args.outdir, exist_ok=True)
    nodes = {}
    with open(args.log, "rb") as f:
        for line in f:
            m = HOST.match(line)
            if m:
                node = int(m.group(1))
            else:
                m = RANK.search(line)
                node = int(m.group(1) or m.group(2)) // args.ranks_per_node if m else 0
            nodes.setdefault(node, []).append(line)
    for node in range(max(args.nodes, max(nodes) + 1 if nodes else 0)):
        with open(os.path.join(args.outdir, "node-%03d.log" % node), "wb") as out:
            out.writelines(nodes.get(node, []))


if __name__ == "__main__":
    main()
