#!/usr/bin/env bash
# GPU call 8 of 2026-11-27 (session 10), issue 10: where the small configs' shift comes from. Three
# noops of cuda2cuda/log_softmax with the judge's trace kept (every batch's wall time and sample sum,
# the process offset's batches), to see whether the candidate's runner is apart from the start or
# drifts during the evaluation.
set -uo pipefail
. bench/gpu_env.sh || exit 1
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } > /tmp/env.txt 2>&1
cat /tmp/env.txt
timeout 150 python3 -u bench/judge_gpu.py fidelity --out $OUT/t --agents noop --repeats 3 --tasks cuda2cuda/log_softmax > /tmp/fid.txt 2>&1
grep -E "noop |seen|unseen|noop_abs|offset" /tmp/fid.txt | cut -c1-160
