#!/usr/bin/env bash
# GPU call 2 of 2026-11-26 (session 6), issue 10: each kernel timed in the fastest of its 4 runner
# processes (judge.Judge.fastest, the default on a GPU) against one process per kernel
# (--timing-processes 1, as before), same call: oracle + noop x4 and oracle + noop x3 on
# triton2triton/softmax, default regime.
set -uo pipefail
. bench/gpu_env.sh || exit 1
mkdir -p /tmp/p4 /tmp/p1
timeout 300 python3 -u bench/judge_gpu.py fidelity --out /tmp/p4 --tasks triton2triton/softmax --repeats 4 > $OUT/fid-k4.txt 2>&1
timeout 230 python3 -u bench/judge_gpu.py fidelity --out /tmp/p1 --tasks triton2triton/softmax --repeats 3 --eval-args=--timing-processes=1 > $OUT/fid-k1.txt 2>&1
for f in fid-k4 fid-k1; do echo "== $f"; grep -E "noop|oracle|x=|noop_abs|selection|Error|error" $OUT/$f.txt | cut -c1-260; done
