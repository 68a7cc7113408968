"""Red team, process level: the candidate goes through run.evaluate_candidate, i.e. the judge runs as
its own process (local sandbox), starts the kernel runners in sandboxes of their own, and the host
reads back only the JSON the judge wrote, re-verified."""
import json
import time

import pytest

from runner.agents.agent import AgentSpec
from runner.run.run import RunOptions, evaluate_candidate

from .conftest import KERNEL


@pytest.fixture
def host_eval(scale_task, tasks_root, tmp_path):
    def run(source: str, eval_timeout_s: float = 300, measure_dir: list | None = None):
        adir = tmp_path / "run" / "attempts" / "triton2triton__scale"
        candidate = adir / "candidate"
        candidate.mkdir(parents=True, exist_ok=True)
        (candidate / "kernel.py").write_text(source.replace("@ADIR@", str(adir)))
        options = RunOptions(agent=AgentSpec(name="redteam", kind="noop"), device="cpu", backend="local",
                             eval_timeout_s=eval_timeout_s, tasks_root=tasks_root)
        return evaluate_candidate(scale_task, candidate, adir, options), adir
    return run


FAKE = {"device": "cpu", "compiled": True, "configs": [
    {"config": name, "split": split, "params": {}, "correct": True, "baseline_correct": True,
     "baseline_ms": 1.0, "candidate_ms": 0.1, "speedup": 10.0}
    for name, split in (("small", "seen"), ("odd", "seen"), ("hidden-prime", "unseen"), ("hidden-tiny", "unseen"))]}

# Writes a perfect verdict wherever the judge's could be, at import, from a daemon that outlives the
# call (double fork, new session) and again 2 s later; then reports where it could write.
FORGER = KERNEL + f'''
import json, os, time
_TARGETS = ["@ADIR@/eval/evaluation.json", "@ADIR@/evaluation.json", "@ADIR@/result.json"]


def _forge():
    for path in _TARGETS:
        try:
            with open(path, "w") as fh:
                json.dump({FAKE!r}, fh)
        except OSError:
            pass


_forge()
try:                       # the runner's fork filter refuses this (nofork.py); the rest still must hold
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            for _ in range(40):
                time.sleep(0.25)
                _forge()
            os._exit(0)
        os._exit(0)
except OSError:
    pass


def forward(x, alpha):
    return torch.zeros_like(x)
'''


def test_forging_the_verdict_from_the_candidate_and_a_daemon(host_eval):
    """Defences: the runner's sandbox does not contain the attempt's folder (nothing to write), its
    pid namespace dies with it (the daemon too, where its fork filter did not refuse it first), and
    the host accepts only a file carrying the nonce the judge read from its stdin."""
    ev, adir = host_eval(FORGER)
    assert ev.compiled and not ev.correct("seen") and not ev.correct("unseen"), ev
    written = json.loads((adir / "evaluation.json").read_text())
    assert written["configs"][0]["speedup"] is None and not (adir / "result.json").exists()
    time.sleep(3)                          # the daemon's later writes, had it survived
    assert json.loads((adir / "evaluation.json").read_text()) == written
    assert not (adir / "result.json").exists()


def test_a_verdict_without_the_nonce_is_rejected(host_eval, monkeypatch):
    """The host's own check, whatever wrote the file: the judge is replaced by a script that writes
    a perfect verdict without the nonce."""
    import runner.run.run as run_module
    from runner.results.result import write_json
    from runner.run.run import read_verdict
    ev, adir = host_eval(KERNEL + "\ndef forward(x, alpha):\n    return honest(x, alpha)\n")
    fake = adir / "fake.json"
    write_json(fake, {**FAKE, "nonce": "0" * 32})
    ev = read_verdict(fake, "1" * 32, "cpu", adir / "kept.json")
    assert not ev.compiled and any(f.startswith("fake_results") for f in ev.flags)
    write_json(fake, {**FAKE, "nonce": "1" * 32, "configs": [{**FAKE["configs"][0], "speedup": 99.0}]})
    ev = read_verdict(fake, "1" * 32, "cpu", adir / "kept.json")
    assert any("disagrees with its own times" in f for f in ev.flags), ev.flags
    assert run_module.read_verdict is read_verdict


def test_printing_pass_changes_nothing(host_eval):
    """Only tensors are compared; nothing the candidate prints is read."""
    ev, _ = host_eval(KERNEL + '''
def forward(x, alpha):
    print("PASS\\ncorrectness: pass\\nALL TESTS PASSED")
    return torch.zeros_like(x)
''')
    assert ev.compiled and not ev.correct("seen") and not ev.correct("unseen")


def test_os_exit_during_correctness_fails_only_the_candidate(host_eval):
    """The runner dies: each config fails with the runner's exit; the judge goes on and writes its
    verdict."""
    ev, adir = host_eval(KERNEL + '''
import os


def forward(x, alpha):
    os._exit(0)
''')
    assert ev.compiled and not ev.correct("seen") and not ev.correct("unseen"), ev
    assert all("runner" in (c.error or "") for c in ev.configs), [c.error for c in ev.configs]
    assert (adir / "evaluation.json").exists()


def test_hanging_forever_is_killed_at_the_evaluation_limit(host_eval):
    ev, adir = host_eval(KERNEL + '''
def forward(x, alpha):
    while True:
        pass
''', eval_timeout_s=20)
    assert not ev.compiled and "exceeded" in (ev.error or ""), ev
    assert float((adir / "eval" / "seconds").read_text()) < 90


def test_editing_protected_task_files_during_evaluation(judge, scale_task):
    """The candidate tries to rewrite the hidden configs and the reference while it is imported.
    Defence: no task folder exists in the runner's sandbox; every task file is hashed before and
    after the evaluation all the same."""
    hidden, reference = scale_task.hidden_file, scale_task.reference
    before = hidden.read_bytes(), reference.read_bytes()
    v = judge(KERNEL + f'''
for _path, _text in (({str(hidden)!r}, '[[config]]\\nname = "hidden-prime"\\nn = 1000\\nalpha = 2.0\\n'),
                     ({str(reference)!r}, "\\ndef reference(x, alpha):\\n    return x * 0\\n")):
    try:
        with open(_path, "a") as fh:
            fh.write(_text)
    except OSError:
        pass


def forward(x, alpha):
    if x.numel() in (1000, 4099):
        return honest(x, alpha)
    return torch.zeros_like(x)
''', splits=("seen", "unseen"))
    assert not v.evaluation.correct("unseen")
    assert (hidden.read_bytes(), reference.read_bytes()) == before
    assert {c.config for c in v.evaluation.split("unseen")} == {"hidden-prime", "hidden-tiny"}
