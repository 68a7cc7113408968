#!/usr/bin/env bash
# GPU call 2 of 2026-11-28 (wave 3, issue 30), asked of an H200: (1) the process watch's rule after
# call 1's false positives (gcc-13, ld.bfd, `file` that Triton and nvcc run): honest evaluations
# raise no foreign_process, a CUDA worker process still does; (2) noop self-speedup on this GPU kind
# (item 5: the floor per GPU kind), with the per-config 95 % intervals.
set -uo pipefail
. bench/gpu_env.sh || exit 1
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; python3 -c "import torch, triton; print(torch.__version__, triton.__version__)"; } > $OUT/env.txt 2>&1
cat $OUT/env.txt
timeout 100 python3 -u bench/judge_gpu.py redteam --out $OUT/red --cheats honest gpu_worker > $OUT/redteam.txt 2>&1
echo "redteam rc=$?"; cut -c1-260 $OUT/redteam.txt | tail -4
timeout 150 python3 -u bench/judge_gpu.py suite --out $OUT/suite --jobs 4 --tasks cuda2cuda/softmax cuda2cuda/gelu \
  torch2cuda/rmsnorm triton2triton/softmax triton2triton/matmul torch2triton/rmsnorm torch2triton/gelu > $OUT/suite.txt 2>&1
echo "suite rc=$?"; cut -c1-200 $OUT/suite.txt | grep -v "^ " | tail -16
timeout 300 python3 -u bench/judge_gpu.py fidelity --out $OUT/fid --agents noop --repeats 1 --tasks cuda2cuda/groupnorm \
  triton2triton/groupnorm cuda2cuda/gelu triton2triton/permute triton2triton/l2norm cuda2cuda/layernorm \
  triton2triton/softmax cuda2cuda/rmsnorm > $OUT/fidelity.txt 2>&1
echo "fidelity rc=$?"; cut -c1-200 $OUT/fidelity.txt | tail -25
python3 - "$OUT/fid" > $OUT/intervals.txt 2>&1 <<'PY'
import json, glob, sys
for f in sorted(glob.glob(sys.argv[1] + "/fid-*.json")):
    d = json.load(open(f))
    for c in d.get("configs", []):
        print(f.split("/")[-1][4:40], c["config"][:24], round(c.get("candidate_ms") or 0, 5), c.get("speedup"), c.get("speedup_ci95"))
PY
cat $OUT/intervals.txt | head -80
tar czf $OUT/records.tgz -C $OUT red suite fid 2>/dev/null; rm -rf $OUT/red $OUT/suite $OUT/fid
