"""AgentKernelArena's torch-extension HIP tasks (hip2hip/gpumode, torch2hip/gpumode, torch2hip/kernelbench)
as Gauntlet tasks with `[candidate] kind = "torch-extension"` (called from runner/tasks/importers/aka.py).

Every one of them is checked by AKA's `eval_tools/correctness_check.py --py_modu_file M --py_func_file F
--hip_file H`: H is built as a PyTorch C++ extension, M's `nn.Module` (named after H:
`hip_<id>_<Name>.hip` -> class `<Name>`) is the reference, F's twin class (its parameters aligned to
M's state dict) is called with `fn=ext.forward`, one case per item `M.get_inputs()` yields, compared with
`torch.allclose(rtol, atol)` (the checker's defaults). What `forward` receives is therefore what F's
`forward` passes to `fn`: the inputs and the module's parameters and attributes.

Read with `ast` on the host (nothing of AKA runs here), a task becomes `DIR/<hip2hip|torch2hip>/<name>/`:

- the editable file: AKA's HIP file (`target_file_path`). hip2hip ships it (the baseline, as shipped);
  torch2hip ships it empty (the agent writes it all from the module code AKA shows it), so the import
  writes a stub in its place that declares `forward` with the captured argument types and the pybind
  binding, builds, and fails the check (as KernelBench's torch2hip stubs do);
- `reference.py`: M's and F's sources verbatim (as strings, each executed as its own module), and
  - `make_inputs`: M's `get_inputs` with its case loop over the one case of the config (the loop and
    its body verbatim), under torch's global RNG seeded from the config's generator; M and F built as
    AKA builds them (from `get_init_inputs`, under the same seeding: the parameters are drawn from the
    config's seed; one a module sets to a constant, a norm's weight 1, is drawn around it, as
    runner/tasks/taskkit.parameters does), F's parameters aligned to M's by AKA's rule, both `.eval()`;
    then F's `forward` is called with a recording `fn` and the arguments it passed are the call's;
  - `reference(*args)`: F's own `fn` (the default of its `forward`'s `fn` parameter) on those arguments;
  the import checks on the CPU, on the smallest seen config, that this equals M's output within AKA's
  tolerance (`functional-differs` otherwise) and is deterministic;
- seen configs: the cases of the loop, one config per case, keyed by the loop's names (an int stays an
  int, a shape list is its Python literal as a string: `shape = "([1024],)"`);
- hidden configs: other sizes of the same cases (odd, 1/8, primes, other aspect, halved, one extent
  odd), built per case structure from the extents that vary between AKA's own cases (an extent that
  is the same in every case, `d_model = 4`, stays; two extents equal in every case stay equal; none
  grows past the largest AKA used at its place, and no case holds more elements than AKA's largest),
  kept where the reference runs on the CPU (runner/tasks/refcheck.py, as `tasks validate`);
- tolerance: the checker's rtol/atol, for every float dtype.
"""
from __future__ import annotations

import ast
import json
import math
import re
import shlex
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path

from runner.tasks.importers.common import probe_in_child

CHECKER = "eval_tools/correctness_check.py"
HIP_CATEGORIES = ("hip2hip", "torch2hip")
PROBE_TIMEOUT_S = 900            # a hung probe only: no decision reads a clock
HIDDEN_CANDIDATES = 10

REASONS = {
    "no-input-loop": "get_inputs is not one loop over a literal list of cases that yields the inputs",
    "init-not-literal": "get_init_inputs does not return a literal list",
    "no-functional-fn": "the functional class's forward has no `fn=` default (the function AKA replaces "
                        "with the extension's forward)",
    "fn-not-returned": "the functional forward does not return the result of exactly one fn(...) call",
    "fn-keywords": "the functional forward passes keyword arguments to fn (the judge calls forward(*args))",
    "non-tensor-output": "the reference returns something other than a tensor or a tuple of tensors",
    "functional-differs": "the functional code's fn, on the captured arguments, differs from the module's "
                          "output (AKA's reference) beyond AKA's tolerance on the CPU",
    "random-op": "two runs of the reference on the same arguments differ",
    "probe-failed": "the checking process died or ran out of time",
}

_ALLOWED_IMPORTS = {"torch", "math", "itertools", "functools", "collections", "typing", "random", "operator",
                    "numbers", "copy", "dataclasses", "enum", "abc", "warnings", "__future__"}
# at::/torch:: calls that allocate or describe, not compute (the rest count as PyTorch compute)
_ALLOC = {"empty", "empty_like", "empty_strided", "zeros", "zeros_like", "ones", "ones_like", "full",
          "full_like", "from_blob", "tensor", "TensorOptions", "device", "dtype", "IntArrayRef", "Tensor",
          "Scalar", "ScalarType", "Device", "DeviceGuard", "OptionalDeviceGuard", "check", "TORCH_CHECK",
          "scalarTypeToTypeMeta", "elementSize", "toString", "getCurrentCUDAStream", "getCurrentHIPStream",
          "getCurrentHIPStreamMasqueradingAsCUDA", "getCurrentDeviceProperties", "Half", "BFloat16", "isFloatingType", "isIntegralType",
          "isComplexType", "typeMetaToScalarType", "toScalarType", "kFloat", "kHalf", "kBFloat16",
          "CUDAGuard", "HIPGuard", "OptionalCUDAGuard", "OptionalHIPGuard", "TensorArg", "checkAllSameGPU"}
_TORCH_CALL = re.compile(r"\b(?:at|torch)::(?:native::)?([A-Za-z_][A-Za-z0-9_]*)\s*\(")


@dataclass
class HipMapped:
    """A torch-extension task read out of its files: everything its folder is written from."""
    hip_rel: str                  # AKA's HIP file (the editable entry)
    module_rel: str
    func_rel: str
    class_name: str
    module_src: str
    func_src: str
    inputs_fn: str                # `def _case_inputs(_case): ...`: get_inputs over one case
    keys: list[str]
    tuple_target: bool
    seen: list[dict]
    cases: list                   # the literal cases, as AKA wrote them
    atol: float
    rtol: float
    instructions: str
    baseline: str | None          # hip2hip: the shipped source; torch2hip: None (a stub is written)
    torch_compute: list[str] = field(default_factory=list)   # at::/torch:: compute calls in the shipped source
    domain: list[int] = field(default_factory=list)
    signature: list[str] = field(default_factory=list)       # C++ types of forward's arguments (probe)
    outputs: int = 1


def is_extension_task(cfg: dict) -> bool:
    return any(CHECKER in c for c in _as_list(cfg.get("correctness_command")))


def _as_list(value) -> list[str]:
    if value is None:
        return []
    return [str(v) for v in value] if isinstance(value, list) else [str(value)]


def _checker_args(command: str) -> dict | None:
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    if len(words) < 2 or not re.fullmatch(r"python3?", words[0]) or words[1] != CHECKER:
        return None
    out, rest = {}, words[2:]
    while rest:
        if len(rest) < 2 or not rest[0].startswith("--"):
            return None
        out[rest[0][2:]] = rest[1]
        rest = rest[2:]
    return out if {"py_modu_file", "py_func_file", "hip_file"} <= set(out) else None


def _checker_tolerance(path: Path) -> tuple[float, float] | str:
    """(atol, rtol): the defaults of the checker's `correctness_check(..., rtol=, atol=)`, unless its
    `__main__` call passes others."""
    try:
        tree = ast.parse(path.read_text())
    except (OSError, SyntaxError, ValueError) as exc:
        return f"{CHECKER}: {type(exc).__name__}"
    fn = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "correctness_check"), None)
    if fn is None:
        return f"{CHECKER}: no correctness_check()"
    params = fn.args.args
    defaults = dict(zip([p.arg for p in params[len(params) - len(fn.args.defaults):]], fn.args.defaults))
    for call in ast.walk(tree):
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "correctness_check":
            for kw in call.keywords:
                if kw.arg in ("rtol", "atol"):
                    defaults[kw.arg] = kw.value
            if len(call.args) > 4:
                return f"{CHECKER}: correctness_check called with {len(call.args)} positional arguments"
    try:
        return float(ast.literal_eval(defaults["atol"])), float(ast.literal_eval(defaults["rtol"]))
    except (KeyError, ValueError) as exc:
        return f"{CHECKER}: rtol/atol not literal defaults ({exc})"


def _imports_ok(tree: ast.Module) -> str | None:
    for n in ast.walk(tree):
        if isinstance(n, (ast.Import, ast.ImportFrom)):
            mods = [n.module or ""] if isinstance(n, ast.ImportFrom) else [a.name for a in n.names]
            if any(m.split(".")[0] not in _ALLOWED_IMPORTS for m in mods):
                return ast.unparse(n)
    return None


def _case_loop(tree: ast.Module) -> tuple[ast.FunctionDef, ast.For, list] | str:
    """get_inputs, its one case loop and the literal cases it loops over."""
    fn = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "get_inputs"), None)
    if fn is None or fn.args.args or fn.args.vararg:
        return "no get_inputs() without arguments"
    loops = [n for n in fn.body if isinstance(n, ast.For)]
    if len(loops) != 1 or any(isinstance(n, (ast.For, ast.While)) for s in fn.body if s is not loops[0]
                              for n in ast.walk(s)):
        return f"{len(loops)} loops in get_inputs (one over the cases expected)"
    loop = loops[0]
    yields = [n for n in ast.walk(fn) if isinstance(n, (ast.Yield, ast.YieldFrom, ast.Return)) and
              not (isinstance(n, ast.Return) and n.value is None)]
    inside = {id(n) for s in loop.body for n in ast.walk(s)}
    if not yields or any(id(y) not in inside or not isinstance(y, ast.Yield) for y in yields):
        return "get_inputs does not yield its inputs inside the case loop"
    it = loop.iter
    if isinstance(it, ast.Name):
        bound = [s for s in fn.body[:fn.body.index(loop)] if isinstance(s, ast.Assign)
                 and any(isinstance(t, ast.Name) and t.id == it.id for t in s.targets)]
        if len(bound) != 1:
            return f"loops over {it.id}, not bound once to a literal"
        it = bound[0].value
    try:
        cases = ast.literal_eval(it)
    except ValueError:
        return f"loops over {ast.unparse(loop.iter)[:60]}, not a literal list"
    if not isinstance(cases, (list, tuple)) or not cases:
        return "the case list is empty"
    target = loop.target
    if isinstance(target, ast.Name):
        keys = [target.id]
    elif isinstance(target, ast.Tuple) and all(isinstance(e, ast.Name) for e in target.elts):
        keys = [e.id for e in target.elts]
        if any(not isinstance(c, (list, tuple)) or len(c) != len(keys) for c in cases):
            return "a case does not unpack into the loop's names"
    else:
        return f"loop target {ast.unparse(target)}"
    if "name" in keys:
        return "a loop name is `name` (a config's own key)"
    return fn, loop, cases


def _inputs_function(fn: ast.FunctionDef, loop: ast.For) -> str:
    """get_inputs with its loop over `[_case]` only: the statements verbatim."""
    import copy
    new = copy.deepcopy(fn)
    idx = fn.body.index(loop)
    new.name = "_case_inputs"
    new.args = ast.arguments(posonlyargs=[], args=[ast.arg("_case")], kwonlyargs=[], kw_defaults=[], defaults=[])
    new.body[idx].iter = ast.List([ast.Name("_case", ast.Load())], ast.Load())
    new.decorator_list = []
    return ast.unparse(ast.fix_missing_locations(new))


def encode(value):
    """A case value as a config value: an int, float or bool as is, anything else its Python literal."""
    return value if isinstance(value, (bool, int, float)) else repr(value)


def _params(keys: list[str], tuple_target: bool, case) -> dict:
    values = list(case) if tuple_target else [case]
    return {k: encode(v) for k, v in zip(keys, values)}


def static_map(task) -> HipMapped | tuple[str, str]:
    """A hip2hip / torch2hip task checked by AKA's correctness_check.py, or (reason, detail)."""
    cfg = task.config
    commands = _as_list(cfg.get("correctness_command"))
    args = _checker_args(commands[0]) if len(commands) == 1 else None
    if args is None:
        return "torch-extension", (f"correctness command is not `python3 {CHECKER} --py_modu_file M "
                                   f"--py_func_file F --hip_file H`")
    files = {k: task.folder / args[k] for k in ("py_modu_file", "py_func_file", "hip_file")}
    for k, p in files.items():
        if not p.is_file():
            return "check-not-expressible", f"{args[k]}: not found"
    tol = _checker_tolerance(task.folder / CHECKER)
    if isinstance(tol, str):
        return "check-not-expressible", tol
    hip_rel = args["hip_file"]
    class_name = Path(hip_rel).name.split(".hip")[0].split("_", 2)[-1]      # AKA's own rule
    try:
        module_src, func_src = files["py_modu_file"].read_text(), files["py_func_file"].read_text()
        module_tree, func_tree = ast.parse(module_src), ast.parse(func_src)
    except (OSError, SyntaxError, ValueError) as exc:
        return "check-not-expressible", f"{type(exc).__name__}: {str(exc)[:80]}"
    for tree in (module_tree, func_tree):
        bad = _imports_ok(tree)
        if bad:
            return "other-library", bad
    for name, tree in ((args["py_modu_file"], module_tree), (args["py_func_file"], func_tree)):
        if not any(isinstance(n, ast.ClassDef) and n.name == class_name for n in tree.body):
            return "check-not-expressible", f"{name} has no class {class_name} (AKA's name from {hip_rel})"
        init = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "get_init_inputs"), None)
        if init is None:
            return "init-not-literal", f"{name}: no get_init_inputs()"
    cls = next(n for n in func_tree.body if isinstance(n, ast.ClassDef) and n.name == class_name)
    fwd = next((n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "forward"), None)
    params = [] if fwd is None else [a.arg for a in fwd.args.args + fwd.args.kwonlyargs]
    if fwd is None or "fn" not in params:
        return "no-functional-fn", f"{args['py_func_file']}: {class_name}.forward"
    found = _case_loop(module_tree)
    if isinstance(found, str):
        return "no-input-loop", found
    fn, loop, cases = found
    tuple_target = isinstance(loop.target, ast.Tuple)
    keys = [e.id for e in loop.target.elts] if tuple_target else [loop.target.id]
    seen = [_params(keys, tuple_target, c) for c in cases]
    if len({json.dumps(s, sort_keys=True) for s in seen}) != len(seen):
        seen = list({json.dumps(s, sort_keys=True): s for s in seen}.values())
    hip_text = (task.folder / hip_rel).read_text(errors="replace")
    baseline = hip_text if task.category == "hip2hip" and hip_text.strip() else None
    compute = torch_compute(hip_text) if baseline else []
    prompt = cfg.get("prompt") if isinstance(cfg.get("prompt"), dict) else {}
    return HipMapped(hip_rel=hip_rel, module_rel=args["py_modu_file"], func_rel=args["py_func_file"],
                     class_name=class_name, module_src=module_src, func_src=func_src,
                     inputs_fn=_inputs_function(fn, loop), keys=keys, tuple_target=tuple_target, seen=seen,
                     cases=list(cases), atol=tol[0], rtol=tol[1], instructions=str(prompt.get("instructions") or ""),
                     baseline=baseline, torch_compute=compute)


def torch_compute(source: str) -> list[str]:
    """The at::/torch:: functions a C++ source calls that compute (not allocate or describe), outside
    comments: a static read for the import's counts; the judge's op watch decides."""
    return sorted({m for m in _TORCH_CALL.findall(_strip_comments(source)) if m not in _ALLOC})


def _strip_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


# -- hidden configs -------------------------------------------------------------------------------
def _leaves(value, path=()):
    """(path, int) for each int in a nested case (bools are not sizes)."""
    if isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            yield from _leaves(v, (*path, i))
    elif type(value) is int:
        yield path, value


def _structure(value):
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(_structure(v) for v in value))
    return "int" if type(value) is int else repr(value)


def _replace(value, new: dict, path=()):
    if isinstance(value, (list, tuple)):
        return type(value)(_replace(v, new, (*path, i)) for i, v in enumerate(value))
    return new.get(path, value)


def _odd(n) -> int:
    n = max(1, int(n))
    return n if n % 2 else max(1, n - 1)


def _prime_at_most(n) -> int:
    for m in range(max(2, int(n)), 1, -1):
        if all(m % p for p in range(2, math.isqrt(m) + 1)):
            return m
    return 2


def hidden_cases(cases: list) -> list[tuple[str, object]]:
    """Other sizes of AKA's cases, (tag, case), most telling first, per case structure (the nesting of
    lists and tuples, a 1-D shape is another structure than a 4-D one): the extents that differ
    between AKA's cases of a structure vary (an extent the same in all of them is a contract: a model
    dimension); extents equal in every case move together; none exceeds the largest value AKA used at
    its place, and no case holds more elements (the product of its extents) than AKA's largest case of
    the structure, so no hidden config needs more memory than a seen one. A structure AKA tried once
    varies its extents of at least 8 (smaller ones are axes, channels, head counts)."""
    groups: dict = {}
    for c in cases:
        groups.setdefault(_structure(c), []).append(c)
    seen_keys = {repr(c) for c in cases}
    per_group = []
    for members in sorted(groups.values(), key=lambda m: -max(math.prod(v for _, v in _leaves(c)) for c in m)):
        leaves = [dict(_leaves(c)) for c in members]
        paths = list(leaves[0])
        if len(members) > 1:
            variable = [p for p in paths if len({lv[p] for lv in leaves}) > 1]
        else:
            variable = [p for p in paths if leaves[0][p] >= 8]
        classes: list[list] = []
        for p in variable:                      # tie classes: equal in every case
            for cl in classes:
                if all(lv[p] == lv[cl[0]] for lv in leaves):
                    cl.append(p)
                    break
            else:
                classes.append([p])
        if not classes:
            continue
        cap = {tuple(cl): max(lv[cl[0]] for lv in leaves) for cl in classes}
        base_i = max(range(len(members)), key=lambda i: math.prod(leaves[i].values()))
        base, bl = members[base_i], leaves[base_i]
        bound = max(math.prod(lv.values()) for lv in leaves)

        def make(values: dict):
            new = {}
            for cl in classes:
                v = values.get(tuple(cl), bl[cl[0]])
                v = max(1, min(int(v), cap[tuple(cl)]))
                new.update({p: v for p in cl})
            return _replace(base, new)

        def each(f):
            return make({tuple(cl): f(bl[cl[0]]) for cl in classes})
        out = [("odd", each(lambda v: _odd(round(v * 0.75)))),
               ("small", each(lambda v: _odd(v // 8) if v >= 16 else _odd(v // 2))),
               ("primes", each(lambda v: _prime_at_most(v * 0.6)))]
        if len(classes) >= 2:
            big = max(classes, key=lambda cl: bl[cl[0]])
            small = min(classes, key=lambda cl: bl[cl[0]])
            out.append(("aspect", make({tuple(big): _odd(bl[big[0]] // 4), tuple(small): bl[small[0]] * 4 - 1})))
        out.append(("half", each(lambda v: v // 2)))
        out += [("oddone", make({tuple(cl): _odd(round(bl[cl[0]] * 0.75))})) for cl in classes]
        kept = []
        for tag, c in out:
            if repr(c) in seen_keys or any(repr(c) == repr(k) for _, k in kept) \
                    or math.prod(v for _, v in _leaves(c)) > bound:
                continue
            kept.append((tag, c))
        per_group.append(kept)
    ordered = []                                  # round robin over the structures
    for i in range(max((len(g) for g in per_group), default=0)):
        ordered += [g[i] for g in per_group if i < len(g)]
    return ordered


# -- the reference --------------------------------------------------------------------------------
def _literal(text: str) -> str:
    """`text` as a Python string literal that reads as the source it is (a raw triple-quoted string),
    or its repr where that cannot hold it."""
    if "'''" not in text and not text.endswith(("\\", "'")) and "\r" not in text:
        return "r'''" + text + "'''"
    return repr(text)


def render_reference(task_path: str, m: HipMapped, commit: str) -> str:
    return f'''"""Reference for AgentKernelArena {task_path} (commit {commit}), generated by
`gauntlet tasks import aka` from AKA's {m.module_rel} (the module, AKA's reference) and
{m.func_rel} (its functional twin, whose `fn` AKA replaces with the extension's `forward`), kept
verbatim below as _MODULE_SOURCE and _FUNCTIONAL_SOURCE.

make_inputs: the module's get_inputs over the config's case (its loop and body verbatim: _INPUTS),
with torch's global RNG seeded from the config's generator; the module and its functional twin built
as AKA's checker builds them (get_init_inputs; parameters drawn under the same seeding, a constant one
drawn around its value), the twin's parameters aligned to the module's by AKA's rule, both .eval();
then the twin's forward is called with a recording `fn`: the arguments it passes are what the
candidate's `forward` gets. reference: the twin's own `fn` on those arguments (the import checked on
the CPU that it equals the module's output within AKA's tolerance).
"""
import ast as _ast
import inspect as _inspect
import re as _re
import types as _types

import torch

from runner.tasks.taskkit import exercise_domain, global_rng, to_device

CLASS = {m.class_name!r}
KEYS = {tuple(m.keys)!r}
TUPLE_TARGET = {m.tuple_target!r}
DOMAIN = {tuple(m.domain)!r}   # get_inputs items made signed, with outliers (chosen by the importer: the reference stays finite)
VARY_SPREAD = 0.1

_MODULE_SOURCE = {_literal(m.module_src)}

_FUNCTIONAL_SOURCE = {_literal(m.func_src)}

_INPUTS = {_literal(m.inputs_fn)}


def _load(name, source):
    module = _types.ModuleType(name)
    exec(compile(source, name, "exec"), module.__dict__)
    return module


_MODULE = _load({Path(m.module_rel).name!r}, _MODULE_SOURCE)
_FUNCTIONAL = _load({Path(m.func_rel).name!r}, _FUNCTIONAL_SOURCE)
exec(compile(_INPUTS, "get_inputs", "exec"), _MODULE.__dict__)
_FN = _inspect.signature(getattr(_FUNCTIONAL, CLASS).forward).parameters["fn"].default


def _case(config):
    values = [config[k] if not isinstance(config[k], str) else _ast.literal_eval(config[k]) for k in KEYS]
    return tuple(values) if TUPLE_TARGET else values[0]


def _build_model(module):
    """AKA's load_modu_obj / load_func_obj."""
    cls, init = getattr(module, CLASS), module.get_init_inputs()
    if len(init) == 0:
        return cls()
    if len(init) == 2 and isinstance(init[0], list) and isinstance(init[1], dict):
        return cls() if len(init[1]) == 0 else cls(**init[1])
    return cls(*init)


def _canonical(name):
    return _re.sub(r"[^a-z0-9]", "", name.lower())


def _align(model, func):
    """AKA's _align_state_dict: each of func's entries takes the module's of the same name, else of the
    same canonical name, else the one whose canonical name ends with it (or it with theirs), if unique."""
    module_sd, func_sd = model.state_dict(), func.state_dict()
    keys, used, aligned, unresolved = list(module_sd), set(), dict(func_sd), []
    for fk, fv in func_sd.items():
        fc = _canonical(fk)
        found = [fk] if fk in module_sd else [k for k in keys if _canonical(k) == fc]
        if not found:
            suffix = [k for k in keys if _canonical(k).endswith(fc)]
            found = suffix if len(suffix) == 1 else [k for k in keys if fc.endswith(_canonical(k))]
            found = found if len(found) == 1 else []
        found = [k for k in found if k not in used]
        if not found or module_sd[found[0]].shape != fv.shape:
            unresolved.append(fk)
            continue
        aligned[fk] = module_sd[found[0]].detach()      # load_state_dict copies it into func
        used.add(found[0])
    func.load_state_dict(aligned, strict=False)
    params = {{k for k, _ in func.named_parameters()}}
    if any(k in params for k in unresolved):
        raise ValueError(f"cannot align the functional parameters {{unresolved}} with the module's")


def _vary(model, generator):
    """A floating parameter or buffer whose entries are all equal (a norm's weight 1, bias 0) is drawn
    around that value, as runner.tasks.taskkit.parameters does: a kernel that drops it must fail."""
    with torch.no_grad():
        for t in model.state_dict().values():
            if t.is_floating_point() and t.numel() and bool((t == t.reshape(-1)[0]).all()):
                z = torch.randn(t.shape, generator=generator, dtype=torch.float32).to(t.dtype)
                v = float(t.reshape(-1)[0])
                t.copy_(t * torch.exp(VARY_SPREAD * z) if v > 0 else t + VARY_SPREAD * z)


def _build(config, generator):
    """(inputs, module, functional twin) for one config, both models aligned and in eval mode."""
    with global_rng(generator):
        inputs = next(iter(_MODULE._case_inputs(_case(config))))
        inputs = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
        model = _build_model(_MODULE)
        func = _build_model(_FUNCTIONAL)
    inputs = exercise_domain(inputs, DOMAIN, generator)
    _vary(model, generator)
    _align(model, func)
    return inputs, model.eval(), func.eval()


class _Captured(Exception):
    pass


def capture(func, inputs):
    """The arguments the functional forward passes to `fn` (AKA's extension forward)."""
    calls = []

    def fn(*args, **kwargs):
        calls.append((args, kwargs))
        raise _Captured
    try:
        with torch.no_grad():
            func(*inputs, fn=fn)
    except _Captured:
        pass
    if len(calls) != 1 or calls[0][1]:
        raise ValueError(f"fn-not-returned: the functional forward called fn {{len(calls)}} time(s)"
                         + (f" with keywords {{sorted(calls[0][1])}}" if calls and calls[0][1] else ""))
    out, held = [], set()
    for i, a in enumerate(calls[0][0]):
        if isinstance(a, torch.Tensor):
            # the models are dropped after the call: an argument is copied only where it shares memory
            # with an earlier one (the judge refuses a call whose arguments alias)
            ptr = a.untyped_storage().data_ptr() if a.untyped_storage().nbytes() else None
            out.append(a.detach().clone() if ptr in held else a.detach())
            held.add(ptr)
        elif isinstance(a, (bool, int, float)):
            out.append(a)
        else:
            raise TypeError(f"make_inputs returned a {{type(a).__name__}} as argument {{i}} of forward: the judge "
                            "passes tensors, ints, floats and bools")
    return out


def make_inputs(config, generator, device):
    inputs, func = _build(config, generator)[0::2]      # the module (AKA's reference) is not kept
    return to_device(capture(func, inputs), device)


def reference(*args):
    with torch.no_grad():
        out = _FN(*args)
    return tuple(out) if isinstance(out, list) else out
'''


# -- the probe (child process, torch on the CPU) ---------------------------------------------------
def _probe_one(spec: dict) -> dict:
    """Import the generated reference, check on the smallest seen config: fn is called once with
    positional arguments of the judge's types, F's forward returns fn's result, the reference equals
    the module's output (AKA's comparison, its tolerance), is deterministic and returns tensors;
    choose DOMAIN; give forward's C++ argument types."""
    import copy
    import importlib.util

    import torch
    from runner.tasks.taskkit import exercise_domain
    path = Path(spec["reference"])
    mod_spec = importlib.util.spec_from_file_location(f"aka_hip_probe_{abs(hash(str(path)))}", path)
    ref = importlib.util.module_from_spec(mod_spec)
    try:
        mod_spec.loader.exec_module(ref)
    except Exception as exc:
        return {"ok": False, "reason": "reference-fails", "detail": f"import: {type(exc).__name__}: {exc}"[:300]}
    config = spec["config"]
    gen = lambda s=0: torch.Generator().manual_seed(s)   # noqa: E731
    try:
        inputs, model, func = ref._build(config, gen())
        sentinel = object()
        calls = []

        def record(*a, **k):
            calls.append((a, k))
            return sentinel
        try:
            with torch.no_grad():
                returned = func(*copy.deepcopy(inputs), fn=record)
        except Exception as exc:
            if not calls:
                raise
            return {"ok": False, "reason": "fn-not-returned",
                    "detail": f"forward computes with fn's result ({type(exc).__name__}: {exc})"[:200]}
        if len(calls) == 1 and calls[0][1]:
            return {"ok": False, "reason": "fn-keywords", "detail": f"fn(..., {', '.join(calls[0][1])}=...)"}
        if len(calls) != 1 or returned is not sentinel:
            return {"ok": False, "reason": "fn-not-returned",
                    "detail": f"fn called {len(calls)} time(s)"
                    + ("" if returned is sentinel else ", forward does not return its result")}
        args = ref.capture(func, inputs)
    except TypeError as exc:
        if "make_inputs returned a" in str(exc):
            return {"ok": False, "reason": "non-tensor-argument", "detail": str(exc)[:200]}
        return {"ok": False, "reason": "reference-fails", "detail": f"{type(exc).__name__}: {exc}"[:300]}
    except Exception as exc:
        return {"ok": False, "reason": "reference-fails", "detail": f"{type(exc).__name__}: {exc}"[:300]}
    try:
        out = ref.reference(*copy.deepcopy(args))
        again = ref.reference(*copy.deepcopy(args))
        with torch.no_grad():
            truth = model(*copy.deepcopy(inputs))
    except Exception as exc:
        return {"ok": False, "reason": "reference-fails", "detail": f"{type(exc).__name__}: {exc}"[:300]}
    outs = out if isinstance(out, tuple) else (out,)
    if not outs or not all(isinstance(o, torch.Tensor) for o in outs):
        return {"ok": False, "reason": "non-tensor-output", "detail": type(out).__name__}
    agains = again if isinstance(again, tuple) else (again,)
    if any(not torch.equal(a, b) for a, b in zip(outs, agains)):
        return {"ok": False, "reason": "random-op", "detail": "two runs on the same arguments differ"}
    truths = tuple(truth) if isinstance(truth, (tuple, list)) else (truth,)
    if len(truths) != len(outs) or any(not isinstance(t, torch.Tensor) or t.shape != o.shape
                                       or not torch.allclose(t, o, rtol=spec["rtol"], atol=spec["atol"])
                                       for t, o in zip(truths, outs)):
        return {"ok": False, "reason": "functional-differs",
                "detail": f"config {json.dumps(config)}: the module and the functional fn disagree"}
    # DOMAIN: each floating get_inputs item that is all non-negative, made signed with outliers, kept
    # where the reference's outputs stay finite where they were (as the KernelBench importer)
    domain = []
    finite = [torch.isfinite(o) for o in outs]
    for i, x in enumerate(inputs):
        if not (isinstance(x, torch.Tensor) and x.is_floating_point() and x.numel() and bool((x >= 0).all())):
            continue
        try:
            _, _, f2 = ref._build(config, gen())
            trial = exercise_domain(list(inputs), (*domain, i), gen(1))
            t_out = ref.reference(*ref.capture(f2, trial))
        except Exception:
            continue
        t_outs = t_out if isinstance(t_out, tuple) else (t_out,)
        if all((torch.isfinite(t) | ~f).all() for t, f in zip(t_outs, finite)):
            domain.append(i)
    types = {bool: "bool", int: "int64_t", float: "double"}
    signature = ["torch::Tensor" if isinstance(a, torch.Tensor) else types[type(a)] for a in args]
    return {"ok": True, "domain": domain, "signature": signature, "outputs": len(outs)}


def probe(specs: list[dict]) -> list[dict]:
    """Every spec answered in one child process (common.probe_in_child); a spec that takes the child
    down or past the time guard is a probe-failed skip and the child restarts for the rest."""
    return probe_in_child("runner.tasks.importers.aka_hip", specs, PROBE_TIMEOUT_S)


def main(argv: list[str]) -> int:
    import signal
    specs = json.loads(Path(argv[0]).read_text())

    def alarm(*_):
        raise TimeoutError(f"no answer in {PROBE_TIMEOUT_S} s")
    signal.signal(signal.SIGALRM, alarm)
    with open(argv[1], "a") as report:
        for spec in specs:
            signal.alarm(PROBE_TIMEOUT_S)
            try:
                answer = _probe_one(spec)
            except TimeoutError as exc:
                answer = {"ok": False, "reason": "probe-failed", "detail": str(exc)}
            signal.alarm(0)
            report.write(json.dumps(answer) + "\n")
            report.flush()
    return 0


# -- writing the task folder ----------------------------------------------------------------------
def _stub(m: HipMapped) -> str:
    params = ", ".join(f"{t} arg{i}" for i, t in enumerate(m.signature))
    ret = "torch::Tensor" if m.outputs == 1 else "std::vector<torch::Tensor>"
    return f"""// Stub written by `gauntlet tasks import aka` in place of AKA's empty {Path(m.hip_rel).name}: a PyTorch
// C++ extension whose forward takes what {Path(m.func_rel).name}'s forward passes to `fn`, in that
// order (reference.py's make_inputs), and returns what reference() returns. Replace it with HIP kernels.
#include <torch/extension.h>
#if defined(__HIPCC__) || defined(__CUDACC__)
#include <hip/hip_runtime.h>
#endif

{ret} forward({params}) {{
    TORCH_CHECK(false, "not implemented: write forward with HIP kernels");
}}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {{ m.def("forward", &forward, "forward"); }}
"""


def _tolerance_toml(m: HipMapped) -> str:
    return "".join(f"{dtype} = {{ atol = {m.atol!r}, rtol = {m.rtol!r} }}\n"
                   for dtype in ("float64", "float32", "float16", "bfloat16"))


def task_toml(task, name: str, m: HipMapped, commit: str) -> str:
    from runner.tasks.importers.common import source_toml
    how = "AKA's shipped source (the baseline)" if m.baseline is not None else "a stub (AKA ships it empty)"
    description = f"AgentKernelArena {task.path}: {m.class_name} as a PyTorch C++ extension with HIP kernels"
    return f"""id = "{task.category}/{name}"
category = "{task.category}"
platforms = ["rocm"]
description = {json.dumps(description)}

[workspace]
files = {json.dumps([m.hip_rel, "reference.py", "configs.toml", "README.md"])}
editable = {json.dumps([m.hip_rel])}

[candidate]   # {how}
kind = "torch-extension"
entry = {json.dumps(m.hip_rel)}
symbol = "forward"

[reference]
module = "reference.py"

[configs]
seen = "configs.toml"
hidden = "hidden/configs.toml"

[tolerance]   # AKA's {CHECKER}: torch.allclose(rtol={m.rtol!r}, atol={m.atol!r})
{_tolerance_toml(m)}""" + source_toml("aka", task.path, task.category, commit)


def readme(task, m: HipMapped, commit: str) -> str:
    start = ("It is AKA's shipped source, as shipped: also the baseline." if m.baseline is not None else
             "AKA ships it empty (the agent writes it all); here it is a stub that declares `forward` "
             "with the argument types and binds it, and fails the check.")
    compute = (f"\n\nThe shipped source computes with PyTorch (`{'`, `'.join(m.torch_compute)}`): the judge "
               "flags PyTorch compute in a candidate (`torch_fallback`)." if m.torch_compute else "")
    return f"""# {task.path} (AgentKernelArena)

Imported from AgentKernelArena (commit {commit}) by `gauntlet tasks import aka`.

## Task

{m.instructions.strip()}

## Contract

`{m.hip_rel}` is the file you edit: a PyTorch C++ extension (`#include <torch/extension.h>`, HIP kernels,
`PYBIND11_MODULE(TORCH_EXTENSION_NAME, m)` binding `forward`). {start}{compute}

The judge builds it and calls `forward(*args)` with the arguments `reference.py`'s `make_inputs`
builds: what AKA's functional `{m.class_name}.forward` ({m.func_rel}) passes to `fn`, the module's
parameters included. It must return what `reference()` returns (AKA's module `{m.class_name}`,
{m.module_rel}; both are in reference.py, verbatim). AKA's check compared with
`torch.allclose(rtol={m.rtol}, atol={m.atol})`; Gauntlet compares each output with the same rtol and
atol (scaled by the output's RMS, clamped to [1e-3, 1]) on every seen and hidden config, several
seeds each. Do not write into the inputs.

The seen configs (`configs.toml`, keys {", ".join(f"`{k}`" for k in m.keys)}) are AKA's cases of
`get_inputs`. The hidden ones are other sizes of the same cases: never hard-code a shape.
"""


def write_task(out: Path, task, name: str, m: HipMapped, commit: str, hidden: list) -> Path:
    from runner.tasks.configspace import to_toml
    from runner.tasks.task import Config
    folder = out / task.category / name
    if folder.exists():
        shutil.rmtree(folder)
    (folder / "hidden").mkdir(parents=True)
    (folder / m.hip_rel).parent.mkdir(parents=True, exist_ok=True)
    (folder / m.hip_rel).write_text(m.baseline if m.baseline is not None else (_stub(m) if m.signature else ""))
    (folder / "reference.py").write_text(render_reference(task.path, m, commit))
    (folder / "README.md").write_text(readme(task, m, commit))
    seen = [Config(name=f"aka-{i + 1}", split="seen", params=c) for i, c in enumerate(m.seen)]
    (folder / "configs.toml").write_text(f"# AKA {task.path}: get_inputs' cases\n" + to_toml(seen))
    hidden = hidden or [Config(name="placeholder", split="unseen", params=m.seen[0])]
    (folder / "hidden" / "configs.toml").write_text(
        "# other sizes of AKA's cases (gauntlet tasks import aka); each ran the reference on the CPU\n"
        + to_toml(hidden))
    (folder / "task.toml").write_text(task_toml(task, name, m, commit))
    return folder


def hidden_configs(m: HipMapped) -> list:
    from runner.tasks.task import Config
    return [Config(name=f"hidden-{tag}-{i}", split="unseen", params=_params(m.keys, m.tuple_target, c))
            for i, (tag, c) in enumerate(hidden_cases(m.cases)[:HIDDEN_CANDIDATES])]


def smallest_seen(m: HipMapped) -> dict:
    def size(c):
        return math.prod(v for _, v in _leaves(c)) or 1
    return _params(m.keys, m.tuple_target, min(m.cases, key=size))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
