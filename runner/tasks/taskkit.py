"""Helpers a task's reference.py may import: an `nn.Module` reference with parameters, kept as written.

A reference is a pair of functions, `make_inputs(config, generator, device)` and `reference(*args)`
(docs/task-format.md). A PyTorch module with weights fits that pair without a functional rewrite:

    class Model(nn.Module): ...                                  # as written (KernelBench's, say)

    def make_inputs(config, generator, device):
        x = torch.randn(config["batch"], config["features"], generator=generator)
        init = (config["features"], config["out"])               # Model's constructor arguments
        return [x.to(device), *parameters(Model, init, generator, device), *init]

    def reference(x, *rest):
        return forward(Model, x, rest=rest, n_init=2)

The parameters (and buffers) are made from the config's seed, so they change with every seed like
the inputs, and are ordinary tensor arguments (one a module initialises to a constant, a norm's
weight 1 and bias 0, is drawn around that constant: a kernel that drops it must fail): the candidate receives them in `state_dict` order,
after the inputs, and the constructor's arguments last, as sizes (a native kernel gets them as
`int64_t` / `float`). The reference computes with exactly the tensors the candidate was given.

Trusted task-side code: imports only torch and the standard library (it runs in the judge, and in
the baseline's runner when the baseline is the reference).
"""
from __future__ import annotations


def _model(model_cls, init, generator):
    """The module, its weights drawn from `generator` (never from torch's global RNG: a candidate's
    process shares that; the judge's inputs must not depend on it)."""
    import torch
    seed = int(torch.randint(0, 2**62, (1,), generator=generator))
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        return model_cls(*init)


VARY_SPREAD = 0.1


def parameters(model_cls, init, generator, device) -> list:
    """`model_cls(*init)`'s parameters and buffers, in `state_dict` order, made from `generator`. A
    floating one whose entries are all equal (LayerNorm's weight 1 and bias 0, BatchNorm's running
    statistics) is drawn around that value: v * exp(0.1 z) for v > 0 (it stays positive: a variance),
    v + 0.1 z otherwise, z standard normal from `generator`."""
    import torch
    model = _model(model_cls, init, generator)
    out = []
    for t in model.state_dict().values():
        t = t.detach().clone()
        if t.is_floating_point() and t.numel() and bool((t == t.reshape(-1)[0]).all()):
            z = torch.randn(t.shape, generator=generator, dtype=torch.float32).to(t.dtype)
            v = float(t.reshape(-1)[0])
            t = t * torch.exp(VARY_SPREAD * z) if v > 0 else t + VARY_SPREAD * z
        out.append(t.to(device))
    return out


OUTLIER_FRACTION = 0.001
OUTLIER_SCALE = 16.0


def exercise_domain(inputs: list, which: tuple[int, ...], generator) -> list:
    """The floating inputs at `which` made to exercise an operator's domain: one drawn non-negative
    (KernelBench's torch.rand) gets a random sign per entry, and 0.1 % of its entries (at least one)
    are scaled by 16 (outliers). Values from `generator`: the same config and seed give the same inputs."""
    import torch
    out = list(inputs)
    for i in which:
        x = out[i]
        if not (isinstance(x, torch.Tensor) and x.is_floating_point() and x.numel()):
            continue
        x = x.clone()
        if bool((x >= 0).all()):
            sign = torch.randint(0, 2, x.shape, generator=generator).to(x.dtype) * 2 - 1
            x = x * sign
        k = max(1, round(x.numel() * OUTLIER_FRACTION))
        idx = torch.randint(x.numel(), (k,), generator=generator)
        flat = x.reshape(-1)
        flat[idx] = flat[idx] * OUTLIER_SCALE
        out[i] = flat.reshape(x.shape)
    return out


def forward(model_cls, *inputs, rest, n_init: int):
    """`model_cls(*init).forward(*inputs)` computed with the given weights: `rest` holds the tensors
    `parameters` made (in its order) followed by the `n_init` constructor arguments."""
    import torch
    init = tuple(rest[len(rest) - n_init:]) if n_init else ()
    weights = rest[:len(rest) - n_init]
    with torch.device("meta"):                      # the skeleton holds no memory and no values
        skeleton = model_cls(*init)
    names = list(skeleton.state_dict().keys())
    if len(names) != len(weights):
        raise ValueError(f"{model_cls.__name__} has {len(names)} parameters and buffers, "
                         f"{len(weights)} were given")
    return torch.func.functional_call(skeleton, dict(zip(names, weights)), tuple(inputs), strict=True)


def global_rng(generator):
    """A context in which torch's global CPU RNG is seeded from `generator` and restored afterwards:
    for input code written against the global RNG (an imported benchmark's `torch.randn(...)` calls,
    runner/tasks/importers/aka.py), so its inputs still change with each config's seed and never depend on
    (or disturb) the caller's global state. Tensors made inside should be made on the CPU."""
    import contextlib

    import torch

    @contextlib.contextmanager
    def seeded():
        seed = int(torch.randint(0, 2**62, (1,), generator=generator))
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            yield
    return seeded()


def to_device(value, device):
    """`value` with every tensor in it (a tensor, or a list/tuple of them and scalars) moved to `device`."""
    import torch
    if isinstance(value, torch.Tensor):
        return value.to(device)
    if isinstance(value, (list, tuple)):
        return type(value)(to_device(v, device) for v in value)
    return value
