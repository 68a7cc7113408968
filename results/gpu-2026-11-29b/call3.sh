#!/usr/bin/env bash
# GPU call 3 of 2026-11-29 (session 8), the rest of the budget; each step time-boxed by what is
# left of 470 s:
#  1. issue 30: the clean-room rule on host-bound baselines, as call 2 meant to: bench/hostbound_probe.py
#     with the two tasks' loop references (carried as .carry/loopref; call 2 probed the new
#     one-kernel references by mistake);
#  2. issue 34: the imported AKA triton2triton tasks' noops timed through the judge (carried as
#     .aka/tasks), into a ledger the next session resumes.
set -uo pipefail
left() { local l=$(( $1 - SECONDS )); [ $l -gt $2 ] && echo $2 || echo $(( l > 5 ? l : 5 )); }
. bench/gpu_env.sh || exit 1
L=/tmp/c3; mkdir -p $L
AKA_LEDGER=results/gpu-2026-11-29b/aka-timed.jsonl
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; python3 -c "import torch, triton; print(torch.__version__, triton.__version__)"; } > $OUT/env.txt 2>&1
cat $OUT/env.txt
timeout $(left 470 190) python3 -u bench/hostbound_probe.py --out $L/probe --repeats 1 --references .carry/loopref > $L/probe.txt 2>&1
echo "probe rc=$? at ${SECONDS}s"; grep -vE "^\s*$|no_kernel_launch|no_custom_kernel" $L/probe.txt | tail -40 | cut -c1-300
timeout $(left 470 470) python3 -u bench/judge_gpu.py fidelity --out $L/aka --tasks-root .aka/tasks --agents noop --ledger $AKA_LEDGER > $L/aka.txt 2>&1
echo "aka rc=$? at ${SECONDS}s"; grep -E "^\S+/\S+ +(oracle|noop)|^    (seen|unseen)" $L/aka.txt | cut -c1-260
cp $AKA_LEDGER $OUT/aka-ledger.jsonl 2>/dev/null
tar czf $OUT/records.tgz -C /tmp c3 2>/dev/null; echo "wall ${SECONDS}s"
