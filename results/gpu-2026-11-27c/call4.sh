#!/usr/bin/env bash
# GPU call 4 of 2026-11-27 (session 12), issue 10. A/B, interleaved, two noops each: the runner of
# call 3 (.carry/attach: 43e7b45 + the profiler session at start) against this checkout, where a
# Python kernel's own allocations go to a pool whose blocks move every batch
# (kernel_runner._own_allocations_pool), on the two Triton small-call tasks; then this checkout's
# noops of two native small-call tasks (the pool does not apply to them) twice each and
# triton2triton/softmax once. Every sample in the traces.
set -uo pipefail
. bench/gpu_env.sh || exit 1
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; python3 -c "import torch, triton; print(torch.__version__, triton.__version__)"; } > $OUT/env.txt 2>&1
cat $OUT/env.txt
export GAUNTLET_JUDGE_TRACE_SAMPLES=1
run() {  # variant task index
  code=""; [ $1 = attach ] && code="--code .carry/attach"
  timeout 80 python3 -u bench/judge_gpu.py fidelity --out /tmp/s/$1-$3 --agents noop --tasks $2 $code > /tmp/s-$1-$3-${2//\//_}.txt 2>&1
  echo "$1 $2 $3 $(grep -E 'noop_abs_dev_(median|max)|s flags' /tmp/s-$1-$3-${2//\//_}.txt | tr -d '\n' | tr -s ' ')"
  tar czf $OUT/traces.tgz -C /tmp/s . 2>/dev/null    # after each run: what ran comes back if the call is cut short
}
{
for i in 0 1; do
  for t in triton2triton/gelu triton2triton/permute; do run attach $t $i; run pool $t $i; done
done
for i in 0 1; do for t in cuda2cuda/gelu cuda2cuda/log_softmax; do run pool $t $i; done; done
run pool triton2triton/softmax 0
} | tee $OUT/ab.txt
