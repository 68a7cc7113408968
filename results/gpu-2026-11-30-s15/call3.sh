#!/usr/bin/env bash
# Session 15, call 3 (2026-11-30), on nvidia-h200 (one GPU, nothing else running).
#  1. issue 30: clock_short read beyond the baseline's own gap between its clocks (devtrace.clock_offset):
#     call 2's false flag (torch2cuda/dequantize_int8 oracle, rows50021-cols7) must be gone, and the red
#     team's side_stream_when_unwatched still caught; the honest control clean.
#  2. issue 30: the overhead limit (+20 % against e9f494d), alone on the machine, with the clean room's
#     new sub-phases (load, arena, warm-up, each runner's batches, stop/resume, the stand-in's cache).
#  3. small-call noops, for the gap between clocks in both runners (the trace's offset_ms and medians).
set -uo pipefail
. bench/gpu_env.sh || exit 1
L=/tmp/c3; mkdir -p $L
record_env
timeout $(left 440 60) python3 -u bench/judge_gpu.py fidelity --out $L/dq --tasks torch2cuda/dequantize_int8 > $L/dq.txt 2>&1
echo "dequantize rc=$? at ${SECONDS}s"; grep -E "^\S+/\S+ +(oracle|noop)" $L/dq.txt | cut -c1-300
timeout $(left 440 75) python3 -u bench/judge_gpu.py redteam --out $L/rt --cheats honest side_stream_when_unwatched > $L/rt.txt 2>&1
echo "redteam rc=$? at ${SECONDS}s"; grep -E "^(honest|side_stream)" $L/rt.txt | cut -c1-600
timeout $(left 440 200) python3 -u bench/judge_gpu.py overhead --out $L/ov --old .carry/old \
  --tasks triton2triton/softmax cuda2cuda/softmax triton2triton/softmax > $L/ov.txt 2>&1
echo "overhead rc=$? at ${SECONDS}s"; grep -E "'ratio'|total_s" $L/ov.txt | cut -c1-120
timeout $(left 440 120) python3 -u bench/judge_gpu.py fidelity --out $L/nz --agents noop --tasks cuda2cuda/gelu triton2triton/l2norm > $L/nz.txt 2>&1
echo "noops rc=$? at ${SECONDS}s"; grep -E "^\S+/\S+ +(oracle|noop)" $L/nz.txt | cut -c1-300
tar czf $OUT/records.tgz -C /tmp c3 2>/dev/null; echo "wall ${SECONDS}s"
