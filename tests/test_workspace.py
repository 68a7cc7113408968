"""Workspace: real git, real files. What the agent changed is recorded from bytes, not from its refs."""
import os
import subprocess

import pytest

from runner.tasks.task import load_task
from runner.workspace import Workspace, apply_patch

SCALE = "triton2triton/scale"


@pytest.fixture
def workspace(tasks_root, tmp_path):
    ws = Workspace(tmp_path / "ws", load_task(tasks_root / SCALE, tasks_root))
    ws.prepare()
    return ws


def git(ws, *args):
    return subprocess.run(["git", "-C", str(ws.path), *args], capture_output=True, text=True, check=True).stdout


def test_prepare_copies_visible_files_only_and_commits_baseline(workspace):
    files = sorted(p.relative_to(workspace.path).as_posix() for p in workspace.path.rglob("*")
                   if p.is_file() and ".git" not in p.parts)
    assert files == ["configs.toml", "kernel.py", "reference.py", "task.toml"]
    assert "hidden" not in (workspace.path / "task.toml").read_text()
    assert "solution" not in (workspace.path / "task.toml").read_text()
    assert git(workspace, "log", "--format=%s").strip() == "baseline: task files as shipped"
    assert git(workspace, "status", "--porcelain") == ""


def test_untouched_workspace_has_no_changes(workspace, tmp_path):
    changes = workspace.finalize(tmp_path / "record.git")
    assert changes.changed_files == [] and changes.violations == [] and changes.patch.strip() == ""


def test_edits_outside_editable_paths_are_violations(workspace, tmp_path):
    (workspace.path / "kernel.py").write_text("# faster\n")
    (workspace.path / "reference.py").write_text("def reference(x, a):\n    return x\n")
    (workspace.path / "configs.toml").unlink()
    (workspace.path / "notes" ).mkdir()
    (workspace.path / "notes" / "plan.md").write_text("plan\n")
    changes = workspace.finalize(tmp_path / "record.git")
    assert changes.changed_files == ["configs.toml", "kernel.py", "notes/plan.md", "reference.py"]
    assert changes.violations == ["configs.toml", "notes/plan.md", "reference.py"]
    assert "+# faster" in changes.patch and "deleted file mode" in changes.patch


def test_rewritten_history_and_gitignore_hide_nothing(workspace, tmp_path):
    """An agent that commits, rewrites history, ignores files and plants hooks is still diffed
    against the task's own bytes, and its hooks never run on the host."""
    (workspace.path / "kernel.py").write_text("# mine\n")
    (workspace.path / "reference.py").write_text("# also mine\n")
    (workspace.path / ".gitignore").write_text("*\n")
    git(workspace, "add", "-A")
    git(workspace, "commit", "-qm", "x")
    git(workspace, "update-ref", "-d", "HEAD")   # drop the baseline
    hook = workspace.path / ".git" / "hooks" / "post-commit"
    hook.write_text(f"#!/bin/sh\ntouch {tmp_path}/hook-ran\n")
    hook.chmod(0o755)
    git(workspace, "config", "core.fsmonitor", f"touch {tmp_path}/fsmonitor-ran; false")
    changes = workspace.finalize(tmp_path / "record.git")
    assert set(changes.changed_files) == {".gitignore", "kernel.py", "reference.py"}
    assert set(changes.violations) == {".gitignore", "reference.py"}
    assert not (tmp_path / "hook-ran").exists() and not (tmp_path / "fsmonitor-ran").exists()


def test_record_repo_holds_baseline_and_final_commits(workspace, tmp_path):
    (workspace.path / "kernel.py").write_text("# v2\n")
    workspace.finalize(tmp_path / "record.git")
    log = subprocess.run(["git", "--git-dir", str(tmp_path / "record.git"), "log", "--format=%s", "main"],
                         capture_output=True, text=True, check=True).stdout.split("\n")
    assert log[:2] == ["agent: final state", "baseline: task files as shipped"]


def test_patch_round_trips_through_apply(workspace, tmp_path, tasks_root):
    (workspace.path / "kernel.py").write_text("# replayed\n")
    patch = workspace.finalize(tmp_path / "record.git").patch
    other = Workspace(tmp_path / "other", load_task(tasks_root / SCALE, tasks_root))
    other.prepare()
    apply_patch(other.path, patch)
    assert (other.path / "kernel.py").read_text() == "# replayed\n"


def test_junk_is_listed_with_its_size_and_never_recorded(workspace, tmp_path, tasks_root):
    """A 3 GB (sparse) file, a fifo and a protected file replaced by 2 MiB: each is a violation with
    its size, none is read into record.git or diff.patch, and the real edit is recorded whole."""
    (workspace.path / "junk.bin").touch()
    os.truncate(workspace.path / "junk.bin", 3 << 30)
    os.mkfifo(workspace.path / "pipe")
    (workspace.path / "reference.py").write_bytes(os.urandom(2 << 20))
    (workspace.path / "notes.md").write_text("small protected edit\n")
    (workspace.path / "kernel.py").write_text("# the real edit\n")
    changes = workspace.finalize(tmp_path / "record.git")
    assert changes.changed_files == ["junk.bin", "kernel.py", "notes.md", "pipe", "reference.py"]
    assert changes.violations == ["junk.bin (3221225472 bytes; not recorded)", "notes.md",
                                  "pipe (not a regular file; not recorded)",
                                  "reference.py (2097152 bytes; not recorded)"]
    assert len(changes.patch) < 10_000 and changes.patch.startswith("diff --git a/kernel.py b/kernel.py")
    assert "+small protected edit" in changes.patch
    record_bytes = sum(p.stat().st_size for p in (tmp_path / "record.git").rglob("*") if p.is_file())
    assert record_bytes < 1 << 20
    other = Workspace(tmp_path / "other", load_task(tasks_root / SCALE, tasks_root))
    other.prepare()
    apply_patch(other.path, changes.patch)
    assert (other.path / "kernel.py").read_text() == "# the real edit\n"
    assert (other.path / "reference.py").read_bytes() == (tasks_root / SCALE / "reference.py").read_bytes()


def test_protected_changes_fill_at_most_the_patch_cap(workspace, tmp_path, monkeypatch):
    """Many small protected files: recorded until PATCH_MAX_BYTES, the rest listed with sizes."""
    import runner.workspace as ws_module
    monkeypatch.setattr(ws_module, "PATCH_MAX_BYTES", 3000)
    for i in range(5):
        (workspace.path / f"f{i}.txt").write_text(f"{i}" * 1000)
    changes = workspace.finalize(tmp_path / "record.git")
    assert changes.violations == ["f0.txt", "f1.txt", "f2.txt", "f3.txt (1000 bytes; not recorded)",
                                  "f4.txt (1000 bytes; not recorded)"]
    assert "f2.txt" in changes.patch and "f3.txt" not in changes.patch
