#!/usr/bin/env bash
# GPU call 1 of 2026-11-26 (session 7), issue 10: does a process's launch cost, measured before any
# kernel is loaded (ten one-element PyTorch launches under the judge's GpuClock), predict the level
# the triton2triton/softmax baseline reads in that process? If so, a runner can be picked from a pool
# of blank processes before the kernel exists in any of them. Then: is the level per CUDA context
# (MPS funnels every client through one server), and does CUDA_DEVICE_MAX_CONNECTIONS=1 move it?
set -uo pipefail
. bench/gpu_env.sh || exit 1
run() { echo "== $*"; /usr/bin/time -f "wall %e s" timeout 150 python3 bench/archive/offset_probe.py --clock --rounds 3 --calibrate 10 "$@" 2>&1 | grep -v "ready" | tail -36; }
{
  nvidia-smi --query-gpu=name,driver_version,compute_mode --format=csv
  run --procs 16
  run --procs 16
  echo "== CUDA_DEVICE_MAX_CONNECTIONS=1"; CUDA_DEVICE_MAX_CONNECTIONS=1 run --procs 8
  if command -v nvidia-cuda-mps-control >/dev/null; then
    export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps-pipe CUDA_MPS_LOG_DIRECTORY=/tmp/mps-log
    mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
    if timeout 20 nvidia-cuda-mps-control -d; then
      echo "== under MPS"; run --procs 8
      echo quit | timeout 20 nvidia-cuda-mps-control; sleep 2; tail -5 $CUDA_MPS_LOG_DIRECTORY/control.log
    else echo "MPS daemon did not start"; fi
  else echo "no nvidia-cuda-mps-control"; fi
} > $OUT/calib.txt 2>&1
cat $OUT/calib.txt
