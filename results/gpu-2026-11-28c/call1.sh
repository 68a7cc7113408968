#!/usr/bin/env bash
# GPU call 1 of 2026-11-28 (session 6). Each step time-boxed by what is left of the call's 570 s:
#  1. issue 30: evaluation wall time, device trace on (the default) against e9f494d's evaluator
#     (.carry/old), triton2triton/softmax, after the fix of the quadratic between-call rule;
#  2. issue 30: what the trace costs one kernel, by block count and size (bench/devtrace_cost.py);
#  3. issue 33: the rewritten cuda2cuda baselines (merged from wave3/baselines) and the triton2triton
#     ones against PyTorch eager and the solutions (bench/baselines_vs_eager.py);
#  4. issue 34: the AKA import (.aka/tasks, after the importer fixes) as shipped through the judge.
set -uo pipefail
left() { local l=$(( $1 - SECONDS )); [ $l -gt $2 ] && echo $2 || echo $(( l > 5 ? l : 5 )); }
. bench/gpu_env.sh || exit 1
L=/tmp/c1; mkdir -p $L
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; python3 -c "import torch, triton; print(torch.__version__, triton.__version__)"; } > $OUT/env.txt 2>&1
cat $OUT/env.txt
timeout $(left 570 110) python3 -u bench/judge_gpu.py overhead --out $L/ovh --old .carry/old \
  --tasks triton2triton/softmax > $L/overhead.txt 2>&1
echo "overhead rc=$? at ${SECONDS}s"; grep -E "ratio|error" $L/overhead.txt | cut -c1-400
python3 - $L/ovh/new-triton2triton_softmax.trace.jsonl <<'PY'
import json, sys
for line in open(sys.argv[1]):
    d = json.loads(line)
    if "phases_s" in d:
        print({k: round(v, 2) for k, v in d["phases_s"].items() if v >= 0.3})
PY
timeout $(left 570 60) python3 -u bench/devtrace_cost.py --json $L/devtrace_cost.json > $L/devtrace_cost.txt 2>&1
echo "devtrace_cost rc=$? at ${SECONDS}s"; cat $L/devtrace_cost.txt | cut -c1-200
timeout $(left 570 150) python3 -u bench/baselines_vs_eager.py --json $L/baselines.json --only \
  cuda2cuda/argmax,cuda2cuda/matmul_bias_relu,cuda2cuda/permute,cuda2cuda/row_mean,cuda2cuda/scatter_add,cuda2cuda/softmax,cuda2cuda/topk,triton2triton/argmax,triton2triton/bmm,triton2triton/cross_entropy \
  > $L/baselines.txt 2>&1
echo "baselines rc=$? at ${SECONDS}s"; grep -v "^ " $L/baselines.txt | tail -22 | cut -c1-250
OUT=$L/aka SUITE_S=$(left 570 230) JOBS=12 bash bench/aka_check.sh .aka/tasks > $L/aka.txt 2>&1
echo "aka rc=$? at ${SECONDS}s"; tail -45 $L/aka.txt | cut -c1-260
tar czf $OUT/records.tgz -C /tmp c1 2>/dev/null; echo "wall ${SECONDS}s"
