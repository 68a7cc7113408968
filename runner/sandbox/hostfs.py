"""The host folders an agent writes, as both backends guard them: ownership, size, and the state at
the deadline.

  _lchown_tree    hand a folder to the agent's uid for the phase, and back afterwards
  tree_usage      what a folder holds (the workspace watchdog: its total size and entry count)
  DeadlineFreeze  the workspace as it was when the budget ended: an agent that ignores SIGTERM and
                  edits during the grace that follows gets those edits undone before anything reads
                  the workspace (docs/agents.md, "the budget")
"""
from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path


def _lchown_tree(root: Path, uid: int, gid: int) -> None:
    """chown without following symlinks (an agent's symlink to /etc/shadow changes only the link)."""
    try:
        os.lchown(root, uid, gid)
    except FileNotFoundError:
        return
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        for name in dirnames + filenames:
            try:
                os.lchown(os.path.join(dirpath, name), uid, gid)
            except FileNotFoundError:
                pass


def tree_usage(root: Path, stop_at_files: int) -> tuple[int, int]:
    """(bytes, entries) under root: the larger of apparent size and allocated blocks per file."""
    total, count = 0, 0
    stack = [str(root)]
    while stack:
        try:
            entries = os.scandir(stack.pop())
        except OSError:
            continue
        with entries:
            for entry in entries:
                count += 1
                if count > stop_at_files:
                    return total, count
                try:
                    st = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                if entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
                else:
                    total += max(st.st_size, st.st_blocks * 512)
    return total, count


class DeadlineFreeze:
    """A copy of the workdir taken the moment the budget ends (the caller stops the agent's processes
    around `take`, so the copy is of one instant), put back by `restore` once every process is dead.
    The copy lives beside the workdir, never inside it, so the agent cannot reach it."""

    def __init__(self, workdir: Path):
        self.workdir = Path(workdir)
        self.copy: Path | None = None
        self.problems: list[str] = []

    def take(self) -> None:
        self.copy = Path(tempfile.mkdtemp(dir=self.workdir.parent, prefix=f".{self.workdir.name}-at-deadline-"))
        try:
            shutil.copytree(self.workdir, self.copy, symlinks=True, dirs_exist_ok=True)
        except shutil.Error as exc:   # a file the agent made unreadable: missing from the copy, and said
            self.problems = [f"{src}: {why}" for src, _dst, why in exc.args[0]][:5]

    def restore(self) -> str | None:
        """Put the workdir back as it was at the deadline; a note for the agent's log, or None."""
        if self.copy is None:
            return None
        for entry in list(self.workdir.iterdir()):
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry)
            else:
                entry.unlink()
        shutil.copytree(self.copy, self.workdir, symlinks=True, dirs_exist_ok=True)
        shutil.rmtree(self.copy, ignore_errors=True)
        self.copy = None
        note = "gauntlet: the workspace is kept as it was when the budget ended; later edits are discarded"
        if self.problems:
            note += f" (not copied at the deadline: {'; '.join(self.problems)})"
        return note
