#!/usr/bin/env bash
# GPU call 3 of 2026-11-26 (session 6), issue 10: after call 2 (selection compiled each runner's JIT
# kernels one process after another: 22 s), the warm-up runs in every process at once. Fastest of 4
# runner processes per kernel (default) against 1 (--timing-processes 1), same call, oracle + noop x5
# each on triton2triton/softmax; then cuda2cuda/softmax with the default, oracle + noop.
set -uo pipefail
. bench/gpu_env.sh || exit 1
mkdir -p /tmp/p4 /tmp/p1 /tmp/c4
timeout 250 python3 -u bench/judge_gpu.py fidelity --out /tmp/p4 --tasks triton2triton/softmax --repeats 5 > $OUT/fid-k4.txt 2>&1
timeout 200 python3 -u bench/judge_gpu.py fidelity --out /tmp/p1 --tasks triton2triton/softmax --repeats 5 --eval-args=--timing-processes=1 > $OUT/fid-k1.txt 2>&1
timeout 120 python3 -u bench/judge_gpu.py fidelity --out /tmp/c4 --tasks cuda2cuda/softmax --repeats 1 > $OUT/fid-cuda-k4.txt 2>&1
for f in fid-k4 fid-k1 fid-cuda-k4; do echo "== $f"; grep -E "noop |oracle |noop_abs|Error|error" $OUT/$f.txt | cut -c1-200; grep -o "'runner start+build': [0-9.]*, 'timing: runner selection': [0-9.]*" $OUT/$f.txt; done
