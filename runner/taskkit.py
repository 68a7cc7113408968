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
the inputs, and are ordinary tensor arguments: the candidate receives them in `state_dict` order,
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


def parameters(model_cls, init, generator, device) -> list:
    """`model_cls(*init)`'s parameters and buffers, in `state_dict` order, made from `generator`."""
    model = _model(model_cls, init, generator)
    return [t.detach().clone().to(device) for t in model.state_dict().values()]


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
    runner/importers/aka.py), so its inputs still change with each config's seed and never depend on
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
