#!/usr/bin/env bash
# GPU call 9 of 2026-11-27 (session 10), issue 10: the process offset measured on the config of the
# baseline's quickest call (Judge.quickest) instead of the fewest input bytes (a 3 ms call on
# cuda2cuda/log_softmax, call 8): the noop on the tasks whose small configs read apart in call 4.
set -uo pipefail
. bench/gpu_env.sh || exit 1
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } > $OUT/env.txt 2>&1
cat $OUT/env.txt
timeout 420 python3 -u bench/judge_gpu.py fidelity --out /tmp/q --agents noop --repeats 2 --tasks cuda2cuda/log_softmax cuda2cuda/gelu triton2triton/permute cuda2cuda/embedding triton2triton/gelu > $OUT/quick.txt 2>&1
grep -E "noop |offset|seen|unseen|noop_abs|flagged" $OUT/quick.txt | cut -c1-150
