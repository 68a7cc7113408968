#!/usr/bin/env bash
# GPU calls 2 and 3 of 2026-11-29 (session 12), time-boxed to ${BUDGET:-570} s: the two ledgers resumed
# (issue 34: the imported AKA Triton tasks, noop as baseline, carried in .aka; issue 30/33: the headline
# suite); FIRST=aka or headline says which goes first.
set -uo pipefail
B=${BUDGET:-570}
left() { local l=$(( $1 - SECONDS )); [ $l -gt $2 ] && echo $2 || echo $(( l > 5 ? l : 5 )); }
. bench/gpu_env.sh || exit 1
L=/tmp/c${CALL:-2}; mkdir -p $L
HEAD=results/gpu-2026-11-29/headline-timed.jsonl
AKA=results/gpu-2026-11-29b/aka-timed.jsonl
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } > $OUT/env.txt 2>&1
aka() { timeout $(left $B $1) python3 -u bench/judge_gpu.py fidelity --out $L/aka --tasks-root .aka/tasks --agents noop --ledger $AKA > $L/aka.txt 2>&1
        echo "aka rc=$? at ${SECONDS}s"; grep -E "^\S+/\S+ +(oracle|noop)|first timing" $L/aka.txt | cut -c1-330; }
head_() { timeout $(left $B $1) python3 -u bench/judge_gpu.py fidelity --out $L/head --suite headline --ledger $HEAD > $L/head.txt 2>&1
          echo "headline rc=$? at ${SECONDS}s"; grep -E "^\S+/\S+ +(oracle|noop)|first timing" $L/head.txt | cut -c1-330; }
if [ "${FIRST:-aka}" = aka ]; then aka $B; head_ $B; else head_ $B; aka $B; fi
cp $HEAD $OUT/headline-ledger.jsonl; cp $AKA $OUT/aka-ledger.jsonl
tar czf $OUT/records.tgz -C /tmp c${CALL:-2} 2>/dev/null; echo "wall ${SECONDS}s"
