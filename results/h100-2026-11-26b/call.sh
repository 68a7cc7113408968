#!/usr/bin/env bash
# GPU call 4 (2026-11-26, session 2): the judge with concurrent correctness calls and a random first
# runner per round; self-speedup, overhead against the in-process evaluator, the moe_routing /
# attention_causal fixes, vetted caps through the CLI, ncu. Most important first: each step writes to $OUT.
set -uo pipefail
. bench/gpu_env.sh || exit 1
R=/tmp/r; mkdir -p $R
pack() { tar -C $R -czf $OUT/raw.tgz . 2>/dev/null; }
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; git log -1 --format=%h 2>/dev/null
  python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__)'; } > $OUT/fid.txt 2>&1
timeout 150 python3 bench/judge_gpu.py fidelity --out $R/fid1 --tasks triton2triton/softmax --repeats 2 >> $OUT/fid.txt 2>&1; pack
timeout 200 python3 bench/judge_gpu.py overhead --out $R/ovh --old .carry/old --tasks triton2triton/softmax cuda2cuda/softmax > $OUT/overhead.txt 2>&1; pack
timeout 100 python3 bench/check_native_tasks.py --only torch2cuda/moe_routing,torch2hip/moe_routing,attention_causal,quantize_fp8 > $OUT/native.txt 2>&1
timeout 80 python3 bench/check_triton_tasks.py --device cuda --reps 30 --tasks torch2triton/moe_routing torch2triton/attention_causal triton2triton/attention_causal torch2triton/quantize_fp8 > $OUT/triton.txt 2>&1
{ timeout 100 python3 -m runner.cli run --agent oracle --device cuda --tasks cuda2cuda/row_max --tasks torch2cuda/quantize_fp8 --out $R/runs/oracle --budget 60s 2>&1 | tail -3
  timeout 40 python3 -m runner.cli run --agent noop --device cuda --tasks torch2cuda/quantize_fp8 --out $R/runs/noop --budget 60s 2>&1 | tail -3
  python3 - $R <<'PY'
import json, sys, glob
for p in sorted(glob.glob(sys.argv[1] + "/runs/*/attempts/*/result.json")):
    r = json.load(open(p))
    print(r["agent"], r["task"], r["status"], "seen", r["correct_seen"], "unseen", r["correct_unseen"],
          "speedup", r["speedup_seen"], r["speedup_unseen"], "max_speedup", r.get("max_speedup"), "flags", r.get("flags"))
    for c in r["configs"]:
        print("   ", c["split"], c["config"], c["correct"], c["baseline_ms"], c["candidate_ms"], c["speedup"], c.get("judge_excess_ms"), c["flags"])
PY
} > $OUT/runs.txt 2>&1; pack
TT="argmax row_mean l2norm gelu sigmoid leaky_relu hardswish softplus mish"
sel=""; for k in $TT; do sel="$sel torch2triton/$k triton2triton/$k"; done
timeout 120 python3 bench/check_triton_tasks.py --device cuda --reps 30 --tasks $sel torch2triton/bmm torch2triton/conv2d torch2triton/embedding torch2triton/log_softmax torch2triton/permute torch2triton/scatter_add triton2triton/permute triton2triton/matmul > $OUT/triton2.txt 2>&1
timeout 90 python3 bench/check_native_tasks.py --only torch2cuda/leaky_relu,torch2cuda/bmm,torch2cuda/softmax,torch2cuda/mish,torch2cuda/softplus,torch2cuda/embedding,torch2cuda/hardswish,torch2cuda/sigmoid,torch2cuda/log_softmax,torch2cuda/gelu,cuda2cuda/embedding >> $OUT/native.txt 2>&1; pack
timeout 90 python3 bench/judge_gpu.py ncu --out $R/ncu --tasks triton2triton/softmax cuda2cuda/softmax > $OUT/ncu.txt 2>&1; pack
