#!/bin/bash
export NCCL_SOCKET_IFNAME=eth0
deepspeed --num_gpus 8 --master_port 29501 train_ds.py --deepspeed --deepspeed_config ds_config.json
