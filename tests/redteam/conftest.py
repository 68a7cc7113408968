"""Shared helpers for the red-team tests: each malicious candidate is evaluated by the real
evaluator on the CPU (Triton interpreter) and must end not-correct, or flagged and scored zero."""
import os
import subprocess
from pathlib import Path

import pytest

os.environ.setdefault("TRITON_INTERPRET", "1")

SCALE = "triton2triton/scale"

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


class Verdict:
    def __init__(self, evaluation):
        from runner.result import AttemptResult
        from runner.score import aka_score, bounded_score
        self.evaluation = evaluation
        self.result = AttemptResult(task=SCALE, category="triton2triton", agent="redteam", device="cpu",
                                    status="ok")
        self.result.apply(evaluation)
        self.aka = aka_score(self.result)
        self.bounded = bounded_score(self.result)

    @property
    def correct(self) -> bool:
        splits = {c.split for c in self.evaluation.configs}
        return all(self.evaluation.correct(s) for s in splits)

    @property
    def flags(self) -> list[str]:
        return self.evaluation.flags

    def flagged(self, kind: str) -> bool:
        return any(f.startswith(kind) for f in self.flags)

    @property
    def errors(self) -> dict:
        return {c.config: c.error for c in self.evaluation.configs}

    def rejected(self) -> bool:
        """The issue's bar: not correct, or flagged and scored zero."""
        return (not self.correct) or (bool(self.flags) and self.aka == 0 and self.bounded == 0)


@pytest.fixture
def scale_task(tasks_root):
    from runner.task import load_task
    return load_task(tasks_root / SCALE, tasks_root)


@pytest.fixture
def judge(scale_task, tmp_path):
    """judge(source, **evaluate_kwargs) -> Verdict"""
    from runner.evaluator.harness import evaluate

    def run(source: str, splits=("seen",), measure=False, **kwargs):
        candidate = tmp_path / f"candidate{len(list(tmp_path.glob('candidate*')))}"
        candidate.mkdir()
        (candidate / "kernel.py").write_text(source)
        return Verdict(evaluate(scale_task, candidate, "cpu", splits=splits, measure=measure, **kwargs))
    return run


def host_kernel(tmp_path: Path, body: str, extra: str = "", libs=()):
    """A native kernel compiled with gcc for the host (the native path without a GPU):
    int launch(const float* x, int64_t n, float alpha, float* y, void* stream)."""
    from runner.evaluator.build import load_native
    src = tmp_path / "k.c"
    src.write_text("#include <stdint.h>\n#include <math.h>\n" + extra +
                   "\nint launch(const float* x, int64_t n, float a, float* y, void* stream) {" + body + "}\n")
    lib = tmp_path / "k.so"
    subprocess.run(["gcc", "-O1", "-shared", "-fPIC", "-o", str(lib), str(src), *libs], check=True)
    return load_native(lib, "launch", "candidate")


NATIVE_REFERENCE = '''
import torch


def make_inputs(config, generator, device):
    x = torch.randn(config["n"], generator=generator).to(device)
    return [x, int(config["n"]), float(config["alpha"])]


def reference(x, n, alpha):
    return x * alpha
'''


@pytest.fixture
def native_evaluator(scale_task, tmp_path):
    """An Evaluator whose candidate is a host-C kernel with the C contract (x, n, alpha) -> y."""
    from runner.evaluator.build import import_module
    from runner.evaluator.harness import Evaluator
    ref_path = tmp_path / "native_reference.py"
    ref_path.write_text(NATIVE_REFERENCE)
    reference = import_module(ref_path, "redteam_native_reference")
    return Evaluator(scale_task, "cpu", reference, language="cuda", fp32_task=True)
