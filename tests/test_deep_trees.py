"""A folder nested deeper than Python's recursion (red team, session 27): Python 3.11's shutil.rmtree,
os.walk and Path.rglob recurse once a level, so a tree an agent or a candidate nests 1,500 deep
raised RecursionError in the harness. A failing candidate's evaluation became an infra_error (not
scored, redone) and its run could not be resumed; an agent that left one past its budget got an
infra_error; one that exited with one passed with no diff, no record and a clean audit. The harness
now removes any tree without recursion (hostfs.remove_tree) and prunes an agent's workspace to
hostfs.MAX_DEPTH levels before anything walks it (hostfs.prune_deep: each folder removed is a
violation); an attempt whose changes still cannot be recorded is flagged."""
import os
import sys

import pytest

from runner.sandbox import hostfs

from .conftest import gauntlet
from .test_run import ATTEMPT, result, run, writes

DEEP = 1500          # past the default recursion limit (1,000)


def _nest(root, depth: int, every: int = 500) -> None:
    """`depth` folders named d, one in the next, made relative to an open folder (no path grows);
    every `every` levels a file and a link to /etc (which nothing may follow)."""
    os.makedirs(root, exist_ok=True)
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for level in range(depth):
            os.mkdir("d", dir_fd=fd)
            if level % every == 0:
                os.close(os.open(f"f{level}", os.O_CREAT | os.O_WRONLY, 0o644, dir_fd=fd))
                os.symlink("/etc", "etc", dir_fd=fd)
            child = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = child
    finally:
        os.close(fd)


def test_shutil_recurses_and_remove_tree_does_not(tmp_path):
    if sys.version_info < (3, 12):            # the failure this module is about, where it exists
        _nest(tmp_path / "a", DEEP)
        try:
            with pytest.raises(RecursionError):
                import shutil
                shutil.rmtree(tmp_path / "a")
        finally:        # what shutil left: pytest's own clean-up of old temp folders recurses too
            hostfs.remove_tree(tmp_path / "a")
    _nest(tmp_path / "b", 3000)               # past PATH_MAX too: 3,000 levels are 6,000 bytes of path
    hostfs.remove_tree(tmp_path / "b")
    assert not (tmp_path / "b").exists() and os.path.exists("/etc/passwd")
    hostfs.remove_tree(tmp_path / "gone")     # nothing there: nothing to do


def test_prune_deep_keeps_max_depth_levels_and_names_what_it_removed(tmp_path):
    _nest(tmp_path / "ws" / "notes", 100, every=10)
    (tmp_path / "ws" / "kernel.py").write_text("x")
    removed = hostfs.prune_deep(tmp_path / "ws", max_depth=64)
    assert removed == ["notes/" + "d/" * 63 + "d"]           # the 65th level's folder, and all below it
    assert (tmp_path / "ws" / "kernel.py").exists() and (tmp_path / "ws" / "notes" / "f0").exists()
    assert (tmp_path / "ws" / "notes" / ("d/" * 63)).is_dir()             # 64 levels kept
    assert not (tmp_path / "ws" / "notes" / ("d/" * 64)).exists()
    assert hostfs.prune_deep(tmp_path / "ws", max_depth=64) == []


def _deep_shell(depth: int = 1200) -> str:
    return f"mkdir -p notes/x; cd notes/x; i=0; while [ $i -lt {depth} ]; do mkdir d; cd d; i=$((i+1)); done; cd /"


def test_an_agent_that_leaves_a_deep_tree_is_recorded_and_audited(tasks_root, tmp_path):
    out = tmp_path / "run"
    edit = "printf '\\n# tuned for n 1000\\n' >> kernel.py"
    run(tasks_root, out, "--agent", "command", "--command", f"{edit}; {_deep_shell()}")
    r = result(out)
    assert r["status"] == "ok" and not r["flags"], r
    assert "+# tuned for n 1000" in (out / "attempts" / ATTEMPT / "diff.patch").read_text()
    assert r["changed_files"][0] == "kernel.py"
    (pruned,) = [v for v in r["violations"] if "nested past" in v]
    assert pruned.startswith("notes/x/d/d/") and f"{hostfs.MAX_DEPTH} levels" in pruned
    audit = gauntlet("audit", out).stdout
    assert "suspicious" in audit, audit


def test_a_deep_tree_past_the_budget_is_no_infra_error(tasks_root, tmp_path):
    out = tmp_path / "run"
    run(tasks_root, out, "--agent", "command", "--budget", "15s", "--command", f"{_deep_shell()}; sleep 600")
    r = result(out)
    assert r["status"] == "agent_timeout" and r["compiled"] and r["correct_seen"], r
    assert any("nested past" in v for v in r["violations"])


WRONG_AND_DEEP = '''
import os

for _ in range(1500):          # in the runner's own work dir, at import
    os.mkdir("d")
    os.chdir("d")


def forward(x, alpha):
    return x * (alpha + 1.0)
'''


def test_a_candidate_that_nests_its_runner_folder_deep_fails_as_itself(tasks_root, tmp_path):
    out = tmp_path / "run"
    run(tasks_root, out, "--agent", "command", "--command", writes("kernel.py", WRONG_AND_DEEP))
    r = result(out)
    assert r["status"] == "ok" and r["compiled"] and not r["correct_seen"], r       # scored, not infra_error
    proc = gauntlet("run", "--resume", "--out", out, check=False)
    assert proc.returncode in (0, 1) and "Traceback" not in proc.stderr, proc.stderr
