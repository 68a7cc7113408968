"""Candidate: the one export of what an agent hands in -- only the task's editable files.

Used by a run (workspace -> attempt's candidate/), by `gauntlet eval` (a re-applied diff -> the
same) and by the judge (candidate/ -> the kernel runner's tree). Deny by default: a path that is
not editable, is not a regular file, is a symlink, or resolves outside its folder never crosses.
Standard library only (the judge imports it inside evaluation containers).
"""
from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path
from runner.sandbox.hostfs import remove_tree

MAX_FILE_BYTES = 16 * 1024 * 1024     # an editable source file larger than this is not a kernel


def readable_file(root: Path, rel: str) -> Path | None:
    """root/rel when it is a regular file reached through no symlink and no '..'; else None."""
    rel_path = Path(rel)
    if rel_path.is_absolute() or ".." in rel_path.parts:
        return None
    current = Path(root)
    for part in rel_path.parts:
        current = current / part
        if current.is_symlink():
            return None
    try:
        return current if stat.S_ISREG(os.lstat(current).st_mode) else None
    except OSError:
        return None


def export_editable(source_dir: Path, editable, dest: Path) -> list[str]:
    """Copy the editable files found in `source_dir` into `dest`; returns the ones copied. A file
    the agent left unreadable (chmod 000) is made readable first: its edit is still evaluated."""
    copied = []
    for rel in editable:
        src = readable_file(Path(source_dir), rel)
        if src is None:
            continue
        try:
            if not os.access(src, os.R_OK):
                os.chmod(src, stat.S_IMODE(os.lstat(src).st_mode) | stat.S_IRUSR)
            if src.stat().st_size > MAX_FILE_BYTES:
                continue
            target = Path(dest) / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, target)
        except OSError:
            continue
        copied.append(rel)
    return copied


def fresh_dir(path: Path) -> Path:
    """An empty real folder at `path`: whatever was there (a folder, a file, a symlink to anywhere)
    is removed, never followed, so nothing is written or deleted through a planted link."""
    path = Path(path)
    if path.is_symlink() or (path.exists() and not path.is_dir()):
        path.unlink()
    elif path.exists():
        remove_tree(path)
    path.mkdir(parents=True)
    return path


def export_candidate(source_dir: Path, editable, dest: Path) -> list[str]:
    """The candidate folder of an attempt (run and `gauntlet eval` alike): `dest` made afresh, then
    the editable files of `source_dir` exported into it."""
    return export_editable(source_dir, editable, fresh_dir(dest))


def kernel_tree(files: dict[str, Path], editable, candidate_dir: Path | None, dest: Path) -> Path:
    """A kernel's build tree: the task's pristine visible `files` ({workspace path: source}), with
    the editable paths replaced by the candidate's (deleted where the candidate has none)."""
    for rel, src in files.items():
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dest / rel)
    if candidate_dir is not None:
        for rel in editable:
            if (dest / rel).exists():
                (dest / rel).unlink()
        export_editable(Path(candidate_dir), editable, dest)
    return dest
