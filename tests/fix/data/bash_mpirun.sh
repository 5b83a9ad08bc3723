#!/bin/bash
# nccl-tests across two nodes
HOSTS=node01:8,node02:8

mpirun -np 16 -H "$HOSTS" --bind-to none --map-by slot \
  -x NCCL_DEBUG=INFO -x NCCL_IB_HCA=mlx5 -x LD_LIBRARY_PATH \
  -mca pml ob1 -mca btl ^openib \
  ./build/all_reduce_perf -b 8 -e 8G -f 2 -g 1
