#!/usr/bin/env bash
# GPU call 4 of 2026-11-28 (session 6), the last of the session's budget; each step time-boxed by
# what is left of 355 s:
#  1. issue 33: torch2triton/topk_topp_sampling's solution, rewritten so Triton 3.6 compiles it
#     (call 3: PassManager::run failed in TritonGPUOptimizeThreadLocality), through the judge;
#  2. issue 33: the X->X baselines not yet timed against eager (the rest of triton2triton) and the
#     three cuda2cuda tasks whose caps the H100 tables of their old baselines still set;
#  3. issue 30: more oracle/noop evaluations timed with the trace on (no flag may appear).
set -uo pipefail
left() { local l=$(( $1 - SECONDS )); [ $l -gt $2 ] && echo $2 || echo $(( l > 5 ? l : 5 )); }
. bench/gpu_env.sh || exit 1
L=/tmp/c4; mkdir -p $L
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; python3 -c "import torch, triton; print(torch.__version__, triton.__version__)"; } > $OUT/env.txt 2>&1
cat $OUT/env.txt
timeout $(left 355 60) python3 -u bench/judge_gpu.py suite --tasks torch2triton/topk_topp_sampling --jobs 2 --out $L/suite > $L/suite.txt 2>&1
echo "suite rc=$? at ${SECONDS}s"; grep -E "^(ok|BAD)" $L/suite.txt | cut -c1-300
timeout $(left 355 215) python3 -u bench/baselines_vs_eager.py --json $L/baselines.json \
  --only triton2triton,cuda2cuda/dwconv1d,cuda2cuda/gelu,cuda2cuda/maxpool1d > $L/baselines.txt 2>&1
echo "baselines rc=$? at ${SECONDS}s"; grep -v "^ " $L/baselines.txt | grep -A60 "^task " | cut -c1-200
cp $L/baselines.json $OUT/baselines.json 2>/dev/null
timeout $(left 355 200) python3 -u bench/judge_gpu.py fidelity --out $L/fid --tasks torch2cuda/rmsnorm cuda2cuda/scatter_add \
  > $L/fidelity.txt 2>&1
echo "fidelity rc=$? at ${SECONDS}s"; grep -E "^\S+/\S+ +(oracle|noop)|flagged_honest" $L/fidelity.txt | cut -c1-300
tar czf $OUT/records.tgz -C /tmp c4 2>/dev/null; echo "wall ${SECONDS}s"
