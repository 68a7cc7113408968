#!/usr/bin/env bash
# GPU call 4 of 2026-11-29 (session 8), the budget's last minutes: call 3's step 2 again (its
# fidelity run resolved --tasks-root relative to each evaluation's folder: every task "not found";
# bench/judge_gpu.py now resolves it), time-boxed to 260 s.
set -uo pipefail
. bench/gpu_env.sh || exit 1
L=/tmp/c4; mkdir -p $L
AKA_LEDGER=results/gpu-2026-11-29b/aka-timed.jsonl
timeout 260 python3 -u bench/judge_gpu.py fidelity --out $L/aka --tasks-root .aka/tasks --agents noop --ledger $AKA_LEDGER > $L/aka.txt 2>&1
echo "aka rc=$? at ${SECONDS}s"; grep -E "^\S+/\S+ +(oracle|noop)|^    (seen|unseen)" $L/aka.txt | cut -c1-260
cp $AKA_LEDGER $OUT/aka-ledger.jsonl 2>/dev/null
tar czf $OUT/records.tgz -C /tmp c4 2>/dev/null; echo "wall ${SECONDS}s"
