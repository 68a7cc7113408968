"""`gauntlet tasks import aka`: AgentKernelArena task folders (github.com/AMD-AGI/AgentKernelArena) as
Gauntlet task folders.

An AKA task is a folder under `tasks/` holding a `config.yaml` (its `task_type`, the editable
`source_file_path`, compile / correctness / performance commands) and the scripts those commands
run. What maps mechanically is a Triton->Triton task whose correctness command is
`python3 scripts/task_runner.py correctness` (the vLLM suite's layout): the runner's
`run_correctness()` loops over a module-level `TEST_SHAPES` list, builds inputs, calls one function
of the editable source (`result = mod.fn(...)`), computes a PyTorch reference and compares with
`torch.allclose(result, ref, atol=, rtol=)` or `torch.equal`. Read with `ast` only, that loop
becomes reference.py:

- `make_inputs(config, generator, device)`: the loop's statements before the call, verbatim (on the
  CPU, with torch's global RNG seeded from the config's generator: runner/taskkit.global_rng), then
  the call's arguments in the function's parameter order, moved to `device`;
- `reference(*args)`: the statements after the call that compute the reference, with the call's
  argument names bound to `args`, returning what the check compared the output(s) with;
- the runner's module-level helpers those statements use (its `reference_*` functions), verbatim.

The seen configs are `TEST_SHAPES` (one per entry, keyed by the loop's names), the tolerance the
check's atol/rtol (`torch.equal`: exact). AKA keeps its held-out shapes private (`held_out_tests/`
is git-ignored), so each task gets a `[space]` from its seen values (constrained to the divisions its
inputs make, exact in every seen config: _divisions) and hidden configs drawn from it
(runner/tasks/configspace.py), kept only where the reference runs on the CPU
(runner/tasks/refcheck.py, the check `gauntlet tasks validate` makes). The task records its origin in
`[source]` (benchmark "aka", the AKA path, AKA's task_type as category).

hip2hip and torch2hip tasks checked by AKA's `eval_tools/correctness_check.py` (a PyTorch C++
extension's `forward` against an `nn.Module`) map to `[candidate] kind = "torch-extension"` tasks:
runner/tasks/importers/aka_hip.py says how.

Everything else is skipped with one reason per task (REASONS); the summary and `aka-import.json`
count them per AKA category.
"""
from __future__ import annotations

import ast
import builtins
import copy
import json
import math
import re
import shutil
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

from runner.tasks.importers import aka_hip
from runner.tasks.importers.common import commit_of, count_rows, counts_table, source_toml

REPORT_NAME = "aka-import.json"
N_HIDDEN = 4          # hidden configs per task: drawn from its [space], kept where the reference runs
DRAW_SEED = 0

# Skip reasons, stable keys of the report (docs/importers.md explains each).
REASONS = {
    "flydsl": "a FlyDSL task (torch2flydsl, triton2flydsl, flydsl2flydsl): no FlyDSL candidate contract",
    "image-bound": "image_kernel: the sources live in AKA's container image",
    "repository": "repository task: needs a clone of an upstream repository and its build",
    "no-target-category": "task type with no Gauntlet category (instruction2triton: no kernel to start from)",
    "torch-extension": "a PyTorch C++ extension task whose correctness command is not AKA's "
                       "eval_tools/correctness_check.py with a module, a functional and a HIP file",
    "native-harness": "HIP built and checked by its own Makefile / test program, not a PyTorch reference",
    "pytest-harness": "kernel and its pytest checks share one file (ROCmBench): no separate reference",
    "geak-harness": "the reference and configs live in the editable kernel.py (GEAK harness)",
    "platform-skip": "AKA marks the task skipped (platform_support.status: skip)",
    "no-task-runner": "the correctness command is not `scripts/task_runner.py correctness`",
    "no-test-shapes": "no module-level TEST_SHAPES list of scalar tuples",
    "check-not-expressible": "run_correctness is not one loop that calls one source function and "
                             "compares its output(s) with a reference",
    "in-place-output": "the checked output is an argument the function writes in place (the judge "
                       "compares return values)",
    "reference-reads-sizes": "the reference reads a loop size or an input-building intermediate, "
                             "not only the function's arguments",
    "candidate-helper": "inputs or reference call another function of the editable source",
    "mixed-tolerances": "the check compares outputs with different atol/rtol (Gauntlet has one pair per dtype)",
    "equal-nan": "the check lets NaN equal NaN (Gauntlet never passes NaN)",
    "other-library": "the reference code imports a library other than torch and the standard library",
    "non-tensor-argument": "the function takes an argument that is not a tensor, int, float or bool "
                           "(a dtype, None): the judge passes only those",
    "reference-fails": "the generated reference raises on the CPU on a seen config",
    "no-hidden-config": "no hidden config drawn from the task's [space] runs the reference on the CPU",
    **aka_hip.REASONS,
}

_SKIP_BY_TYPE = {"torch2flydsl": "flydsl", "triton2flydsl": "flydsl", "flydsl2flydsl": "flydsl",
                 "image_kernel": "image-bound", "repository": "repository",
                 "instruction2triton": "no-target-category"}
_RUNNER = re.compile(r"^python3?\s+(scripts/task_runner\.py)\s+correctness\s*$")
_SYNC = {"torch.cuda.synchronize()", "torch.manual_seed"}
# what the check compared may be the output seen through these (AKA compares result.float() etc.)
_VIEWS = {"float", "cpu", "contiguous", "cuda", "double"}
_DTYPE_VIEWS = ("float", "double")         # those of _VIEWS that change the dtype
# what a function's return may alias an argument through: indexing, and these methods and attributes
_ALIAS_CALLS = {"view", "view_as", "reshape", "reshape_as", "t", "transpose", "permute", "squeeze", "unsqueeze",
                "narrow", "expand", "expand_as", "flatten", "unflatten", "movedim", "moveaxis", "swapaxes",
                "swapdims", "select", "as_strided", "detach", "contiguous", "to", "type", "float", "double",
                "half", "bfloat16", "int", "long", "short", "bool", "split", "chunk", "unbind", "diagonal",
                "squeeze_", "unsqueeze_", "transpose_", "t_", "view_as_real", "view_as_complex", "requires_grad_"}
_ALIAS_ATTRS = {"T", "mT", "H", "mH", "data", "real", "imag"}
_ALLOWED_IMPORTS = {"torch", "math", "itertools", "functools", "collections", "typing", "random", "operator"}
_BUILTINS = set(dir(builtins))


class AkaImportError(ValueError):
    """Bad user input to the importer: one line naming the path or option."""


@dataclass(frozen=True)
class AkaTask:
    path: str                 # relative to tasks/, e.g. triton2triton/vllm/triton_rms_norm
    category: str             # AKA's task_type
    folder: Path
    config: dict

    @property
    def name(self) -> str:
        """The Gauntlet folder name: the AKA path below its category, `/` as `_`."""
        rest = self.path.split("/", 1)[1] if "/" in self.path else self.path
        return re.sub(r"[^A-Za-z0-9_.-]+", "_", rest.replace("/", "_"))


@dataclass(frozen=True)
class Skip:
    reason: str
    detail: str = ""


@dataclass
class Mapped:
    """A Triton task read out of its task_runner: everything the task folder is written from."""
    source_rel: str
    symbol: str
    keys: list[str]
    seen: list[dict]
    reference_py: str
    atol: float
    rtol: float
    instructions: str
    outputs: int
    written: list[int] = field(default_factory=list)   # positions of the arguments the function writes in place
    # positions of the arguments the function's return may be (a view of): it is called on copies
    returned_args: list[int] = field(default_factory=list)
    # per output: the dtype conversions AKA's check applied to it and not to the reference
    # (`allclose(out.float(), ref)`), innermost first
    casts: list[list[str]] = field(default_factory=list)
    # `a % b == 0` for each `a // b` of config keys (or a key by a literal) in the statements that
    # build the inputs, where every seen config divides exactly: drawn configs must too (_divisions)
    constraints: list[str] = field(default_factory=list)

    @property
    def copied(self) -> list[int]:
        """The arguments the entry passes as copies: those the function writes, or may return."""
        return sorted(set(self.written) | set(self.returned_args))

    @property
    def needs_entry(self) -> bool:
        return bool(self.copied or any(self.casts))


# -- listing ------------------------------------------------------------------------------------
def list_tasks(checkout: Path, categories: list[str]) -> list[AkaTask]:
    import yaml
    root = checkout / "tasks"
    if not root.is_dir():
        raise AkaImportError(f"{checkout}: AKA_CHECKOUT: no tasks/ folder")
    found = []
    for cfg in sorted(root.rglob("config.yaml")):
        rel = cfg.parent.relative_to(root).as_posix()
        try:
            data = yaml.safe_load(cfg.read_text()) or {}
        except (OSError, yaml.YAMLError) as exc:
            data = {"_error": f"{type(exc).__name__}: {str(exc)[:120]}"}
        if not isinstance(data, dict):
            data = {"_error": "config.yaml is not a mapping"}
        category = data.get("task_type") if isinstance(data.get("task_type"), str) else rel.split("/")[0]
        if categories and category not in categories:
            continue
        found.append(AkaTask(path=rel, category=category, folder=cfg.parent, config=data))
    if categories and not found:
        raise AkaImportError(f"{root}: --category {', '.join(categories)}: no task of that type")
    return found


# -- reading one task (ast only) -----------------------------------------------------------------
def _static_skip(task: AkaTask) -> Skip | None:
    cfg = task.config
    if "_error" in cfg:
        return Skip("check-not-expressible", f"config.yaml: {cfg['_error']}")
    if task.category in _SKIP_BY_TYPE:
        return Skip(_SKIP_BY_TYPE[task.category])
    if (cfg.get("platform_support") or {}).get("status") == "skip":
        return Skip("platform-skip", str((cfg.get("platform_support") or {}).get("skip_reason", ""))[:120])
    if task.category in aka_hip.HIP_CATEGORIES and aka_hip.is_extension_task(cfg):
        return None                  # aka_hip.static_map reads it
    if task.category in ("hip2hip", "torch2hip", "cuda2hip"):
        sources = [task.folder / s for s in _as_list(cfg.get("source_file_path"))]
        commands = " ; ".join(_as_list(cfg.get("correctness_command")))
        if any("torch/extension.h" in _text(s) or "PYBIND11_MODULE" in _text(s) for s in sources) \
                or "eval_tools/correctness_check.py" in commands:
            return Skip("torch-extension", ", ".join(s.name for s in sources))
        return Skip("native-harness", " ; ".join(_as_list(cfg.get("correctness_command")))[:120])
    if task.category != "triton2triton":
        return Skip("no-target-category", task.category)
    if cfg.get("harness_path"):
        return Skip("geak-harness", str(cfg["harness_path"]))
    commands = _as_list(cfg.get("correctness_command"))
    if any("pytest" in c for c in commands):
        return Skip("pytest-harness", commands[0][:120])
    if len(commands) != 1 or not _RUNNER.match(commands[0].strip()):
        return Skip("no-task-runner", " ; ".join(commands)[:120])
    return None


def _as_list(value) -> list[str]:
    if value is None:
        return []
    return [str(v) for v in value] if isinstance(value, list) else [str(value)]


def _text(path: Path) -> str:
    try:
        return path.read_text(errors="replace")
    except OSError:
        return ""


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _stored(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))}


def _root(node: ast.AST) -> str | None:
    while isinstance(node, (ast.Subscript, ast.Attribute, ast.Call)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


def _writes(stmt: ast.AST, defs: dict[str, ast.stmt] | None = None) -> set[str]:
    """Names a statement binds or changes: assigned, an item or attribute assigned (`ref[i] = v`), a
    method called on them as a statement (`ref.fill_(0)`, `rows.append(r)`), or an argument of a
    function called as a statement (its result unused: it works in place, as vLLM's
    `reference_reshape_and_cache(key, value, key_cache_ref, ...)`): the arguments the runner's own
    function (`defs`) writes in its body, every argument when its body is not there to read."""
    out = set(_stored(stmt))
    for n in ast.walk(stmt):
        if isinstance(n, (ast.Subscript, ast.Attribute)) and isinstance(n.ctx, (ast.Store, ast.Del)):
            out.add(_root(n))
        elif isinstance(n, ast.Expr) and isinstance(n.value, ast.Call) and isinstance(n.value.func, ast.Attribute):
            out.add(_root(n.value.func))
        elif isinstance(n, ast.Expr) and isinstance(n.value, ast.Call) and isinstance(n.value.func, ast.Name):
            out |= _written_arguments(n.value, (defs or {}).get(n.value.func.id))
    return out - {None}


def _written_arguments(call: ast.Call, fn: ast.stmt | None) -> set[str]:
    """The names passed to `call` that its function `fn` may change (all of them when `fn` is not a
    function of the runner's to read)."""
    passed = [(i, a) for i, a in enumerate(call.args)] + [(k.arg, k.value) for k in call.keywords if k.arg]
    if not isinstance(fn, ast.FunctionDef):
        return {_root(a) for _, a in passed}
    params = [a.arg for a in fn.args.posonlyargs + fn.args.args]
    changed = set().union(*(_writes(s) for s in fn.body))
    return {_root(a) for key, a in passed
            if (params[key] if isinstance(key, int) and key < len(params) else key) in changed}


def _calls_mod(node: ast.AST) -> list[ast.Call]:
    return [n for n in ast.walk(node) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
            and isinstance(n.func.value, ast.Name) and n.func.value.id == "mod"]


def _comparison(node: ast.AST) -> ast.Call | None:
    """The torch.allclose / torch.equal call a statement checks, if any."""
    for n in ast.walk(node):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("allclose", "equal") \
                and isinstance(n.func.value, ast.Name) and n.func.value.id == "torch":
            return n
    return None


def _strip_views(node: ast.expr) -> tuple[ast.expr, list[str]]:
    """`x.float().cpu()` -> (x, ["cpu", "float"])."""
    views = []
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _VIEWS \
            and not node.args and not node.keywords:
        views.append(node.func.attr)
        node = node.func.value
    return node, views


def _tolerance(call: ast.Call) -> tuple[float, float, bool] | Skip:
    """(atol, rtol, equal_nan) of a torch.allclose / torch.equal call."""
    if call.func.attr == "equal":
        return 0.0, 0.0, False
    values = {"rtol": 1e-5, "atol": 1e-8, "equal_nan": False}       # torch.allclose's defaults
    for name, arg in zip(("rtol", "atol", "equal_nan"), call.args[2:]):
        values[name] = arg
    for kw in call.keywords:
        values[kw.arg] = kw.value
    out = {}
    for k, v in values.items():
        if isinstance(v, ast.AST):
            try:
                v = ast.literal_eval(v)
            except ValueError:
                return Skip("check-not-expressible", f"{k} is not a literal: {ast.unparse(v)}")
        out[k] = v
    return float(out["atol"]), float(out["rtol"]), bool(out["equal_nan"])


class _OnDevice(ast.NodeTransformer):
    """AKA's inputs are made on "cuda": make them on the local `device` (the CPU in make_inputs)."""

    def visit_Constant(self, node):
        if node.value == "cuda":
            return ast.copy_location(ast.Name("device", ast.Load()), node)
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        if isinstance(node.func, ast.Attribute) and node.func.attr == "cuda" and not node.args:
            node.func.attr = "to"
            node.args = [ast.Name("device", ast.Load())]
        return node


class _Rename(ast.NodeTransformer):
    def __init__(self, names: dict[str, str]):
        self.names = names

    def visit_Name(self, node):
        node.id = self.names.get(node.id, node.id)
        return node

    def visit_FunctionDef(self, node):
        self.generic_visit(node)
        node.name = self.names.get(node.name, node.name)
        return node


def _is_noise(stmt: ast.stmt) -> bool:
    """torch.cuda.synchronize() and torch.manual_seed(...): the judge synchronises and seeds itself;
    print(...) says nothing the judge reads (and, called as a statement, would read as writing its
    arguments: _writes)."""
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        text = ast.unparse(stmt.value.func)
        return text in ("torch.cuda.synchronize", "torch.manual_seed", "torch.cuda.manual_seed", "print")
    return False


def _signature(source: ast.Module, name: str) -> list[str] | None:
    for node in source.body:
        if isinstance(node, ast.FunctionDef) and node.name == name:
            a = node.args
            if a.vararg or a.kwarg:
                return None
            return [p.arg for p in (*a.posonlyargs, *a.args)] + [p.arg for p in a.kwonlyargs]
    return None


def parse_runner(task: AkaTask) -> Mapped | Skip:
    """Map a task_runner.py task (see the module docstring) or say why not."""
    skip = _static_skip(task)
    if skip:
        return skip
    if task.category in aka_hip.HIP_CATEGORIES:
        found = aka_hip.static_map(task)
        return Skip(*found) if isinstance(found, tuple) else found
    sources = _as_list(task.config.get("source_file_path"))
    if len(sources) != 1 or not sources[0].endswith(".py") or not (task.folder / sources[0]).is_file():
        return Skip("check-not-expressible", f"source_file_path {sources}: not one Python file")
    runner_rel = _RUNNER.match(_as_list(task.config["correctness_command"])[0].strip()).group(1)
    runner_file = task.folder / runner_rel
    try:
        tree = ast.parse(runner_file.read_text())
        source_tree = ast.parse((task.folder / sources[0]).read_text())
    except (OSError, SyntaxError, ValueError) as exc:
        return Skip("no-task-runner", f"{runner_rel}: {type(exc).__name__}")
    top = {n.name: n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    check = top.get("run_correctness")
    if not isinstance(check, ast.FunctionDef):
        return Skip("check-not-expressible", "no run_correctness()")
    loops = [n for n in check.body if isinstance(n, (ast.For, ast.While))]
    if len(loops) != 1 or not isinstance(loops[0], ast.For):
        return Skip("check-not-expressible", f"{len(loops)} loops in run_correctness (one over the shapes expected)")
    loop = loops[0]

    # the loop: `for i, (a, b) in enumerate(TEST_SHAPES)` or `for (a, b) in TEST_SHAPES`
    it, target, index = loop.iter, loop.target, None
    if isinstance(it, ast.Call) and ast.unparse(it.func) == "enumerate" and len(it.args) == 1 \
            and isinstance(target, ast.Tuple) and len(target.elts) == 2 and isinstance(target.elts[0], ast.Name):
        index, target, it = target.elts[0].id, target.elts[1], it.args[0]
    if not (isinstance(it, ast.Name) and it.id == "TEST_SHAPES"):
        return Skip("no-test-shapes", f"loops over {ast.unparse(it)[:60]}")
    shapes = None
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "TEST_SHAPES" for t in node.targets):
            try:
                shapes = ast.literal_eval(node.value)
            except ValueError:
                return Skip("no-test-shapes", "TEST_SHAPES is not a literal")
    if not isinstance(shapes, list) or not shapes:
        return Skip("no-test-shapes", "no module-level TEST_SHAPES list")
    if isinstance(target, ast.Name):
        keys, rows = [target.id], [(s,) for s in shapes]
    elif isinstance(target, ast.Tuple) and all(isinstance(e, ast.Name) for e in target.elts):
        keys, rows = [e.id for e in target.elts], shapes
    else:
        return Skip("check-not-expressible", f"loop target {ast.unparse(target)}")
    if "name" in keys or any(not isinstance(r, (tuple, list)) or len(r) != len(keys)
                             or any(isinstance(v, (tuple, list, dict)) or v is None for v in r) for r in rows):
        return Skip("no-test-shapes", "TEST_SHAPES entries are not tuples of scalars matching the loop")
    seen = [dict(zip(keys, r)) for r in rows]

    # the body: prefix (inputs) ; out = mod.fn(...) ; suffix (reference) with the comparisons
    body = loop.body
    if len(body) == 1 and isinstance(body[0], ast.Try):
        body = body[0].body
    body = [s for s in body if not _is_noise(s)]
    calls = [(i, s) for i, s in enumerate(body) if _calls_mod(s)]
    if len(calls) != 1:
        return Skip("candidate-helper" if len(calls) > 1 else "check-not-expressible",
                    f"{len(calls)} statements call the source module")
    k, stmt = calls[0]
    in_place = isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and _calls_mod(stmt.value) == [stmt.value]
    if not in_place and not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
                             and isinstance(stmt.value, ast.Call) and _calls_mod(stmt.value) == [stmt.value]):
        return Skip("check-not-expressible", f"the call is not `[out =] mod.fn(...)`: {ast.unparse(stmt)[:80]}")
    call = stmt.value
    symbol = call.func.attr
    params = _signature(source_tree, symbol)
    if params is None:
        return Skip("check-not-expressible", f"{sources[0]} has no plain top-level def {symbol}()")
    if any(isinstance(a, ast.Starred) for a in call.args) or any(kw.arg is None for kw in call.keywords):
        return Skip("check-not-expressible", "the call unpacks *args / **kwargs")
    positional = {i: a for i, a in enumerate(call.args)}
    for kw in call.keywords:
        if kw.arg not in params:
            return Skip("check-not-expressible", f"{symbol}() has no parameter {kw.arg}")
        positional[params.index(kw.arg)] = kw.value
    if sorted(positional) != list(range(len(positional))):
        return Skip("check-not-expressible", f"the call's keywords leave a gap in {symbol}()'s parameters")
    args = [positional[i] for i in range(len(positional))]
    arg_names = [a.id if isinstance(a, ast.Name) else None for a in args]
    if in_place:        # the outputs are the arguments the check compares after the call
        outputs = []
    elif isinstance(stmt.targets[0], ast.Name):
        outputs = [stmt.targets[0].id]
    elif isinstance(stmt.targets[0], ast.Tuple) and all(isinstance(e, ast.Name) for e in stmt.targets[0].elts):
        outputs = [e.id for e in stmt.targets[0].elts]
    else:
        return Skip("check-not-expressible", f"output target {ast.unparse(stmt.targets[0])}")

    # the comparisons after the call; names that are an output seen through a view (r_cpu = result.cpu())
    candidates = set(outputs) if not in_place else {n for n in arg_names if n}
    aliases = {o: o for o in candidates}
    compared: dict[str, ast.expr] = {}
    casts: dict[str, list[str]] = {}
    pool, tolerances = list(enumerate(body[:k])), set()     # statements the inputs and reference are sliced from
    for j, s in enumerate(body[k + 1:], start=k + 1):
        cmp = _comparison(s)
        if cmp is not None:
            if len(cmp.args) < 2:
                return Skip("check-not-expressible", ast.unparse(cmp)[:80])
            got, views = _strip_views(cmp.args[0])
            want, want_views = _strip_views(cmp.args[1])
            if not (isinstance(got, ast.Name) and got.id in aliases):
                got, want, views, want_views = want, got, want_views, views     # allclose(ref, out)
            if not (isinstance(got, ast.Name) and got.id in aliases):
                return Skip("check-not-expressible", f"compares {ast.unparse(cmp.args[0])[:60]}, not an output")
            name = aliases[got.id]
            if name in compared:
                return Skip("check-not-expressible", f"{name} is compared twice")
            tol = _tolerance(cmp)
            if isinstance(tol, Skip):
                return tol
            if tol[2]:
                return Skip("equal-nan", ast.unparse(cmp)[:80])
            tolerances.add(tol[:2])
            # `want` seen through the output's own views is the output's form (ref.float() against
            # out.float()); views only on `want` (ref.cpu()) are kept
            compared[name] = want if want_views == views or not want_views else cmp.args[1]
            # the output seen through a dtype view the reference is not (`allclose(out.float(), ref)`):
            # AKA compared the converted output, so the entry returns it converted (torch.allclose
            # refuses two dtypes: what AKA compared agrees in dtype, the raw output may not)
            casts[name] = [] if want_views == views else [v for v in reversed(views) if v in _DTYPE_VIEWS]
            if in_place:
                outputs.append(name)
            continue
        if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name):
            base, views = _strip_views(s.value)
            if isinstance(base, ast.Name) and base.id in aliases and (views or base.id != s.targets[0].id):
                aliases[s.targets[0].id] = aliases[base.id]
                continue
        pool.append((j, s))
    if not outputs:
        return Skip("check-not-expressible", "compares nothing the call returns or writes")
    if set(compared) != set(outputs):
        missing = sorted(set(outputs) - set(compared))
        return Skip("check-not-expressible", f"output(s) {', '.join(missing)} never compared")
    if len(tolerances) > 1:
        return Skip("mixed-tolerances", ", ".join(f"atol={a} rtol={r}" for a, r in sorted(tolerances)))
    atol, rtol = tolerances.pop()

    module_defs = _module_defs(tree)
    pre_loop = [s for s in check.body[:check.body.index(loop)]
                if isinstance(s, (ast.Assign, ast.Import, ast.ImportFrom)) and not _calls_mod(s)
                and "mod" not in _stored(s)]
    for s in pre_loop:
        if isinstance(s, (ast.Import, ast.ImportFrom)):
            mods = [s.module or ""] if isinstance(s, ast.ImportFrom) else [a.name for a in s.names]
            if any(m.split(".")[0] not in _ALLOWED_IMPORTS for m in mods):
                return Skip("other-library", ast.unparse(s))
    hoisted = {n for s in pre_loop for n in _stored(s)} | {(a.asname or a.name).split(".")[0] for s in pre_loop
                                                           if isinstance(s, (ast.Import, ast.ImportFrom)) for a in s.names}
    # make_inputs: the statements before the call that the arguments need; reference: the statements
    # (before or after the call) that what the check compared needs, reading only the arguments
    inputs = [s for _, s in _slice([(j, s) for j, s in pool if j < k], set().union(*(_names(a) for a in args)), set(),
                                   module_defs)]
    wanted = [compared[o] for o in outputs]
    stop = {n for n in arg_names if n}
    positioned = _slice(pool, set().union(*(_names(w) for w in wanted)), stop, module_defs)
    ref_slice = [s for _, s in positioned]
    if any(_writes(s, module_defs) & stop for s in ref_slice):
        return Skip("check-not-expressible", "the reference changes an argument of the call")
    checked = {a for a, o in aliases.items() if o in compared}
    if any(_names(s) & checked for j, s in positioned if j > k):     # after the call: the output's values
        return Skip("check-not-expressible", "the reference reads the checked output")
    defined = {n for s in ref_slice for n in _stored(s)}
    free = set().union(*(_names(n) for n in [*ref_slice, *wanted])) - defined - stop
    if index and (index in free or any(index in _names(n) for n in [*inputs, *args])):
        return Skip("reference-reads-sizes", f"uses the loop index {index}")
    body_defined = {n for _, s in pool for n in _stored(s)}
    reads = sorted(n for n in free if n in keys or n in body_defined)
    if reads:
        return Skip("reference-reads-sizes", ", ".join(reads)[:80])
    for node in [*inputs, *ref_slice, *args, *wanted]:
        if _calls_mod(node):
            return Skip("candidate-helper", ast.unparse(node)[:80])
    needed = set().union(*(_names(n) for n in [*inputs, *args, *ref_slice, *wanted, *pre_loop]))
    helpers, problem = _closure(needed, module_defs)
    if problem:
        return problem
    unknown = sorted(n for n in needed - hoisted - set(keys) - body_defined - set(module_defs)
                     - _BUILTINS - {"torch", "device"} - stop)
    if unknown:
        return Skip("check-not-expressible", f"reads names defined elsewhere: {', '.join(unknown)[:80]}")
    prefix, suffix = inputs, ref_slice
    text = _render_reference(task, runner_rel, helpers, module_defs, pre_loop, keys, prefix, args, arg_names,
                             suffix, [compared[o] for o in outputs])
    instructions = ((task.config.get("prompt") or {}).get("instructions") or "") if isinstance(
        task.config.get("prompt"), dict) else ""
    return Mapped(source_rel=sources[0], symbol=symbol, keys=keys, seen=seen, reference_py=text, atol=atol,
                  rtol=rtol, instructions=str(instructions), outputs=len(outputs),
                  written=[arg_names.index(o) for o in outputs] if in_place else [],
                  returned_args=[] if in_place else _returned_args(source_tree, symbol, len(args)),
                  casts=[casts[o] for o in outputs],
                  constraints=_divisions([*inputs, *args], set(keys) - body_defined, seen))


def _divisions(nodes: list[ast.AST], keys: set[str], seen: list[dict]) -> list[str]:
    """`a % b == 0` for each `a // b` in the statements that build the inputs, `a` a config key and
    `b` a key or a positive int literal, that every seen config divides exactly.

    AKA's inputs are sized by such quotients (`num_groups = K // group_size`: scales of shape
    [E, K // group_size, N]); every shape AKA tried divides exactly, and its kernels index as if it
    did. A [space] draws the shape keys and picks each fixed key's value on its own, so without the
    relation it draws K=64 with group_size=128 (no group at all: vLLM's fused_moe_gptq_awq read past
    its scales, an illegal address on the H200) or K=320 with 128 (a partial group)."""
    found = []
    for node in nodes:
        for n in ast.walk(node):
            if not (isinstance(n, ast.BinOp) and isinstance(n.op, ast.FloorDiv)
                    and isinstance(n.left, ast.Name) and n.left.id in keys):
                continue
            right = n.right
            if isinstance(right, ast.Name) and right.id in keys and right.id != n.left.id:
                divisor = right.id
            elif isinstance(right, ast.Constant) and type(right.value) is int and right.value > 1:
                divisor = right.value
            else:
                continue
            text = f"{n.left.id} % {divisor} == 0"
            if text in found:
                continue

            def exact(c: dict) -> bool:
                a, b = c[n.left.id], c[divisor] if isinstance(divisor, str) else divisor
                return type(a) is int and type(b) is int and b > 0 and a % b == 0
            if all(exact(c) for c in seen):
                found.append(text)
    return found


def _own_nodes(fn: ast.FunctionDef):
    """The nodes of a function's body, not those of the functions, lambdas and classes inside it."""
    todo = list(fn.body)
    while todo:
        node = todo.pop()
        yield node
        todo += [c for c in ast.iter_child_nodes(node)
                 if not isinstance(c, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef))]


def _alias_roots(node: ast.expr) -> list[str]:
    """The names an expression may be (a view of): `dst[:n]`, `x.view(-1)`, `out.T`, `a if c else b`."""
    if isinstance(node, ast.IfExp):
        return _alias_roots(node.body) + _alias_roots(node.orelse)
    if isinstance(node, (ast.Tuple, ast.List)):
        return [r for e in node.elts for r in _alias_roots(e)]
    while True:
        if isinstance(node, ast.Subscript) or (isinstance(node, ast.Attribute) and node.attr in _ALIAS_ATTRS):
            node = node.value
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _ALIAS_CALLS:
            node = node.func.value
        else:
            break
    return [node.id] if isinstance(node, ast.Name) else []


def _returned_args(source: ast.Module, name: str, n_args: int) -> list[int]:
    """Positions (below `n_args`, those the check passes) of the parameters of `name` that what it
    returns may be, or be a view of (`return dst[:n]`; `out = dst.view(-1) ... return out`), read
    from its body: the judge refuses an output that shares an input's memory, and a function that
    returns its argument has usually written it. Conservative: a parameter rebound to a new tensor
    (`if out is None: out = torch.empty(...)`) still counts."""
    fn = next((n for n in source.body if isinstance(n, ast.FunctionDef) and n.name == name), None)
    if fn is None:
        return []
    params = [p.arg for p in (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs)]
    aliases = {p: {p} for p in params}
    nodes = list(_own_nodes(fn))
    changed = True
    while changed:             # local names bound to (a view of) a parameter, to a fixed point
        changed = False
        for node in nodes:
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                found = set().union(*(aliases.get(r, set()) for r in _alias_roots(node.value)))
                for t in targets:
                    if isinstance(t, ast.Name) and not found <= aliases.get(t.id, set()):
                        aliases[t.id] = aliases.get(t.id, set()) | found
                        changed = True
    returned = set()
    for node in nodes:
        if isinstance(node, ast.Return) and node.value is not None:
            for root in _alias_roots(node.value):
                returned |= aliases.get(root, set())
    return sorted(i for i, p in enumerate(params) if p in returned and i < n_args)


def _slice(pool: list[tuple[int, ast.stmt]], needed: set[str], stop: set[str],
           defs: dict[str, ast.stmt] | None = None) -> list[tuple[int, ast.stmt]]:
    """The statements of `pool` (position, statement) that compute `needed`, walking back from the
    last; names in `stop` are given (the call's arguments), never computed."""
    needed = set(needed) - stop
    chosen = []
    for j, s in sorted(pool, key=lambda js: -js[0]):
        if _writes(s, defs) & needed:
            chosen.append((j, s))
            needed = (needed - _stored(s)) | (_names(s) - stop)
    return chosen[::-1]


def _module_defs(tree: ast.Module) -> dict[str, ast.stmt]:
    """Module-level functions, classes, imports and constants of the runner (not its machinery)."""
    skip = {"run_compile", "run_correctness", "run_performance", "main", "load_module",
            "_benchmark_cuda_graph_or_events", "_measure_cuda_event_fallback", "TASK_DIR", "SOURCE_FILE",
            "TASK_NAME", "TEST_SHAPES"}
    defs: dict[str, ast.stmt] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names = {node.name}
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names = {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, ast.Assign):
            names = _stored(node)
        else:
            continue
        for n in names - skip:
            defs[n] = node
    return defs


def _closure(needed: set[str], defs: dict[str, ast.stmt]) -> tuple[list[ast.stmt], Skip | None]:
    """The runner's module-level statements `needed` reaches (functions calling helpers, imports),
    in file order; a Skip if one imports another library or loads the candidate."""
    todo, chosen = [n for n in needed if n in defs], []
    while todo:
        node = defs[todo.pop()]
        if node in chosen:
            continue
        chosen.append(node)
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            mods = [node.module or ""] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
            if any(m.split(".")[0] not in _ALLOWED_IMPORTS for m in mods):
                return [], Skip("other-library", ast.unparse(node))
            continue
        inner = _names(node)
        for sub in ast.walk(node):
            if isinstance(sub, (ast.Import, ast.ImportFrom)):
                mods = [sub.module or ""] if isinstance(sub, ast.ImportFrom) else [a.name for a in sub.names]
                if any(m.split(".")[0] not in _ALLOWED_IMPORTS for m in mods):
                    return [], Skip("other-library", ast.unparse(sub))
        if {"load_module", "mod", "SOURCE_FILE"} & inner:
            return [], Skip("candidate-helper", f"{getattr(node, 'name', '?')} loads the source module")
        todo += [n for n in inner if n in defs and defs[n] not in chosen]
    order = list(defs.values())
    unique = []
    for node in sorted(chosen, key=lambda n: n.lineno):
        if node not in unique and node in order:
            unique.append(node)
    return unique, None


def _indent(statements: list[ast.stmt], depth: int) -> str:
    pad = " " * depth
    return "\n".join(pad + line for s in statements for line in ast.unparse(s).splitlines()) or pad + "pass"


def _render_reference(task: AkaTask, runner_rel: str, helpers: list[ast.stmt], module_defs: dict,
                      pre_loop: list[ast.stmt], keys: list[str], prefix: list[ast.stmt], args: list[ast.expr],
                      arg_names: list[str | None], suffix: list[ast.stmt], compared: list[ast.expr]) -> str:
    on_device = _OnDevice()
    pre = [on_device.visit(copy.deepcopy(s)) for s in pre_loop if _stored(s) != {"device"}
           and ast.unparse(s) != "import torch"]       # the module imports torch itself
    prefix = [on_device.visit(copy.deepcopy(s)) for s in prefix]
    args = [on_device.visit(copy.deepcopy(a)) for a in args]
    suffix = [on_device.visit(copy.deepcopy(s)) for s in suffix]
    compared = [on_device.visit(copy.deepcopy(c)) for c in compared]
    # a helper named like a function of the reference contract keeps its own name with a suffix
    renamer = _Rename({n: f"{n}_aka" for n in ("make_inputs", "reference", "_inputs", "canonical")
                       if n in module_defs})
    helpers = [renamer.visit(copy.deepcopy(h)) for h in helpers]
    pre, prefix, suffix = ([renamer.visit(s) for s in part] for part in (pre, prefix, suffix))
    args = [renamer.visit(a) for a in args]
    compared = [renamer.visit(c) for c in compared]
    helpers_block = "".join(f"\n\n{ast.unparse(h)}\n" for h in helpers)
    pre_block = _indent(pre, 4) + "\n" if pre else ""
    bind_keys = "\n".join(f"    {k} = config[{k!r}]" for k in keys)
    bind_args = ", ".join(n or f"_arg{i}" for i, n in enumerate(arg_names))
    returned = ast.unparse(compared[0]) if len(compared) == 1 else "(" + ", ".join(map(ast.unparse, compared)) + ")"
    return f'''"""Reference for AgentKernelArena {task.path}, generated by `gauntlet tasks import aka`
from its {runner_rel}: run_correctness's statements that build the call's arguments (make_inputs)
and those that compute what its check compares (reference), verbatim, with the runner's helpers they
use. AKA makes its inputs on "cuda" with torch's global RNG; here they are made on the CPU from the
config's generator (runner.tasks.taskkit.global_rng), then moved to the device."""
import torch

from runner.tasks.taskkit import global_rng, to_device
{helpers_block}

def make_inputs(config, generator, device):
    return to_device(_inputs(config, generator), device)


def _inputs(config, generator):
    device = "cpu"
{pre_block}{bind_keys}
    with global_rng(generator):
{_indent(prefix, 8)}
    return [{", ".join(ast.unparse(a) for a in args)}]


def reference(*args):
{pre_block}    device = next((a.device for a in args if isinstance(a, torch.Tensor)), torch.device("cpu"))
    {bind_args}{"," if len(arg_names) == 1 else ""} = args
{_indent(suffix, 4)}
    return to_device({returned}, device)
'''


# -- writing the task folders ---------------------------------------------------------------------
def _is_pow2(v: int) -> bool:
    return v > 0 and v & (v - 1) == 0


def space_toml(seen: list[dict], constraints: list[str] = ()) -> str:
    """A [space] from the seen values: an int key whose seen values differ and are not all powers of
    two is a shape parameter in [min seen, 2 x max seen] stepping by their gcd (a divisibility the
    kernel may rely on); every other key is fixed to its seen values (a power-of-two block, head
    size or dtype is a contract, not a size). The bound is twice the largest seen product.
    `constraints` (`a % b == 0`, Mapped.constraints) are kept where the space could break them: a
    shape key `a` whose step some value of `b` does not divide, or a fixed `a` with a value some
    value of `b` does not divide."""
    keys = list(seen[0])
    shape, fixed = {}, {}
    for k in keys:
        values = [c[k] for c in seen]
        ints = all(type(v) is int for v in values)
        if ints and len(set(values)) > 1 and not all(_is_pow2(v) for v in values) and min(values) > 0:
            shape[k] = {"min": min(values), "max": 2 * max(values), "multiple_of": math.gcd(*values)}
        else:
            fixed[k] = list(dict.fromkeys(values))
    if not shape:                       # nothing to draw: one int key becomes the shape all the same
        ints = [k for k in keys if all(type(c[k]) is int and c[k] > 0 for c in seen)]
        if not ints:
            return ""
        k = max(ints, key=lambda key: max(c[key] for c in seen))
        values = [c[k] for c in seen]
        shape[k] = {"min": min(values), "max": 2 * max(values), "multiple_of": math.gcd(*values)}
        fixed.pop(k)
    bound = 2 * max(math.prod(c[k] for k in shape) for c in seen)
    kept = [c for c in constraints if not _implied(c, shape, fixed)]
    lines = ["", "[space]", f"max_elements = {bound}"]
    if kept:
        lines += ["# AKA's inputs divide by these: every seen config does exactly, drawn ones must too",
                  f"constraints = {json.dumps(kept)}"]
    lines.append("")
    for k, d in shape.items():
        lines += [f"[space.shape.{k}]", f"min = {d['min']}", f"max = {d['max']}", f"multiple_of = {d['multiple_of']}", ""]
    if fixed:
        lines.append("[space.fixed]")
        lines += [f"{k} = {json.dumps(v)}" for k, v in fixed.items()]
    return "\n".join(lines) + "\n"


def _implied(constraint: str, shape: dict, fixed: dict) -> bool:
    """Whether every config of the space satisfies `a % b == 0` already (its step or values do)."""
    a, _, rest = constraint.partition(" % ")
    b = rest.removesuffix(" == 0")
    if b in shape:
        return False
    divisors = fixed.get(b, [int(b)] if b.isdigit() else [])
    if not divisors or not all(type(d) is int and d > 0 for d in divisors):
        return False
    values = [shape[a]["multiple_of"]] if a in shape else fixed.get(a, [])
    return bool(values) and all(type(v) is int and v % d == 0 for v in values for d in divisors)


ENTRY_NAME = "gauntlet_entry.py"


def _entry_rel(mapped: Mapped) -> str:
    """The file the judge imports: the source itself, or beside it the entry that adapts the source's
    function to the judge's contract (Mapped.needs_entry; _entry_py says how)."""
    if not mapped.needs_entry:
        return mapped.source_rel
    parent = Path(mapped.source_rel).parent.as_posix()
    return ENTRY_NAME if parent == "." else f"{parent}/{ENTRY_NAME}"


def _positions(ps: list[int]) -> str:
    return ", ".join(str(i) for i in ps) + " (0-based)"


def _entry_py(task: AkaTask, mapped: Mapped) -> str:
    """The entry: calls the source's function on copies of the arguments it writes or may return,
    returns the written arguments where it writes its result in place, copies any returned tensor
    that still shares memory with an input (checked at run time, whatever the source does), and
    converts an output to the dtype AKA's check compared it in."""
    module, symbol = Path(mapped.source_rel).stem, mapped.symbol
    why = []
    if mapped.written:
        why.append(f"AKA's check calls `{module}.{symbol}`, which writes its result into argument(s) "
                   f"{_positions(mapped.written)}: this calls it on copies of them and returns those")
    if mapped.returned_args:
        why.append(f"`{symbol}` may return argument(s) {_positions(mapped.returned_args)} or a view of "
                   f"them (and write them): this calls it on copies of them")
    for k, cast in enumerate(mapped.casts):
        if cast:
            why.append(f"AKA's check compares output {k} as `{''.join(f'.{c}()' for c in cast)}` with its "
                       f"reference, which reference.py returns as is: this returns the output converted so")
    why.append("any returned tensor that still shares memory with an input is copied (`_owned`)")
    lines = ["    given = args", "    args = list(args)"]
    if mapped.copied:
        lines += [f"    for i in {tuple(mapped.copied)!r}:",
                  "        if isinstance(args[i], torch.Tensor):",
                  "            args[i] = args[i].clone()"]
    if mapped.written:
        lines.append(f"    _source.{symbol}(*args)")
        written = [f"args[{i}]" for i in mapped.written]
        lines.append(f"    out = {written[0] if len(written) == 1 else '(' + ', '.join(written) + ')'}")
    else:
        lines.append(f"    out = _source.{symbol}(*args)")
    lines.append("    out = _owned(out, given)")
    if any(mapped.casts):
        if len(mapped.casts) == 1:
            lines.append("    return out" + "".join(f".{c}()" for c in mapped.casts[0]))
        else:
            names = [f"out{k}" for k in range(len(mapped.casts))]
            lines.append(f"    {', '.join(names)} = out")
            lines.append("    return (" + ", ".join(n + "".join(f".{c}()" for c in cast)
                                              for n, cast in zip(names, mapped.casts)) + ")")
    else:
        lines.append("    return out")
    body = "\n".join(lines)
    intro = (f"The judge calls `{symbol}(*args)` here, not `{module}.{symbol}`: it compares what the entry "
             "returns with reference.py, and refuses an output that is (a view of) an input and a call that "
             "changes its inputs.")
    reasons = "\n".join(textwrap.fill(f"- {w}.", 100, subsequent_indent="  ") for w in why)
    return f'''"""Entry for AgentKernelArena {task.path} (written by `gauntlet tasks import aka`).

{textwrap.fill(intro, 100)}

{reasons}

You may edit this file too: the judge only checks what `{symbol}(*args)` returns.
"""
import torch

import {module} as _source


def _owned(out, inputs):
    """`out` (a tensor or a tuple of them), each tensor sharing memory with an input copied."""
    held = {{a.untyped_storage().data_ptr() for a in inputs
            if isinstance(a, torch.Tensor) and a.untyped_storage().nbytes()}}

    def own(o):
        if isinstance(o, torch.Tensor) and o.untyped_storage().nbytes() and o.untyped_storage().data_ptr() in held:
            return o.clone()
        return o
    return tuple(own(o) for o in out) if isinstance(out, (tuple, list)) else own(out)


def {symbol}(*args):
{body}
'''


def _task_toml(task: AkaTask, mapped: Mapped, commit: str) -> str:
    tol = "".join(f"{dtype} = {{ atol = {mapped.atol!r}, rtol = {mapped.rtol!r} }}\n"
                  for dtype in ("float64", "float32", "float16", "bfloat16", "float8_e4m3fn", "float8_e5m2"))
    first = next((ln.strip() for ln in mapped.instructions.splitlines() if ln.strip()), "")
    description = f"AgentKernelArena {task.path}" + (f": {first}" if first else "")
    editable = list(dict.fromkeys([mapped.source_rel, _entry_rel(mapped)]))
    return f"""id = "triton2triton/{task.name}"
category = "triton2triton"
platforms = ["cuda", "rocm", "cpu"]
description = {json.dumps(description)}

[workspace]
files = {json.dumps(editable + ["reference.py", "configs.toml", "README.md"])}
editable = {json.dumps(editable)}

[candidate]
entry = {json.dumps(_entry_rel(mapped))}
symbol = "{mapped.symbol}"

[reference]
module = "reference.py"

[configs]
seen = "configs.toml"
hidden = "hidden/configs.toml"

[tolerance]   # AKA's check: {"torch.equal (exact)" if mapped.atol == mapped.rtol == 0 else f"torch.allclose(atol={mapped.atol!r}, rtol={mapped.rtol!r})"}
{tol}""" + source_toml("aka", task.path, task.category, commit)


def _readme(task: AkaTask, mapped: Mapped, commit: str) -> str:
    entry_note = (f" The judge calls it through `{_entry_rel(mapped)}`, which adapts it to the judge's "
                  f"contract (its docstring says how)." if mapped.needs_entry else "")
    keys = ", ".join(f"`{k}`" for k in mapped.keys)
    check = ("`torch.equal` (exact)" if mapped.atol == mapped.rtol == 0
             else f"`torch.allclose(atol={mapped.atol}, rtol={mapped.rtol})`")
    return f"""# {task.path} (AgentKernelArena)

Imported from AgentKernelArena (commit {commit}) by `gauntlet tasks import aka`.

## Task

{mapped.instructions.strip() or "Optimize the Triton kernel(s) of the source file."}

## Contract

`{mapped.source_rel}` is the file you edit (AKA's source, as shipped: it is also the baseline).{entry_note}
`{mapped.symbol}(*args)` is called with the arguments `reference.py`'s `make_inputs` builds (AKA's
check called it the same way) and must return what `reference()` returns for them. AKA's check
compared with {check}; Gauntlet compares each output with the same atol (scaled by the output's RMS,
clamped to [1e-3, 1]) and rtol, on every seen and hidden config, several seeds each.

The seen configs (`configs.toml`, keys {keys}) are AKA's `TEST_SHAPES`. The hidden ones are other
sizes of the same keys: never hard-code a shape.
"""


def write_task(out: Path, task: AkaTask, mapped: Mapped, commit: str, hidden: list) -> Path:
    from runner.tasks.configspace import to_toml
    from runner.tasks.task import Config
    folder = out / "triton2triton" / task.name
    if folder.exists():
        shutil.rmtree(folder)
    (folder / "hidden").mkdir(parents=True)
    (folder / mapped.source_rel).parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(task.folder / mapped.source_rel, folder / mapped.source_rel)
    if mapped.needs_entry:
        (folder / _entry_rel(mapped)).write_text(_entry_py(task, mapped))
    (folder / "reference.py").write_text(mapped.reference_py)
    (folder / "README.md").write_text(_readme(task, mapped, commit))
    seen = [Config(name=f"aka-{i + 1}", split="seen", params=c) for i, c in enumerate(mapped.seen)]
    (folder / "configs.toml").write_text(f"# AKA {task.path}: TEST_SHAPES\n" + to_toml(seen))
    # until the hidden configs are drawn (they need the loaded task): a copy of a seen config
    hidden = hidden or [Config(name="placeholder", split="unseen", params=mapped.seen[0])]
    (folder / "hidden" / "configs.toml").write_text(
        "# drawn from [space] by gauntlet tasks import aka; each ran the reference on the CPU\n" + to_toml(hidden))
    (folder / "task.toml").write_text(_task_toml(task, mapped, commit) + space_toml(mapped.seen, mapped.constraints))
    return folder


# -- the command ----------------------------------------------------------------------------------
def _hidden_configs(out: Path, folders: dict[str, Path], echo) -> dict[str, list | str]:
    """{task name: hidden configs} drawn from each task's [space] and kept where the reference runs on
    the CPU (the check of `gauntlet tasks validate`, runner/tasks/refcheck.py); {name: "reason: detail"}
    where the reference fails a seen config or no drawn config runs it.

    The check stops at a task's first failing config (seen ones first) and names it: a drawn config
    that fails is replaced by the next drawn one and the task checked again."""
    from runner.tasks import configspace
    from runner.tasks.task import Config, TaskError, load_task
    pending: dict[str, list] = {}
    result: dict[str, list | str] = {}
    for name, folder in folders.items():
        try:
            drawn = configspace.draw(load_task(folder, out), N_HIDDEN * 2, DRAW_SEED, device="cuda")
        except (TaskError, configspace.SpaceError) as exc:
            result[name] = f"no-hidden-config: {exc}"
            continue
        pending[name] = [Config(name=f"hidden-{c.tag}-{i}", split="unseen", params=c.params)
                         for i, c in enumerate(drawn)]
    return {**result, **check_hidden(out, {n: folders[n] for n in pending}, pending, echo)}


def check_hidden(out: Path, folders: dict[str, Path], pending: dict[str, list], echo) -> dict[str, list | str]:
    """{task: the first N_HIDDEN of its candidate hidden configs (in order) with which its reference
    runs on the CPU, every seen config included}; {task: "reason: detail"} where a seen config fails or
    no candidate runs. A failing candidate is replaced by the next one and the task checked again."""
    from runner.tasks import configspace
    from runner.tasks.refcheck import check_references
    result: dict[str, list | str] = {}
    for name in pending:
        result[name] = [] if pending[name] else "no-hidden-config: the space holds no config but the seen ones"
    trial = {n: cs[:N_HIDDEN] for n, cs in pending.items() if isinstance(result[n], list) and cs}
    spare = {n: pending[n][N_HIDDEN:] for n in trial}
    while trial:
        for name, configs in trial.items():
            (folders[name] / "hidden" / "configs.toml").write_text(configspace.to_toml(configs))
        problems = check_references([folders[n] for n in trial], out)
        for name in list(trial):
            problem = problems.get(folders[name])
            failed = re.search(r"\bhidden-[a-z]+(?:-[a-z]+)*-\d+\b", problem or "")
            if not problem:
                result[name] = trial.pop(name)
            elif not failed:           # a seen config, or the import itself
                reason = "non-tensor-argument" if "make_inputs returned a" in problem else "reference-fails"
                result[name] = f"{reason}: {problem[-200:]}"
                trial.pop(name)
            else:                      # that drawn config: try the next one in its place
                trial[name] = [c for c in trial[name] if c.name != failed.group(0)] + spare[name][:1]
                spare[name] = spare[name][1:]
                if not trial[name]:
                    trial.pop(name)
        echo(f"  checked references on the CPU: {sum(isinstance(v, list) and len(v) > 0 for v in result.values())} "
             f"task(s) done, {len(trial)} to check again")
    for name, value in result.items():
        if isinstance(value, list) and not value:
            result[name] = "no-hidden-config: no drawn config ran the reference"
    return result


def import_aka(checkout: Path, categories: list[str], out: Path, echo=print) -> dict:
    """Import every AKA task of the categories (all when empty) into `out`; returns (and writes) the report."""
    if not checkout.is_dir():
        raise AkaImportError(f"{checkout}: AKA_CHECKOUT: not a folder")
    tasks = list_tasks(checkout, categories)
    commit = commit_of(checkout)
    out.mkdir(parents=True, exist_ok=True)
    parsed = {t.path: parse_runner(t) for t in tasks}
    names: dict[str, AkaTask] = {}
    for t in tasks:
        if isinstance(parsed[t.path], (Mapped, aka_hip.HipMapped)):
            if _task_id(t, parsed[t.path]) in names:
                parsed[t.path] = Skip("check-not-expressible", f"folder name {t.name} taken by "
                                      f"{names[_task_id(t, parsed[t.path])].path}")
            names[_task_id(t, parsed[t.path])] = t
    mapped = [t for t in tasks if isinstance(parsed[t.path], Mapped)]
    hip = [t for t in tasks if isinstance(parsed[t.path], aka_hip.HipMapped)]
    echo(f"{len(tasks)} AKA tasks; {len(mapped) + len(hip)} map to a reference; checking them on the CPU")
    folders = {t.name: write_task(out, t, parsed[t.path], commit, []) for t in mapped}
    hidden = _hidden_configs(out, folders, echo) if folders else {}
    hip_problems = _import_hip(out, hip, parsed, commit, echo) if hip else {}
    rows = []
    for t in tasks:
        p = parsed[t.path]
        row = {"path": t.path, "category": t.category}
        if isinstance(p, Skip):
            row |= {"status": "skipped", "reason": p.reason, "detail": p.detail}
        elif isinstance(p, aka_hip.HipMapped):
            outcome = hip_problems[t.path]
            if isinstance(outcome, str):
                reason, _, detail = outcome.partition(": ")
                row |= {"status": "skipped", "reason": reason, "detail": detail}
            else:
                row |= {"status": "imported", "task": _task_id(t, p), "seen": len(p.seen), "hidden": len(outcome),
                        "tolerance": {"atol": p.atol, "rtol": p.rtol},
                        "start": "shipped" if p.baseline is not None else "stub",
                        "torch_compute": p.torch_compute}
        elif isinstance(hidden[t.name], str):
            reason, _, detail = hidden[t.name].partition(": ")
            row |= {"status": "skipped", "reason": reason, "detail": detail}
            shutil.rmtree(folders[t.name])
        else:
            write_task(out, t, p, commit, hidden[t.name])
            row |= {"status": "imported", "task": f"triton2triton/{t.name}", "seen": len(p.seen),
                    "hidden": len(hidden[t.name]), "tolerance": {"atol": p.atol, "rtol": p.rtol}}
        rows.append(row)
        echo(f"{t.path:64s} " + ("imported" if row["status"] == "imported"
                                 else f"skipped: {row['reason']} ({row['detail']})"[:120]))
    report = {"aka_commit": commit, "checkout": str(checkout), "categories": categories or "all",
              "by_category": count_rows(rows, lambda r: r["category"]),
              "by_reason": {r: sum(1 for row in rows if row.get("reason") == r) for r in REASONS
                            if any(row.get("reason") == r for row in rows)},
              # imported HIP tasks whose shipped source computes with PyTorch (the judge flags it)
              "torch_compute_in_baseline": {cat: sum(1 for r in rows if r["category"] == cat and r.get("torch_compute"))
                                            for cat in aka_hip.HIP_CATEGORIES if any(r["category"] == cat for r in rows)},
              "tasks": rows}
    (out / REPORT_NAME).write_text(json.dumps(report, indent=2) + "\n")
    return report


def _task_id(task: AkaTask, mapped) -> str:
    category = task.category if isinstance(mapped, aka_hip.HipMapped) else "triton2triton"
    return f"{category}/{task.name}"


def _import_hip(out: Path, tasks: list[AkaTask], parsed: dict, commit: str, echo) -> dict[str, list | str]:
    """Write, probe (aka_hip._probe_one: the functional call, the module check, DOMAIN, forward's
    argument types) and check (every seen config and the hidden candidates, refcheck) the torch-extension
    tasks; {AKA path: hidden configs kept} or {AKA path: "reason: detail"} (its folder removed)."""
    folders = {t.path: aka_hip.write_task(out, t, t.name, parsed[t.path], commit, []) for t in tasks}
    specs = [{"reference": str((folders[t.path] / "reference.py").resolve()),
              "config": aka_hip.smallest_seen(parsed[t.path]),
              "atol": parsed[t.path].atol, "rtol": parsed[t.path].rtol} for t in tasks]
    echo(f"  probing {len(tasks)} torch-extension task(s) on the CPU")
    answers = aka_hip.probe(specs)
    result: dict[str, list | str] = {}
    pending: dict[str, list] = {}
    for t, answer in zip(tasks, answers):
        m = parsed[t.path]
        if not answer["ok"]:
            result[t.path] = f"{answer['reason']}: {answer['detail']}"
            continue
        m.domain, m.signature, m.outputs = answer["domain"], answer["signature"], answer["outputs"]
        aka_hip.write_task(out, t, t.name, m, commit, [])
        pending[t.path] = aka_hip.hidden_configs(m)
    checked = check_hidden(out, {p: folders[p] for p in pending}, pending, echo)
    for t in tasks:
        value = result.get(t.path, checked.get(t.path))
        if isinstance(value, str) and value.startswith("no-hidden-config: no drawn"):
            value = "no-hidden-config: no hidden size ran the reference"
        result[t.path] = value
        if isinstance(value, str):
            shutil.rmtree(folders[t.path])
        else:
            aka_hip.write_task(out, t, t.name, parsed[t.path], commit, value)
    return result


def summary_table(report: dict) -> str:
    reasons = "\n".join(f"  {r:24s} {n:4d}  {REASONS[r]}" for r, n in
                        sorted(report["by_reason"].items(), key=lambda kv: (-kv[1], kv[0])))
    compute = "".join(f"\n{cat}: {n} imported task(s) whose shipped source computes with PyTorch (not a skip: "
                      f"the judge flags it)" for cat, n in report.get("torch_compute_in_baseline", {}).items())
    return (counts_table(report["by_category"], "category") + compute + "\n\nskipped, per reason:\n"
            + (reasons or "  -"))

