#!/usr/bin/env bash
# GPU call 2 of 2026-11-27 (session 13), issue 10: bench/archive/stage_shift.py with the later steps (other
# configs timed, a checked stage timing), without and with --symmetric (the baseline's runner also
# builds a probe copy first and its own copy at `build`).
set -uo pipefail
. bench/gpu_env.sh || exit 1
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; python3 -c "import torch, triton; print(torch.__version__, triton.__version__)"; } > $OUT/env.txt 2>&1
cat $OUT/env.txt
timeout 250 python3 -u bench/archive/stage_shift.py --tasks cuda2cuda/gelu --repeats 3 --out $OUT/plain.jsonl > $OUT/plain.txt 2>&1
echo "rc=$?"
timeout 300 python3 -u bench/archive/stage_shift.py --tasks cuda2cuda/gelu triton2triton/permute --repeats 3 --symmetric --out $OUT/symmetric.jsonl > $OUT/symmetric.txt 2>&1
echo "rc=$?"
grep -A20 "mean |change|" $OUT/plain.txt; grep -A20 "mean |change|" $OUT/symmetric.txt
grep -E "pair|build|after|others|checked|start" $OUT/plain.txt $OUT/symmetric.txt | cut -c1-150
