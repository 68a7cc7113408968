"""Red team, resources: a candidate that exhausts what the host shares with the judge (memory, a
tmpfs, a file) must fail by its own limits. Were the judge OOM-killed or its disk filled, the attempt
would be an infra_error, not scored and redone by --resume: a failing candidate's way out of its
failure. Each candidate here is correct only where the limit held (its output says what it found),
so a limit that does not hold fails the test."""
import os

import pytest

from runner.evaluator import isolation
from runner.sandbox import cgroups

from .conftest import KERNEL, gpu_cheat

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


# Memory no process's RSS shows (a memfd written and never mapped, a System V segment or message
# queue written and left): the OOM killer, choosing by RSS, would take the judge or the baseline.
# The runner's filter refuses to make any (nofork.py): each attempt must fail, in every runner. The
# GPU red team's cheat (bench/judge_gpu.py `invisible_memory`), raising where one was made.
INVISIBLE = KERNEL + "\n_honest = honest\n" + gpu_cheat("invisible_memory").replace("{sym}", "forward")


def test_memory_no_resident_set_shows_cannot_be_made_in_a_runner(judge):
    v = judge(INVISIBLE)
    assert v.evaluation.compiled and v.correct, v.errors


# Memory past a cap on the candidate's own group: killed there, the judge goes on (written in
# anonymous pages, which a cgroup charges; memfds are refused in the runner: test above).
HOG = KERNEL + '''
def forward(x, alpha):
    held = []
    try:
        for _ in range(64):                         # 4 GiB, against a cap of 512 MiB
            held.append(bytearray(64 << 20))
    except MemoryError:
        return honest(x, alpha) + 1.0               # refused: the cap held (and the answer is wrong)
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



def _inputs_raising(monkeypatch, raised) -> None:
    """The task's own make_inputs, in the judge, raises `raised(params)` where that is an exception
    (the judge's step failing as CUDA or the task's code would make it), else makes the inputs."""
    import types
    from runner.evaluator.judge import evaluation
    real_import = evaluation.import_reference

    def import_reference(path):
        module = real_import(path)

        def make_inputs(params, generator, device):
            exc = raised(params)
            if exc is not None:
                raise exc
            return module.make_inputs(params, generator, device)
        return types.SimpleNamespace(**{**vars(module), "make_inputs": make_inputs})

    monkeypatch.setattr(evaluation, "import_reference", import_reference)


@pytest.mark.parametrize("failure", ["out of memory", "raised"])
@pytest.mark.parametrize("alone_suffices", [True, False])
def test_the_judges_own_step_failing_beside_the_candidate_is_done_alone(judge, monkeypatch, alone_suffices, failure):
    """A candidate that takes the device's memory whenever a config goes against it makes the judge's
    own next allocation (its inputs, its reference's outputs) fail. Were that the task's failure
    (make_inputs raised: task_error) or the harness's (infra_error), the evaluation would never be
    scored and would be redone by --resume: a failing candidate's way out, as often as it likes. The
    judge's side of the config is done once more beside the candidate, then with the candidate's
    processes gone: sufficing alone,
    the config is the candidate's failure; failing alone too, the harness's (memory) or the task's (its
    make_inputs raised), as before. Here the task's own make_inputs raises on hidden-prime while a
    candidate's runner is alive: torch's OutOfMemoryError (as CUDA raises it), or a plain error (the
    task's code, on a device the candidate shares); everything else is real. GPU: bench/judge_gpu.py
    `device_memory_hog_late`."""
    import torch
    from runner.evaluator.judge.config_judge import Judge
    real_correctness, calls, beside = Judge.correctness, [], {"now": False}

    def correctness(self, baseline, candidate, config, symmetric):
        calls.append((config.name, candidate is not None))
        beside["now"] = candidate is not None or not alone_suffices
        return real_correctness(self, baseline, candidate, config, symmetric)

    def raised(params):
        if params["n"] != 10007 or not beside["now"]:                    # hidden-prime, beside a candidate
            return None
        if failure == "out of memory":
            return torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 64.00 MiB (22.81 MiB free)")
        return RuntimeError("CUDA error: an illegal memory access was encountered")

    monkeypatch.setattr(Judge, "correctness", correctness)
    _inputs_raising(monkeypatch, raised)
    v = judge(HONEST, splits=("seen", "unseen"))
    rows = {c.config: c for c in v.evaluation.configs}
    assert ("hidden-prime", False) in calls                       # done again, the candidate gone
    assert calls.index(("hidden-prime", False)) < calls.index(("hidden-tiny", True))   # a successor judged the rest
    assert rows["hidden-tiny"].correct and rows["small"].correct and v.evaluation.compiled
    assert not rows["hidden-prime"].correct
    if alone_suffices:
        assert rows["hidden-prime"].baseline_correct
        assert "succeeded with the candidate gone" in rows["hidden-prime"].error
        assert not v.evaluation.harness_error and not v.evaluation.task_error   # the candidate's failure, scored
        assert v.result.quadrant == "opt_regression" and v.result.status == "ok"
    elif failure == "out of memory":
        assert "the judge failed on hidden-prime" in v.evaluation.harness_error   # the harness's
        assert v.result.status == "infra_error" and not v.evaluation.task_error
    else:
        assert "make_inputs raised RuntimeError" in v.evaluation.task_error       # the task's
        assert v.result.status == "task_error"


def test_a_judge_step_that_fails_once_beside_the_candidate_is_no_ones_doing(judge, monkeypatch):
    """The judge's own allocator can fail for its own fragments, or a fault can pass: the config is
    judged once more beside the candidate (the judge's cache given back first), and a config judged
    whole the second time stands, blamed on no one."""
    import torch
    from runner.evaluator.judge.config_judge import Judge
    real_correctness, calls, raised = Judge.correctness, [], []

    def correctness(self, baseline, candidate, config, symmetric):
        calls.append((config.name, candidate is not None))
        return real_correctness(self, baseline, candidate, config, symmetric)

    def once(params):
        if params["n"] == 10007 and not raised:
            raised.append(True)
            return torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 64.00 MiB")
        return None

    monkeypatch.setattr(Judge, "correctness", correctness)
    _inputs_raising(monkeypatch, once)
    v = judge(HONEST, splits=("seen", "unseen"))
    assert raised and calls.count(("hidden-prime", True)) == 2 and ("hidden-prime", False) not in calls
    assert v.correct and not v.evaluation.harness_error and not v.evaluation.task_error, v.errors


@pytest.mark.parametrize("offset_pass", [False, True])
@pytest.mark.parametrize("fails", ["beside", "always", "once"])
def test_a_baseline_that_does_not_build_beside_the_candidates_code_is_built_alone(judge, monkeypatch, offset_pass,
                                                                                  fails):
    """The baseline's own build runs beside the candidate's (without the offset pass both at once; with
    it the baseline's own copy while the candidate's code loads). A candidate that takes the device's
    memory at its import keeps a native module from loading there, and a baseline that did not build
    was the task's failure: task_error, never scored, redone. The baseline is built once more beside
    the candidate, then with every process of the candidate's gone: building only alone, the
    candidate is not compiled (its failure); failing alone too, the task's, as before; building the
    second time beside it (a passing fault), no one's, and the evaluation goes on. Here the baseline's
    own build fails as CUDA's load would, while a candidate's runner lives ("beside"), always, or
    once; the rest is real."""
    from runner.evaluator.judge import evaluation
    real_build, builds, candidates = evaluation._build, [], []

    class Client(evaluation.RunnerClient):     # every candidate's runner, from its start
        def __init__(self, *args, role, **kwargs):
            super().__init__(*args, role=role, **kwargs)
            if role == "candidate":
                candidates.append(self)

    def build(runner, probe=False):
        if runner.role == "baseline" and not runner.stand_in and not probe:
            alive = any(c.proc.poll() is None for c in candidates)
            builds.append(alive)
            if fails == "always" or (fails == "beside" and alive) or (fails == "once" and len(builds) == 1):
                return {"ok": False, "compiled": False, "log": "cuModuleLoadData: CUDA_ERROR_OUT_OF_MEMORY"}
        return real_build(runner, probe)

    monkeypatch.setattr(evaluation, "_build", build)
    monkeypatch.setattr(evaluation, "RunnerClient", Client)
    v = judge(HONEST, splits=("seen", "unseen"), process_offset=offset_pass)
    if fails == "once":
        assert builds == [True, True]                          # built the second time, beside the candidate
        assert v.evaluation.compiled and v.correct and not v.evaluation.task_error, v.errors
        return
    assert builds == [True, True, False]                       # twice beside, then alone
    if fails == "beside":
        assert not v.evaluation.compiled and not v.evaluation.task_error and not v.evaluation.harness_error
        assert "built with the candidate gone" in v.evaluation.compile_log
        assert all(c.error == "not compiled" and c.baseline_correct for c in v.evaluation.configs), v.errors
        assert v.result.status == "ok" and not v.correct and v.result.baseline_correct_unseen   # scored, a failure
    else:
        assert "did not build" in v.evaluation.task_error and not v.evaluation.configs


def test_the_drivers_listing_is_read_for_the_candidates_processes_only():
    from runner.evaluator.judge.evaluation import device_memory_held
    listing = "4242, 80000\n77, 1200\n4243, 512\nnot a line\n"
    assert device_memory_held([4242, 4243], listing) == (
        "; the driver listed 80512 MiB of the device's memory held by the candidate's processes")
    assert device_memory_held([5], listing) == "" and device_memory_held([4242], "") == ""

# Memory spread over the resident sets of the runner's own processes, held (a hog that a cgroup
# would cap; where no cgroup holds the runner, only the judge's guard does).
HELD = KERNEL + '''
import time
_held = []


def forward(x, alpha):
    while len(_held) < 48:                          # 3 GiB, against a cap of 1.5 GiB
        _held.append(bytearray(64 << 20))
    time.sleep(2.0)
    return honest(x, alpha)
'''


def test_memory_past_the_cap_is_killed_by_the_judge_where_no_cgroup_holds_the_runner(judge, monkeypatch):
    """The lent GPU hosts give no writable cgroup: there the runner's memory cap was the OOM killer
    alone, which chooses by resident set and takes the judge or the baseline's runner when the
    candidate's memory is spread (an infra_error, never scored). The judge's guard reads the
    resident sets of the sandbox's processes every 0.25 s and kills past the cap: the candidate's
    failure, config by config."""
    from runner.sandbox import cgroups
    monkeypatch.setattr(cgroups, "hierarchy", lambda: ("none", "the test: no cgroup, as on the lent GPU hosts"))
    monkeypatch.setenv("GAUNTLET_RUNNER_MEMORY", "1536m")
    v = judge(HELD)
    assert v.evaluation.environment["candidate_runner_limits"].startswith("none: the test"), v.evaluation.environment
    assert v.evaluation.compiled and not v.correct, v.errors
    assert all("the judge killed it: its processes' memory exceeded its limit" in e for e in v.errors.values()), v.errors
    assert not v.evaluation.harness_error and not v.evaluation.task_error      # the candidate's failure


def test_the_guard_counts_shared_anonymous_memory_as_pinned_host_memory_is_mapped():
    """cudaHostAlloc maps pinned host memory as shared anonymous memory (`/dev/zero (deleted)`,
    results/gpu-2026-11-30.md): its pages are RssShmem, not RssAnon, and the guard counts both."""
    import mmap
    from runner.evaluator.judge.runners import resident_memory
    before = resident_memory([os.getpid()])
    region = mmap.mmap(-1, 64 << 20)                 # MAP_SHARED | MAP_ANONYMOUS
    region.write(b"x" * (64 << 20))
    try:
        assert resident_memory([os.getpid()]) - before >= 60 << 20
    finally:
        region.close()


@pytest.mark.parametrize("hierarchy, limit, expected", [
    ("v2", "536870912", 256 << 20), ("v2", "max", None), ("v1", "536870912", 256 << 20),
    ("v1", str((1 << 63) - 4096), None), ("v1-root", "536870912", 256 << 20)])
def test_the_runner_cap_is_half_of_the_judges_own_cgroup_limit_where_lower(tmp_path, monkeypatch, hierarchy, limit,
                                                                           expected):
    """The docker backend's judge runs in a container with a memory limit below the host's: a cap of
    half the host would let the container's own OOM killer fire first, and choose the judge."""
    from runner.evaluator.judge import runners
    monkeypatch.setattr(cgroups, "CGROUP_ROOT", tmp_path)
    monkeypatch.setattr(cgroups, "_own_path", lambda controller: "/box")
    monkeypatch.delenv(runners.RUNNER_MEMORY_ENV, raising=False)
    if hierarchy == "v2":
        (tmp_path / "cgroup.controllers").write_text("memory pids\n")
        (tmp_path / "box").mkdir()
        (tmp_path / "box" / "memory.max").write_text(limit + "\n")
    elif hierarchy == "v1":
        (tmp_path / "memory" / "box").mkdir(parents=True)
        (tmp_path / "memory" / "box" / "memory.limit_in_bytes").write_text(limit + "\n")
    else:      # a v1 container: its own group mounted as the root, /proc/self/cgroup naming the host's path
        (tmp_path / "memory").mkdir()
        (tmp_path / "memory" / "memory.limit_in_bytes").write_text(limit + "\n")
    assert (runners.runner_limits().memory == expected) if expected else (runners.runner_limits().memory > 256 << 20)


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


# The host's cores kept busy by a candidate's threads, to starve the judge's processes that must keep
# up with the device (the DRAM witness's sampler decodes as the samples come: a witness that falls
# behind is lost, the evaluation an infra_error, unscored and redone). The judge keeps a core no
# runner runs on (isolation.judge_cores, set to the last core here, as on a GPU device) and no
# runner's thread may move there (nofork.py refuses sched_setaffinity). Correct only where both held:
# every thread it starts is off one core of the machine's, and its moves back are refused.
CORES = KERNEL + '''
import os, threading

_all = set(range(os.cpu_count()))
_seen = [os.sched_getaffinity(0)]
try:
    os.sched_setaffinity(0, _all)                  # back onto every core: must be refused
    _moved = True
except PermissionError:
    _moved = False


def _spin(stop=threading.Event()):
    _seen.append(os.sched_getaffinity(0))
    try:                                            # a thread of its own, moved: refused too
        os.sched_setaffinity(0, _all)
        _seen.append(_all)
    except PermissionError:
        pass


_threads = [threading.Thread(target=_spin) for _ in range(8)]
[t.start() for t in _threads]
[t.join() for t in _threads]
_held = not _moved and len(_seen) == 9 and all(s == _seen[0] and len(s) == len(_all) - 1 for s in _seen)


def forward(x, alpha):
    return honest(x, alpha) if _held else honest(x, alpha) + 1.0
'''


@pytest.mark.parametrize("kept", [True, False])
def test_a_candidate_cannot_run_on_the_judges_core(judge, monkeypatch, kept):
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("one core here: none can be kept for the judge")
    core = max(os.sched_getaffinity(0))
    monkeypatch.setenv(isolation.JUDGE_CORES_ENV, str(core) if kept else "off")
    monkeypatch.setenv("OMP_NUM_THREADS", "2")    # threads allowed (on the CPU with one-thread pools none may start)
    v = judge(CORES)
    assert v.evaluation.compiled and v.correct is kept, v.errors      # with no core kept: all of them
    assert v.evaluation.environment["judge_cores"] == ([core] if kept else [])
    assert not v.evaluation.harness_error and not v.evaluation.task_error
