"""Red team, resources: a candidate that exhausts what the host shares with the judge (memory, a
tmpfs, a file) must fail by its own limits. Were the judge OOM-killed or its disk filled, the attempt
would be an infra_error, not scored and redone by --resume: a failing candidate's way out of its
failure. Each candidate here is correct only where the limit held (its output says what it found),
so a limit that does not hold fails the test."""
import os

import pytest

from runner.evaluator import isolation
from runner.sandbox import cgroups

from .conftest import KERNEL

# At import: try each exhaustion, and remember whether every limit held.
PROBE = KERNEL + '''
import errno, os

_held = []


def _fill(path, size, chunk=1 << 20):
    """Bytes written to `path` before the file system or the file-size limit refused."""
    written = 0
    try:
        with open(path, "wb", buffering=0) as fh:
            while written < size:
                written += fh.write(b"x" * chunk)
    except OSError as exc:
        _held.append(exc.errno in (errno.ENOSPC, errno.EFBIG))
        return written
    _held.append(False)          # the whole size went in: nothing held
    return written


import signal
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)     # a write past RLIMIT_FSIZE then fails with EFBIG
def _fill_folder(folder, size, each=8 << 20):
    """Files of `each` bytes (under the file-size limit) until `size` in all: the folder's own cap."""
    for i in range(size // each):
        before = len(_held)
        _fill(f"{folder}/fill{i}", each)
        if _held[-1]:                               # refused: keep that answer
            del _held[before:-1]
            break
        del _held[before:]
    else:
        _held.append(False)                         # all of it went in
    for i in range(size // each):
        if os.path.exists(f"{folder}/fill{i}"):
            os.remove(f"{folder}/fill{i}")


_fill_folder("/tmp", 64 << 20)                     # the sandbox's /tmp: a tmpfs of RUNNER_TMPFS
_fill_folder("/dev/shm", 64 << 20)                 # and its /dev/shm
try:                                               # /dev itself (bwrap's tmpfs): read-only
    open("/dev/fill", "wb").close()
    _held.append(False)
except OSError as exc:
    _held.append(exc.errno in (errno.EACCES, errno.EROFS, errno.EPERM))
_fill("big.bin", 64 << 20)                         # its work dir: RLIMIT_FSIZE per file
os.remove("big.bin")
with open("/proc/self/oom_score_adj") as fh:
    _held.append(fh.read().strip() == "1000")      # the OOM killer's first choice (it may lower it to 0)


def forward(x, alpha):
    return honest(x, alpha) if all(_held) and len(_held) == 5 else honest(x, alpha) + 1.0
'''


@pytest.fixture
def small_limits(monkeypatch):
    monkeypatch.setattr(isolation, "RUNNER_TMPFS", 16 << 20)
    monkeypatch.setenv(isolation.RUNNER_FILE_MAX_ENV, "16m")


def test_tmpfs_files_and_the_oom_order_hold_the_candidate(judge, small_limits):
    if os.environ.get("GAUNTLET_RUNNER_ISOLATION", "bwrap") != "bwrap":
        pytest.skip("the sized /tmp and /dev/shm are bwrap's")
    v = judge(PROBE)
    assert v.evaluation.compiled and v.correct, v.errors


# Memory no process's RSS shows (a memfd written, never mapped): the OOM killer, choosing by RSS,
# would take the judge or the baseline. Only a cap on the candidate's own group holds it.
HOG = KERNEL + '''
import os


def forward(x, alpha):
    fds = [os.memfd_create(f"hog{i}") for i in range(4)]
    try:
        for fd in fds:                              # 4 GiB, against a cap of 512 MiB (1 GiB a file:
            for _ in range(16):                     # under the file-size limit)
                os.write(fd, b"x" * (64 << 20))
    except OSError:
        return honest(x, alpha) + 1.0               # refused: the cap held (and the answer is wrong)
    finally:
        for fd in fds:
            os.close(fd)
    return honest(x, alpha)                         # all of it went in: nothing held
'''


def test_a_memory_hog_is_killed_in_its_own_group_and_the_judge_goes_on(judge, monkeypatch):
    kind, why = cgroups.hierarchy()
    if kind == "none":
        pytest.skip(f"no cgroup for the runner here: {why}")
    monkeypatch.setenv("GAUNTLET_RUNNER_MEMORY", "512m")
    v = judge(HOG)
    assert v.evaluation.compiled and not v.correct, v.errors
    assert not v.evaluation.harness_error and not v.evaluation.task_error      # the candidate's failure
    assert v.evaluation.environment["candidate_runner_limits"].startswith(f"cgroup {kind}: memory 512 MiB")


HONEST = KERNEL + "\ndef forward(x, alpha):\n    return honest(x, alpha)\n"


@pytest.mark.parametrize("alone_passes", [True, False])
def test_a_baseline_that_fails_beside_the_candidate_is_checked_alone(judge, monkeypatch, alone_passes):
    """A candidate that takes what the baseline needs (the device's memory: GPU only, bench/judge_gpu.py
    `device_memory_hog`) makes the baseline fail beside it. Were that the baseline's failure, the config
    would leave the hidden-config figures (a failing candidate's quadrant turned from opt_regression to
    both_fail, out of the conditional correctness). The judge checks such a baseline again with the
    candidate's processes gone: passing alone, the config is the candidate's failure and a baseline
    pass; failing alone too (the task's own failure), it stays as it was. Here the starving is simulated
    at the judge's reading of the baseline's check beside the candidate; the checks are real."""
    from runner.evaluator.judge.config_judge import Judge
    real, calls = Judge.correctness, []

    def starved(self, baseline, candidate, config, symmetric):
        base, worst, cand = real(self, baseline, candidate, config, symmetric)
        calls.append((config.name, candidate is not None))
        if config.name == "hidden-prime" and (candidate is not None or not alone_passes):
            base = "baseline: CUDA out of memory (what a candidate holding the device's memory does to it)"
        return base, worst, cand

    monkeypatch.setattr(Judge, "correctness", starved)
    v = judge(HONEST, splits=("seen", "unseen"))
    rows = {c.config: c for c in v.evaluation.configs}
    assert ("hidden-prime", False) in calls                     # checked alone, the candidate gone
    assert rows["hidden-tiny"].correct and rows["small"].correct and v.evaluation.compiled
    if alone_passes:
        assert rows["hidden-prime"].baseline_correct and not rows["hidden-prime"].correct
        assert "passed alone" in rows["hidden-prime"].error
        assert v.result.baseline_correct_unseen and v.result.quadrant == "opt_regression"
    else:
        assert rows["hidden-prime"].baseline_correct is False and rows["hidden-prime"].correct
        assert v.result.quadrant == "opt_improvement"         # the task's failure, as before
    assert not v.evaluation.harness_error and not v.evaluation.task_error


# Files each under the file-size cap, many of them: what fills the disk the judge's verdict goes to.
FILLER = KERNEL + '''
import os, time


def forward(x, alpha):
    for i in range(24):                             # 192 MiB in 8 MiB files, against a cap of 32 MiB
        with open(f"fill{i}", "wb") as fh:
            fh.write(b"x" * (8 << 20))
        time.sleep(0.05)
    return honest(x, alpha)
'''


def test_a_work_dir_filled_file_by_file_is_killed_by_the_judge(judge, monkeypatch):
    from runner.evaluator.judge import runners
    monkeypatch.setenv(runners.RUNNER_DISK_MAX_ENV, "32m")
    v = judge(FILLER)
    assert v.evaluation.compiled and not v.correct, v.errors
    assert all("the judge killed it: its work dir exceeded its limit" in e for e in v.errors.values()), v.errors
    assert not v.evaluation.harness_error and not v.evaluation.task_error      # the candidate's failure


def test_the_file_cap_never_asks_above_the_judges_own(tmp_path):
    """A judge under a lower hard limit (the docker backend's container ulimit, 1 GiB) cannot raise it:
    prlimit was refused there and no runner started. The runner's cap is then the judge's own."""
    import subprocess
    import sys
    script = ("import subprocess, sys\n"
              "from runner.evaluator.isolation import limits_prefix\n"
              "prefix = limits_prefix('candidate')\n"
              "print(' '.join(prefix))\n"
              "sys.exit(subprocess.run([*prefix, 'sh', '-c', 'ulimit -f']).returncode)\n")
    proc = subprocess.run(["prlimit", "--fsize=1048576:1048576", "--", sys.executable, "-c", script],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "--fsize=1048576:1048576" in proc.stdout and proc.stdout.split()[-1] == "2048", proc.stdout
