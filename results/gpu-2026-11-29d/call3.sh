#!/usr/bin/env bash
# GPU call 3 of 2026-11-29 (session 10), time-boxed to 555 s: issue 30/33, the headline ledger resumed.
set -uo pipefail
. bench/gpu_env.sh || exit 1
L=/tmp/c3; mkdir -p $L
LEDGER=results/gpu-2026-11-29/headline-timed.jsonl
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } > $OUT/env.txt 2>&1
timeout $((555 - SECONDS)) python3 -u bench/judge_gpu.py fidelity --out $L/head --suite headline --ledger $LEDGER > $L/head.txt 2>&1
echo "headline rc=$? at ${SECONDS}s"; grep -E "^\S+/\S+ +(oracle|noop)|first timing" $L/head.txt | cut -c1-330
cp $LEDGER $OUT/headline-ledger.jsonl
tar czf $OUT/records.tgz -C /tmp c3 2>/dev/null; echo "wall ${SECONDS}s"
