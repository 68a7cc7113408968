"""The run dir: the one owner of where things lie in it, and of who may write it (its lock).

run_dir/
  manifest.json                  agent, options, device, versions, suite commit, start/end,
                                 drawn_configs (--unseen N: per task, the configs kept and rejected),
                                 image (docker backend: ref, id, digests, contents; per session in runs[])
  drawn/<category>__<name>/      --unseen N: the baseline's check of the drawn candidate configs
  attempts/<category>__<name>[__<agent>][__k<i>]/   RunLayout: one folder per attempt (the agent's
                                 name only in runs of several agents; k<i> for repeats i >= 1)
    workspace/                   the agent's workspace as it left it; each .git in it renamed .git-agent
                                 once recorded (git there loads none of the agent's config or hooks)
    harness-notes.txt            (only if any) steps over the agent's data that failed and were passed over
    record.git/                  baseline and final commits, outside the agent's reach
    agent/prompt.md stdout.log stderr.log
    candidate/                   only the editable files, as handed to the evaluator
    evaluation.json              what the evaluator wrote
    drawn-configs.toml           --unseen N: the drawn configs, written after the agent stopped
    diff.patch                   the agent's changes against the task as shipped
    result.json                  written last: its presence means the attempt is finished
    result.prev-<n>.json         `gauntlet eval`: the result.json (and evaluation.prev-<n>.json the
    evaluation.prev-<n>.json     evaluation.json) it replaced, n = 1, 2, ... oldest first

With the local backend, temp folders live outside the run dir (the judge hides the run dir from
kernel runners, and their work dirs are made in its TMPDIR), in one root per run
(runner/sandbox/local.py run_temp_root):
  $TMPDIR/gauntlet-run-<hash of the run dir>/
    run-dir                      the run dir it belongs to (`gauntlet gc` reads it)
    <category>__<name>/agent/    the agent's private TMPDIR (mktemp -d: CLAUDE_CONFIG_DIR, CODEX_HOME)
    <category>__<name>/eval/     the judge's TMPDIR (its scratch and kernel runners' work dirs)
  $TMPDIR/gl-gw-<random>/        an agent's model gateway socket (short: a unix socket path is at
                                 most 107 bytes), naming its run in run-dir too
The run removes them when it ends, on SIGINT and SIGTERM too; after a SIGKILL, `--resume` or
`gauntlet gc --backend local` does.
"""
from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from runner.results.result import read_json
from runner.sandbox.hostfs import remove_tree


class RunError(RuntimeError):
    """A run-level problem the user can act on (one line)."""


def attempt_dir_name(task_id: str) -> str:
    return task_id.replace("/", "__")


@dataclass(frozen=True)
class RunLayout:
    """The one owner of where things lie in a run dir (module docstring): every attempt's folder and
    the results a report reads. A run of one agent and one attempt per task keeps the historical
    `attempts/<category>__<name>`; repeats add `__k<i>` (i >= 1), several agents `__<agent>`."""
    root: Path
    several_agents: bool = False

    def attempt_dir(self, task_id: str, agent: str, k: int = 0) -> Path:
        name = attempt_dir_name(task_id) + (f"__{agent}" if self.several_agents else "") + (f"__k{k}" if k else "")
        return self.root / "attempts" / name

    def result_paths(self) -> list[Path]:
        return sorted(self.root.glob("attempts/*/result.json"))


LOCK_NAME = ".gauntlet.lock"


def lock_run_dir(run_dir: Path):
    """An exclusive lock on the run dir for as long as this process lives (the kernel drops it when
    the process dies, kill -9 too): two runs, or a --resume or `eval` beside a live run, would
    clobber each other's attempts."""
    import fcntl
    path = Path(run_dir) / LOCK_NAME
    try:
        fh = open(path, "a+")
    except OSError as exc:
        raise RunError(f"--out: {run_dir} cannot hold a run ({exc.strerror or exc})") from None
    try:
        fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        fh.seek(0)
        holder = fh.read().strip() or "another process"
        fh.close()
        raise RunError(f"{run_dir}: in use by a live gauntlet process ({holder}); wait for it or choose "
                       "another --out") from None
    fh.seek(0)
    fh.truncate()
    fh.write(f"pid {os.getpid()}")
    fh.flush()
    return fh


def locked_run_dir(adir: Path) -> Path | None:
    """The run dir of an attempt's folder (<run>/attempts/<attempt>), when it is one a run holds (a
    Ray worker's copy is not): what owns that attempt's temp folders."""
    run_dir = Path(adir).resolve().parent.parent
    return run_dir if (run_dir / LOCK_NAME).is_file() else None


def run_is_live(run_dir: Path) -> bool:
    """Whether a live process holds the run dir's lock (gc spares such runs)."""
    try:
        fh = lock_run_dir(run_dir)
    except RunError:
        return True
    fh.close()
    return False


def read_manifest(path: Path) -> dict:
    """manifest.json as an object, or one RunError line naming the file."""
    try:
        data = read_json(path)
    except (OSError, ValueError) as exc:
        raise RunError(f"{path}: not a readable manifest ({type(exc).__name__}: {str(exc)[:120]})") from None
    if not isinstance(data, dict):
        raise RunError(f"{path}: not a manifest (a JSON {type(data).__name__}, not an object)")
    return data


def tree_bytes(root: Path) -> int:
    """Bytes of the regular files under root (links not followed; unreadable entries skipped)."""
    total = 0
    for folder, dirs, files in os.walk(root, onerror=lambda exc: None):
        for name in files:
            try:
                st = os.lstat(os.path.join(folder, name))
            except OSError:
                continue
            if not os.path.islink(os.path.join(folder, name)):
                total += st.st_size
    return total


def prune_workspaces(run_dir: Path, dry_run: bool = False) -> list[str]:
    """`gauntlet gc --workspaces`: remove the agents' workspaces of a finished run (what a report,
    `gauntlet eval` and an audit read stays: diff.patch, record.git, candidate/, result.json).
    A run still going, or unfinished (--resume needs its attempts), is left alone, said in one line."""
    run_dir = Path(run_dir)
    manifest_path = run_dir / "manifest.json"
    if not manifest_path.is_file():
        raise RunError(f"{run_dir}: holds no run (no manifest.json)")
    if run_is_live(run_dir):
        raise RunError(f"{run_dir}: in use by a live gauntlet process; its workspaces are kept")
    if not read_manifest(manifest_path).get("finished"):
        raise RunError(f"{run_dir}: unfinished (`gauntlet run --resume --out {run_dir}` continues it); "
                       "its workspaces are kept")
    removed = []
    for workspace in sorted(run_dir.glob("attempts/*/workspace")):
        removed.append(f"workspace {workspace} ({tree_bytes(workspace):,} bytes)")
        if not dry_run:
            remove_tree(workspace, ignore_errors=True)
    return removed


def keep_previous(adir: Path) -> int:
    """Before `gauntlet eval` rewrites an attempt: its result.json and evaluation.json are copied to
    result.prev-<n>.json / evaluation.prev-<n>.json (n one past the highest kept); returns n."""
    taken = [int(m.group(1)) for p in adir.glob("result.prev-*.json")
             if (m := re.fullmatch(r"result\.prev-(\d+)\.json", p.name))]
    n = max(taken, default=0) + 1
    for name in ("result", "evaluation"):
        if (adir / f"{name}.json").is_file():
            shutil.copyfile(adir / f"{name}.json", adir / f"{name}.prev-{n}.json")
    return n
