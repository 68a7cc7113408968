#!/usr/bin/env bash
# GPU call 3 of 2026-11-27 (session 10), issue 10, with the arena on (the default): the GPU red team
# (side streams, forged timer, thread after return, empty graph, baseline hog), the noop on four
# more X->X tasks, and Nsight Compute against the judge's solution times.
set -uo pipefail
. bench/gpu_env.sh || exit 1
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; git log -1 --format=%h 2>/dev/null; } > $OUT/env.txt 2>&1
cat $OUT/env.txt
timeout 240 python3 -u bench/judge_gpu.py redteam --out /tmp/red > $OUT/redteam.txt 2>&1
grep -vE "^\s*$" $OUT/redteam.txt | cut -c1-220 | tail -30
timeout 200 python3 -u bench/judge_gpu.py fidelity --out /tmp/fid --agents noop --tasks triton2triton/softmax cuda2cuda/softmax triton2triton/matmul cuda2cuda/bmm > $OUT/fidelity.txt 2>&1
grep -E "noop |seen|unseen|noop_abs|flagged" $OUT/fidelity.txt | cut -c1-150
timeout 140 python3 -u bench/judge_gpu.py ncu --out /tmp/ncu --tasks cuda2cuda/softmax cuda2cuda/transpose triton2triton/softmax > $OUT/ncu.txt 2>&1
tail -25 $OUT/ncu.txt | cut -c1-200
