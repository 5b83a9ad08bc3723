#!/bin/bash
# >>> firstfault: notes from last week
export NCCL_DEBUG=WARN
