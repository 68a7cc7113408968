#!/usr/bin/env bash
# GPU call 2 of 2026-11-28 (session 6). Each step time-boxed by what is left of the call's 575 s:
#  1. issue 30: what the device trace costs one kernel, by block count and size, in both orders,
#     and whether CUPTI's flush period hands over a buffer that is not full (bench/devtrace_cost.py;
#     call 1's run of it received no record: the child never flushed);
#  2. issue 33: the headline suite through the judge (oracle and noop, every seen and hidden
#     config, correctness only, HIP through nvcc and bench/hip_shim), resumable: call 3 finishes it.
set -uo pipefail
left() { local l=$(( $1 - SECONDS )); [ $l -gt $2 ] && echo $2 || echo $(( l > 5 ? l : 5 )); }
. bench/gpu_env.sh || exit 1
L=/tmp/c2; mkdir -p $L
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; python3 -c "import torch, triton; print(torch.__version__, triton.__version__)"; } > $OUT/env.txt 2>&1
cat $OUT/env.txt
timeout $(left 575 90) python3 -u bench/devtrace_cost.py --json $L/devtrace_cost.json > $L/devtrace_cost.txt 2>&1
echo "devtrace_cost rc=$? at ${SECONDS}s"; cut -c1-220 $L/devtrace_cost.txt
timeout $(left 575 470) python3 -u bench/judge_gpu.py suite --suite headline --hip-on-cuda --jobs 14 --out $L/suite > $L/suite.txt 2>&1
echo "suite rc=$? at ${SECONDS}s"; grep -c "^ok" $L/suite.txt; grep "^BAD" $L/suite.txt | cut -c1-300
cp $L/suite/suite.jsonl $OUT/suite.jsonl
tar czf $OUT/records.tgz --exclude='*.json' -C /tmp c2 2>/dev/null; echo "wall ${SECONDS}s"
