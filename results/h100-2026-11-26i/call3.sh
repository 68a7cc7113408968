#!/usr/bin/env bash
# GPU call 3 of 2026-11-26 (session 9), issue 10: calls 1-2 showed most import time on this host
# is Python compiling torch's sources (no bytecode caches; a runner cannot write any). A pip
# install writes them, as our images' does; here they are written first (compileall, as root),
# then the overhead is measured again: in-process (.carry/old) against the judge, two passes.
set -uo pipefail
. bench/gpu_env.sh || exit 1
{
  env | grep -E "^PYTHON" ; python3 -c "import sys, torch, triton; print(sys.dont_write_bytecode, torch.__file__, triton.__file__)"
  SP=$(python3 -c "import os, torch; print(os.path.dirname(os.path.dirname(torch.__file__)))")
  echo "site: $SP writable: $([ -w "$SP/torch" ] && echo yes || echo no)"
  echo "cached before: $(ls "$SP/torch/_dynamo/__pycache__" 2>/dev/null | wc -l) files in torch/_dynamo/__pycache__"
  start=$(date +%s.%N)
  python3 -m compileall -q -j 0 "$SP/torch" "$SP/triton" "$SP/sympy" "$SP/numpy" > /dev/null 2>&1
  echo "compileall rc $? in $(python3 -c "import time; print(round(time.time() - $start, 1))") s"
  echo "cached after: $(ls "$SP/torch/_dynamo/__pycache__" 2>/dev/null | wc -l) files"
} > $OUT/pyc.txt 2>&1
R=/tmp/r; mkdir -p $R/p1 $R/p2
for i in 1 2; do
  timeout 250 python3 -u bench/judge_gpu.py overhead --out $R/p$i --old .carry/old \
    --tasks triton2triton/softmax cuda2cuda/softmax > $OUT/overhead$i.txt 2>&1
done
tar -C $R -czf $OUT/raw.tgz . 2>/dev/null
cat $OUT/pyc.txt; grep -hE "old_s" $OUT/overhead*.txt | cut -c1-160
