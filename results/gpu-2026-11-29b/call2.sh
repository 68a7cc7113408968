#!/usr/bin/env bash
# GPU call 2 of 2026-11-29 (session 8); each step time-boxed by what is left of 570 s:
#  1. issue 30: the clean room read against its own rounds' spread (runners.interference,
#     policy.CLEAN_ROOM_ROUNDS/Z) on bench/hostbound_probe.py's two tasks (the loop reference as
#     X->X, its noop = the baseline's own code: call 1 flagged baseline_interference on one);
#  2. issues 30/33: the headline ledger, resumed, on this tree (wave3/varlen-ref merged: the two
#     tasks' lines were taken out of the ledger, so their oracles run again first).
set -uo pipefail
left() { local l=$(( $1 - SECONDS )); [ $l -gt $2 ] && echo $2 || echo $(( l > 5 ? l : 5 )); }
. bench/gpu_env.sh || exit 1
L=/tmp/c2; mkdir -p $L
LEDGER=results/gpu-2026-11-29/headline-timed.jsonl
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; python3 -c "import torch, triton; print(torch.__version__, triton.__version__)"; } > $OUT/env.txt 2>&1
cat $OUT/env.txt
timeout $(left 570 180) python3 -u bench/hostbound_probe.py --out $L/probe --repeats 1 > $L/probe.txt 2>&1
echo "probe rc=$? at ${SECONDS}s"; grep -vE "^\s*$|no_kernel_launch|no_custom_kernel" $L/probe.txt | tail -40 | cut -c1-300
timeout $(left 570 570) python3 -u bench/judge_gpu.py fidelity --out $L/fid --suite headline --ledger $LEDGER > $L/fidelity.txt 2>&1
echo "fidelity rc=$? at ${SECONDS}s"; grep -E "^\S+/\S+ +(oracle|noop)" $L/fidelity.txt | cut -c1-300
cp $LEDGER $OUT/ledger.jsonl 2>/dev/null
tar czf $OUT/records.tgz -C /tmp c2 2>/dev/null; echo "wall ${SECONDS}s"
