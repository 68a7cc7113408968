"""Shared helpers for the red-team tests: each malicious candidate is evaluated by the real judge on
the CPU (the Triton interpreter, or a host C kernel for the native path), through real kernel
runners in real sandboxes, and must end not-correct, or flagged and scored zero."""
import os
import shutil
from pathlib import Path

import pytest

os.environ.setdefault("TRITON_INTERPRET", "1")

SCALE = "triton2triton/scale"
CSCALE = "cuda2cuda/cscale"
REPO = Path(__file__).resolve().parents[2]
NATIVE_TASKS = REPO / "tests" / "fixtures" / "native_tasks"

# A genuine Triton kernel the cheats reuse, so that "a kernel launched" holds for them.
KERNEL = '''
import torch
import triton
import triton.language as tl


@triton.jit
def _scale(x_ptr, y_ptr, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * alpha, mask=mask)


def honest(x, alpha):
    y = torch.empty_like(x)
    _scale[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), alpha, BLOCK=1024)
    return y
'''

# What a candidate that does less work when timed uses to tell: the runner's clock on its stack.
TIMED = '''
import sys as _sys


def _timed():
    f = _sys._getframe(1)
    while f is not None:
        if f.f_code.co_name == "once":
            return True
        f = f.f_back
    return False
'''

# The native contract of cuda2cuda/cscale: int launch(const float* x, int64_t n, float a, float* y, void* stream)
C_HONEST = "for (int64_t i = 0; i < n; i++) y[i] = a * x[i];\nreturn 0;"


class Verdict:
    def __init__(self, evaluation, task_id=SCALE, category="triton2triton", static=()):
        from runner.results.result import AttemptResult
        from runner.results.score import aka_score, bounded_score
        self.evaluation = evaluation
        self.static = list(static)      # the static checks' flags on the candidate's files
        self.result = AttemptResult(task=task_id, category=category, agent="redteam", device="cpu", status="ok")
        self.result.apply(evaluation)
        self.aka = aka_score(self.result)
        self.bounded = bounded_score(self.result)

    @property
    def correct(self) -> bool:
        splits = {c.split for c in self.evaluation.configs}
        return bool(splits) and all(self.evaluation.correct(s) for s in splits)

    @property
    def flags(self) -> list[str]:
        return self.evaluation.flags

    def flagged(self, kind: str) -> bool:
        return any(f.startswith(kind) for f in self.flags)

    @property
    def outside_flags(self) -> list[str]:
        """The flags of every line but the static checks: what holds where a spelling the static
        checks cannot follow is found (the mechanisms must hold alone)."""
        return [f for f in self.flags if f not in self.static]

    @property
    def errors(self) -> dict:
        return {c.config: c.error for c in self.evaluation.configs}

    def rejected(self) -> bool:
        """The bar: not correct, or flagged and scored zero."""
        return (not self.correct) or (bool(self.flags) and self.aka == 0 and self.bounded == 0)


def gpu_cheat(name: str) -> str:
    """The body of a cheat of the GPU red team (bench/judge_gpu.py CHEATS): `{sym}` its entry's
    name, `_honest` the honest kernel it calls. One source for the GPU's run and the CPU's test."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("judge_gpu_for_test", REPO / "bench" / "judge_gpu.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    return bench.CHEATS[name]

@pytest.fixture
def scale_task(tasks_root):
    from runner.tasks.task import load_task
    return load_task(tasks_root / SCALE, tasks_root)


@pytest.fixture
def judge(scale_task, tmp_path):
    """judge(source, **evaluate_kwargs) -> Verdict, for the Triton fixture task."""
    from runner.evaluator.judge.evaluation import evaluate, static_flags

    def run(source: str | bytes, splits=("seen",), measure=False, **kwargs):
        candidate = tmp_path / f"candidate{len(list(tmp_path.glob('candidate*')))}"
        candidate.mkdir()
        (candidate / "kernel.py").write_bytes(source if isinstance(source, bytes) else source.encode())
        evaluation = evaluate(scale_task, candidate, "cpu", splits=splits, measure=measure, **kwargs)
        return Verdict(evaluation, static=static_flags(scale_task, candidate, False))
    return run


@pytest.fixture
def native_task(tmp_path):
    from runner.tasks.task import load_task
    root = tmp_path / "native-tasks"
    shutil.copytree(NATIVE_TASKS, root)
    return load_task(root / CSCALE, root)


@pytest.fixture
def native_judge(native_task, tmp_path):
    """native_judge(body, extra="", flags=(), **evaluate_kwargs) -> Verdict: a host C kernel whose
    `launch` has `body`, built by the candidate's runner with cc (the native path without a GPU)."""
    from runner.evaluator.judge.evaluation import evaluate

    def run(body: str, extra: str = "", splits=("seen",), measure=False, **kwargs):
        candidate = tmp_path / f"ccandidate{len(list(tmp_path.glob('ccandidate*')))}"
        candidate.mkdir()
        (candidate / "kernel.c").write_text(
            "#include <stdint.h>\n#include <math.h>\n" + extra +
            "\nint launch(const float* x, int64_t n, float a, float* y, void* stream) {\n" + body + "\n}\n")
        ev = evaluate(native_task, candidate, "cpu", splits=splits, measure=measure, language="c", **kwargs)
        return Verdict(ev, CSCALE, "cuda2cuda")
    return run
