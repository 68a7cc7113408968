#!/usr/bin/env bash
# GPU call 2 of 2026-11-29 (session 9); each step time-boxed by what is left of 575 s:
#  1. issue 30: more evaluations of the host-bound loop references under session 8's clean-room rule
#     (bench/hostbound_probe.py, its noop = the baseline's own code; .carry/loopref holds the loops);
#  2. issue 33: the headline ledger resumed (26 of 94 evaluations held; the rest run as time allows).
set -uo pipefail
left() { local l=$(( $1 - SECONDS )); [ $l -gt $2 ] && echo $2 || echo $(( l > 5 ? l : 5 )); }
. bench/gpu_env.sh || exit 1
L=/tmp/c2; mkdir -p $L
LEDGER=results/gpu-2026-11-29/headline-timed.jsonl
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; python3 -c "import torch, triton; print(torch.__version__, triton.__version__)"; } > $OUT/env.txt 2>&1
cat $OUT/env.txt
timeout $(left 575 200) python3 -u bench/hostbound_probe.py --out $L/probe --repeats 1 --references .carry/loopref > $L/probe.txt 2>&1
echo "probe rc=$? at ${SECONDS}s"; grep -vE "^\s*$|no_kernel_launch|no_custom_kernel" $L/probe.txt | tail -40 | cut -c1-300
timeout $(left 575 575) python3 -u bench/judge_gpu.py fidelity --out $L/head --suite headline --ledger $LEDGER > $L/head.txt 2>&1
echo "headline rc=$? at ${SECONDS}s"; grep -E "^\S+/\S+ +(oracle|noop)" $L/head.txt | cut -c1-260
cp $LEDGER $OUT/headline-ledger.jsonl 2>/dev/null
tar czf $OUT/records.tgz -C /tmp c2 2>/dev/null; echo "wall ${SECONDS}s"
