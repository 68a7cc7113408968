#!/usr/bin/env bash
# GPU call 3 of 2026-11-27 (session 13), issue 10: the judge with both runners building a probe copy
# first (the baseline's runner loads its own copy when the candidate is loaded) and more rounds for
# configs whose rounds spread widely: noops of the tasks whose small configs read worst, and the
# overhead against the in-process evaluator (c6a5871, .carry/old) on the same machine.
set -uo pipefail
. bench/gpu_env.sh || exit 1
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; python3 -c "import torch, triton; print(torch.__version__, triton.__version__)"; } > $OUT/env.txt 2>&1
cat $OUT/env.txt
export GAUNTLET_JUDGE_TRACE_SAMPLES=1
timeout 200 python3 -u bench/judge_gpu.py fidelity --out /tmp/s/gelu --agents noop --repeats 3 --tasks cuda2cuda/gelu > $OUT/gelu.txt 2>&1
grep -E "noop_task|noop_abs|s flags" $OUT/gelu.txt | cut -c1-160
timeout 200 python3 -u bench/judge_gpu.py fidelity --out /tmp/s/l2norm --agents noop --repeats 3 --tasks triton2triton/l2norm > $OUT/l2norm.txt 2>&1
grep -E "noop_task|noop_abs|s flags" $OUT/l2norm.txt | cut -c1-160
tar czf $OUT/traces.tgz -C /tmp/s . 2>/dev/null
timeout 150 python3 -u bench/judge_gpu.py overhead --out /tmp/ovh --old .carry/old --tasks torch2cuda/bias_gelu_residual > $OUT/overhead.txt 2>&1
grep -E "ratio|old_s" $OUT/overhead.txt | cut -c1-300
