#!/usr/bin/env bash
# GPU call 1 of 2026-11-27 (session 13), issue 10: what moves the process offset between its probe
# and the candidate's stage (bench/archive/stage_shift.py), three pairs of runners per task.
set -uo pipefail
. bench/gpu_env.sh || exit 1
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; python3 -c "import torch, triton; print(torch.__version__, triton.__version__)"; } > $OUT/env.txt 2>&1
cat $OUT/env.txt
timeout 520 python3 -u bench/archive/stage_shift.py --tasks cuda2cuda/gelu triton2triton/gelu triton2triton/permute --repeats 3 --out $OUT/steps.jsonl > $OUT/steps.txt 2>&1
echo "rc=$?"
cat $OUT/steps.txt | cut -c1-160
