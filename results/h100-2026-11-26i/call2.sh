#!/usr/bin/env bash
# GPU call 2 of 2026-11-26 (session 9), issue 10: the overhead after this session's changes (runners
# spawned before the judge's start-up and preloading their guards' imports; one sealed set of input
# memfds per stage for both runners, made in the background; mappings populated at once; runners
# leave without interpreter teardown). In-process (.carry/old) against the judge, both tasks, three
# passes interleaved: the first under py-spy, two plain.
set -uo pipefail
. bench/gpu_env.sh || exit 1
python3 -m pip install -q --no-index --no-deps --target /tmp/pyspy .carry/py_spy-*.whl || exit 1
R=/tmp/r; mkdir -p $R/p1 $R/p2 $R/p3
timeout 300 python3 -u bench/judge_gpu.py overhead --out $R/p1 --old .carry/old \
  --tasks triton2triton/softmax cuda2cuda/softmax --profile /tmp/pyspy/bin/py-spy:100 > $OUT/overhead1.txt 2>&1
cp $R/p1/*.phases.txt $OUT/ 2>/dev/null
for i in 2 3; do
  timeout 200 python3 -u bench/judge_gpu.py overhead --out $R/p$i --old .carry/old \
    --tasks triton2triton/softmax cuda2cuda/softmax > $OUT/overhead$i.txt 2>&1
done
tar -C $R -czf $OUT/raw.tgz . 2>/dev/null
grep -hE "old_s" $OUT/overhead*.txt | cut -c1-160
