#!/usr/bin/env bash
# GPU call 2 of 2026-11-27 (session 10), issue 10: the judge's noop self-speedup with the arena
# (default) and without it (--no-arena), interleaved in one call on the tasks whose memory-bound
# configs read the candidate's runner slower (cuda2cuda/rmsnorm, cuda2cuda/transpose) and
# triton2triton/layernorm; then the rmsnorm oracle with the arena (correct, unflagged).
set -uo pipefail
. bench/gpu_env.sh || exit 1
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  python3 -c 'import torch, triton; print("torch", torch.__version__, "cuda", torch.version.cuda, "triton", triton.__version__)'; } > $OUT/env.txt 2>&1
cat $OUT/env.txt
run() {   # run NAME TIMEOUT TASK [EVAL ARGS]
  local name=$1 limit=$2 task=$3; shift 3
  timeout $limit python3 -u bench/judge_gpu.py fidelity --out /tmp/$name --tasks $task --agents noop ${1:+--eval-args=$1} > $OUT/$name.txt 2>&1
  grep -E "noop |seen|unseen|noop_abs|flagged" $OUT/$name.txt | cut -c1-150
}
run rms-a 100 cuda2cuda/rmsnorm
run rms-b 100 cuda2cuda/rmsnorm --no-arena
run tr-a 80 cuda2cuda/transpose
run tr-b 80 cuda2cuda/transpose --no-arena
run ln-a 50 triton2triton/layernorm
run ln-b 50 triton2triton/layernorm --no-arena
run rms-c 100 cuda2cuda/rmsnorm --no-arena
run rms-d 100 cuda2cuda/rmsnorm
timeout 90 python3 -u bench/judge_gpu.py fidelity --out /tmp/oracle --tasks cuda2cuda/rmsnorm --agents oracle > $OUT/oracle.txt 2>&1
grep -E "oracle |seen|unseen|flagged|timing" $OUT/oracle.txt | cut -c1-200
