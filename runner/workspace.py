"""Workspace: the agent's git-initialised copy of a task's visible files.

prepare(): copy the visible files, write the workspace view of task.toml, `git init`, baseline
commit. finalize(): commit whatever the agent left, write diff.patch against the baseline and the
changed files; edits outside the editable paths are violations and never reach the evaluator.
The record of what changed lives in a git dir outside the workspace, built from the task's own
bytes: rewriting the workspace's history, hooks or config hides nothing and runs nothing.
"""
from __future__ import annotations

import io
import os
import shutil
import stat
import tempfile
import tomllib
from dataclasses import dataclass
from pathlib import Path

import git
from gitdb import IStream

from runner.candidate import MAX_FILE_BYTES, fresh_dir
from runner.tasks.task import Task

AUTHOR = git.Actor("gauntlet", "gauntlet@localhost")
VIEW_FILE = "task.toml"
# A changed protected-path file larger than this is junk: listed in violations with its size, never
# read or recorded. Together the recorded protected changes fill at most PATCH_MAX_BYTES.
RECORD_MAX_BYTES = 1 << 20
PATCH_MAX_BYTES = 8 << 20


@dataclass
class Changes:
    changed_files: list[str]
    violations: list[str]
    patch: str      # git's bytes decoded with surrogateescape: patch_bytes() gives them back exactly

    def patch_bytes(self) -> bytes:
        return self.patch.encode("utf-8", "surrogateescape")


def shown(rel: str) -> str:
    """A workspace path as a record shows it: a name that is not UTF-8 (held in Python with
    surrogate escapes, as os.walk gives it) with its odd bytes as \\xNN, so JSON and terminals take it."""
    return os.fsencode(rel).decode("utf-8", "backslashreplace")


def workspace_view(task: Task) -> str:
    """task.toml as the agent may see it: no hidden configs, no solution."""
    raw = tomllib.loads((task.root / "task.toml").read_text())
    lines = [f'id = "{task.id}"', f'category = "{task.category}"',
             f"platforms = {list(task.platforms)!r}".replace("'", '"'),
             f"description = {_toml_str(task.description)}", "",
             "[workspace]", f"files = {_toml_list(sorted(task.files) + [VIEW_FILE])}",
             f"editable = {_toml_list(task.editable)}", "",
             "[candidate]", f'entry = "{task.entry}"', f'symbol = "{task.symbol}"',
             f"compile_flags = {_toml_list(task.compile_flags)}",
             *([f'kind = "{task.kind}"'] if task.kind != "launch" else []), "",
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
        compare every file with the task's own bytes. No file is read whole unless it is small:
        junk (a protected-path file over RECORD_MAX_BYTES, past the PATCH_MAX_BYTES the protected
        changes may fill together, or not a regular file) is listed in `violations` with its size
        and left out of record.git and diff.patch, so it can never stop the editable files from
        being recorded and evaluated."""
        restore_permissions(self.path)
        expected = self.expected_files()
        present = self._present_files()
        editable = set(self.task.editable)
        changed = sorted(rel for rel in set(expected) | set(present)
                         if rel not in present or rel not in expected
                         or not _same_bytes(present[rel], expected[rel]))
        final: dict[str, tuple[str, Path, os.stat_result]] = {}   # rel -> (git mode, path, lstat)
        violations, protected_bytes, kept_baseline = [], 0, set()
        for rel, (path, st) in sorted(present.items()):
            mode = _git_mode(st)
            if rel not in changed:
                final[rel] = (mode, path, st)
                continue
            if rel in editable:
                if mode is not None and st.st_size <= MAX_FILE_BYTES:
                    final[rel] = (mode, path, st)
                else:   # the evaluator never takes it (candidate.export_editable): recorded as deleted
                    violations.append(f"{shown(rel)} ({_describe(st)}; an editable file holds at most "
                                      f"{MAX_FILE_BYTES} bytes: not evaluated, not recorded)")
                continue
            if mode is not None and st.st_size <= RECORD_MAX_BYTES and protected_bytes + st.st_size <= PATCH_MAX_BYTES:
                protected_bytes += st.st_size
                final[rel] = (mode, path, st)
                violations.append(shown(rel))
            else:
                violations.append(f"{shown(rel)} ({_describe(st)}; not recorded)")
                if rel in expected:
                    kept_baseline.add(rel)
        violations += [shown(rel) for rel in changed if rel not in present and rel not in editable]   # deleted
        patch = self._record(Path(record_dir), expected, final, kept_baseline, editable)
        return Changes(changed_files=[shown(rel) for rel in changed], violations=sorted(violations),
                       patch=patch.decode("utf-8", "surrogateescape"))

    def _present_files(self) -> dict[str, tuple[Path, os.stat_result]]:
        """Every non-directory under the workspace but its .git, with its lstat (nothing followed)."""
        present = {}
        for dirpath, dirnames, filenames in os.walk(self.path):
            if Path(dirpath) == self.path and ".git" in dirnames:
                dirnames.remove(".git")
            for name in filenames + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]:
                path = Path(dirpath) / name
                present[path.relative_to(self.path).as_posix()] = (path, os.lstat(path))
        return present

    def _record(self, record_dir: Path, expected: dict[str, bytes],
                final: dict[str, tuple[str, Path, os.stat_result]], kept_baseline: set[str],
                editable: set[str]) -> bytes:
        """Baseline and final commits in a git dir the agent never had, built from bytes (blobs
        written by the runner, no worktree), so its hooks, config (core.fsmonitor, filters),
        .gitignore and rewritten history play no part. Junk left out of `final` keeps its baseline
        entry (a protected file replaced by junk reads as unchanged, not as deleted)."""
        repo = git.Repo.init(record_dir, bare=True, initial_branch="main")
        with repo.config_writer() as cfg:
            cfg.set_value("core", "hooksPath", "/dev/null")
        baseline_entries = {rel: ("100644", self._store(repo, data)) for rel, data in expected.items()}
        final_entries = {rel: baseline_entries[rel] for rel in kept_baseline}
        for rel, (mode, path, st) in final.items():
            data = os.fsencode(os.readlink(path)) if mode == "120000" else path.read_bytes()
            final_entries[rel] = (mode, self._store(repo, data))
        baseline_tree = _write_tree(repo, baseline_entries)
        final_tree = _write_tree(repo, final_entries)
        baseline = repo.git.commit_tree(baseline_tree, "-m", "baseline: task files as shipped", env=_ENV)
        final_commit = repo.git.commit_tree(final_tree, "-p", baseline, "-m", "agent: final state", env=_ENV)
        repo.git.update_ref("refs/heads/main", final_commit)
        # editable paths first and whole: `gauntlet eval` and replay rebuild the candidate from them
        # as bytes: a file or name that is not UTF-8 is recorded as it is, never a reason to fail
        editable_diff = repo.git.diff(baseline_tree, final_tree, "--binary", "--", *sorted(editable),
                                      stdout_as_string=False, strip_newline_in_stdout=False)
        others = [f":(exclude,literal){rel}" for rel in sorted(editable)]
        protected_diff = repo.git.diff(baseline_tree, final_tree, "--binary", "--", ".", *others,
                                       stdout_as_string=False, strip_newline_in_stdout=False)
        return b"\n".join(d.rstrip(b"\n") for d in (editable_diff, protected_diff) if d.strip()) + b"\n"

    @staticmethod
    def _store(repo, data: bytes) -> str:
        return repo.odb.store(IStream(git.Blob.type, len(data), io.BytesIO(data))).hexsha.decode()


DISARMED = ".git-agent"      # what finalize's caller renames each of the agent's .git to


def disarm_git(root: Path) -> list[str]:
    """Once the agent's work is recorded, put every git repository it left in the kept workspace out
    of git's reach: each `.git` (folder, `gitdir:` file or link, at any depth) renamed to DISARMED,
    and each bare repository's HEAD to HEAD-agent, so a person's `git status`/`git diff` there never
    loads the agent's config (core.fsmonitor, filter and textconv drivers, includes), hooks or
    info/attributes. The bytes stay for an audit; record.git holds what was judged. Returns the
    paths renamed (relative, as shown)."""
    root = Path(root)
    renamed = []
    for dirpath, dirnames, filenames in os.walk(root, topdown=True):
        names = set(dirnames) | set(filenames)
        if {"HEAD", "objects", "refs"} <= names and Path(dirpath) != root:      # a bare repository
            os.rename(os.path.join(dirpath, "HEAD"), os.path.join(dirpath, "HEAD-agent"))
            renamed.append(shown(os.path.relpath(os.path.join(dirpath, "HEAD"), root)))
        if ".git" in names:
            source = os.path.join(dirpath, ".git")
            target, n = os.path.join(dirpath, DISARMED), 0
            while os.path.lexists(target):
                n += 1
                target = os.path.join(dirpath, f"{DISARMED}-{n}")
            os.rename(source, target)
            renamed.append(shown(os.path.relpath(source, root)))
            if ".git" in dirnames:
                dirnames.remove(".git")
        dirnames[:] = [d for d in dirnames if not os.path.islink(os.path.join(dirpath, d))]
    return renamed


def restore_permissions(root: Path) -> None:
    """Give the owner back read (and, on folders, write and search) permission on everything under
    `root`, as the runner, once the agent has stopped: an agent's `chmod 000` on its kernel or its
    workspace would otherwise hide its edit from a non-root runner. Symlinks are never followed."""
    def allow(path: str, bits: int) -> None:
        try:
            mode = os.lstat(path).st_mode
            if not stat.S_ISLNK(mode) and stat.S_IMODE(mode) & bits != bits:
                os.chmod(path, stat.S_IMODE(mode) | bits)
        except OSError:
            pass   # not ours to change (another uid's file): it is read, or not, as it stands
    dir_bits = stat.S_IRWXU
    allow(str(root), dir_bits)
    for dirpath, dirnames, filenames in os.walk(root):   # top-down: a folder is opened before it is walked
        for name in dirnames:
            allow(os.path.join(dirpath, name), dir_bits)
        for name in filenames:
            allow(os.path.join(dirpath, name), stat.S_IRUSR)


def _same_bytes(present: tuple[Path, os.stat_result], expected: bytes) -> bool:
    """A regular file holding exactly `expected` (read only when the sizes already agree)."""
    path, st = present
    return stat.S_ISREG(st.st_mode) and st.st_size == len(expected) and path.read_bytes() == expected


def _git_mode(st: os.stat_result) -> str | None:
    """The git mode a file is recorded with; None for what git cannot hold (fifo, socket, device)."""
    if stat.S_ISLNK(st.st_mode):
        return "120000"
    if stat.S_ISREG(st.st_mode):
        return "100755" if st.st_mode & stat.S_IXUSR else "100644"
    return None


def _describe(st: os.stat_result) -> str:
    return f"{st.st_size} bytes" if _git_mode(st) else "not a regular file"


def _write_tree(repo, entries: dict[str, tuple[str, str]]) -> str:
    """A tree object from {path: (mode, blob sha)}, through a scratch index (-z: any path)."""
    index = Path(repo.git_dir) / "gauntlet-index"
    index.unlink(missing_ok=True)
    env = {"GIT_INDEX_FILE": str(index)}
    # os.fsencode: an agent's file name need not be UTF-8 (os.walk gives it with surrogate escapes)
    info = b"".join(f"{mode} {sha}\t".encode() + os.fsencode(rel) + b"\0" for rel, (mode, sha) in sorted(entries.items()))
    with tempfile.TemporaryFile() as fh:
        fh.write(info)
        fh.seek(0)
        repo.git.update_index("-z", "--index-info", istream=fh, env=env)
    tree = repo.git.write_tree(env=env)
    index.unlink(missing_ok=True)
    return tree


_ENV = {"GIT_AUTHOR_NAME": AUTHOR.name, "GIT_AUTHOR_EMAIL": AUTHOR.email,
        "GIT_COMMITTER_NAME": AUTHOR.name, "GIT_COMMITTER_EMAIL": AUTHOR.email}


class PatchError(ValueError):
    """A diff that git cannot apply to the workspace (git's own first error line)."""


def apply_patch(workspace: Path, patch: str | bytes) -> None:
    """Apply a diff (as written by finalize: bytes, or text with surrogate escapes) to a workspace;
    PatchError if it does not apply."""
    if isinstance(patch, str):
        patch = patch.encode("utf-8", "surrogateescape")
    if not patch.strip():
        return
    repo = git.Repo(workspace)
    with tempfile.NamedTemporaryFile("wb", suffix=".patch", delete=False) as fh:
        fh.write(patch if patch.endswith(b"\n") else patch + b"\n")
    try:
        repo.git.apply("--binary", "--whitespace=nowarn", fh.name)
    except git.GitCommandError as exc:
        # GitPython wraps git's stderr as "stderr: '...'": keep git's first error line
        text = str(exc.stderr).strip().removeprefix("stderr:").strip().strip("'")
        lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
        raise PatchError(lines[0] if lines else f"git apply exited {exc.status}") from None
    finally:
        Path(fh.name).unlink()
