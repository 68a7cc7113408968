#!/usr/bin/env bash
# GPU call 4 of 2026-11-26 (session 8), issue 10: is the split's same-call overhead the Triton cache?
# triton2triton/softmax's solution through the in-process evaluator (.carry/old) with its Triton
# cache as it is (warm after the first run) and with a new empty one per run (as each runner of the
# judge has), and through this judge; twice, interleaved.
set -uo pipefail
. bench/gpu_env.sh || exit 1
timeout 300 python3 -u - <<'PY' > $OUT/cache.txt 2>&1
import sys, tempfile
from pathlib import Path
sys.path.insert(0, "bench")
import judge_gpu as jg
task = "triton2triton/softmax"
out = Path(tempfile.mkdtemp())
old_tasks = jg._tasks_for_old(out / "tasks")
cand = jg.solution_of(task)
old_cand = old_tasks / cand.relative_to(jg.ROOT / "tasks")
for rep in range(2):
    for way in ("old-warm", "old-cold", "judge"):
        target = out / f"{way}-{rep}.json"
        if way == "judge":
            data = jg.evaluate(task, cand, target, str(jg.ROOT))
        else:
            env = {"TRITON_CACHE_DIR": tempfile.mkdtemp()} if way == "old-cold" else None
            data = jg.evaluate(task, old_cand, target, str(jg.ROOT / ".carry" / "old"), tasks_root=old_tasks, env=env)
        ok = bool(data.get("configs")) and all(c["correct"] for c in data["configs"])
        print(f"{way:9s} pass {rep + 1}: {data['wall_s']:6.2f} s correct={ok} err={(data.get('error') or '')[:200]}", flush=True)
PY
cat $OUT/cache.txt
