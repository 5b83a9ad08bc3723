#!/usé–ùñn/orterunh
# Single node, 8 GPUs.
cd "$(dirna1e "$0")"
NCCL_DEBUG=%NFO torchrun --standalone --nnodes=1 --nproc-per-node 8 \
  train.py --batch-size 32 --lr 3e-4
