"""A reference written as an nn.Module with weights (runner/tasks/taskkit.py), through the real judge on the
CPU: the weights are made from each seed, reach the candidate as tensor arguments, and the reference
computes with exactly those tensors, so a candidate that ignores them fails."""
import textwrap
from pathlib import Path

import pytest

from runner.tasks.task import load_task

FIXTURE_SCALE = Path(__file__).parent / "fixtures" / "tasks" / "triton2triton" / "scale"

TASK_TOML = '''
id = "torch2triton/scale_shift_relu"
category = "torch2triton"
platforms = ["cpu"]
description = "relu(x * weight + bias) with a module's per-feature weight and bias (test fixture)."

[workspace]
files = ["kernel.py", "reference.py", "configs.toml"]
editable = ["kernel.py"]

[candidate]
entry = "kernel.py"
symbol = "forward"

[reference]
module = "reference.py"

[configs]
seen = "configs.toml"
hidden = "hidden/configs.toml"
'''

REFERENCE = '''
import torch
from torch import nn

from runner.tasks.taskkit import forward, parameters


class Model(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(features))
        self.bias = nn.Parameter(torch.randn(features))

    def forward(self, x):
        return torch.relu(x * self.weight + self.bias)


def make_inputs(config, generator, device):
    init = (int(config["features"]),)
    x = torch.randn(int(config["rows"]), init[0], generator=generator)
    return [x.to(device), *parameters(Model, init, generator, device), *init]


def reference(x, *rest):
    return forward(Model, x, rest=rest, n_init=1)
'''

KERNEL = '''
import torch
import triton
import triton.language as tl


@triton.jit
def _scale_shift_relu(x_ptr, w_ptr, b_ptr, y_ptr, n, features, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    col = offs % features
    y = tl.load(x_ptr + offs, mask=mask) * tl.load(w_ptr + col, mask=mask) + tl.load(b_ptr + col, mask=mask)
    tl.store(y_ptr + offs, tl.maximum(y, 0.0), mask=mask)


def forward(x, weight, bias, features):
    y = torch.empty_like(x)
    n = x.numel()
    _scale_shift_relu[(triton.cdiv(n, 1024),)](x, {weight}, bias, y, n, features, BLOCK=1024)
    return y
'''


@pytest.fixture
def module_task(tmp_path):
    root = tmp_path / "tasks" / "torch2triton" / "scale_shift_relu"
    (root / "hidden").mkdir(parents=True)
    (root / "task.toml").write_text(TASK_TOML)
    (root / "reference.py").write_text(REFERENCE)
    (root / "kernel.py").write_text("def forward(*args):\n    raise NotImplementedError\n")
    (root / "configs.toml").write_text('[[config]]\nname = "a"\nrows = 64\nfeatures = 96\n')
    (root / "hidden" / "configs.toml").write_text('[[config]]\nname = "b"\nrows = 33\nfeatures = 257\n')
    return load_task(root, tmp_path / "tasks")


def evaluate(task, tmp_path, source: str):
    from runner.evaluator.judge.evaluation import evaluate as judge
    candidate = tmp_path / f"cand{len(list(tmp_path.glob('cand*')))}"
    candidate.mkdir()
    (candidate / "kernel.py").write_text(textwrap.dedent(source))
    return judge(task, candidate, "cpu", splits=("seen", "unseen"), measure=False)


def test_a_module_reference_judges_with_the_weights_the_candidate_was_given(module_task, tmp_path):
    honest = evaluate(module_task, tmp_path, KERNEL.replace("{weight}", "weight"))
    assert honest.compiled and honest.correct("seen") and honest.correct("unseen"), (honest.error, honest.configs)
    ones = evaluate(module_task, tmp_path, KERNEL.replace("{weight}", "torch.ones_like(weight)"))
    assert ones.compiled and not ones.correct("seen") and not ones.correct("unseen")


def test_weights_come_from_the_seed_not_the_global_rng(module_task):
    import torch

    from runner.evaluator.judge.evaluation import import_reference
    ref = import_reference(module_task.reference)
    config = module_task.configs("seen")[0].params

    def weights(seed, global_seed):
        torch.manual_seed(global_seed)       # a candidate's process could set the global RNG: no part
        return ref.make_inputs(dict(config), torch.Generator().manual_seed(seed), "cpu")[1]
    assert torch.equal(weights(1, 0), weights(1, 99)) and not torch.equal(weights(1, 0), weights(2, 0))
    state = torch.random.get_rng_state()
    ref.make_inputs(dict(config), torch.Generator().manual_seed(3), "cpu")
    assert torch.equal(state, torch.random.get_rng_state())   # and the global RNG is left as it was


def test_float32_means_ieee_float32_in_the_runners(tmp_path):
    """The precision policy (runner/evaluator/protocol.py strict_float32) holds in a kernel runner
    before the kernel is imported: cuDNN's TF32 off, Triton's float32 dot default IEEE. The candidate
    reports what it sees by being right or wrong."""
    from runner.evaluator.judge.evaluation import evaluate as judge
    task = load_task(FIXTURE_SCALE, FIXTURE_SCALE.parents[1])
    candidate = tmp_path / "cand"
    candidate.mkdir()
    (candidate / "kernel.py").write_text(textwrap.dedent('''
        import os
        import torch

        STRICT = os.environ.get("TRITON_F32_DEFAULT") == "ieee" and not getattr(torch.backends.cudnn, "allow_" + "tf32")


        def forward(x, alpha):
            return x * alpha if STRICT else x
        '''))
    verdict = judge(task, candidate, "cpu", splits=("seen",), measure=False)
    assert verdict.compiled and verdict.correct("seen"), (verdict.error, verdict.configs)
