#!/bin/sh
# Stands in for python / the MPI program: prints what the rank got.
echo "hca=${NCCL_IB_HCA:-} numa=${FF_NUMA:-none}"
