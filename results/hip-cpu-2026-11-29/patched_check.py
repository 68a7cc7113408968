"""A diagnosis, not a tool: judge a copy of a task's solution with one line replaced, through
bench/hip_cpu_check.py's own path (same toolchain, guard, compat header, configs and judge).

    HIP_CPU_ROOT=... python results/hip-cpu-2026-11-29/patched_check.py TASK 'OLD LINE' 'NEW LINE'
"""
import os
import shutil
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(REPO), str(REPO / "bench")]
import hip_cpu_check as h  # noqa: E402
from runner.tasks.task import select  # noqa: E402

task_id, old, new = sys.argv[1:4]
task = select([task_id])[0]
toolchain = h.make_toolchain(Path(os.environ["HIP_CPU_ROOT"]), "e112c93")
os.environ["GAUNTLET_HIPCC"] = str(toolchain / "bin" / "hipcc")
work = Path(tempfile.mkdtemp(prefix="gauntlet-hipcpu-patched-"))
try:
    src = (task.solution_dir / task.entry).read_text()
    if src.count(old) != 1:
        sys.exit(f"the line is in {task.id}'s solution {src.count(old)} times, not once")
    (work / "kernel").mkdir()
    (work / "kernel" / task.entry).write_text(src.replace(old, new))
    verdict = h.judge_kernel(task, work / "kernel", h.cpu_configs(task, h.DEFAULT_MAX_BYTES, h.DEFAULT_MAX_FLOPS),
                             work / "judge")
    print(f"{task.id} solution with {old!r} -> {new!r}")
    h.print_verdict("patched solution", verdict)
finally:
    shutil.rmtree(toolchain, ignore_errors=True)
    shutil.rmtree(work, ignore_errors=True)
