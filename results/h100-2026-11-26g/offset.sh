#!/usr/bin/env bash
# GPU call 2 of 2026-11-26 (session 7), issue 10: the process offset (judge.Judge.process_offset, on
# by default on a GPU): the candidate's runner builds and times the baseline before the candidate is
# loaded; every baseline time moves by that offset. triton2triton/softmax, oracle + noop x5 with it
# (the summary also gives the same noops without it: each baseline from its own process), then
# oracle + noop x2 with --no-process-offset for the evaluation wall time.
set -uo pipefail
. bench/gpu_env.sh || exit 1
mkdir -p /tmp/on /tmp/off
timeout 330 python3 -u bench/judge_gpu.py fidelity --out /tmp/on --tasks triton2triton/softmax --repeats 5 > $OUT/fid-on.txt 2>&1
timeout 200 python3 -u bench/judge_gpu.py fidelity --out /tmp/off --tasks triton2triton/softmax --repeats 2 --eval-args=--no-process-offset > $OUT/fid-off.txt 2>&1
for f in fid-on fid-off; do echo "== $f"; grep -E "noop |oracle |noop_|Error|error|process offset" $OUT/$f.txt | cut -c1-240; done
