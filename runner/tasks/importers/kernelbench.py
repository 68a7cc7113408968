"""`gauntlet tasks import kernelbench`: KernelBench problems (github.com/ScalingIntelligence/KernelBench)
as Gauntlet task folders.

A KernelBench problem file (KernelBench/level1/19_ReLU.py) holds `class Model(nn.Module)`, module-level
size constants (`batch_size = 16`, `dim = 16384`, `kernel_size = (3, 5)`), `get_inputs()` and
`get_init_inputs()`. The host side reads it with `ast` only (listing and skipping never execute a
problem); the generated reference.py keeps the problem's code verbatim, turns the sizes into config
keys and adds `make_inputs` / `reference` through runner/tasks/taskkit.py. One child process per problem
(`python -m runner.tasks.importers.kernelbench PROBE.json`, torch on the CPU) then imports that generated
file to scale the sizes down to a memory, work and time bound (on the meta device first), to check
the seen config (deterministic, shape independent of the values, tensor outputs) and to keep the
hidden configs whose reference runs.

What cannot be a task is skipped with one reason per problem (REASONS); the summary and
`kernelbench-import.json` in the output folder count them per level.
"""
from __future__ import annotations

import ast
import json
import math
import re
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from runner.tasks.importers.common import commit_of, count_rows, counts_table, probe_in_child, source_toml

CATEGORIES = ("torch2triton", "torch2cuda", "torch2hip")
REPORT_NAME = "kernelbench-import.json"

# Skip reasons, stable keys of the report (docs/importers.md explains each).
REASONS = {
    "not-kernelbench-format": "no class Model, get_inputs() or get_init_inputs(), or get_inputs does not "
                              "return a literal list",
    "other-library": "imports a library other than torch and the standard library",
    "batchnorm-training": "BatchNorm in training mode (batch statistics, running-stat updates)",
    "dropout": "Dropout (random in training mode)",
    "random-op": "a random op in forward, or two runs on the same inputs differ",
    "data-dependent-shape": "an output shape depends on the input values",
    "non-tensor-output": "forward returns something other than a tensor or a tuple of tensors",
    "reference-fails": "the generated reference raises on the CPU",
    "cannot-scale": "no scaled-down size fits the memory, work and time bound",
    "no-hidden-config": "no hidden config (other sizes) runs within the bounds",
    "probe-failed": "the checking process died or ran out of time",
}

DEFAULT_MAX_MIB = 256          # inputs + weights + outputs of one seen or hidden config
DEFAULT_MAX_GFLOP = 4.0        # counted on the meta device (matmul, conv, ...): keeps the CPU check fast
SEEN_CONFIGS = 3               # the problem's (scaled) sizes and two other aspect ratios or magnitudes
MAX_HIDDEN = 12
PROBE_TIMEOUT_S = 900          # a hung problem only: no size decision reads a clock

# Module-level ints that are hyper-parameters, not extents: never scaled or varied. (`dim` is both in
# KernelBench: `dim = 393216` an extent, `dim = 1` an axis; the axis is caught by _MIN_SCALABLE.)
_FIXED_NAME = re.compile(r"kernel|stride|pad|dilation|group|axis|heads|pool|factor|scale", re.I)
_MIN_SCALABLE = 8              # a smaller int (a reduction axis, a kernel size) stays as written

_DROPOUT = re.compile(r"^(Dropout\w*|AlphaDropout|FeatureAlphaDropout|dropout\w*|alpha_dropout|"
                      r"feature_alpha_dropout)$")
_BATCHNORM = re.compile(r"^(BatchNorm[123]d|LazyBatchNorm[123]d|SyncBatchNorm|batch_norm)$")
_RANDOM = {"rand", "randn", "randint", "rand_like", "randn_like", "randint_like", "randperm", "bernoulli",
           "bernoulli_", "multinomial", "normal", "normal_", "uniform_", "exponential_", "cauchy_",
           "geometric_", "log_normal_", "random_", "poisson", "rrelu", "RReLU", "rrelu_"}
_DATA_DEPENDENT = {"nonzero", "masked_select", "unique", "unique_consecutive", "argwhere", "nonzero_static"}


class KernelBenchImportError(ValueError):
    """Bad user input to the importer: one line naming the path or option."""


@dataclass(frozen=True)
class Skip:
    level: int
    file: str
    reason: str
    detail: str = ""


@dataclass(frozen=True)
class Size:
    """A module-level literal: an int, float or bool, or a tuple of ints (one config key per item)."""
    name: str
    value: object

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(f"{self.name}_{i}" for i in range(len(self.value))) if isinstance(self.value, tuple) \
            else (self.name,)

    def items(self) -> list[tuple[str, object]]:
        values = self.value if isinstance(self.value, tuple) else (self.value,)
        return list(zip(self.keys, values))


@dataclass
class Problem:
    level: int
    number: int
    title: str
    file: str                          # e.g. level1/19_ReLU.py
    source: str
    prelude: list[str]                 # the problem's statements other than sizes and get_*inputs, verbatim
    sizes: dict[str, Size]
    derived: dict[str, str]            # name -> expression over other sizes, e.g. (out_channels, 1, 1)
    get_inputs: str                    # the function's source, verbatim
    get_init_inputs: str
    input_names: list[str]             # names of get_inputs' returned items
    uses: dict[str, list[str]] = field(default_factory=dict)   # function -> the size names it reads

    @property
    def task_name(self) -> str:
        slug = re.sub(r"[^a-z0-9]+", "_", self.title.lower()).strip("_")[:48].strip("_")
        return f"kb{self.level}_{self.number:03d}_{slug}"

    def config_items(self) -> list[tuple[str, object]]:
        return [kv for s in self.sizes.values() for kv in s.items()]

    def scalable(self) -> list[str]:
        """Config keys that are extents: ints >= _MIN_SCALABLE whose name is not a hyper-parameter."""
        return [k for s in self.sizes.values() if not _FIXED_NAME.search(s.name)
                for k, v in s.items() if type(v) is int and v >= _MIN_SCALABLE]


# -- reading a problem (ast only) ------------------------------------------------------------------
_LITERAL_NODES = (ast.Expression, ast.Constant, ast.BinOp, ast.UnaryOp, ast.Tuple, ast.Load, ast.operator,
                  ast.unaryop)


def _literal(node: ast.expr):
    """The value of an expression of constants and arithmetic (`2048 * 2`, `(3, 5)`), else None."""
    if not all(isinstance(n, _LITERAL_NODES) for n in ast.walk(node)):
        return None
    try:
        return eval(compile(ast.Expression(node), "<size>", "eval"), {"__builtins__": {}}, {})  # noqa: S307
    except Exception:  # noqa: BLE001 -- 1 / 0 and the like: not a size
        return None


def _as_size(name: str, value) -> Size | None:
    if isinstance(value, (bool, int, float)):
        return Size(name, value)
    if isinstance(value, tuple) and value and all(type(v) is int for v in value):
        return Size(name, value)
    return None


def _loaded_names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _called_names(node: ast.AST) -> set[str]:
    """Names of what is called or referenced as torch.x / F.x / nn.X (the last attribute)."""
    names = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Attribute):
            names.add(n.attr)
        elif isinstance(n, ast.Name):
            names.add(n.id)
    return names


def _forward_code(tree: ast.Module) -> list[ast.AST]:
    """What runs at forward time: every method but __init__ and every module-level helper function."""
    code = []
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            code += [f for f in node.body if isinstance(f, ast.FunctionDef) and f.name != "__init__"]
        elif isinstance(node, ast.FunctionDef) and node.name not in ("get_inputs", "get_init_inputs"):
            code.append(node)
    return code


def _static_skip(tree: ast.Module) -> tuple[str, str] | None:
    for node in ast.walk(tree):
        modules = ([a.name for a in node.names] if isinstance(node, ast.Import)
                   else [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else [])
        for module in modules:
            top = module.split(".")[0]
            if top != "torch" and top not in sys.stdlib_module_names:
                return "other-library", module
    classes = [n for n in tree.body if isinstance(n, ast.ClassDef)]
    everything = _called_names(ast.Module(body=classes, type_ignores=[]))
    for name in sorted(everything):
        if _BATCHNORM.match(name):
            return "batchnorm-training", name
    for name in sorted(everything):
        if _DROPOUT.match(name):
            return "dropout", name
    at_forward = set().union(*(_called_names(f) for f in _forward_code(tree))) if _forward_code(tree) else set()
    if at_forward & _RANDOM:
        return "random-op", sorted(at_forward & _RANDOM)[0]
    if at_forward & _DATA_DEPENDENT:
        return "data-dependent-shape", sorted(at_forward & _DATA_DEPENDENT)[0]
    return None


def parse_problem(path: Path, level: int) -> Problem | Skip:
    """One problem file, read with `ast` (never executed here)."""
    rel = f"level{level}/{path.name}"
    source = path.read_text(encoding="utf-8")
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        return Skip(level, rel, "not-kernelbench-format", f"syntax error: {exc.msg} (line {exc.lineno})")
    funcs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    if not any(isinstance(n, ast.ClassDef) and n.name == "Model" for n in tree.body):
        return Skip(level, rel, "not-kernelbench-format", "no class Model")
    for name in ("get_inputs", "get_init_inputs"):
        if name not in funcs:
            return Skip(level, rel, "not-kernelbench-format", f"no {name}()")
        if funcs[name].args.args or funcs[name].args.vararg or funcs[name].args.kwonlyargs:
            return Skip(level, rel, "not-kernelbench-format", f"{name}() takes arguments")
    last = funcs["get_inputs"].body[-1]
    if not (isinstance(last, ast.Return) and isinstance(last.value, (ast.List, ast.Tuple))
            and not any(isinstance(e, ast.Starred) for e in last.value.elts)):
        return Skip(level, rel, "not-kernelbench-format", "get_inputs() does not end in `return [a, b, ...]`")
    static = _static_skip(tree)
    if static:
        return Skip(level, rel, static[0], static[1])

    sizes: dict[str, Size] = {}
    derived: dict[str, str] = {}
    prelude: list[str] = []
    for node in tree.body:
        targets: list[str] = []
        if isinstance(node, ast.Assign) and all(isinstance(t, ast.Name) for t in node.targets):
            targets, value = [t.id for t in node.targets], node.value      # `height = width = 128` too
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            targets, value = [node.target.id], node.value
        if (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Tuple)
                and isinstance(node.value, ast.Tuple) and len(node.targets[0].elts) == len(node.value.elts)
                and all(isinstance(t, ast.Name) for t in node.targets[0].elts)):
            unpacked = {t.id: _as_size(t.id, _literal(v)) for t, v in zip(node.targets[0].elts, node.value.elts)}
            if all(unpacked.values()):              # `D, H, W = 16, 32, 32`: three sizes
                sizes.update(unpacked)
                continue
        if targets:
            literal = _literal(value)
            if all(_as_size(t, literal) for t in targets):
                sizes.update({t: _as_size(t, literal) for t in targets})   # each its own config key
                continue
            names = _loaded_names(value)
            if names and names <= set(sizes) | set(derived):
                derived.update({t: ast.get_source_segment(source, value) for t in targets})
                continue
        if isinstance(node, ast.FunctionDef) and node.name in ("get_inputs", "get_init_inputs"):
            continue
        if (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
                and isinstance(node.value.value, str)):
            continue                      # a module docstring or a stray string
        prelude.append(ast.get_source_segment(source, node))
    env_names = set(sizes) | set(derived)
    order = [*sizes, *derived]
    uses = {name: sorted(_loaded_names(funcs[name]) & env_names, key=order.index)
            for name in ("get_inputs", "get_init_inputs")}
    input_names = [e.id if isinstance(e, ast.Name) else f"input{i}" for i, e in enumerate(last.value.elts)]
    m = re.match(r"(\d+)_(.*)\.py$", path.name)
    number, title = (int(m.group(1)), m.group(2)) if m else (0, path.stem)
    return Problem(level=level, number=number, title=title.replace("_", " ").strip(), file=rel, source=source,
                   prelude=prelude, sizes=sizes, derived=derived,
                   get_inputs=ast.get_source_segment(source, funcs["get_inputs"]),
                   get_init_inputs=ast.get_source_segment(source, funcs["get_init_inputs"]),
                   input_names=input_names, uses=uses)


# -- the generated reference.py -------------------------------------------------------------------
def _with_params(function_source: str, name: str, params: list[str]) -> str:
    return re.sub(rf"def\s+{name}\s*\(\s*\)", f"def {name}({', '.join(params)})", function_source, count=1)


def render_reference(problem: Problem, commit: str) -> str:
    keys = [k for k, _ in problem.config_items()]
    env_lines = []
    for size in problem.sizes.values():
        if isinstance(size.value, tuple):
            env_lines.append(f"    {size.name} = ({', '.join(f'config[{k!r}]' for k in size.keys)},)")
        else:
            env_lines.append(f"    {size.name} = config[{size.name!r}]")
    env_lines += [f"    {name} = {expr}" for name, expr in problem.derived.items()]
    env_names = [*problem.sizes, *problem.derived]
    call = {fn: f"{fn}({', '.join(f'env[{n!r}]' for n in problem.uses[fn])})"
            for fn in ("get_inputs", "get_init_inputs")}
    prelude = "\n\n".join(problem.prelude)
    return f'''"""KernelBench {problem.file} ("{problem.title}"), KernelBench commit {commit}, imported by
`gauntlet tasks import kernelbench`.

Above the generated section: the problem's own code, verbatim. Its module-level sizes are config
keys here (configs.toml, tuples as name_0, name_1, ...); get_inputs and get_init_inputs are the
problem's, with the sizes they read as arguments. The arguments of one call, in order: the
get_inputs items (those at DOMAIN made to exercise the operator's domain: signed, with outliers),
Model's parameters and buffers in state_dict order (drawn from the config's seed, a constant one
around its value), then the sizes SIZES as Python ints / floats (docs/task-format.md, "Sizes").
"""
{prelude}


# ---- generated by gauntlet tasks import kernelbench ----
import torch as _torch

from runner.tasks.taskkit import exercise_domain as _exercise_domain
from runner.tasks.taskkit import forward as _forward
from runner.tasks.taskkit import parameters as _parameters

SIZES = {tuple(keys)!r}
N_INPUTS = {len(problem.input_names)}
DOMAIN = ()   # the get_inputs items made signed, with outliers (chosen by the importer: the reference stays finite)


def _env(config):
    """The problem's module-level sizes for one config (tuples rebuilt, derived sizes recomputed)."""
{chr(10).join(env_lines) if env_lines else "    pass"}
    return {{{", ".join(f"{n!r}: {n}" for n in env_names)}}}


{_with_params(problem.get_inputs, "get_inputs", problem.uses["get_inputs"])}


{_with_params(problem.get_init_inputs, "get_init_inputs", problem.uses["get_init_inputs"])}


def inputs_for(env):
    return list({call["get_inputs"]})


def init_for(env):
    return list({call["get_init_inputs"]})


def make_inputs(config, generator, device, domain=None):
    env = _env(config)
    # get_inputs draws from torch's global RNG: seed it from the config's generator, and leave the
    # caller's RNG as it was (a candidate's process shares it)
    seed = int(_torch.randint(0, 2**62, (1,), generator=generator))
    with _torch.random.fork_rng(devices=[]):
        _torch.manual_seed(seed)
        inputs = inputs_for(env)
    inputs = _exercise_domain(inputs, DOMAIN if domain is None else domain, generator)
    weights = _parameters(Model, init_for(env), generator, device)
    return [*(x.to(device) if isinstance(x, _torch.Tensor) else x for x in inputs), *weights,
            *(config[k] for k in SIZES)]


def reference(*args):
    n_weights_end = len(args) - len(SIZES)
    init = init_for(_env(dict(zip(SIZES, args[n_weights_end:]))))
    return _forward(Model, *args[:N_INPUTS], rest=(*args[N_INPUTS:n_weights_end], *init), n_init=len(init))
'''


# -- the probe (child process, torch on the CPU) ---------------------------------------------------
@dataclass(frozen=True)
class Limits:
    max_bytes: int = DEFAULT_MAX_MIB * 2**20
    max_flops: float = DEFAULT_MAX_GFLOP * 1e9


def _spec(reference_py: Path, problem: Problem, limits: Limits) -> dict:
    return {"reference": str(reference_py), "config": problem.config_items(), "scalable": problem.scalable(),
            "input_names": problem.input_names, "max_bytes": limits.max_bytes, "max_flops": limits.max_flops}


def probe_batch(specs: list[dict]) -> list[dict]:
    """Check generated references in one child process (common.probe_in_child): one JSON answer per
    spec, in order; a problem that takes the child down or past PROBE_TIMEOUT_S is a probe-failed skip."""
    return probe_in_child("runner.tasks.importers.kernelbench", specs, PROBE_TIMEOUT_S)


class _TooLong(BaseException):
    """The per-problem alarm: a BaseException, so the probe's own `except Exception` cannot swallow it."""


class _ProbeSkip(Exception):
    def __init__(self, reason: str, detail: str):
        super().__init__(detail)
        self.reason, self.detail = reason, detail


def _odd(n: int) -> int:
    n = max(1, int(n))
    return n if n % 2 else max(1, n - 1)


def _prime_at_most(n: int) -> int:
    for m in range(max(2, int(n)), 1, -1):
        if all(m % p for p in range(2, int(math.isqrt(m)) + 1)):
            return m
    return 2


def seen_candidates(base: dict, extents: list[str]) -> list[tuple[str, dict]]:
    """More seen configs: other aspect ratios of the two most different extents, then other magnitudes
    (the importer keeps the first SEEN_CONFIGS - 1 that fit and run)."""
    out = []
    if len(extents) >= 2:
        big = max(extents, key=lambda k: base[k])
        small = min((k for k in extents if k != big), key=lambda k: base[k])
        out += [("seen-wide", {**base, big: max(1, base[big] // 2), small: base[small] * 2}),
                ("seen-tall", {**base, big: base[big] * 2, small: max(1, base[small] // 2)}),
                ("seen-skew", {**base, big: max(1, base[big] // 4), small: base[small] * 4})]
    out += [("seen-half", {**base, **{k: max(1, base[k] // 2) for k in extents}}),
            ("seen-quarter", {**base, **{k: max(1, base[k] // 4) for k in extents}}),
            ("seen-double", {**base, **{k: base[k] * 2 for k in extents}})]
    return out


# Hyper-parameters varied in hidden configs where the model accepts the value (kernel sizes stay odd).
_VARY_HYPER = [(re.compile(r"kernel", re.I), lambda v: (v + 2, v - 2)),
               (re.compile(r"stride", re.I), lambda v: (v + 1,)),
               (re.compile(r"pad", re.I), lambda v: (v + 1, v - 1)),
               (re.compile(r"dilation", re.I), lambda v: (v + 1,)),
               (re.compile(r"group", re.I), lambda v: (v * 2, v // 2)),
               (re.compile(r"heads|pool", re.I), lambda v: (v * 2, v + 1))]
_AXIS = re.compile(r"axis|(^|_)dim$", re.I)     # a reduction axis: another value is another operator


def hidden_candidates(seen: dict, scalable: list[str]) -> list[tuple[str, dict]]:
    """Configs that break shape hard-coding: odd sizes, other magnitudes, other aspect ratios, primes,
    an extent of 1 (m = 1), and each other integer (channels, kernel sizes, strides, groups) varied
    where the model accepts it. The importer keeps one per parameter first, then the rest."""
    def each(fn):
        return {**seen, **{k: fn(seen[k]) for k in scalable}}
    out = [("hidden-odd", each(lambda v: _odd(round(v * 0.75)))),
           ("hidden-small", each(lambda v: _odd(v // 8) if v >= 16 else _odd(v // 2))),
           ("hidden-smaller", each(lambda v: _odd(v // 64) if v >= 128 else _odd(v // 4))),
           ("hidden-at-primes", each(lambda v: _prime_at_most(v * 0.6)))]  # not the fixture's marker name, which a docker test greps for
    if len(scalable) >= 2:
        big = max(scalable, key=lambda k: seen[k])
        small = min(scalable, key=lambda k: seen[k])
        out.append(("hidden-aspect", {**seen, big: _odd(seen[big] // 4), small: seen[small] * 4 - 1}))
    else:
        out.append(("hidden-aspect", each(lambda v: _odd(v // 2 + 1))))
    # where a relation forbids odd sizes everywhere (channels divisible by groups): one extent at a time
    out.append(("hidden-half", each(lambda v: max(1, v // 2))))
    out += [(f"hidden-one-{k}", {**seen, k: 1}) for k in scalable]
    for k, v in seen.items():
        if k in scalable or type(v) is not int or _AXIS.search(k):
            continue
        rule = next((fn for pattern, fn in _VARY_HYPER if pattern.search(k)), None)
        values = rule(v) if rule else (v + 1, v * 2)          # a small size (channels = 3): another one
        out += [(f"hidden-{k}-{w}", {**seen, k: w}) for w in values if w >= (0 if "pad" in k else 1) and w != v]
    out += [(f"hidden-odd-{k}", {**seen, k: _odd(round(seen[k] * 0.75))}) for k in scalable]
    return out


def _probe_main(spec: dict) -> dict:
    import importlib.util

    import torch
    from torch.utils.flop_counter import FlopCounterMode

    from runner.evaluator.protocol import strict_float32
    strict_float32()
    module_spec = importlib.util.spec_from_file_location("kb_reference", spec["reference"])
    ref = importlib.util.module_from_spec(module_spec)
    try:
        module_spec.loader.exec_module(ref)
    except Exception as exc:  # noqa: BLE001 -- the problem's own code may raise anything
        raise _ProbeSkip("reference-fails", f"import: {type(exc).__name__}: {str(exc)[:160]}") from None
    config = dict(spec["config"])
    scalable = list(spec["scalable"])

    def tensors(obj):
        if isinstance(obj, torch.Tensor):
            return [obj]
        if isinstance(obj, (list, tuple)):
            return [t for o in obj for t in tensors(o)]
        return []

    def cost(cfg) -> tuple[int, float | None]:
        """Bytes of inputs + weights + outputs and counted FLOPs, on the meta device (no memory)."""
        env = ref._env(cfg)
        with torch.device("meta"):
            inputs = ref.inputs_for(env)
            model = ref.Model(*ref.init_for(env))
            state = list(model.state_dict().values())
            base = sum(t.nbytes for t in tensors(inputs) + state)
            for m in model.modules():
                if isinstance(m, torch.nn.modules.batchnorm._BatchNorm) and m.training:
                    raise _ProbeSkip("batchnorm-training", type(m).__name__)
                if isinstance(m, torch.nn.modules.dropout._DropoutNd):
                    raise _ProbeSkip("dropout", type(m).__name__)
            try:
                with FlopCounterMode(display=False) as counter:
                    out = model(*inputs)
            except _ProbeSkip:
                raise
            except Exception:  # noqa: BLE001 -- an op without a meta kernel: estimate, let the CPU run decide
                return 2 * base, None
        return base + sum(t.nbytes for t in tensors(out)), float(counter.get_total_flops())

    def fits(cfg) -> bool:
        try:
            nbytes, flops = cost(cfg)
        except _ProbeSkip:
            raise
        except Exception:  # noqa: BLE001 -- these sizes are invalid for the model (conv smaller than kernel)
            return False
        return nbytes <= spec["max_bytes"] and (flops is None or flops <= spec["max_flops"])

    def valid(cfg) -> bool:
        try:
            cost(cfg)
            return True
        except _ProbeSkip:
            raise
        except Exception:  # noqa: BLE001
            return False

    def shrink(cfg) -> dict | None:
        """Halve the largest extent that leaves a valid model."""
        for key in sorted(scalable, key=lambda k: -cfg[k]):
            if cfg[key] >= 2 and valid(trial := {**cfg, key: cfg[key] // 2}):
                return trial
        return None

    def run(cfg, seed=0, domain=()):
        """(args, outputs, FLOPs torch counts) of one reference call on the CPU. No clock is read:
        which sizes import depends on bytes and FLOPs only, the same on any machine."""
        args = ref.make_inputs(dict(cfg), torch.Generator().manual_seed(seed), "cpu", domain=tuple(domain))
        with FlopCounterMode(display=False) as counter:
            out = ref.reference(*[a.clone() if isinstance(a, torch.Tensor) else a for a in args])
        return args, out, counter.get_total_flops()

    def choose_domain(cfg, args, outs) -> tuple[int, ...]:
        """The floating get_inputs items that can be made signed, with outliers, without the reference
        giving a non-finite value where it gave a finite one (a log or a sqrt needs its domain kept)."""
        n_inputs = len(spec["input_names"])
        chosen: list[int] = []
        for i in [i for i, a in enumerate(args[:n_inputs]) if isinstance(a, torch.Tensor) and a.is_floating_point()]:
            try:
                _, trial, _ = run(cfg, domain=(*chosen, i))
            except Exception:  # noqa: BLE001 -- the model refuses such values (an index, a probability)
                continue
            trial = trial if isinstance(trial, (tuple, list)) else (trial,)
            if all(t.shape == o.shape and not bool((~torch.isfinite(t) & torch.isfinite(o)).any())
                   for t, o in zip(trial, outs) if t.is_floating_point()):
                chosen.append(i)
        return tuple(chosen)

    try:
        cost(config)
    except _ProbeSkip:
        raise
    except Exception as exc:  # noqa: BLE001
        raise _ProbeSkip("reference-fails", f"at the problem's sizes: {type(exc).__name__}: {str(exc)[:160]}") \
            from None
    scaled = dict(config)
    while not fits(scaled):
        scaled = shrink(scaled)
        if scaled is None:
            raise _ProbeSkip("cannot-scale", f"over {spec['max_bytes'] >> 20} MiB or "
                             f"{spec['max_flops'] / 1e9:g} GFLOP at every size tried")
    try:
        args, out, _ = run(scaled, domain=())
    except Exception as exc:  # noqa: BLE001
        raise _ProbeSkip("reference-fails", f"{type(exc).__name__}: {str(exc)[:160]}") from None
    outs = out if isinstance(out, (tuple, list)) else (out,)
    if not outs or not all(isinstance(o, torch.Tensor) for o in outs):
        raise _ProbeSkip("non-tensor-output", type(out).__name__)
    domain = choose_domain(scaled, args, outs)

    def usable(cfg) -> dict | None:
        """The config with its work (bytes of every tensor of the call, FLOPs torch counts), if the
        model accepts it, it fits the bounds and the reference runs on it."""
        if not fits(cfg):
            return None
        try:
            c_args, c_out, c_flops = run(cfg, domain=domain)
        except Exception:  # noqa: BLE001 -- sizes this model does not accept
            return None
        nbytes = sum(t.nbytes for t in {id(t): t for t in tensors(c_args) + tensors(c_out)}.values())
        return {**cfg, "work_bytes": int(nbytes), "work_flops": int(c_flops)}

    extents = [k for k in scalable if scaled[k] >= 2]
    seen = [usable(scaled)]
    if seen[0] is None:
        raise _ProbeSkip("reference-fails", "the scaled sizes do not run")
    shapes = {_key(scaled)}
    for name, cfg in seen_candidates(scaled, extents):
        if len(seen) == SEEN_CONFIGS:
            break
        if _key(cfg) not in shapes and (kept := usable(cfg)) is not None:
            shapes.add(_key(cfg))
            seen.append({"name": name, **kept})
    hidden, varied = [], set()
    candidates = [(n, c) for n, c in hidden_candidates(scaled, extents) if _key(c) not in shapes]
    for coverage in (True, False):      # first one config per parameter not yet varied, then the rest
        for name, cfg in candidates:
            if len(hidden) == MAX_HIDDEN:
                break
            changed = {k for k in cfg if cfg[k] != scaled.get(k)}
            if _key(cfg) in shapes or (coverage and changed <= varied):
                continue
            if (kept := usable(cfg)) is not None:
                shapes.add(_key(cfg))
                hidden.append({"name": name, **kept})
                varied |= changed
    if not hidden:
        raise _ProbeSkip("no-hidden-config", "every odd / smaller / other-aspect size failed or was too big")
    # determinism and value-independent shapes, checked on the smallest config (cheap on the CPU)
    smallest = min([seen[0]] + hidden, key=lambda c: c["work_bytes"])
    smallest = {k: v for k, v in smallest.items() if k in scaled}
    _, first, _ = run(smallest, domain=domain)
    _, again, _ = run(smallest, domain=domain)
    _, other, _ = run(smallest, seed=1, domain=domain)
    firsts, agains, others = ((o if isinstance(o, (tuple, list)) else (o,)) for o in (first, again, other))
    if not all(torch.equal(torch.nan_to_num(a), torch.nan_to_num(b)) for a, b in zip(firsts, agains)):
        raise _ProbeSkip("random-op", "two runs on the same inputs differ")
    if [tuple(o.shape) for o in firsts] != [tuple(o.shape) for o in others]:
        raise _ProbeSkip("data-dependent-shape", "other input values gave other output shapes")
    args, out, _ = run(scaled, domain=domain)
    outs = out if isinstance(out, (tuple, list)) else (out,)

    names = list(spec["input_names"])
    weight_names = [k.replace(".", "_") for k in ref.Model(*ref.init_for(ref._env(scaled))).state_dict()]
    size_names = list(ref.SIZES)
    arg_names, taken = [], set()
    for n in names + weight_names + size_names:
        while n in taken or not n.isidentifier():
            n = f"{n}_" if n.isidentifier() else "arg"
        taken.add(n)
        arg_names.append(n)
    described = []
    for i, (a, n) in enumerate(zip(args, arg_names)):
        kind = "input" if i < len(names) else "weight" if i < len(names) + len(weight_names) else "size"
        if isinstance(a, torch.Tensor):
            described.append({"name": n, "kind": kind, "shape": list(a.shape), "dtype": str(a.dtype)[6:]})
        else:
            described.append({"name": n, "kind": kind, "python": type(a).__name__, "value": a})
    floats = sorted((t for t in tensors(args) + tensors(outs) if t.is_floating_point()), key=lambda t: -t.nbytes)
    return {"ok": True, "seen": seen[0], "more_seen": seen[1:], "hidden": hidden, "args": described,
            "outputs": [{"shape": list(o.shape), "dtype": str(o.dtype)[6:]} for o in outs],
            "scaled": scaled != config, "domain": list(domain),
            "work_dtype": str(floats[0].dtype)[6:] if floats else None}


def _key(cfg: dict) -> tuple:
    return tuple(sorted((k, v) for k, v in cfg.items() if k != "name"))


# -- writing the task folders ---------------------------------------------------------------------
def _toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return repr(v) if math.isfinite(v) else ("inf" if v > 0 else "-inf") if not math.isnan(v) else "nan"
    return repr(v) if isinstance(v, int) else json.dumps(v)


def _configs_toml(configs: list[dict], comment: str) -> str:
    blocks = [f"# {comment}"]
    for c in configs:
        blocks.append("[[config]]\n" + "\n".join(f"{k} = {_toml_value(v)}" for k, v in c.items()))
    return "\n\n".join(blocks) + "\n"


_C_TYPES = {"float32": "float", "float64": "double", "int64": "int64_t", "int32": "int32_t", "int16": "int16_t",
            "int8": "int8_t", "uint8": "uint8_t", "bool": "bool"}


def _c_param(arg: dict) -> str:
    if "shape" in arg:
        ctype = _C_TYPES.get(arg["dtype"], "void")
        return f"const {ctype}* {arg['name']}"
    return f"{'float' if arg['python'] == 'float' else 'int64_t'} {arg['name']}"


def _shape(arg: dict) -> str:
    return f"{arg['dtype']} [{', '.join(map(str, arg['shape']))}]" if "shape" in arg else f"{arg['python']} = {arg['value']}"


def _cuda_stub(problem: Problem, result: dict, hip: bool) -> str:
    params = [_c_param(a) for a in result["args"]]
    params += [f"{_C_TYPES.get(o['dtype'], 'void')}* out{i}" for i, o in enumerate(result["outputs"])]
    params.append("void* stream")
    include = "#include <hip/hip_runtime.h>" if hip else "#include <cuda_runtime.h>"
    joined = ",\n                      ".join(params)
    used = " ".join(f"(void){p.split()[-1]};" for p in params)
    return f"""// KernelBench {problem.file}: see reference.py (the Model) and README.md (the argument order).
//
// Stub: compiles and launches nothing, so it fails the correctness check. Replace it with kernels.
{include}
#include <stdint.h>

extern "C" int launch({joined}) {{
    {used}
    return 0;
}}
"""


def _triton_stub(problem: Problem, result: dict) -> str:
    names = ", ".join(a["name"] for a in result["args"])
    return f'''"""KernelBench {problem.file} ("{problem.title}") in Triton -- write this.

forward({names}) must return what reference.py's reference() returns for the same arguments
(Model.forward with these weights); README.md lists the arguments and the output shapes.
"""
import torch
import triton
import triton.language as tl


def forward({names}):
    raise NotImplementedError("write Triton kernels and launch them here")
'''


def _readme(problem: Problem, result: dict, category: str, commit: str) -> str:
    rows = "\n".join(f"| {i} | `{a['name']}` | {a['kind']} | {_shape(a)} |" for i, a in enumerate(result["args"]))
    outs = "\n".join(f"| {i} | {o['dtype']} [{', '.join(map(str, o['shape']))}] |" for i, o in enumerate(result["outputs"]))
    if category == "torch2triton":
        entry = ("Triton (`kernel.py`): `forward(*args)` is called with the arguments below and returns the "
                 "output tensor (or a tuple, in the order below).")
    else:
        lang, ext = ("HIP", "kernel.hip") if category == "torch2hip" else ("CUDA", "kernel.cu")
        entry = (f"{lang} (`{ext}`): `extern \"C\" int launch(<the arguments below>, <one pointer per output>, "
                 f"void* stream)`. Tensors are device pointers (contiguous), ints `int64_t`, floats `float`; "
                 f"outputs are preallocated (contiguous, filled with garbage): write every element. Launch on "
                 f"`stream`; return 0 on success.")
    sizes = ", ".join(f"`{k}`" for k, _ in problem.config_items()) or "none"
    return f"""# {problem.title} (KernelBench {problem.file})

Imported from KernelBench (commit {commit}) by `gauntlet tasks import kernelbench`. `reference.py`
holds the problem's `Model` verbatim; your kernel is checked against `Model.forward` with the weights
you are given and timed against it.

## Entry point

{entry}

## Arguments, in order (shapes at the seen config)

The `get_inputs()` items, then the Model's parameters and buffers in `state_dict` order (drawn from
each config's seed: never assume their values), then the sizes ({sizes}) as numbers.

| # | name | kind | dtype [shape] / value |
|---|------|------|-----------------------|
{rows}

## Outputs

| # | dtype [shape] |
|---|---------------|
{outs}

## Sizes

`configs.toml` holds the seen sizes: KernelBench's, scaled down to fit a memory and time bound where
they did not. Hidden configs use other sizes (odd, smaller, other aspect ratios, primes): read every
extent from the size arguments or the tensors, never hard-code it. float32 means IEEE float32 (no
TF32); see docs/task-format.md, "Precision and tolerances".
"""


def _work_toml(result: dict) -> str:
    """[work]: the bytes and FLOPs the importer measured on each config (config keys work_bytes and
    work_flops, which make_inputs does not read), of the dtype of the call's largest float tensor."""
    from runner.tasks.work import DTYPES
    if result.get("work_dtype") not in DTYPES:
        return ""
    return f"""
# Bytes of every tensor of the call and the FLOPs torch counts, measured per config by the importer.
[work]
bytes = "work_bytes"
flops = "work_flops"
dtype = "{result['work_dtype']}"
"""


def _task_toml(problem: Problem, category: str, result: dict, commit: str, shared: bool = False) -> str:
    """task.toml of one category; `shared`: a torch2triton task extending the torch2cuda one (which
    holds the reference and configs) instead of holding a copy."""
    task_id = f"{category}/{problem.task_name}"
    source = source_toml("kernelbench", problem.file, f"level{problem.level}", commit)
    described = f"KernelBench {problem.file}: {problem.title}"
    suites = f'suites = ["kernelbench-level{problem.level}"]'
    if category == "torch2hip":
        return f"""id = "{task_id}"
category = "torch2hip"
{suites}
extends = "torch2cuda/{problem.task_name}"   # reference.py and both config files come from there
platforms = ["rocm"]
description = "{described}, as HIP kernels."

[workspace]
files = ["kernel.hip", "reference.py", "configs.toml", "README.md"]
editable = ["kernel.hip"]

[candidate]
entry = "kernel.hip"
symbol = "launch"
""" + source
    entry, symbol, platforms, lang = (("kernel.py", "forward", '["cuda", "rocm", "cpu"]', "Triton")
                                      if category == "torch2triton" else
                                      ("kernel.cu", "launch", '["cuda"]', "CUDA"))
    extends = (f'extends = "torch2cuda/{problem.task_name}"   # reference.py, both config files and [work] '
               "come from there\n" if shared else "")
    head = f"""id = "{task_id}"
category = "{category}"
{suites}
{extends}platforms = {platforms}
description = "{described}, as {lang} kernels."

[workspace]
files = ["{entry}", "reference.py", "configs.toml", "README.md"]
editable = ["{entry}"]

[candidate]
entry = "{entry}"
symbol = "{symbol}"
"""
    if shared:
        return head + source
    return head + """
[reference]
module = "reference.py"

[configs]
seen = "configs.toml"
hidden = "hidden/configs.toml"
""" + _work_toml(result) + source


def write_tasks(out: Path, problem: Problem, reference_text: str, result: dict, categories: list[str],
                commit: str) -> list[str]:
    """The task folders of one problem; returns their ids."""
    ids = []
    seen_name = "kernelbench-scaled" if result["scaled"] else "kernelbench"
    for category in categories:
        folder = out / category / problem.task_name
        if folder.exists():
            shutil.rmtree(folder)
        folder.mkdir(parents=True)
        shared = category == "torch2triton" and "torch2cuda" in categories
        (folder / "task.toml").write_text(_task_toml(problem, category, result, commit, shared))
        (folder / "README.md").write_text(_readme(problem, result, category, commit))
        if category == "torch2hip":
            (folder / "kernel.hip").write_text(_cuda_stub(problem, result, hip=True))
        elif shared:
            (folder / "kernel.py").write_text(_triton_stub(problem, result))
        else:
            (folder / "reference.py").write_text(reference_text.replace(
                "\nDOMAIN = ()", f"\nDOMAIN = {tuple(result['domain'])!r}", 1))
            (folder / "configs.toml").write_text(_configs_toml(
                [{"name": seen_name, **result["seen"]}, *result["more_seen"]],
                f"KernelBench {problem.file}: its sizes" + (", scaled down to the import's bounds"
                                                            if result["scaled"] else "")))
            (folder / "hidden").mkdir()
            (folder / "hidden" / "configs.toml").write_text(_configs_toml(
                result["hidden"], "generated by gauntlet tasks import kernelbench; each ran the reference on the CPU"))
            if category == "torch2triton":
                (folder / "kernel.py").write_text(_triton_stub(problem, result))
            else:
                (folder / "kernel.cu").write_text(_cuda_stub(problem, result, hip=False))
        ids.append(f"{category}/{problem.task_name}")
    return ids


# -- the command ----------------------------------------------------------------------------------
def _level_dir(checkout: Path, level: int) -> Path | None:
    for candidate in (checkout / "KernelBench" / f"level{level}", checkout / f"level{level}"):
        if candidate.is_dir():
            return candidate
    return None


def problem_files(checkout: Path, levels: list[int]) -> list[tuple[int, Path]]:
    files = []
    for level in levels:
        folder = _level_dir(checkout, level)
        if folder is None:
            raise KernelBenchImportError(f"{checkout}: KB_CHECKOUT: no KernelBench/level{level} (or level{level}) folder")
        numbered = sorted(folder.glob("*.py"), key=lambda p: (int(m.group(1)) if (m := re.match(r"(\d+)_", p.name))
                                                              else 10**9, p.name))
        files += [(level, p) for p in numbered]
    return files


def import_kernelbench(checkout: Path, levels: list[int], categories: list[str], out: Path,
                       limits: Limits = Limits(), echo=print, jobs: int = 1) -> dict:
    """Import every problem of the levels into `out`; returns (and writes) the report. The problems are
    checked by `jobs` child processes at once."""
    from concurrent.futures import ThreadPoolExecutor
    if "torch2hip" in categories and "torch2cuda" not in categories:
        raise KernelBenchImportError("--category: torch2hip extends the torch2cuda task; add --category torch2cuda")
    if not checkout.is_dir():
        raise KernelBenchImportError(f"{checkout}: KB_CHECKOUT: not a folder")
    files = problem_files(checkout, levels)
    ordered = [c for c in ("torch2cuda", "torch2triton", "torch2hip") if c in categories]
    commit = commit_of(checkout)
    out.mkdir(parents=True, exist_ok=True)
    parsed = [parse_problem(path, level) for level, path in files]
    echo(f"{len(parsed)} problems; checking {sum(isinstance(p, Problem) for p in parsed)} on the CPU "
         f"in {jobs} process(es)")
    with tempfile.TemporaryDirectory(prefix="kb-import-") as tmp:
        texts, specs = {}, {}
        for p in parsed:
            if isinstance(p, Problem):
                texts[p.file] = render_reference(p, commit)
                ref = Path(tmp) / f"{p.task_name}.py"
                ref.write_text(texts[p.file])
                specs[p.file] = _spec(ref, p, limits)
        names = list(specs)
        chunks = [names[i::jobs] for i in range(jobs)]
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            answered = pool.map(lambda chunk: dict(zip(chunk, probe_batch([specs[n] for n in chunk]))), chunks)
            results = {k: v for part in answered for k, v in part.items()}
    rows = []
    for p in parsed:
        if isinstance(p, Skip):
            row = {"level": p.level, "file": p.file, "status": "skipped", "reason": p.reason, "detail": p.detail}
        elif not results[p.file].get("ok"):
            r = results[p.file]
            row = {"level": p.level, "file": p.file, "status": "skipped", "reason": r["reason"],
                   "detail": r.get("detail", "")}
        else:
            r = results[p.file]
            ids = write_tasks(out, p, texts[p.file], r, ordered, commit)
            row = {"level": p.level, "file": p.file, "status": "imported", "tasks": ids, "seen": r["seen"],
                   "more_seen": len(r["more_seen"]), "hidden": len(r["hidden"]), "scaled": r["scaled"],
                   "domain": r["domain"]}
        rows.append(row)
        echo(f"{row['file']:72s} " + ("imported" if row["status"] == "imported"
                                      else f"skipped: {row['reason']} ({row['detail']})"[:120]))
    report = summarize(rows, commit, checkout, categories, limits)
    (out / REPORT_NAME).write_text(json.dumps(report, indent=2) + "\n")
    return report


def summarize(rows: list[dict], commit: str, checkout: Path, categories: list[str], limits: Limits) -> dict:
    per_level = count_rows(rows, lambda row: f"level{row['level']}", total_key="problems")
    return {"kernelbench_commit": commit, "checkout": str(checkout), "categories": categories,
            "limits": {"max_mib": limits.max_bytes / 2**20, "max_gflop": limits.max_flops / 1e9},
            "levels": per_level, "problems": rows}


def summary_table(report: dict) -> str:
    return counts_table(report["levels"], "level", total_key="problems")


def _answer(spec: dict) -> dict:
    import signal

    def too_long(*_):
        raise _TooLong()
    signal.signal(signal.SIGALRM, too_long)
    signal.alarm(PROBE_TIMEOUT_S)
    try:
        return _probe_main(spec)
    except _ProbeSkip as skip:
        return {"ok": False, "reason": skip.reason, "detail": skip.detail}
    except _TooLong:
        return {"ok": False, "reason": "probe-failed", "detail": f"no answer in {PROBE_TIMEOUT_S} s"}
    except Exception as exc:  # noqa: BLE001 -- the problem's own code may raise anything
        return {"ok": False, "reason": "reference-fails", "detail": f"{type(exc).__name__}: {str(exc)[:160]}"}
    finally:
        signal.alarm(0)


def main(argv: list[str]) -> int:
    specs_file, report = argv
    with open(report, "a") as out:
        for spec in json.loads(Path(specs_file).read_text()):
            out.write(json.dumps(_answer(spec), default=str) + "\n")
            out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
