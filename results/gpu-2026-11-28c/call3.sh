#!/usr/bin/env bash
# GPU call 3 of 2026-11-28 (session 6). Each step time-boxed by what is left of the call's 560 s:
#  1. issue 30: the trace library with its own flush thread (call 2: CUPTI's flush period handed
#     over nothing): records arrive before the runner's flush, and what it costs a kernel;
#  2. issue 33: the rest of the headline suite (.gpu/suite/suite.jsonl: call 2's 259 rows);
#  3. issue 30: the red team with the trace's new rules (host copies in a call, records of the read
#     past, batch markers no batch took): the honest control, a forged kernel record beside a
#     result computed on the CPU, and the cheats the trace caught before;
#  4. issue 30/33: oracle and noop timed with the trace on (no flag may appear), tasks whose
#     baselines were rewritten and PyTorch->X tasks.
set -uo pipefail
left() { local l=$(( $1 - SECONDS )); [ $l -gt $2 ] && echo $2 || echo $(( l > 5 ? l : 5 )); }
. bench/gpu_env.sh || exit 1
L=/tmp/c3; mkdir -p $L; cp -r .gpu/suite $L/suite
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; python3 -c "import torch, triton; print(torch.__version__, triton.__version__)"; } > $OUT/env.txt 2>&1
cat $OUT/env.txt
timeout $(left 560 70) python3 -u bench/devtrace_cost.py --json $L/devtrace_cost.json > $L/devtrace_cost.txt 2>&1
echo "devtrace_cost rc=$? at ${SECONDS}s"; cut -c1-220 $L/devtrace_cost.txt
timeout $(left 560 150) python3 -u bench/judge_gpu.py suite --suite headline --hip-on-cuda --jobs 14 --out $L/suite > $L/suite.txt 2>&1
echo "suite rc=$? at ${SECONDS}s"; grep -c "^ok" $L/suite.txt; grep "^BAD" $L/suite.txt | cut -c1-300; tail -12 $L/suite.txt
cp $L/suite/suite.jsonl $OUT/suite.jsonl
timeout $(left 560 150) python3 -u bench/judge_gpu.py redteam --out $L/red --cheats honest forged_record \
  refill_wrapped side_stream_when_unwatched gpu_worker > $L/redteam.txt 2>&1
echo "redteam rc=$? at ${SECONDS}s"; cut -c1-700 $L/redteam.txt | grep -E "^(honest|forged|refill|side_|gpu_)"
timeout $(left 560 230) python3 -u bench/judge_gpu.py fidelity --out $L/fid --tasks cuda2cuda/softmax cuda2cuda/topk \
  cuda2cuda/scatter_add torch2cuda/rmsnorm torch2triton/silu_mul > $L/fidelity.txt 2>&1
echo "fidelity rc=$? at ${SECONDS}s"; grep -E "^\S+/\S+ +(oracle|noop)|flagged_honest" $L/fidelity.txt | cut -c1-300
tar czf $OUT/records.tgz --exclude='*suite/*.json' -C /tmp c3 2>/dev/null; echo "wall ${SECONDS}s"
