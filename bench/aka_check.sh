#!/usr/bin/env bash
# The imported AgentKernelArena Triton->Triton tasks through the judge on a GPU (issue 34): AKA ships
# no optimized solution, so each task's kernel as shipped (noop: the baseline as candidate) must
# compile and be correct on every seen and hidden config, unflagged (bench/judge_gpu.py suite,
# correctness only, each evaluation with its own lock folder).
#
#   bash bench/aka_check.sh [TASKS_ROOT]       # default .aka/tasks
#
# TASKS_ROOT is what `gauntlet tasks import aka AKA_CHECKOUT --out .aka/tasks` wrote on the
# development host (.aka/ is git-ignored: the device call carries it with carry=[".aka"]). Rows go
# to $OUT/aka-suite.jsonl (a warm machine resumes from /tmp/aka-suite/suite.jsonl), the
# log to $OUT/aka-suite.txt; the summary's `not_validated` lists the tasks whose baseline failed.
set -uo pipefail
ROOT=${1:-.aka/tasks}
OUT=${OUT:-/tmp/aka-out}; mkdir -p "$OUT"
. bench/gpu_env.sh || exit 1
[ -d "$ROOT" ] || { echo "$ROOT: no imported tasks (run gauntlet tasks import aka ... --out $ROOT first)"; exit 2; }
python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__, torch.cuda.get_device_name(0))"
R=/tmp/aka-suite; mkdir -p $R
timeout ${SUITE_S:-540} python3 bench/judge_gpu.py suite --tasks-root "$ROOT" --agents noop --out $R \
  --jobs ${JOBS:-8} > "$OUT/aka-suite.txt" 2>&1
echo "suite exit $?"
cp $R/suite.jsonl "$OUT/aka-suite.jsonl" 2>/dev/null
tail -40 "$OUT/aka-suite.txt"
