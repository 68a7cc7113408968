"""Static checks: explanations beside the judge split, not the wall. Each bypass that worked against
the denylist is flagged; each false positive that was reported is not."""
from pathlib import Path

import pytest

from runner.evaluator.static_checks import check_native, check_python

REPO = Path(__file__).resolve().parent.parent
JIT = "import triton\n\n@triton.jit\ndef _k(x_ptr):\n    pass\n\n"


def flags(body: str) -> list[str]:
    return check_python(JIT + body, custom_kernel=True, filename="kernel.py")


@pytest.mark.parametrize("body,kind", [
    ("import torch\n\ndef forward(x):\n    torch.sys.modules['runner'].x = 1\n    return x\n", "process_control"),
    ("import torch\n\ndef forward(x):\n    torch.os.system('true')\n    return x\n", "process_control"),
    ("import torch as t\n\ndef forward(x):\n    t.sys.modules.clear()\n    return x\n", "process_control"),
    ("from torch import os as o\n\ndef forward(x):\n    o.getpid()\n    return x\n", "process_control"),
    ("import torch\nf = torch.softmax\n\ndef forward(x):\n    return f(x, -1)\n", "torch_fallback"),
    ("import torch\na, b = torch.nn.functional, 1\n\ndef forward(x):\n    return a.gelu(x)\n", "torch_fallback"),
    ("import torch\n\ndef forward(x):\n    return getattr(torch, 'softmax')(x, -1)\n", "torch_fallback"),
    ("import torch\n\ndef forward(x):\n    return getattr(torch, 'soft' + 'max')(x, -1)\n", "torch_fallback"),
    ("import torch\n\ndef forward(x):\n    return getattr(getattr(torch, 'nn'), 'functional').relu(x)\n", "torch_fallback"),
    ("import torch\n\ndef forward(x):\n    return vars(torch)['softmax'](x, -1)\n", "introspection"),
    ("import torch\n\ndef forward(x):\n    return torch.__dict__['softmax'](x, -1)\n", "introspection"),
    ("import importlib\n\ndef forward(x):\n    importlib.import_module('os')\n    return x\n", "introspection"),
    ("def forward(x):\n    __import__('os')\n    return x\n", "introspection"),
    ("import runpy\n\ndef forward(x):\n    return x\n", "introspection"),
    ("import atexit\n\ndef forward(x):\n    return x\n", "process_control"),
    ("import codecs\n\ndef forward(x):\n    return x\n", "introspection"),
    ("import _thread\n\ndef forward(x):\n    return x\n", "thread_injection"),
    ("import numpy as np\n\ndef forward(x):\n    return x.new_tensor(np.multiply(x.cpu().numpy(), 2))\n", "numpy_compute"),
    ("def forward(x):\n    return x.numpy()\n", "numpy_compute"),
    ("import torch\n\ndef forward(x):\n    with torch._C._DisableTorchDispatch():\n        return x * 2\n", "tensor_subclass"),
])
def test_each_bypass_is_flagged(body, kind):
    found = flags(body)
    assert any(f.startswith(kind) for f in found), found


def test_methods_of_plain_containers_are_not_torch():
    assert flags("seen = set()\nrows = []\n\ndef forward(x):\n    seen.add(1)\n    rows.append(2)\n"
                 "    return x\n") == []
    assert any(f.startswith("torch_fallback") for f in flags("def forward(x, y):\n    return x.add(y)\n"))


def test_a_cuda_variable_named_half_is_not_a_half_type():
    src = "__global__ void k(float* y, int n) { int half = n / 2; y[half] = 0.f; }"
    assert check_native(src, fp32_task=True) == []
    for typed in ("half h = __float2half(1.f);", "half* p = 0;", "float f = (half)0;"):
        found = check_native("__global__ void k(float* y) { " + typed + " }", fp32_task=True)
        assert any(f.startswith("precision_downgrade") for f in found), (typed, found)


@pytest.mark.parametrize("path", sorted(str(p.relative_to(REPO)) for p in (REPO / "tasks").glob("*/*/solution/*")
                                        if p.suffix in (".py", ".cu")))
def test_shipped_solutions_carry_no_flag(path):
    text = (REPO / path).read_text()
    if path.endswith(".py"):
        assert check_python(text, custom_kernel=True, filename=path) == []
    else:
        assert check_native(text, filename=path) == []
