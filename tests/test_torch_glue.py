"""torch_fallback on an X->X task whose shipped kernel computes glue with PyTorch (as AKA's fused_moe
builds its routing, and lightning_attn_kv_parallel its key decay): the shipped file itself (a noop)
is not flagged; a candidate that computes more with PyTorch than the shipped code does, on the same
config, is. Through the real judge on the CPU (the Triton interpreter, real runners): the static
checks and the runners' PyTorch op watch; the device trace's bounds are read in tests/test_devtrace.py.
A PyTorch->X task allows nothing: its baseline is PyTorch itself."""
import os
import shutil
from collections import Counter
from pathlib import Path

import pytest

from .conftest import FIXTURE_TASKS

os.environ.setdefault("TRITON_INTERPRET", "1")

# The factor as a one-element tensor that PyTorch computes (the glue), read by the Triton kernel.
KERNEL = '''
import torch
import triton
import triton.language as tl


@triton.jit
def _scale(x_ptr, y_ptr, n, a_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * tl.load(a_ptr), mask=mask)


def launch(x, factor):
    y = torch.empty_like(x)
    _scale[(triton.cdiv(x.numel(), 256),)](x, y, x.numel(), factor, BLOCK=256)
    return y
'''
SHIPPED = KERNEL + '''

def forward(x, alpha):
    factor = torch.mul(torch.ones(1, dtype=x.dtype, device=x.device), alpha)
    return launch(x, factor)
'''
ONE_MORE_CALL = KERNEL + '''

def forward(x, alpha):
    factor = torch.mul(torch.ones(1, dtype=x.dtype, device=x.device), alpha)
    factor = torch.mul(factor, 1.0)
    return launch(x, factor)
'''
ANOTHER_OP = KERNEL + '''

def forward(x, alpha):
    factor = torch.add(torch.zeros(1, dtype=x.dtype, device=x.device), alpha)
    return launch(x, factor)
'''
# The answer computed by the glue's own op, at the glue's one place, with a decoy launch
SAME_OP_MORE_DATA = KERNEL + '''

def forward(x, alpha):
    y = torch.mul(x, alpha)
    launch(x[:1], torch.ones(1, dtype=x.dtype, device=x.device))
    return y
'''


def _task(tmp_path: Path, category: str):
    """The fixture task `scale`, shipped with SHIPPED, under `category` (triton2triton: X->X;
    torch2triton: its baseline is the reference, PyTorch)."""
    from runner.tasks.task import load_task
    root = tmp_path / "tasks"
    folder = root / category / "scale"
    shutil.copytree(FIXTURE_TASKS / "triton2triton" / "scale", folder)
    toml = folder / "task.toml"
    toml.write_text(toml.read_text().replace('"triton2triton/scale"', f'"{category}/scale"')
                    .replace('category = "triton2triton"', f'category = "{category}"'))
    (folder / "kernel.py").write_text(SHIPPED)
    return load_task(folder, root)


def _flags(task, tmp_path: Path, source: str | None) -> list[str]:
    """The verdict's flags for `source` (None: the task as shipped, what noop submits)."""
    from runner.evaluator.judge.evaluation import evaluate
    candidate = None
    if source is not None:
        candidate = tmp_path / f"candidate{len(list(tmp_path.glob('candidate*')))}"
        candidate.mkdir()
        (candidate / "kernel.py").write_text(source)
    ev = evaluate(task, candidate, "cpu", splits=("seen",), measure=False)
    assert all(c.correct for c in ev.configs), [c.error for c in ev.configs]
    return ev.flags


def _torch(flags: list[str]) -> list[str]:
    return [f for f in flags if f.startswith("torch_fallback")]


@pytest.fixture
def xx(tmp_path):
    return _task(tmp_path, "triton2triton")


def test_the_shipped_kernel_s_own_glue_is_not_a_fallback(xx, tmp_path):
    assert _flags(xx, tmp_path, None) == []


def test_one_more_pytorch_call_than_the_shipped_code_is_flagged(xx, tmp_path):
    found = _torch(_flags(xx, tmp_path, ONE_MORE_CALL))
    assert any(f.startswith("torch_fallback: torch.mul (kernel.py:") for f in found), found      # static: 2 places
    assert any("PyTorch computed more than the task's shipped code does per call: aten.mul x2 on " in f
               for f in found), found                                                              # the watch


def test_the_verdict_says_which_flags_rest_on_the_candidate_s_own_process(xx, tmp_path):
    """result.json's `in_process_flags`: the op watch's finding (counts the candidate's runner
    reported) is there; the static checks' reading of the source, made by the judge, is not."""
    from runner.evaluator.judge.evaluation import evaluate
    candidate = tmp_path / "candidate-evidence"
    candidate.mkdir()
    (candidate / "kernel.py").write_text(ONE_MORE_CALL)
    ev = evaluate(xx, candidate, "cpu", splits=("seen",), measure=False)
    watch = [f for f in ev.flags if "PyTorch computed" in f]
    static = [f for f in ev.flags if "(kernel.py:" in f]
    assert watch and static, ev.flags
    assert set(watch) <= set(ev.in_process_flags) and not set(static) & set(ev.in_process_flags)
    assert set(ev.in_process_flags) <= set(ev.flags)


def test_a_runner_cannot_relabel_the_judge_s_flag_as_its_own():
    """A candidate's runner that reports, word for word, a flag the judge's own line also raised
    (a constant wording, say the device trace's no_kernel_launch) does not make it in-process."""
    from runner.evaluator.judge.evaluation import split_flags
    trace = "no_kernel_launch: the device trace saw no kernel of the candidate's own in any timed call"
    watch = "torch_fallback: PyTorch computed aten.mul (small)"
    said = [trace, watch, watch, "note: a runner's note"]                  # the watch on two configs
    flags, notes, in_process = split_flags([trace, "note: a judge's note"] + said, said)
    assert flags == [trace, watch] and notes == ["note: a judge's note", "note: a runner's note"]
    assert in_process == [watch]


def test_another_pytorch_op_than_the_shipped_code_s_is_flagged(xx, tmp_path):
    found = _torch(_flags(xx, tmp_path, ANOTHER_OP))
    assert any(f.startswith("torch_fallback: torch.add (kernel.py:") for f in found), found
    assert any("per call: aten.add (" in f for f in found), found


def test_the_glue_s_own_op_doing_the_real_work_is_flagged(xx, tmp_path):
    """One torch.mul at one place, as shipped (the static checks allow it), on the whole input: the
    watch sees the elements it read and wrote per call, far past the shipped glue's."""
    found = _torch(_flags(xx, tmp_path, SAME_OP_MORE_DATA))
    assert not any("(kernel.py:" in f for f in found), found
    assert any("per call: aten.mul x1 on " in f for f in found), found


def test_a_pytorch_to_x_task_allows_no_pytorch_at_all(tmp_path):
    """The same glue on torch2triton: the baseline there is the PyTorch reference (it computes
    aten.mul on every element), and none of it is the candidate's to use."""
    task = _task(tmp_path, "torch2triton")
    assert task.baseline_is_reference
    found = _torch(_flags(task, tmp_path, SHIPPED))
    assert any(f.startswith("torch_fallback: torch.mul (kernel.py:") for f in found), found
    assert "torch_fallback: PyTorch computed aten.mul (small)" in found, found


# -- the static allowance, on its own ----------------------------------------------------------------
def test_the_static_allowance_counts_places_not_lines(xx, tmp_path):
    """A torch_fallback detail the candidate uses at more places than the shipped file is flagged,
    wherever its lines are; at as many places (moved, renamed around) it is not."""
    from runner.evaluator.judge.evaluation import static_flags
    from runner.evaluator.judge.static_checks import python_findings
    shipped, cand = tmp_path / "shipped", tmp_path / "cand"
    for tree, source in ((shipped, SHIPPED), (cand, "\n\n# moved down\n" + SHIPPED)):
        tree.mkdir()
        (tree / "kernel.py").write_text(source)
    assert python_findings(SHIPPED)[1] == Counter({"torch_fallback: torch.mul": 1})
    assert python_findings(ONE_MORE_CALL)[1] == Counter({"torch_fallback: torch.mul": 2})
    assert _torch(static_flags(xx, cand, False)) and not _torch(static_flags(xx, cand, False, shipped))
    (cand / "kernel.py").write_text(SHIPPED + "\n\ndef more(x):\n    return torch.mul(x, 2.0)\n")
    assert _torch(static_flags(xx, cand, False, shipped))


def test_the_judge_allows_glue_by_the_task_s_category_alone(tmp_path):
    """The op watch's allowance: the same runners' replies, read on an X->X task and on a PyTorch->X
    one; only the task's category (the judge's own reading) decides whether the baseline's ops count."""
    from runner.evaluator.judge.config_judge import Judge
    from runner.evaluator.judge.evaluation import import_reference
    for category, allowed in (("triton2triton", True), ("torch2triton", False)):
        task = _task(tmp_path / category, category)
        judge = Judge(task, "cpu", import_reference(task.reference), fp32_task=True, regime="cold", graph=False,
                      max_speedup=10.0)
        judge.torch_ops = {"baseline": {"aten.mul": [1, 2]}, "candidate": {"aten.mul": [1, 2]}}
        judge.torch_ops_findings(task.configs("seen")[0])
        assert (judge.flags == []) is allowed, (category, judge.flags)


# Glue that follows the data (as an expert loop runs as many GEMMs as experts got tokens): one more
# torch.mul on the judge's outlier inputs (x50 values) than on the standard ones.
DATA_DEPENDENT = KERNEL + '''

def forward(x, alpha):
    factor = torch.mul(torch.ones(1, dtype=x.dtype, device=x.device), alpha)
    for _ in range(int(x.abs().max() > 20.0)):
        factor = torch.mul(factor, 1.0)
    return launch(x, factor)
'''


def test_glue_that_follows_the_data_is_allowed_on_the_same_inputs(tmp_path):
    """The shipped code's op count moves with its inputs: its noop is read against the baseline's
    calls on the very inputs the candidate got (the baseline then goes through every stage), never
    against the first stage's alone (a CPU noop of an expert loop read aten.mm x33, shipped x28)."""
    from runner.tasks.task import load_task
    task = _task(tmp_path, "triton2triton")
    (task.root / "kernel.py").write_text(DATA_DEPENDENT)
    task = load_task(task.root, tmp_path / "tasks")
    assert _torch(_flags(task, tmp_path, None)) == []
    # beyond the most the shipped code runs on any of the config's inputs (2): flagged
    found = _torch(_flags(task, tmp_path, DATA_DEPENDENT.replace("range(int(x.abs().max() > 20.0))", "range(2)")))
    assert any("aten.mul x3 on " in f for f in found), found
