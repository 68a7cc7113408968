"""The per-GPU evaluation lock (runner/evaluator/gpulock.py): real processes, a real flock."""
import os
import subprocess
import sys
import time

from runner.evaluator import gpulock

from .conftest import REPO

HOLDER = """
import os, sys, time
from runner.evaluator.gpulock import exclusive
log, go = sys.argv[1], sys.argv[2]
def note(word):
    with open(log, "a") as f:
        f.write(word + "\\n")
note(sys.argv[3] + "-try")
with exclusive("cuda-test-gpu"):
    note(sys.argv[3] + "-in")
    while sys.argv[3] == "A" and not os.path.exists(go):
        time.sleep(0.01)
    note(sys.argv[3] + "-out")
"""


def _wait_for(path, word, proc):
    while not (path.exists() and word in path.read_text().split()):
        assert proc.poll() is None, f"process exited before writing {word}"
        time.sleep(0.01)


def test_a_second_evaluation_waits_until_the_first_releases_the_gpu(tmp_path):
    log, go = tmp_path / "log", tmp_path / "go"
    env = {**os.environ, gpulock.LOCK_DIR_ENV: str(tmp_path / "locks"), "PYTHONPATH": str(REPO)}
    first = subprocess.Popen([sys.executable, "-c", HOLDER, log, go, "A"], env=env)
    _wait_for(log, "A-in", first)
    second = subprocess.Popen([sys.executable, "-c", HOLDER, log, go, "B"], env=env)
    _wait_for(log, "B-try", second)
    time.sleep(0.5)   # room for a broken lock to let B in early; a working one never does
    go.touch()
    assert first.wait(timeout=60) == 0 and second.wait(timeout=60) == 0
    assert log.read_text().split() == ["A-try", "A-in", "B-try", "A-out", "B-in", "B-out"]


def test_the_cpu_takes_no_lock(tmp_path, monkeypatch):
    monkeypatch.setenv(gpulock.LOCK_DIR_ENV, str(tmp_path / "locks"))
    with gpulock.exclusive_device("cpu") as note:
        assert note is None
    assert not (tmp_path / "locks").exists()
