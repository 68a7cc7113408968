#!/usr/bin/env bash
# Session 20, call 4, on nvidia-h200-x2, with the device time left (~280 s): after call 3's abort
# (triton2triton/cumsum's baseline runner, SIGABRT while collecting garbage, own_blocks on) and
# false foreign_process flag (triton2triton/silu_mul, gcc-13 exec'ing under the watch's look), the
# hardened code (own_blocks: one pair of callbacks for the life of the process; procwatch: the link
# read twice) runs each of those two noops three times on each GPU. Carry .whl, .carry, .aka.
set -uo pipefail
. bench/gpu_env.sh || exit 1
L=/tmp/t; mkdir -p $L
record_env
for k in 0 1; do
  ( CUDA_VISIBLE_DEVICES=$k timeout $(left 190 190) python3 -u bench/judge_gpu.py fidelity --out $L/st$k \
      --agents noop --repeats 3 --tasks triton2triton/cumsum triton2triton/silu_mul > $L/st$k.txt 2>&1
    echo "gpu $k rc=$? at ${SECONDS}s" ) &
done
wait
grep -hE "^\S+/\S+ +noop" $L/st0.txt $L/st1.txt | cut -c1-400
python3 bench/noop_floor.py $L/st0 $L/st1 | cut -c1-400
tar czf $OUT/records.tgz -C /tmp t 2>/dev/null; echo "wall ${SECONDS}s"
