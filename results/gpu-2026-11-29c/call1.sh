#!/usr/bin/env bash
# GPU call 1 of 2026-11-29 (session 9); each step time-boxed by what is left of 575 s:
#  1. issue 30: the whole red team (bench/judge_gpu.py redteam) on the code of fdce9f3, host_load
#     (read its x= against honest's: the candidate is now stopped while the baseline warms up) and
#     baseline_hog under session 8's clean-room rule included;
#  2. issue 30: evaluation wall time against e9f494d (.carry/old), triton2triton/softmax (limit +20 %);
#  3. triton2triton/log_softmax's oracle again: does its baseline keep its launch gate (session 8 lost
#     it there; the note now carries the gate error)?
set -uo pipefail
left() { local l=$(( $1 - SECONDS )); [ $l -gt $2 ] && echo $2 || echo $(( l > 5 ? l : 5 )); }
. bench/gpu_env.sh || exit 1
L=/tmp/c1; mkdir -p $L
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; python3 -c "import torch, triton; print(torch.__version__, triton.__version__)"; nproc; } > $OUT/env.txt 2>&1
cat $OUT/env.txt
timeout $(left 575 400) python3 -u bench/judge_gpu.py redteam --out $L/red > $L/redteam.txt 2>&1
echo "redteam rc=$? at ${SECONDS}s"; grep -E "correct=" $L/redteam.txt | cut -c1-330
timeout $(left 575 110) python3 -u bench/judge_gpu.py overhead --out $L/ovh --old .carry/old --tasks triton2triton/softmax > $L/overhead.txt 2>&1
echo "overhead rc=$? at ${SECONDS}s"; grep -E "ratio|error" $L/overhead.txt | cut -c1-400
timeout $(left 575 100) python3 -u bench/judge_gpu.py fidelity --agents oracle --out $L/logsm --tasks triton2triton/log_softmax > $L/logsm.txt 2>&1
echo "log_softmax rc=$? at ${SECONDS}s"; grep -E "^\S+/\S+ +(oracle|noop)|^    (seen|unseen)|gate|covered" $L/logsm.txt | cut -c1-400
tar czf $OUT/records.tgz -C /tmp c1 2>/dev/null; echo "wall ${SECONDS}s"
