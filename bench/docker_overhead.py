"""Per-attempt harness overhead of the docker backend, agent time, compilation and timing excluded.

One attempt's harness work, as runner/run/run.py does it, with a trivial agent (`true`) and a trivial
evaluation (`true`) so only the harness is measured:
  workspace   prepare the git workspace (copy, git init, baseline commit)
  agent_up    agent container create + start (chown of the workspace included)
  agent_exec  exec overhead: setsid/timeout wrapper + the kill-everything exec afterwards
  agent_down  container removal (+ workspace ownership restored)
  diff        finalize: record.git commits + diff.patch
  eval_up     candidate copy + eval container create + start
  eval_exec   exec overhead of the eval container
  eval_down   eval container removal

    python3 bench/docker_overhead.py [--n 10] [--tasks-root tests/fixtures/tasks] [--json]
"""
from __future__ import annotations

import argparse
import json
import platform
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from runner import __version__  # noqa: E402
from runner.sandbox import Mount, SandboxSpec, open_sandbox  # noqa: E402
from runner.tasks.task import load_task  # noqa: E402
from runner.workspace import Workspace  # noqa: E402

PHASES = ("workspace", "agent_up", "agent_exec", "agent_down", "diff", "eval_up", "eval_exec", "eval_down")


def one_attempt(task, root: Path, scratch: Path) -> dict:
    t = {}
    adir = scratch / "attempt"
    shutil.rmtree(adir, ignore_errors=True)
    adir.mkdir(parents=True)

    s = time.perf_counter()
    ws = Workspace(adir / "workspace", task)
    ws.prepare()
    agent_dir = adir / "agent"
    agent_dir.mkdir()
    (agent_dir / "prompt.md").write_text("bench\n")
    t["workspace"] = time.perf_counter() - s

    s = time.perf_counter()
    box = open_sandbox("docker", SandboxSpec(role="agent", platform="cpu", workdir=ws.path,
                                             mounts=(Mount(agent_dir, "/gauntlet/agent"),),
                                             labels={"gauntlet.task": task.id, "gauntlet.run": "bench"}))
    t["agent_up"] = time.perf_counter() - s
    s = time.perf_counter()
    box.exec(["true"], timeout=60, stdout=agent_dir / "stdout.log", stderr=agent_dir / "stderr.log")
    t["agent_exec"] = time.perf_counter() - s
    s = time.perf_counter()
    box.stop()
    t["agent_down"] = time.perf_counter() - s

    s = time.perf_counter()
    changes = ws.finalize(adir / "record.git")
    (adir / "diff.patch").write_text(changes.patch)
    t["diff"] = time.perf_counter() - s

    s = time.perf_counter()
    candidate = adir / "candidate"
    candidate.mkdir()
    for rel in task.editable:
        shutil.copyfile(ws.path / rel, candidate / rel)
    eval_dir = adir / "eval"
    eval_dir.mkdir()
    ebox = open_sandbox("docker", SandboxSpec(role="eval", platform="cpu", workdir=eval_dir, workdir_target="/eval",
                                              mounts=(Mount(root, "/gauntlet/tasks"),
                                                      Mount(candidate, "/gauntlet/candidate")),
                                              labels={"gauntlet.task": task.id, "gauntlet.run": "bench"}))
    t["eval_up"] = time.perf_counter() - s
    s = time.perf_counter()
    ebox.exec(["true"], timeout=60, stdout=eval_dir / "stdout.log", stderr=eval_dir / "stderr.log")
    t["eval_exec"] = time.perf_counter() - s
    s = time.perf_counter()
    ebox.stop()
    t["eval_down"] = time.perf_counter() - s
    t["total"] = sum(t[p] for p in PHASES)
    return t


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=10)
    ap.add_argument("--tasks-root", type=Path, default=REPO / "tests" / "fixtures" / "tasks")
    ap.add_argument("--task", default="triton2triton/scale")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    import docker
    client = docker.from_env()
    root = args.tasks_root.resolve()
    task = load_task(root / args.task, root)
    runs = []
    with tempfile.TemporaryDirectory(prefix="gauntlet-bench-") as tmp:
        one_attempt(task, root, Path(tmp))          # warm-up (page cache, image layers)
        for _ in range(args.n):
            runs.append(one_attempt(task, root, Path(tmp)))
    summary = {p: {"median_s": round(statistics.median(r[p] for r in runs), 3),
                   "max_s": round(max(r[p] for r in runs), 3)} for p in (*PHASES, "total")}
    info = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "n": args.n,
            "gauntlet": __version__, "docker_engine": client.version().get("Version"),
            "docker_sdk": docker.__version__, "python": platform.python_version(),
            "host": f"{platform.machine()}, {__import__('os').cpu_count()} cores, {platform.release()}",
            "phases": summary}
    if args.json:
        print(json.dumps(info, indent=2))
    else:
        for k in ("date", "gauntlet", "docker_engine", "docker_sdk", "python", "host", "n"):
            print(f"{k:14s} {info[k]}")
        print(f"{'phase':14s} {'median s':>9s} {'max s':>8s}")
        for p in (*PHASES, "total"):
            print(f"{p:14s} {summary[p]['median_s']:9.3f} {summary[p]['max_s']:8.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
