#!/usr/bin/env bash
# GPU call 4 of 2026-11-26 (session 9), issue 10: the timing fidelity after this session's changes
# (1a13e95): noop self-speedup on cuda2cuda/rmsnorm (oracle + 2 noops), triton2triton/layernorm and
# cuda2cuda/transpose (oracle + 1 noop each), as call 2 of the eighth session.
set -uo pipefail
. bench/gpu_env.sh || exit 1
mkdir -p /tmp/a /tmp/b
timeout 270 python3 -u bench/judge_gpu.py fidelity --out /tmp/a --tasks cuda2cuda/rmsnorm --repeats 2 > $OUT/fid-rmsnorm.txt 2>&1
timeout 250 python3 -u bench/judge_gpu.py fidelity --out /tmp/b --tasks triton2triton/layernorm cuda2cuda/transpose --repeats 1 > $OUT/fid-more.txt 2>&1
for f in fid-rmsnorm fid-more; do echo "== $f"; grep -E "noop |oracle |noop_|Error|error| x=" $OUT/$f.txt | cut -c1-170; done
