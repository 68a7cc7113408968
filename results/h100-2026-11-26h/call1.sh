#!/usr/bin/env bash
# GPU call 1 of 2026-11-26 (session 8), issue 10: (1) does a memory-bound kernel's per-process level
# come from the physical pages under its buffers (bench/archive/placement_probe.py: fixed / virtual /
# physical renewal per batch, 6 processes each)? (2) evaluation wall time of the in-process
# evaluator (.carry/old: c6a5871) and this judge in the same call, twice, interleaved.
set -uo pipefail
. bench/gpu_env.sh || exit 1
R=/tmp/r; mkdir -p $R
pack() { tar -C $R -czf $OUT/raw.tgz . 2>/dev/null; }
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__)'; } > $OUT/env.txt 2>&1
timeout 200 python3 -u bench/archive/placement_probe.py --procs 6 > $OUT/placement.txt 2>&1
for pass in 1 2; do
  timeout 170 python3 -u bench/judge_gpu.py overhead --out $R/ovh$pass --old .carry/old --tasks triton2triton/softmax cuda2cuda/softmax > $OUT/overhead$pass.txt 2>&1; pack
done
tail -40 $OUT/placement.txt; grep -E "ratio|old_s" $OUT/overhead*.txt | cut -c1-260
