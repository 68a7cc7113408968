#!/usr/bin/env bash
# GPU calls of 2026-11-26 (session 4): noop (the shipped stub) through the judge over every task of the
# KernelBench import that retime.sh made on this host (carried as .gpu/kb-tasks.tgz), every seen and
# hidden config, correctness only: the reference must run on the GPU, the stub must build, run and
# fail. Resumable from .gpu/kb-suite/suite.jsonl.
set -uo pipefail
. bench/gpu_env.sh || exit 1
tar -xzf .gpu/kb-tasks.tgz -C /tmp || exit 1
R=/tmp/kb-suite; mkdir -p $R
[ -f .gpu/kb-suite/suite.jsonl ] && [ ! -f $R/suite.jsonl ] && cp .gpu/kb-suite/suite.jsonl $R/
timeout ${SUITE_S:-540} python3 bench/judge_gpu.py suite --tasks-root /tmp/kb-tasks --agents noop --out $R \
  --jobs ${JOBS:-15} > $OUT/kb-suite.txt 2>&1
cp $R/suite.jsonl $OUT/ 2>/dev/null
tail -12 $OUT/kb-suite.txt
