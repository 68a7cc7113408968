#!/usr/bin/env bash
# The next session's GPU call 1 (written 2026-11-30, session 19), on one H200 (nvidia-h200) or an
# H100; carry .whl, .carry, .aka. Session 19 found that where scatter_add's own output sits moves
# its 37 us call 34-38 us (placement_probe), that emptying the allocator's cache with a spacer each
# batch did not move it (call 3: 0.945x [0.914, 0.976] in a noop), and built `--own-blocks`
# (runner/evaluator/own_blocks.py: what a kernel allocates itself cut from a region of its runner's,
# at a new offset every batch; off by default, never run on a GPU). So:
#  0. the placement probe with its new --own-blocks column (one process);
#  1. A/B, interleaved: scatter_add's noop with and without --own-blocks, twice each (does the
#     rows3001-n1-dim1000 config read near 1.0, its rounds now spreading, its interval holding 1.0?);
#  2. with --own-blocks: the noops of gelu, mish, cumsum (small Python-kernel calls) and cuda2cuda/
#     softmax (native: the harness makes its outputs), and three oracles (no flag, correct);
#  3. the red team's honest, flush_on_inputs (new: the flush pointed at the call's inputs, made to
#     match name, blocks and device time) and skipped_l2_flush, with --own-blocks;
#  4. the overhead on triton2triton/softmax with --own-blocks (a pool made and let go every batch).
set -uo pipefail
. bench/gpu_env.sh || exit 1
L=/tmp/m1; mkdir -p $L
record_env
# 0. own_blocks in one process first (bench/placement_probe.py's --own-blocks column): does each
#    batch land at its own place, and does scatter_add's time then spread as the placed output's?
timeout $(left 570 60) python3 -u bench/placement_probe.py --json $OUT/placement_probe.json > $L/pp.txt 2>&1
echo "placement_probe rc=$? at ${SECONDS}s"; tail -n 12 $L/pp.txt | cut -c1-500
for r in 0 1; do
  for v in own plain; do
    extra=(); [ $v = own ] && extra=(--eval-args=--own-blocks)
    timeout $(left 570 90) python3 -u bench/judge_gpu.py fidelity --out $L/$v$r --agents noop \
      --tasks triton2triton/scatter_add "${extra[@]}" > $L/$v$r.txt 2>&1
    echo "scatter_add noop $v $r rc=$? at ${SECONDS}s"; grep -hE "^\S+/\S+ +noop" $L/$v$r.txt | cut -c1-300
  done
done
echo "own:"; python3 bench/noop_floor.py $L/own0 $L/own1 | cut -c1-400
echo "plain:"; python3 bench/noop_floor.py $L/plain0 $L/plain1 | cut -c1-400
timeout $(left 570 150) python3 -u bench/judge_gpu.py fidelity --out $L/ownx --agents noop --eval-args=--own-blocks \
  --tasks triton2triton/gelu triton2triton/mish triton2triton/cumsum cuda2cuda/softmax > $L/ownx.txt 2>&1
echo "noops rc=$? at ${SECONDS}s"; grep -hE "^\S+/\S+ +noop" $L/ownx.txt | cut -c1-300
python3 bench/noop_floor.py $L/ownx | cut -c1-400
timeout $(left 570 110) python3 -u bench/judge_gpu.py fidelity --out $L/or --agents oracle --eval-args=--own-blocks \
  --tasks triton2triton/scatter_add torch2triton/softmax torch2triton/gelu > $L/or.txt 2>&1
echo "oracles rc=$? at ${SECONDS}s"; grep -hE "^\S+/\S+ +oracle" $L/or.txt | cut -c1-300
timeout $(left 570 100) python3 -u bench/judge_gpu.py redteam --out $L/rt --eval-args=--own-blocks \
  --cheats honest flush_on_inputs skipped_l2_flush > $L/rt.txt 2>&1
echo "redteam rc=$? at ${SECONDS}s"; grep -E "correct=" $L/rt.txt | cut -c1-400
timeout $(left 570 80) python3 -u bench/judge_gpu.py overhead --out $L/ov --old .carry/old --same-tasks \
  --eval-args=--own-blocks --tasks triton2triton/softmax > $L/ov.txt 2>&1
echo "overhead rc=$? at ${SECONDS}s"; grep -E "'ratio'" $L/ov.txt | cut -c1-120
tar czf $OUT/records.tgz -C /tmp m1 2>/dev/null; echo "wall ${SECONDS}s"
