#!/usr/bin/env bash
# GPU call 1 of 2026-11-26 (session 9), issue 10: where the split's overhead goes. The in-process
# evaluator (.carry/old, c6a5871) and the judge on triton2triton/softmax and cuda2cuda/softmax,
# each evaluation under py-spy (100 Hz, every process and thread, idle included), interleaved;
# bench/profile_phases.py's table of each.
set -uo pipefail
. bench/gpu_env.sh || exit 1
python3 -m pip install -q --no-index --no-deps --target /tmp/pyspy .carry/py_spy-*.whl || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/env.txt
python3 -c "import torch, triton; print(torch.__version__, triton.__version__)" >> $OUT/env.txt
R=/tmp/r; mkdir -p $R/p1
timeout 500 python3 -u bench/judge_gpu.py overhead --out $R/p1 --old .carry/old \
  --tasks triton2triton/softmax cuda2cuda/softmax --profile /tmp/pyspy/bin/py-spy:100 > $OUT/overhead.txt 2>&1
cp $R/p1/*.phases.txt $OUT/ 2>/dev/null
tar -C $R -czf $OUT/raw.tgz . 2>/dev/null
grep -hE "old_s" $OUT/overhead.txt | cut -c1-160
