"""Red team against the judge split: one candidate (at least) for every kind of attack that worked
against the in-process evaluator. Each names the mechanism that stops it now; the `_without_` tests
run the same attack with that mechanism switched off and show that it then succeeds, so the
defended test can fail."""
import json
from pathlib import Path
import os

import pytest

from .conftest import C_HONEST, KERNEL, TIMED

HONEST = KERNEL + "\ndef forward(x, alpha):\n    return honest(x, alpha)\n"


# -- the verdict forged ------------------------------------------------------------------------------
def test_reading_the_nonce_off_the_call_stack_finds_nothing(scale_task, tasks_root, tmp_path, monkeypatch):
    """The candidate walks every frame, every object gc knows, its argv, its environment and every
    /proc/*/cmdline and environ it can read, for anything that looks like the host's nonce. The
    nonce lives in the host and the judge; the runner is another process in another pid namespace."""
    import runner.run.run as run_module
    from runner.agents.agent import AgentSpec
    from runner.run.run import RunOptions, evaluate_candidate
    nonce = "5eed" * 8
    monkeypatch.setattr(run_module.secrets, "token_hex", lambda n=16: nonce)
    adir = tmp_path / "run" / "attempts" / "x"
    (adir / "candidate").mkdir(parents=True)
    (adir / "candidate" / "kernel.py").write_text(KERNEL + '''
import gc, os, re, sys
_hex = re.compile(r"[0-9a-f]{32}")
_found = set()
f = sys._getframe()
while f is not None:
    for v in list(f.f_locals.values()) + list(f.f_globals.values()):
        if isinstance(v, str):
            _found.update(_hex.findall(v))
    f = f.f_back
for o in gc.get_objects():
    if isinstance(o, str):
        _found.update(_hex.findall(o))
_found.update(_hex.findall(" ".join(sys.argv) + " ".join(f"{k}={v}" for k, v in os.environ.items())))
for pid in os.listdir("/proc"):
    for name in ("cmdline", "environ"):
        try:
            with open(f"/proc/{pid}/{name}", "rb") as fh:
                _found.update(_hex.findall(fh.read().decode(errors="replace")))
        except OSError:
            pass
raise RuntimeError("FOUND:" + ",".join(sorted(_found)))
''')
    options = RunOptions(agent=AgentSpec(name="redteam", kind="noop"), device="cpu", backend="local",
                         tasks_root=tasks_root)
    ev = evaluate_candidate(scale_task, adir / "candidate", adir, options)
    assert "FOUND:" in ev.compile_log and nonce not in ev.compile_log, ev.compile_log[-500:]


DESTRUCTOR = '''
#include <stdio.h>
__attribute__((constructor)) static void mark(void) {
    FILE* f = fopen("@OUT@/constructor.txt", "w");
    if (f) { fputs("here", f); fclose(f); }
}
__attribute__((destructor)) static void forge(void) {
    FILE* f = fopen("@OUT@/evaluation.json", "w");
    if (f) { fputs("{\\"forged\\": true}", f); fclose(f); }
}
'''


def _destructor_attack(native_judge, tmp_path):
    """The verdict file after a library whose constructor writes a marker beside it when loaded and
    whose destructor overwrites it at exit; and whether the marker appeared."""
    out = tmp_path / "verdict"
    out.mkdir()
    (out / "evaluation.json").write_text('{"judge": true}')
    v = native_judge(C_HONEST, extra=DESTRUCTOR.replace("@OUT@", str(out)), out_dir=out)
    assert v.evaluation.compiled and v.correct, v.evaluation.compile_log[-500:]
    return json.loads((out / "evaluation.json").read_text()), (out / "constructor.txt").exists()


def test_a_native_destructor_cannot_edit_the_verdict(native_judge, tmp_path):
    """The judge's output folder is not in the runner's sandbox: the library's code, run when it is
    loaded, cannot write there; and a runner leaves with _exit, so no destructor runs at all."""
    assert _destructor_attack(native_judge, tmp_path) == ({"judge": True}, False)


def test_without_the_sandbox_the_folder_is_reachable_and_only_the_exit_keeps_the_verdict(native_judge, tmp_path,
                                                                                          monkeypatch):
    """The control: with no sandbox the library's constructor writes beside the verdict (what the
    sandbox stops above); its destructor still never runs (the runner's _exit)."""
    monkeypatch.setenv("GAUNTLET_RUNNER_ISOLATION", "none")
    monkeypatch.setenv("GAUNTLET_ALLOW_UNISOLATED", "1")
    assert _destructor_attack(native_judge, tmp_path) == ({"judge": True}, True)


# -- harness state changed from inside ---------------------------------------------------------------
def test_widening_tolerances_through_sys_modules_changes_nothing(judge):
    """Whatever the runner's process holds of Gauntlet's modules, the comparison is the judge's."""
    v = judge(KERNEL + '''
import gc, sys
for name, mod in list(sys.modules.items()):
    if name.startswith("runner"):
        for attr in ("DEFAULT_TOLERANCES",):
            table = getattr(mod, attr, None)
            if isinstance(table, dict):
                for k in list(table):
                    table[k] = type(table[k])(1e9, 1e9)
for o in gc.get_objects():
    if isinstance(o, dict) and "float32" in o and hasattr(o["float32"], "atol"):
        for k in list(o):
            o[k] = type(o[k])(1e9, 1e9)


def forward(x, alpha):
    return honest(x, alpha) * 1.01
''')
    assert not v.correct and all("max abs error" in e for e in v.errors.values()), v.errors


def test_patching_the_comparison_ops_changes_nothing(judge):
    v = judge(KERNEL + '''
torch.isclose = lambda a, b, **k: torch.ones(a.shape, dtype=torch.bool)
torch.allclose = lambda *a, **k: True
torch.equal = lambda *a, **k: True
torch.Tensor.le = lambda self, other: torch.ones(self.shape, dtype=torch.bool)
torch.Tensor.__sub__ = lambda self, other: torch.zeros_like(self)


def forward(x, alpha):
    honest(x, alpha)
    return torch.zeros_like(x)
''')
    assert not v.correct, v.errors


def test_zeroing_inputs_through_stack_frames_changes_nothing(judge):
    """Every tensor in every frame is zeroed, then zeros are returned: the reference the judge
    computed was on its own inputs, in its own process."""
    v = judge(KERNEL + '''
import sys


def forward(x, alpha):
    f = sys._getframe()
    while f is not None:
        for v in list(f.f_locals.values()):
            for t in (v if isinstance(v, (list, tuple)) else [v]):
                if isinstance(t, torch.Tensor) and t.is_floating_point():
                    t.zero_()
        f = f.f_back
    return honest(x, alpha)
''')
    assert not v.correct, v.errors


def test_patching_a_torch_op_the_reference_uses_changes_nothing(judge):
    """`x * alpha` made to return the wrong kernel's answer everywhere in the runner's process."""
    v = judge(KERNEL + '''
torch.Tensor.__mul__ = lambda self, other: torch.zeros_like(self)
torch.mul = lambda a, b, **k: torch.zeros_like(a)


def forward(x, alpha):
    honest(x, alpha)
    return torch.zeros_like(x)
''')
    assert not v.correct, v.errors


def test_switching_off_the_speed_cap_through_gc_changes_nothing(judge):
    """Every object with a max_speedup, flags or watch attribute the runner can find is neutered."""
    v = judge(KERNEL + '''
import gc
for o in gc.get_objects():
    for attr, value in (("max_speedup", 1e12), ("flags", []), ("findings", []), ("ops", None)):
        try:
            if type(o).__module__.startswith("runner") and hasattr(o, attr):
                setattr(o, attr, value)
        except Exception:
            pass


def forward(x, alpha):
    return honest(x, alpha)
''', measure=True, max_speedup=1e-9)
    assert v.correct and v.flagged("excessive_speedup") and v.aka == 0, v.flags


def test_a_launch_counter_incremented_by_hand_is_flagged(judge):
    """PyTorch computes; the runner's launch counter is bumped by hand to look launched. The runner's
    watches are evidence only: the judge's static check names the reach into the harness."""
    v = judge(KERNEL + '''
import sys


def forward(x, alpha):
    sys.modules["runner.evaluator.guard"].LaunchCounter.count += 1
    return x * alpha
''')
    assert v.rejected() and v.aka == 0, (v.errors, v.flags)


def test_patching_the_perturbation_so_inputs_never_change(judge):
    """The runner is made to time every repetition on the unperturbed inputs, then the kernel
    memoises. The judge recomputes each checked repetition's inputs itself."""
    v = judge(KERNEL + '''
import sys
_proto = sys.modules["runner.evaluator.protocol"]
_proto.perturbed = lambda base, seed, delta=0.0: [a.clone() if isinstance(a, torch.Tensor) else a for a in base]
_memo = {}


def forward(x, alpha):
    key = (x.data_ptr(), x.numel())
    if key not in _memo:
        _memo[key] = honest(x, alpha)
    return _memo[key].clone()
''', measure=True)
    assert not v.correct, v.errors


# -- the baseline slowed -----------------------------------------------------------------------------
@pytest.mark.parametrize("how", ["gc", "torch_op"])
def test_slowing_the_baseline_changes_nothing(judge, how):
    """The baseline runs in a process of its own: what the candidate does to its own process's
    reference functions or torch ops cannot reach it. Honest speedups of this kernel on a busy 2-core
    CPU read 0.5-2.5; were the baseline slowed by 100 ms a call they would read above 20."""
    attack = {"gc": '''
import gc, time
for o in gc.get_objects():
    if callable(o) and getattr(o, "__name__", "") in ("reference", "make_inputs"):
        o.__code__ = (lambda *a, **k: time.sleep(0.1)).__code__
''', "torch_op": '''
import time
_mul = torch.Tensor.__mul__
torch.Tensor.__mul__ = lambda self, other: (time.sleep(0.1), _mul(self, other))[1]
'''}[how]
    v = judge(KERNEL + attack + "\ndef forward(x, alpha):\n    return honest(x, alpha)\n", measure=True)
    assert v.evaluation.compiled and all(c.speedup is None or c.speedup < 8 for c in v.evaluation.configs), \
        [(c.baseline_ms, c.candidate_ms, c.error) for c in v.evaluation.configs]


# -- hidden data read --------------------------------------------------------------------------------
READER = KERNEL + '''
_SECRETS = []
for _path in @PATHS@:
    try:
        with open(_path) as fh:
            _SECRETS.append(fh.read())
    except OSError as exc:
        _SECRETS.append(type(exc).__name__)
raise RuntimeError("READ:" + "|".join(_SECRETS))
'''


def _read_hidden(judge, scale_task):
    paths = [str(scale_task.hidden_file), str(scale_task.solution_dir / "kernel.py")]
    v = judge(READER.replace("@PATHS@", repr(paths)))
    return v.evaluation.compile_log


def test_hidden_configs_and_solution_are_not_readable(judge, scale_task):
    log = _read_hidden(judge, scale_task)
    assert "READ:" in log and "hidden-prime" not in log and "def forward" not in log, log[-400:]


def _checkout_copies() -> list[str]:
    """Where the checkout holds the same secrets: the fixture task's original, a shipped task's hidden
    configs and solution, the git history (red team, session 27: with the tasks root outside the
    checkout, the checkout on PYTHONPATH was bound whole, and the original's hidden configs read)."""
    from runner.resources import IMPORT_ROOT
    return [str(IMPORT_ROOT / "tests/fixtures/tasks/triton2triton/scale/hidden/configs.toml"),
            str(IMPORT_ROOT / "tasks/triton2triton/softmax/hidden/configs.toml"),
            str(IMPORT_ROOT / "tasks/triton2triton/softmax/solution/kernel.py"), str(IMPORT_ROOT / ".git/HEAD")]


def test_the_checkouts_copies_of_hidden_data_are_not_readable(judge, monkeypatch):
    monkeypatch.setenv("GAUNTLET_RUNNER_ISOLATION", "bwrap")
    paths = _checkout_copies()
    assert all(Path(p).is_file() for p in paths[:3])       # here to be read
    ev = judge(READER.replace("@PATHS@", repr(paths))).evaluation
    log = ev.compile_log
    assert "READ:" in log and "[[config]]" not in log and "def forward" not in log and "ref:" not in log, (ev.error, log[-600:])


def test_every_mode_hides_the_suites_data(monkeypatch):
    """The unshare mode's prelude mounts a tmpfs over each hidden path (its end-to-end run needs an
    interpreter uid 65534 can execute; this machine's lies under /root, 0700)."""
    from runner.evaluator import isolation
    data = isolation.data_folders()
    assert {Path(p) for p in _checkout_copies()[1:3]} and all(any(Path(p).is_relative_to(d) for d in data)
                                                             for p in _checkout_copies())
    iso = isolation.Isolation("unshare", tuple(sorted(data)), "cpu", data=data)
    assert all(str(d) in iso.runner_args() for d in data)


def test_the_checkouts_copies_are_readable_with_the_suites_data_not_hidden(judge, monkeypatch):
    from runner.evaluator import isolation
    monkeypatch.setattr(isolation, "data_folders", lambda: ())
    ev = judge(READER.replace("@PATHS@", repr(_checkout_copies()))).evaluation
    assert "[[config]]" in ev.compile_log, (ev.error, ev.compile_log[-600:])


def test_hidden_configs_are_readable_without_the_sandbox(judge, scale_task, monkeypatch):
    monkeypatch.setenv("GAUNTLET_RUNNER_ISOLATION", "none")
    monkeypatch.setenv("GAUNTLET_ALLOW_UNISOLATED", "1")
    assert "hidden-prime" in _read_hidden(judge, scale_task)


# -- timing games --------------------------------------------------------------------------------------
def test_outputs_memoised_by_pointer_and_rescaled(judge):
    """One scalar per tensor used to be the whole perturbation: a cached output rescaled by the
    ratio of one input element matched it. Inputs now change element by element. Where it is
    caught depends on the allocator: timed repetitions reuse their buffers, and the CPU allocator
    can also hand a config's second correctness run the first run's address (seen once in a full
    run of session 17), or another config's (session 23: the cache then answered with the other
    config's shape); either way the output is wrong."""
    v = judge(KERNEL + '''
_cache = {}


def forward(x, alpha):
    key = x.data_ptr()
    if key in _cache:
        x0, y0 = _cache[key]
        return y0 * (x[0] / x0[0])
    y = honest(x, alpha)
    _cache[key] = (x.clone(), y.clone())
    return y
''', measure=True)
    assert not v.correct and any("timed" in (e or "") or "second run" in (e or "") for e in v.errors.values()), v.errors
    assert all(any(w in e for w in ("max abs error", "NaN", "shape")) for e in v.errors.values() if e), v.errors


def test_wrong_on_the_repetitions_it_guesses_are_not_checked(judge, monkeypatch):
    """Correct on every repetition but one per batch it hopes goes unchecked. The runner commits to
    every repetition's digest before the judge names the one it checks; with every batch checked,
    the wrong one is found."""
    from runner.evaluator.judge import config_judge, policy
    monkeypatch.setattr(policy, "CHECK_PROBABILITY", 1.0)
    monkeypatch.setattr(policy, "CHECKS_PER_CONFIG", 10**6)

    class Pick:            # the judge's choice, pinned to the repetition the candidate spoils
        def __init__(self, rng):
            self.rng = rng

        def randrange(self, n):
            return n - 1

        def __getattr__(self, name):
            return getattr(self.rng, name)

    original = config_judge.Judge.__init__

    def init(self, *args, **kwargs):
        original(self, *args, **kwargs)
        self.rng = Pick(self.rng)
    monkeypatch.setattr(config_judge.Judge, "__init__", init)
    v = judge(KERNEL + TIMED + '''
_n = [0]


def forward(x, alpha):
    if _timed():
        _n[0] += 1
        if _n[0] % 2 == 0:
            return torch.zeros_like(x)
    return honest(x, alpha)
''', measure=True)
    assert not v.correct and any("timed" in (e or "") for e in v.errors.values()), v.errors


def test_numpy_compute_is_flagged(judge):
    v = judge(KERNEL + '''
import numpy as np


def forward(x, alpha):
    honest(x, alpha)
    return torch.from_numpy(np.multiply(x.numpy(), alpha))
''')
    assert v.rejected() and v.aka == 0, (v.errors, v.flags)


def test_compute_under_a_disabled_dispatch_mode_is_flagged(judge):
    """Hides PyTorch compute from the runner's dispatch watch; the static check names torch._C."""
    v = judge(KERNEL + '''
def forward(x, alpha):
    honest(x[:8], alpha)
    with torch._C._DisableTorchDispatch():
        return x * alpha
''')
    assert v.rejected() and v.aka == 0, (v.errors, v.flags)


# -- a process left behind to load the machine while the baseline is timed ---------------------------
def test_every_process_of_the_candidates_sandbox_is_stopped_while_the_baseline_is_timed(scale_task, tmp_path):
    """A candidate can leave a process running (double fork, new session) to load the CPU or the GPU
    while the baseline is timed. The judge stops every process of the candidate's sandbox, that one
    included, around each baseline batch: here the freeze is checked on a real runner sandbox."""
    import signal
    import time as _time
    from runner.evaluator.isolation import choose
    from runner.evaluator.judge.runners import RunnerClient
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "kernel.py").write_text(
        # a daemon in a session of its own; started as a program, since the runner cannot fork (nofork.py)
        "import subprocess, sys\n"
        "subprocess.Popen([sys.executable, '-S', '-c', 'import time\\nwhile True: time.sleep(0.01)'],\n"
        "                 start_new_session=True)\n"
        "def forward(x, alpha):\n    return x * alpha\n")
    iso = choose([scale_task.root], "cpu")
    runner = RunnerClient(iso, tree, language="python", entry="kernel.py", symbol="forward", device="cpu",
                          role="candidate")
    try:
        assert runner.request({"op": "build"})["compiled"]
        _time.sleep(0.5)
        members = runner.members()
        assert len(members) >= 2, members          # the runner and the daemon, at least
        spaces = {os.readlink(f"/proc/{pid}/ns/pid") for pid in members} - {os.readlink("/proc/self/ns/pid")}

        def states():
            out = {}
            for pid in members:
                try:
                    out[pid] = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0]
                except OSError:
                    pass
            return out
        runner.signal_all(signal.SIGSTOP)
        _time.sleep(0.2)
        assert set(states().values()) - {"Z"} == {"T"}, states()     # Z: the exited middle child
        runner.signal_all(signal.SIGCONT)
        _time.sleep(0.2)
        assert "T" not in set(states().values()), states()
    finally:
        runner.close()
    _time.sleep(0.5)
    left = []                      # nothing of the sandbox's pid namespace survives the runner
    for entry in os.listdir("/proc"):
        try:
            if entry.isdigit() and os.readlink(f"/proc/{entry}/ns/pid") in spaces and \
                    open(f"/proc/{entry}/stat").read().rsplit(")", 1)[1].split()[0] != "Z":
                left.append(entry)      # (the namespace's init may linger as a zombie until reaped)
        except OSError:
            pass
    assert spaces and not left, (spaces, left)


FORGED_REPLY = '''
import sys

_protocol = sys.modules["runner.evaluator.protocol"]
_send = _protocol.send


def _forged(sock, message, fds=()):
    if isinstance(message, dict) and "ok" in message:
        message = {**message, "runner_ms": BIG, "launch_cover": "FORGED by the candidate",
                   "gate_gave_up": BIG}
    return _send(sock, message, fds)


_protocol.send = _forged
'''


def test_a_forged_reply_field_cannot_reach_the_verdict(judge):
    """The runner's replies are the candidate's to forge (it shares the runner's process): a free-text
    field must not be written into the verdict, and a count beyond the batch's calls is not believed."""
    v = judge(HONEST + FORGED_REPLY.replace("BIG", str(2 ** 62)), measure=True)
    verdict = json.dumps(v.evaluation.to_dict())
    assert v.evaluation.compiled and "FORGED" not in verdict, v.errors
    assert "launch gate ran out" not in verdict       # a count beyond the batch's calls is not believed


def test_a_reply_number_out_of_range_is_the_candidates_failure_not_a_judge_crash(judge):
    """An integer past 64 bits (10**400 is too large even for a float) is refused where the reply is
    read: the runner is taken to have broken off, which fails the attempt -- scored, never a crash of
    the judge (that would turn a failing attempt into an unscored one) nor a harness error."""
    v = judge(HONEST + FORGED_REPLY.replace("BIG", "10 ** 400"), measure=True)
    verdict = json.dumps(v.evaluation.to_dict())
    assert not v.correct and not v.evaluation.harness_error and "FORGED" not in verdict, v.errors
    assert "out of range" in v.evaluation.compile_log, v.evaluation.compile_log[:300]
