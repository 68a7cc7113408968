"""Red team, process level: the candidate goes through run.evaluate_candidate, i.e. the evaluator runs
as its own process (local sandbox) and the host reads back only the JSON it wrote."""

import pytest

from runner.agent import AgentSpec
from runner.run import RunOptions, evaluate_candidate

from .conftest import KERNEL


@pytest.fixture
def host_eval(scale_task, tasks_root, tmp_path):
    def run(source: str, eval_timeout_s: float = 120):
        adir = tmp_path / "run" / "attempts" / "triton2triton__scale"
        candidate = adir / "candidate"
        candidate.mkdir(parents=True, exist_ok=True)
        (candidate / "kernel.py").write_text(source)
        options = RunOptions(agent=AgentSpec(name="redteam", kind="noop"), device="cpu", backend="local",
                             eval_timeout_s=eval_timeout_s, tasks_root=tasks_root)
        return evaluate_candidate(scale_task, candidate, adir, options), adir
    return run


FAKE = {"device": "cpu", "compiled": True, "configs": [
    {"config": name, "split": split, "params": {}, "correct": True, "baseline_correct": True,
     "baseline_ms": 1.0, "candidate_ms": 0.1, "speedup": 10.0}
    for name, split in (("small", "seen"), ("odd", "seen"), ("hidden-prime", "unseen"), ("hidden-tiny", "unseen"))]}


def test_fake_results_file_then_exit(host_eval):
    """The candidate writes a perfect evaluation.json to the evaluator's --out path and exits 0.
    Defence: the host's nonce, read by the evaluator from stdin before any candidate code ran."""
    source = KERNEL + f'''
import json, os, sys
_out = sys.argv[sys.argv.index("--out") + 1]
with open(_out, "w") as fh:
    json.dump({FAKE!r}, fh)
os._exit(0)
'''
    ev, _ = host_eval(source)
    assert not ev.compiled and not ev.correct("seen") and "nonce" in (ev.error or ""), ev
    assert any(f.startswith("fake_results") for f in ev.flags)


def test_printing_pass_changes_nothing(host_eval):
    """Only tensors are compared; nothing the candidate prints is read."""
    ev, _ = host_eval(KERNEL + '''
def forward(x, alpha):
    print("PASS\\ncorrectness: pass\\nALL TESTS PASSED")
    return torch.zeros_like(x)
''')
    assert ev.compiled and not ev.correct("seen") and not ev.correct("unseen")


def test_os_exit_during_correctness(host_eval):
    ev, adir = host_eval(KERNEL + '''
import os


def forward(x, alpha):
    os._exit(0)
''')
    assert not ev.compiled and "exited with 0" in (ev.error or ""), ev
    assert not (adir / "evaluation.json").exists()


def test_hanging_forever_is_killed_at_the_evaluation_limit(host_eval):
    ev, adir = host_eval(KERNEL + '''
def forward(x, alpha):
    while True:
        pass
''', eval_timeout_s=8)
    assert not ev.compiled and "exceeded" in (ev.error or ""), ev
    assert float((adir / "eval" / "seconds").read_text()) < 60


def test_editing_protected_task_files_during_evaluation(judge, scale_task):
    """The candidate rewrites the hidden configs and the reference on disk while it is imported.
    Defences: configs and reference are read before any candidate code runs (the edit changes
    nothing in this evaluation) and every task file is hashed before and after (flagged)."""
    hidden = scale_task.hidden_file
    reference = scale_task.reference
    v = judge(KERNEL + f'''
with open({str(hidden)!r}, "w") as fh:
    fh.write('[[config]]\\nname = "hidden-prime"\\nn = 1000\\nalpha = 2.0\\n')
with open({str(reference)!r}, "a") as fh:
    fh.write("\\ndef reference(x, alpha):\\n    return x * 0\\n")


def forward(x, alpha):
    if x.numel() in (1000, 4099):
        return honest(x, alpha)
    return torch.zeros_like(x)
''', splits=("seen", "unseen"))
    assert not v.evaluation.correct("unseen")
    assert {c.config for c in v.evaluation.split("unseen")} == {"hidden-prime", "hidden-tiny"}
    assert v.flagged("tampered_task_files") and v.aka == 0
