#!/usr/bin/env bash
# GPU call 1 of 2026-11-29 (session 10); each step time-boxed by what is left of 575 s:
#  1. issue 34: the torch-extension kind's first GPU run (bench/torch_ext_gpu_check.sh: 11 evaluations
#     side by side; a CUDA .cu extension, a HIP .hip one through bench/hip_shim, stubs, at::mul cheats,
#     a hip2hip shipped extension as the baseline; three timed under the device trace);
#  2. issue 33: torch2cuda/rotary_kv_write's oracle with the new reference (padding to a spare row, no
#     boolean-mask host sync): its speedups set the task's max_speedup;
#  3. issue 30/33: the headline ledger resumed (57 evaluations left).
set -uo pipefail
left() { local l=$(( $1 - SECONDS )); [ $l -gt $2 ] && echo $2 || echo $(( l > 5 ? l : 5 )); }
. bench/gpu_env.sh || exit 1
L=/tmp/c1; mkdir -p $L
LEDGER=results/gpu-2026-11-29/headline-timed.jsonl
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; python3 -c "import torch, triton; print(torch.__version__, triton.__version__)"; } > $OUT/env.txt 2>&1
cat $OUT/env.txt
CHECK_S=$(left 575 230) bash bench/torch_ext_gpu_check.sh $L/te > $L/te.txt 2>&1
echo "torch-ext rc=$? at ${SECONDS}s"
grep -E "^(ok |BAD)|as_expected|not_as_expected|Python.h|note:|torch |rror" $L/te.txt | cut -c1-400 | tail -40
timeout $(left 575 110) python3 -u bench/judge_gpu.py fidelity --agents oracle --out $L/rot --tasks torch2cuda/rotary_kv_write > $L/rot.txt 2>&1
echo "rotary rc=$? at ${SECONDS}s"; grep -E "^\S+/\S+ +(oracle|noop)|^    (seen|unseen)|first timing|flag" $L/rot.txt | cut -c1-400
timeout $(left 575 575) python3 -u bench/judge_gpu.py fidelity --out $L/head --suite headline --ledger $LEDGER > $L/head.txt 2>&1
echo "headline rc=$? at ${SECONDS}s"; grep -E "^\S+/\S+ +(oracle|noop)|first timing" $L/head.txt | cut -c1-330
cp $LEDGER $OUT/headline-ledger.jsonl
tar czf $OUT/records.tgz -C /tmp c1 2>/dev/null; echo "wall ${SECONDS}s"
