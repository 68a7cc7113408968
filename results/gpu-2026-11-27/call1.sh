#!/usr/bin/env bash
# GPU call 1 of 2026-11-27 (ran on an H200) (session 10), issue 10: is the noop's memory-bound bias the buffers'
# placement, and does one judge-owned arena (runner/evaluator/arena.py) remove it?
# bench/archive/arena_probe.py: pairs of processes (A with the candidate runner's history, B without),
# one kernel timed in alternating batches, buffers placed by each process (own) or in one arena.
set -uo pipefail
. bench/gpu_env.sh || exit 1
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  python3 -c 'import torch, triton; print("torch", torch.__version__, "cuda", torch.version.cuda, "triton", triton.__version__)'; which bwrap; } > $OUT/env.txt 2>&1
cat $OUT/env.txt
timeout 300 python3 -u bench/archive/arena_probe.py --pairs 3 --rounds 8 --json $OUT/probe-plain.json > $OUT/probe-plain.txt 2>&1
tail -60 $OUT/probe-plain.txt
timeout 150 python3 -u bench/archive/arena_probe.py --pairs 1 --rounds 8 --sandbox bwrap --json $OUT/probe-bwrap.json > $OUT/probe-bwrap.txt 2>&1
tail -40 $OUT/probe-bwrap.txt
