"""Workspace: the agent's git-initialised copy of a task's visible files.

prepare(): copy the visible files, write the workspace view of task.toml, `git init`, baseline
commit. finalize(): commit whatever the agent left, write diff.patch against the baseline and the
changed files; edits outside the editable paths are violations and never reach the evaluator.
The record of what changed lives in a git dir outside the workspace, built from the task's own
bytes: rewriting the workspace's history, hooks or config hides nothing and runs nothing.
"""
from __future__ import annotations

import io
import shutil
import tempfile
import tomllib
from dataclasses import dataclass
from pathlib import Path

import git
from gitdb import IStream

from .candidate import fresh_dir
from .task import Task

AUTHOR = git.Actor("gauntlet", "gauntlet@localhost")
VIEW_FILE = "task.toml"


@dataclass
class Changes:
    changed_files: list[str]
    violations: list[str]
    patch: str


def workspace_view(task: Task) -> str:
    """task.toml as the agent may see it: no hidden configs, no solution."""
    raw = tomllib.loads((task.root / "task.toml").read_text())
    lines = [f'id = "{task.id}"', f'category = "{task.category}"',
             f"platforms = {list(task.platforms)!r}".replace("'", '"'),
             f"description = {_toml_str(task.description)}", "",
             "[workspace]", f"files = {_toml_list(sorted(task.files) + [VIEW_FILE])}",
             f"editable = {_toml_list(task.editable)}", "",
             "[candidate]", f'entry = "{task.entry}"', f'symbol = "{task.symbol}"',
             f"compile_flags = {_toml_list(task.compile_flags)}", "",
             "[reference]", f'module = "{task.reference.relative_to(_owner(task, task.reference)).as_posix()}"', "",
             "[configs]", f'seen = "{task.seen_file.relative_to(_owner(task, task.seen_file)).as_posix()}"']
    if raw.get("tolerance") or task.tolerances:
        lines += ["", "[tolerance]"]
        lines += [f"{d} = {{ atol = {t.atol!r}, rtol = {t.rtol!r} }}" for d, t in task.tolerances.items()]
    return "\n".join(lines) + "\n"


def _owner(task: Task, path: Path) -> Path:
    for folder in (task.root, *task.bases):
        if path.is_relative_to(folder):
            return folder
    return task.root


def _toml_str(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _toml_list(items) -> str:
    return "[" + ", ".join(_toml_str(i) for i in items) + "]"


class Workspace:
    def __init__(self, path: Path, task: Task):
        self.path = Path(path)
        self.task = task

    def prepare(self) -> str:
        """Fresh copy + baseline commit; returns the baseline sha."""
        fresh_dir(self.path)       # a planted symlink here is removed, never followed
        for rel, src in self.task.files.items():
            dest = self.path / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest)
        (self.path / VIEW_FILE).write_text(workspace_view(self.task))
        repo = git.Repo.init(self.path, initial_branch="main")
        with repo.config_writer() as cfg:
            cfg.set_value("user", "name", AUTHOR.name)
            cfg.set_value("user", "email", AUTHOR.email)
        repo.git.add(A=True)
        commit = repo.index.commit("baseline: task files as shipped", author=AUTHOR, committer=AUTHOR)
        return commit.hexsha

    def expected_files(self) -> dict[str, bytes]:
        files = {rel: src.read_bytes() for rel, src in self.task.files.items()}
        files[VIEW_FILE] = workspace_view(self.task).encode()
        return files

    def finalize(self, record_dir: Path) -> Changes:
        """Commit the agent's final state into `record_dir` (a git dir outside the workspace) and
        compare every file with the task's own bytes."""
        expected = self.expected_files()
        present = {}
        for p in sorted(self.path.rglob("*")):
            rel = p.relative_to(self.path).as_posix()
            if rel == ".git" or rel.startswith(".git/") or (p.is_dir() and not p.is_symlink()):
                continue
            present[rel] = p
        changed = sorted(rel for rel in set(expected) | set(present)
                         if rel not in present or rel not in expected
                         or present[rel].is_symlink() or present[rel].read_bytes() != expected[rel])
        editable = set(self.task.editable)
        violations = [rel for rel in changed if rel not in editable]
        patch = self._record(Path(record_dir), expected)
        return Changes(changed_files=changed, violations=violations, patch=patch)

    def _record(self, record_dir: Path, expected: dict[str, bytes]) -> str:
        """Baseline and final commits in a git dir the agent never had, so its hooks, config
        (core.fsmonitor, filters), .gitignore and rewritten history play no part."""
        repo = git.Repo.init(record_dir, bare=True, initial_branch="main")
        with repo.config_writer() as cfg:
            cfg.set_value("core", "hooksPath", "/dev/null")
            cfg.set_value("core", "bare", "false")
            cfg.set_value("core", "worktree", str(self.path.resolve()))
        for rel, data in sorted(expected.items()):
            sha = repo.odb.store(IStream(git.Blob.type, len(data), io.BytesIO(data))).hexsha.decode()
            repo.git.update_index("--add", "--cacheinfo", f"100644,{sha},{rel}")
        baseline_tree = repo.git.write_tree()
        baseline = repo.git.commit_tree(baseline_tree, "-m", "baseline: task files as shipped", env=_ENV)
        repo.git.read_tree("--empty")
        repo.git.add("-A", "--force", ".", "--", ":!.git")
        final_tree = repo.git.write_tree()
        final = repo.git.commit_tree(final_tree, "-p", baseline, "-m", "agent: final state", env=_ENV)
        repo.git.update_ref("refs/heads/main", final)
        return repo.git.diff(baseline_tree, final_tree, "--binary", stdout_as_string=True) + "\n"


_ENV = {"GIT_AUTHOR_NAME": AUTHOR.name, "GIT_AUTHOR_EMAIL": AUTHOR.email,
        "GIT_COMMITTER_NAME": AUTHOR.name, "GIT_COMMITTER_EMAIL": AUTHOR.email}


def apply_patch(workspace: Path, patch: str) -> None:
    """Apply a diff (as written by finalize) to a workspace."""
    if not patch.strip():
        return
    repo = git.Repo(workspace)
    with tempfile.NamedTemporaryFile("w", suffix=".patch", delete=False) as fh:
        fh.write(patch if patch.endswith("\n") else patch + "\n")
    try:
        repo.git.apply("--binary", "--whitespace=nowarn", fh.name)
    finally:
        Path(fh.name).unlink()
