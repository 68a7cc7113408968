#!/usr/bin/env bash
# Session 19 GPU call 1 (written in session 18 as next-call1.sh), on one H200 (nvidia-h200) or an
# H100. Copy it into that session's record folder with this folder's headline-standin.jsonl;
# carry .whl, .carry, .aka.
#  1. bench/placement_probe.py: does where a kernel's own output sits move its time? (session 18's
#     triton2triton noops: scatter_add's 37 us rows3001-n1-dim1000 read 1.117x, the baseline's
#     runner 10 % slower than the candidate's and the stand-in's in every round; cumsum 0.90x,
#     gelu and mish 1.04x). A spread across places far beyond one place measured twice says the
#     arena should also hold what a kernel allocates while it is timed;
#  2. the noops of triton2triton/cumsum (its 0.54 us offset, 10.6 % of its call, left off in session
#     18 and now applied where the plain medians agree: 0.90x should read about 1.0) and scatter_add
#     (is the 10 % on rows3001-n1-dim1000 a draw of one process, or there every time?), twice each;
#  3. what time is left: the headline ledger (19 of 94 oracles left).
set -uo pipefail
. bench/gpu_env.sh || exit 1
L=/tmp/n1; mkdir -p $L
D=$(dirname "$0")
record_env
timeout $(left 575 150) python3 -u bench/placement_probe.py --json $OUT/placement_probe.json > $L/pp.txt 2>&1
echo "placement_probe rc=$? at ${SECONDS}s"; cat $L/pp.txt | cut -c1-400
for r in 0 1; do
  timeout $(left 575 120) python3 -u bench/judge_gpu.py fidelity --out $L/nz$r --agents noop \
    --tasks triton2triton/cumsum triton2triton/scatter_add > $L/nz$r.txt 2>&1
  echo "noops $r rc=$? at ${SECONDS}s"; grep -hE "^\S+/\S+ +noop" $L/nz$r.txt | cut -c1-300
done
python3 bench/noop_floor.py $L/nz0 $L/nz1 | cut -c1-400
cp $D/headline-standin.jsonl $OUT/
timeout $(left 575 575) python3 -u bench/judge_gpu.py fidelity --out $L/head --suite headline \
  --ledger $OUT/headline-standin.jsonl > $L/head.txt 2>&1
echo "headline rc=$? at ${SECONDS}s"; grep -hE "^\S+/\S+ +(oracle|noop)" $L/head.txt | cut -c1-300
tar czf $OUT/records.tgz -C /tmp n1 2>/dev/null; echo "wall ${SECONDS}s"
