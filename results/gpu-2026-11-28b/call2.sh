#!/usr/bin/env bash
# GPU call 2 of 2026-11-28 (session 5). In order of what the open issues need, each step time-boxed
# by what is left of the call's 480 s:
#  1. issue 30: evaluation wall time with the device trace on against e9f494d's evaluator
#     (.carry/old = `git archive e9f494d runner tasks`), triton2triton/softmax, one each, and the
#     same oracle with the trace off (where call 1's extra seconds went: the phases);
#  2. issues 32/35: bench/view_gpu.sh (oracle and noop through `gauntlet run` on the refactored tree,
#     trace off as shipped; the scripted cheat inline) -> runs.tgz, the site is built afterwards here;
#  3. issue 33: the fp8 block-wise GEMM's float32 reference, hip2hip/gelu's oracle, the triton2triton
#     twins: oracle and noop through the judge, correctness on every seen and hidden config;
#  4. issue 30: side_stream_when_unwatched again (call 1: its kernel ran under the launch gate, on
#     another stream; the trace's new rule reads work done before the span), then more honest
#     oracle/noop evaluations with the trace on (no flag may appear).
set -uo pipefail
left() { local l=$(( $1 - SECONDS )); [ $l -gt $2 ] && echo $2 || echo $(( l > 5 ? l : 5 )); }
. bench/gpu_env.sh || exit 1
L=/tmp/c2; mkdir -p $L
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; python3 -c "import torch, triton; print(torch.__version__, triton.__version__)"; git log --oneline -1 2>/dev/null; } > $OUT/env.txt 2>&1
cat $OUT/env.txt
GAUNTLET_DEVICE_TRACE=1 timeout $(left 480 90) python3 -u bench/judge_gpu.py overhead --out $L/ovh --old .carry/old \
  --tasks triton2triton/softmax > $L/overhead.txt 2>&1
echo "overhead rc=$? at ${SECONDS}s"; grep -E "ratio|error" $L/overhead.txt | cut -c1-300
timeout $(left 480 45) python3 -u bench/judge_gpu.py fidelity --out $L/off --agents oracle --tasks triton2triton/softmax > $L/off.txt 2>&1
echo "trace-off oracle rc=$? at ${SECONDS}s"; grep -E "^\S+/\S+ +oracle" $L/off.txt | cut -c1-200
python3 - $L/ovh/new-triton2triton_softmax.trace.jsonl $L/off/*.trace.jsonl <<'PY'
import json, sys
for f in sys.argv[1:]:
    for line in open(f):
        d = json.loads(line)
        if "phases_s" in d:
            print(f.split("/")[-2], {k: round(v, 2) for k, v in d["phases_s"].items() if v >= 0.3})
PY
TASKS="cuda2cuda/gelu triton2triton/softmax" timeout $(left 480 170) bash bench/view_gpu.sh /tmp/view > $L/view.txt 2>&1
echo "view rc=$? at ${SECONDS}s"; grep -vE "^\s*$" $L/view.txt | tail -25 | cut -c1-220; cp /tmp/view/runs.tgz $OUT/ 2>/dev/null
timeout $(left 480 80) python3 -u bench/judge_gpu.py suite --out $L/suite --jobs 4 --hip-on-cuda --tasks \
  torch2cuda/gemm_fp8_blockwise torch2triton/gemm_fp8_blockwise hip2hip/gelu triton2triton/rmsnorm_backward \
  triton2triton/softmax_backward triton2triton/rotary_kv_write > $L/suite.txt 2>&1
echo "suite rc=$? at ${SECONDS}s"; grep -v "^ " $L/suite.txt | tail -16 | cut -c1-300
grep -h -B2 -A3 "not compiled\|error" $L/suite/*.json 2>/dev/null | head -30 | cut -c1-300
GAUNTLET_DEVICE_TRACE=1 timeout $(left 480 40) python3 -u bench/judge_gpu.py redteam --out $L/red --cheats honest \
  side_stream_when_unwatched > $L/redteam.txt 2>&1
echo "redteam rc=$? at ${SECONDS}s"; cut -c1-600 $L/redteam.txt | grep -E "^(honest|side_)"
GAUNTLET_DEVICE_TRACE=1 timeout $(left 480 200) python3 -u bench/judge_gpu.py fidelity --out $L/fid \
  --tasks torch2cuda/rmsnorm cuda2cuda/gelu triton2triton/layernorm > $L/fidelity.txt 2>&1
echo "fidelity rc=$? at ${SECONDS}s"; grep -E "^\S+/\S+ +(oracle|noop)" $L/fidelity.txt | cut -c1-300
tar czf $OUT/records.tgz -C /tmp c2 2>/dev/null; echo "wall ${SECONDS}s"
