#!/usr/bin/env bash
# GPU call 2 of 2026-11-26 (session 8), issue 10: the judge names each timed batch's spacer, the same
# for the k-th batch of a round of both kernels (call 1: a memory-bound kernel's level is set by where
# its buffers sit, and two runners drawing 35 placements each read up to 1 % apart from that alone).
# Noop self-speedup on cuda2cuda/rmsnorm (oracle + 2 noops), triton2triton/layernorm and
# cuda2cuda/transpose (oracle + 1 noop each).
set -uo pipefail
. bench/gpu_env.sh || exit 1
mkdir -p /tmp/a /tmp/b
timeout 270 python3 -u bench/judge_gpu.py fidelity --out /tmp/a --tasks cuda2cuda/rmsnorm --repeats 2 > $OUT/fid-rmsnorm.txt 2>&1
timeout 250 python3 -u bench/judge_gpu.py fidelity --out /tmp/b --tasks triton2triton/layernorm cuda2cuda/transpose --repeats 1 > $OUT/fid-more.txt 2>&1
for f in fid-rmsnorm fid-more; do echo "== $f"; grep -E "noop |oracle |noop_|Error|error|process offset| x=" $OUT/$f.txt | cut -c1-200; done
