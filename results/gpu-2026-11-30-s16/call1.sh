#!/usr/bin/env bash
# The next session's GPU call 1 (written 2026-11-30, session 15; run in session 16). Copy it into that session's record
# folder; carry .whl, .carry and .aka (bench/prepare_carry.sh). One H200 (nvidia-h200), nothing else
# running on it. Each step time-boxed by what is left of 575 s:
#  1. issue 30's overhead (+20 % against e9f494d; session 15 read +30.1 % and +36.7 % alone), with
#     this session's changes (the thaw by tree walk, the stand-in's clock made at its build) and the
#     new sub-phases: '(stand-in runner: clock made)', '(... runner: trace flush)', '(stop/resume)';
#  2. the same with the device trace off (GAUNTLET_DEVICE_TRACE=0): how much of the +0.33 ms a timed
#     call is the trace's;
#  3. the whole GPU red team, with clock_short's new margin (max(0.9 us, 7.5 %) beyond the
#     baseline's gap): every cheat rejected, honest clean.
set -uo pipefail
. bench/gpu_env.sh || exit 1
L=/tmp/n1; mkdir -p $L
record_env
timeout $(left 575 130) python3 -u bench/judge_gpu.py overhead --out $L/ov --old .carry/old \
  --tasks triton2triton/softmax triton2triton/softmax > $L/ov.txt 2>&1
echo "overhead rc=$? at ${SECONDS}s"; grep -E "'ratio'|total_s" $L/ov.txt | cut -c1-120
GAUNTLET_DEVICE_TRACE=0 timeout $(left 575 130) python3 -u bench/judge_gpu.py overhead --out $L/ov0 --old .carry/old \
  --tasks triton2triton/softmax triton2triton/softmax > $L/ov0.txt 2>&1
echo "overhead, trace off rc=$? at ${SECONDS}s"; grep -E "'ratio'|total_s" $L/ov0.txt | cut -c1-120
timeout $(left 575 575) python3 -u bench/judge_gpu.py redteam --out $L/rt > $L/rt.txt 2>&1
echo "redteam rc=$? at ${SECONDS}s"; grep -E "correct=" $L/rt.txt | cut -c1-200
tar czf $OUT/records.tgz -C /tmp n1 2>/dev/null; echo "wall ${SECONDS}s"
