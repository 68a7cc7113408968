"""Task: one folder under tasks/<category>/<name>/ described by task.toml.

Standard library only: the evaluator imports this inside containers that have torch but not the
host's CLI dependencies.
"""
from __future__ import annotations

import ast
import functools
import math
import operator
import re

import tomllib
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from runner.tasks import work as work_expr
from runner.tasks.work import Work

CATEGORIES = ("hip2hip", "torch2hip", "cuda2cuda", "torch2cuda", "triton2triton", "torch2triton")
PLATFORMS = ("cuda", "rocm", "cpu")
LANGUAGE_BY_TARGET = {"hip": "hip", "cuda": "cuda", "triton": "triton"}
# [candidate] kind: "launch" (the default: an `extern "C"` launch of a .cu/.hip file, or a Triton
# function) or "torch-extension" (a PyTorch C++ extension whose pybind function the judge calls:
# AgentKernelArena's HIP tasks; the runner language "torch-ext-cuda" or "torch-ext-hip", by the target)
CANDIDATE_KINDS = ("launch", "torch-extension")

_TOP_KEYS = {"id", "category", "platforms", "description", "extends", "workspace", "candidate",
             "reference", "configs", "tolerance", "solution", "space", "performance", "suites", "work",
             "source"}
_TABLE_KEYS = {
    "workspace": {"files", "editable"},
    "candidate": {"entry", "symbol", "compile_flags", "kind"},
    "reference": {"module"},
    "configs": {"seen", "hidden"},
    "solution": {"dir"},
    "performance": {"max_speedup"},
    "work": {"bytes", "flops", "dtype"},
    "source": {"benchmark", "path", "category", "commit"},
}
_REQUIRED = ("id", "category", "platforms", "description", "workspace.files", "workspace.editable",
             "candidate.entry", "candidate.symbol", "reference.module", "configs.seen")
_TOLERANCE_DTYPES = {"float64", "float32", "float16", "bfloat16", "float8_e4m3fn", "float8_e5m2", "int32", "int64",
                     "bool"}


class TaskError(ValueError):
    """A task definition problem, worded as `<file>: <field>: <what is wrong>`."""

    def __init__(self, file: Path | str, key: str, message: str):
        self.file, self.key = str(file), key
        super().__init__(f"{file}: {key}: {message}")


@dataclass(frozen=True)
class Tolerance:
    atol: float
    rtol: float


# Defaults follow KernelBench's dtype split, a little looser for fp32 reductions whose order differs.
DEFAULT_TOLERANCES = {
    "float64": Tolerance(1e-7, 1e-7),
    "float32": Tolerance(1e-4, 1e-4),
    "float16": Tolerance(1e-2, 1e-2),
    "bfloat16": Tolerance(2e-2, 2e-2),
    # float8: one unit in the last place (3 and 2 mantissa bits), the smallest subnormal as atol
    "float8_e4m3fn": Tolerance(2.0 ** -9, 0.125),
    "float8_e5m2": Tolerance(2.0 ** -16, 0.25),
}


@dataclass(frozen=True)
class Config:
    name: str
    split: str  # "seen", "unseen" or "drawn" (runner/tasks/configspace.py)
    params: dict
    tag: str = ""  # drawn configs only: edge, scale-up, scale-down, alignment-stress, skewed, production

    def describe(self) -> str:
        return ", ".join(f"{k}={v}" for k, v in self.params.items())


@dataclass(frozen=True)
class Dim:
    """One integer shape parameter of a [space]."""
    min: int
    max: int
    multiple_of: int = 1
    production: tuple[int, ...] = ()

    def legal(self) -> tuple[int, int]:
        """The smallest and largest values (multiples of multiple_of within [min, max])."""
        m = self.multiple_of
        return -(-self.min // m) * m, self.max // m * m


@dataclass(frozen=True)
class Space:
    """The [space] table: where fresh unseen configs may be drawn from (runner/tasks/configspace.py)."""
    max_elements: int                      # bound on the product of the shape parameters
    cpu_max_elements: int                  # the same bound on device cpu (Triton interpreter)
    shape: dict[str, Dim]                  # in declaration order
    fixed: dict[str, tuple]                # non-shape parameters: the choices
    constraints: tuple[str, ...] = ()      # relations every config must satisfy ("channels % groups == 0")

    def bound(self, device: str) -> int:
        return self.cpu_max_elements if device == "cpu" else self.max_elements

    def violated(self, params: dict) -> str | None:
        """The first constraint `params` does not satisfy, or None."""
        for expr in self.constraints:
            if not _holds(expr, params):
                return expr
        return None

    def outside(self, params: dict) -> tuple[str, str] | None:
        """(field, why) for the first parameter outside the space's ranges and choices, or None."""
        for name, dim in self.shape.items():
            v = params.get(name)
            lo, hi = dim.legal()
            if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi or v % dim.multiple_of:
                return f"space.shape.{name}", f"{v!r}, outside [{dim.min}, {dim.max}] or not a multiple of {dim.multiple_of}"
        for name, choices in self.fixed.items():
            if params.get(name) not in choices:
                return f"space.fixed.{name}", f"{params.get(name)!r}, not one of {list(choices)}"
        return None


# A constraint is a Python expression over the config's parameters with integer arithmetic,
# comparisons, `and`, `or` and `not`: parsed with ast and evaluated by the walk below (no eval).
_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.FloorDiv: operator.floordiv,
           ast.Mod: operator.mod}
_COMPARE = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
            ast.Gt: operator.gt, ast.GtE: operator.ge}


def _constraint_problem(expr: str, names: set[str]) -> str | None:
    """Why `expr` is not a constraint over `names`, or None."""
    try:
        tree = ast.parse(expr, mode="eval")
    except SyntaxError:
        return "is not an expression"
    for node in ast.walk(tree.body):
        if isinstance(node, ast.Name):
            if node.id not in names:
                return f"names {node.id!r}, not a parameter of the space"
        elif isinstance(node, ast.Constant):
            if isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
                return f"has the constant {node.value!r} (numbers only)"
        elif isinstance(node, ast.BinOp):
            if type(node.op) not in _BINARY:
                return f"uses {type(node.op).__name__} (only + - * // %)"
        elif isinstance(node, ast.Compare):
            if not all(type(op) in _COMPARE for op in node.ops):
                return "uses a comparison other than == != < <= > >="
        elif not isinstance(node, (ast.BoolOp, ast.And, ast.Or, ast.UnaryOp, ast.Not, ast.USub, ast.Load,
                                   *_BINARY, *_COMPARE)):
            return f"uses {type(node).__name__} (arithmetic, comparisons, and/or/not only)"
    return None


def _value(node, params: dict):
    if isinstance(node, ast.Name):
        return params[node.id]
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.BinOp):
        left, right = _value(node.left, params), _value(node.right, params)
        if isinstance(node.op, (ast.FloorDiv, ast.Mod)) and right == 0:
            return math.nan       # compares false: a config dividing by zero satisfies nothing
        return _BINARY[type(node.op)](left, right)
    if isinstance(node, ast.UnaryOp):
        operand = _value(node.operand, params)
        return (not operand) if isinstance(node.op, ast.Not) else -operand
    if isinstance(node, ast.BoolOp):
        values = (_value(v, params) for v in node.values)
        return all(values) if isinstance(node.op, ast.And) else any(values)
    if isinstance(node, ast.Compare):
        left = _value(node.left, params)
        for op, comparator in zip(node.ops, node.comparators):
            right = _value(comparator, params)
            if not _COMPARE[type(op)](left, right):
                return False
            left = right
        return True
    raise ValueError(f"not a constraint node: {type(node).__name__}")


@functools.lru_cache(maxsize=None)
def _parsed(expr: str):
    return ast.parse(expr, mode="eval").body      # once per expression: the draw tests hundreds of configs


def _holds(expr: str, params: dict) -> bool:
    try:
        return bool(_value(_parsed(expr), params))
    except (KeyError, TypeError):     # a parameter missing, or not a number: the relation cannot hold
        return False


@dataclass(frozen=True)
class Origin:
    """The [source] table of an imported task: where it came from (runner/tasks/importers/common.py)."""
    benchmark: str                   # "aka", "kernelbench"
    path: str                        # the task's path in the benchmark's checkout
    category: str                    # the benchmark's own category (AKA's task type, KernelBench's level)
    commit: str = ""


@dataclass(frozen=True)
class Task:
    id: str
    category: str
    platforms: tuple[str, ...]
    description: str
    root: Path                       # the task's own folder
    files: dict[str, Path]           # workspace path -> absolute source (may live in the base task)
    editable: tuple[str, ...]
    entry: str
    symbol: str
    compile_flags: tuple[str, ...]
    reference: Path
    seen_file: Path
    hidden_file: Path | None         # None only in an agent's workspace view of the task
    tolerances: dict[str, Tolerance]
    solution_dir: Path | None
    bases: tuple[Path, ...] = field(default=())  # folders of extended tasks, nearest first
    space: Space | None = None       # [space]: fresh unseen configs may be drawn (--unseen N)
    max_speedup: float | None = None # [performance]: the author's vetted cap, measured against this baseline
    suites: tuple[str, ...] = ()     # the named suites this task counts in (`gauntlet run --suite NAME`)
    work: Work | None = None         # [work]: bytes and FLOPs of one call, per config (runner/tasks/work.py)
    origin: Origin | None = None     # [source]: an imported task's benchmark, path and category there
    kind: str = "launch"             # [candidate] kind (CANDIDATE_KINDS)

    @property
    def kernel(self) -> str:
        """The kernel this task is about: its folder name, shared by its twins in other categories."""
        return self.id.rsplit("/", 1)[-1]

    @property
    def source(self) -> str:
        return self.category.split("2")[0]

    @property
    def language(self) -> str:
        """The kernel runner's language: the category's target, or for a torch-extension candidate
        "torch-ext-" and the target (torch-ext-hip: on a GPU the HIP compiler builds it, build.py)."""
        target = LANGUAGE_BY_TARGET[self.category.split("2")[1]]
        return f"torch-ext-{target}" if self.kind == "torch-extension" else target

    @property
    def baseline_is_reference(self) -> bool:
        """PyTorch->X tasks are measured against the PyTorch reference, X->X against the original."""
        return self.source == "torch"

    def speedup_limit(self, run_limit: float) -> float:
        """The excessive-speedup threshold in force: the run's, or the task's own when higher (an X->X
        task's naive baseline is beaten by far more than 10x by an honest kernel on some shapes)."""
        return max(run_limit, self.max_speedup or 0.0)

    def tolerance(self, dtype: str) -> Tolerance:
        return self.tolerances.get(dtype) or DEFAULT_TOLERANCES.get(dtype) or Tolerance(0.0, 0.0)

    def configs(self, split: str) -> list[Config]:
        if split == "seen":
            return load_configs(self.seen_file, "seen")
        if split == "unseen":
            return load_configs(self.hidden_file, "unseen") if self.hidden_file else []
        raise ValueError(f"unknown split {split!r}")

    def resolve(self, relpath: str) -> Path:
        """A path of this task, looked up in this folder first, then in the extended tasks."""
        for folder in (self.root, *self.bases):
            candidate = folder / relpath
            if candidate.exists():
                return candidate
        return self.root / relpath

    def solution_files(self) -> dict[str, Path]:
        if self.solution_dir is None:
            return {}
        # __pycache__: byte code pip writes beside an installed suite's .py files (or Python beside
        # a checkout's), never part of a solution
        return {p.relative_to(self.solution_dir).as_posix(): p
                for p in sorted(self.solution_dir.rglob("*"))
                if p.is_file() and "__pycache__" not in p.relative_to(self.solution_dir).parts}


def load_configs(path: Path, split: str) -> list[Config]:
    try:
        data = tomllib.loads(_read_text(path, "config"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise TaskError(path, "config", f"cannot read: {exc}") from None
    unknown = set(data) - {"config"}
    if unknown:
        raise TaskError(path, sorted(unknown)[0], "unknown key (expected [[config]] tables)")
    entries = data.get("config")
    if not isinstance(entries, list) or not entries:
        raise TaskError(path, "config", "needs at least one [[config]] table")
    configs, names = [], set()
    for i, entry in enumerate(entries):
        name = entry.get("name")
        if not isinstance(name, str) or not name:
            raise TaskError(path, f"config[{i}].name", "missing or not a string")
        if name in names:
            raise TaskError(path, f"config[{i}].name", f"duplicate name {name!r}")
        for key, value in entry.items():
            if not isinstance(value, (str, int, float, bool)):
                raise TaskError(path, f"config[{i}].{key}", "must be a scalar")
        names.add(name)
        configs.append(Config(name=name, split=split,
                              params={k: v for k, v in entry.items() if k != "name"}))
    return configs


def _read_text(path: Path, key: str) -> str:
    """A task file's text; bytes that are not UTF-8 are one TaskError line, not a traceback."""
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise TaskError(path, key, f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def _read_toml(path: Path) -> dict:
    try:
        return tomllib.loads(_read_text(path, "task.toml"))
    except FileNotFoundError:
        raise TaskError(path, "task.toml", "file not found") from None
    except IsADirectoryError:
        raise TaskError(path, "task.toml", "is a folder, not a file") from None
    except tomllib.TOMLDecodeError as exc:
        raise TaskError(path, "task.toml", f"not valid TOML: {exc}") from None


def _merged(path: Path, tasks_root: Path, seen: tuple[Path, ...] = ()) -> tuple[dict, tuple[Path, ...]]:
    """task.toml with `extends` applied: tables merge key by key, the extending task wins."""
    data = _read_toml(path)
    base_id = data.get("extends")
    if base_id is None:
        return data, ()
    if not isinstance(base_id, str):
        raise TaskError(path, "extends", "must be a task id string")
    base_dir = (tasks_root / base_id).resolve()
    if not base_dir.is_relative_to(tasks_root.resolve()) or not (base_dir / "task.toml").is_file():
        raise TaskError(path, "extends", f"no task {base_id!r} under {tasks_root}")
    if base_dir in seen:
        raise TaskError(path, "extends", "circular extends")
    base, base_bases = _merged(base_dir / "task.toml", tasks_root, seen + (path.parent.resolve(),))
    # suites: a twin counts in the suites it names itself (a headline kernel counts once per language)
    merged = {k: v for k, v in base.items() if k not in ("id", "category", "extends", "suites")}
    if str(base.get("category", "")).startswith("torch2") != str(data.get("category", "")).startswith("torch2"):
        merged.pop("performance", None)    # a speedup cap was measured against the base's baseline, not this one
    for key, value in data.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = {**merged[key], **value}
        else:
            merged[key] = value
    return merged, (base_dir, *base_bases)


def _get(data: dict, dotted: str):
    node = data
    for part in dotted.split("."):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def _relpath(path: Path, key: str, value) -> str:
    if not isinstance(value, str) or not value:
        raise TaskError(path, key, "must be a non-empty relative path string")
    pure = PurePosixPath(value)
    if pure.is_absolute() or ".." in pure.parts:
        raise TaskError(path, key, f"{value!r} escapes the task folder")
    return pure.as_posix()


def _str_list(path: Path, key: str, value) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise TaskError(path, key, "must be a list of strings")
    return value


_SPACE_KEYS = {"max_elements", "cpu_max_elements", "shape", "fixed", "constraints"}
_DIM_KEYS = {"min", "max", "multiple_of", "production"}


def _pos_int(path: Path, key: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise TaskError(path, key, "must be an integer >= 1")
    return value


def _space(path: Path, data) -> Space:
    """Validate the [space] table (docs/task-format.md)."""
    if not isinstance(data, dict):
        raise TaskError(path, "space", "must be a table")
    for key in data:
        if key not in _SPACE_KEYS:
            raise TaskError(path, f"space.{key}", "unknown key")
    if "max_elements" not in data:
        raise TaskError(path, "space.max_elements", "required key is missing")
    max_elements = _pos_int(path, "space.max_elements", data["max_elements"])
    cpu_max = _pos_int(path, "space.cpu_max_elements", data.get("cpu_max_elements", max_elements))
    if cpu_max > max_elements:
        raise TaskError(path, "space.cpu_max_elements", f"{cpu_max} exceeds space.max_elements ({max_elements})")
    shape_table = data.get("shape")
    if not isinstance(shape_table, dict) or not shape_table:
        raise TaskError(path, "space.shape", "needs at least one [space.shape.<param>] table")
    shape = {}
    for name, dim in shape_table.items():
        key = f"space.shape.{name}"
        if not isinstance(dim, dict):
            raise TaskError(path, key, "must be a table { min, max, multiple_of, production }")
        for k in dim:
            if k not in _DIM_KEYS:
                raise TaskError(path, f"{key}.{k}", "unknown key")
        for k in ("min", "max"):
            if k not in dim:
                raise TaskError(path, f"{key}.{k}", "required key is missing")
        lo, hi = _pos_int(path, f"{key}.min", dim["min"]), _pos_int(path, f"{key}.max", dim["max"])
        mult = _pos_int(path, f"{key}.multiple_of", dim.get("multiple_of", 1))
        if lo > hi:
            raise TaskError(path, f"{key}.max", f"{hi} is below min ({lo})")
        dim_lo, dim_hi = Dim(lo, hi, mult).legal()
        if dim_lo > dim_hi:
            raise TaskError(path, f"{key}.multiple_of", f"no multiple of {mult} lies in [{lo}, {hi}]")
        prod = dim.get("production", [])
        if not isinstance(prod, list):
            raise TaskError(path, f"{key}.production", "must be a list of integers")
        for i, v in enumerate(prod):
            _pos_int(path, f"{key}.production[{i}]", v)
            if not lo <= v <= hi or v % mult:
                raise TaskError(path, f"{key}.production[{i}]",
                                f"{v} is outside [{lo}, {hi}] or not a multiple of {mult}")
        shape[name] = Dim(lo, hi, mult, tuple(prod))
    fixed = {}
    fixed_table = data.get("fixed", {})
    if not isinstance(fixed_table, dict):
        raise TaskError(path, "space.fixed", "must be a table of name = [choices]")
    for name, choices in fixed_table.items():
        key = f"space.fixed.{name}"
        if name in shape:
            raise TaskError(path, key, "is also a shape parameter")
        if (not isinstance(choices, list) or not choices
                or not all(isinstance(c, (str, int, float, bool)) for c in choices)):
            raise TaskError(path, key, "must be a non-empty list of scalars (the choices)")
        fixed[name] = tuple(choices)
    smallest = math.prod(d.legal()[0] for d in shape.values())
    if smallest > cpu_max:
        raise TaskError(path, "space.cpu_max_elements" if "cpu_max_elements" in data else "space.max_elements",
                        f"{cpu_max} is below the smallest shape in the space ({smallest})")
    constraints = _str_list(path, "space.constraints", data.get("constraints", []))
    for i, expr in enumerate(constraints):
        problem = _constraint_problem(expr, set(shape) | set(fixed))
        if problem:
            raise TaskError(path, f"space.constraints[{i}]", f"{expr!r} {problem}")
    return Space(max_elements=max_elements, cpu_max_elements=cpu_max, shape=shape, fixed=fixed,
                 constraints=tuple(constraints))


SUITE_NAME = re.compile(r"[a-z0-9][a-z0-9_-]*")


def _work(path: Path, data) -> Work:
    """Validate the [work] table's form (runner/tasks/work.py); the values are checked per config later."""
    if not isinstance(data, dict):
        raise TaskError(path, "work", "must be a table")
    for key in ("bytes", "flops", "dtype"):
        if key not in data:
            raise TaskError(path, f"work.{key}", "required key is missing")
    for key in ("bytes", "flops"):
        value = data[key]
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            value = data[key] = repr(value)       # a constant is an expression too
        if not isinstance(value, str) or not value.strip():
            raise TaskError(path, f"work.{key}", "must be an expression string, e.g. \"2*rows*cols*4\"")
        why = work_expr.problem(value)
        if why:
            raise TaskError(path, f"work.{key}", f"{value!r} {why}")
    if data["dtype"] not in work_expr.DTYPES:
        raise TaskError(path, "work.dtype", f"{data['dtype']!r} is not one of {', '.join(work_expr.DTYPES)}")
    return Work(bytes=data["bytes"].strip(), flops=data["flops"].strip(), dtype=data["dtype"])


def load_task(task_dir: Path, tasks_root: Path | None = None, workspace_view: bool = False) -> Task:
    """Load and validate one task folder. Raises TaskError naming the file and field.

    `workspace_view` accepts the task.toml written into an agent's workspace, which names no
    hidden configs and no solution."""
    task_dir = Path(task_dir).resolve()
    tasks_root = Path(tasks_root).resolve() if tasks_root else task_dir.parent.parent
    path = task_dir / "task.toml"
    own = _read_toml(path)
    for key in own:
        if key not in _TOP_KEYS:
            raise TaskError(path, key, "unknown key")
    for table, allowed in _TABLE_KEYS.items():
        if table in own:
            if not isinstance(own[table], dict):
                raise TaskError(path, table, "must be a table")
            for key in own[table]:
                if key not in allowed:
                    raise TaskError(path, f"{table}.{key}", "unknown key")
    data, bases = _merged(path, tasks_root)
    for key in _REQUIRED:
        if _get(data, key) is None:
            raise TaskError(path, key, "required key is missing")

    category = data["category"]
    if category not in CATEGORIES:
        raise TaskError(path, "category", f"{category!r} is not one of {', '.join(CATEGORIES)}")
    expected_id = f"{task_dir.parent.name}/{task_dir.name}"
    if not workspace_view and data["id"] != expected_id:
        raise TaskError(path, "id", f"{data['id']!r} must be {expected_id!r} (category/folder)")
    if not workspace_view and task_dir.parent.name != category:
        raise TaskError(path, "category", f"{category!r} but the task lives under {task_dir.parent.name}/")
    platforms = _str_list(path, "platforms", data["platforms"])
    if not platforms:  # a task that runs nowhere would be skipped silently by every run
        raise TaskError(path, "platforms", f"must name at least one of {', '.join(PLATFORMS)}")
    for p in platforms:
        if p not in PLATFORMS:
            raise TaskError(path, "platforms", f"{p!r} is not one of {', '.join(PLATFORMS)}")
    if not isinstance(data["description"], str):
        raise TaskError(path, "description", "must be a string")

    folders = (task_dir, *bases)

    def find(key: str, rel: str) -> Path:
        for folder in folders:
            if (folder / rel).is_file():
                # a link out of the folder would copy any host file into the workspace or the judge
                if not (folder / rel).resolve().is_relative_to(folder):
                    raise TaskError(path, key, f"{rel!r} is a symlink out of the task folder "
                                    f"(to {(folder / rel).resolve()})")
                return folder / rel
        raise TaskError(path, key, f"file {rel!r} not found")

    files = {}
    for i, value in enumerate(_str_list(path, "workspace.files", data["workspace"]["files"])):
        rel = _relpath(path, f"workspace.files[{i}]", value)
        files[rel] = find(f"workspace.files[{i}]", rel)
    editable = [_relpath(path, f"workspace.editable[{i}]", v)
                for i, v in enumerate(_str_list(path, "workspace.editable", data["workspace"]["editable"]))]
    if not editable:
        raise TaskError(path, "workspace.editable", "at least one editable path is required")

    entry = _relpath(path, "candidate.entry", data["candidate"]["entry"])
    symbol = data["candidate"]["symbol"]
    if not isinstance(symbol, str) or not symbol.isidentifier():
        raise TaskError(path, "candidate.symbol", "must be an identifier")
    flags = tuple(_str_list(path, "candidate.compile_flags", data["candidate"].get("compile_flags", [])))
    kind = data["candidate"].get("kind", "launch")
    if kind not in CANDIDATE_KINDS:
        raise TaskError(path, "candidate.kind", f"{kind!r} is not one of {', '.join(CANDIDATE_KINDS)}")
    if kind == "torch-extension" and category.endswith("2triton"):
        raise TaskError(path, "candidate.kind", "a torch extension is native code: not for a Triton category")
    reference_rel = _relpath(path, "reference.module", data["reference"]["module"])
    reference = find("reference.module", reference_rel)
    seen_rel = _relpath(path, "configs.seen", data["configs"]["seen"])
    seen_file = find("configs.seen", seen_rel)
    if "hidden" in data["configs"] or not workspace_view:
        if workspace_view:
            raise TaskError(path, "configs.hidden", "a workspace view names no hidden configs")
        if "hidden" not in data["configs"]:
            raise TaskError(path, "configs.hidden", "required key is missing")
        hidden_rel = _relpath(path, "configs.hidden", data["configs"]["hidden"])
        hidden_file = find("configs.hidden", hidden_rel)
    else:
        hidden_rel, hidden_file = "", None
    solution_rel = None
    solution_dir = None
    if "solution" in data:
        solution_rel = _relpath(path, "solution.dir", data["solution"].get("dir"))
        for folder in folders:
            if (folder / solution_rel).is_dir():
                solution_dir = folder / solution_rel
                break
        else:
            raise TaskError(path, "solution.dir", f"folder {solution_rel!r} not found")

    # Deny-by-default: every task file that is not editable is protected.
    protected = {"task.toml", reference_rel, seen_rel} | ({hidden_rel} if hidden_rel else set())
    hidden_dir = PurePosixPath(hidden_rel).parent.as_posix() if hidden_rel else "."
    for i, rel in enumerate(editable):
        key = f"workspace.editable[{i}]"
        if rel in protected:
            raise TaskError(path, key, f"{rel!r} is a protected file")
        under = [d for d in (hidden_dir if hidden_dir != "." else None, solution_rel) if d]
        if any(PurePosixPath(rel).is_relative_to(d) for d in under):
            raise TaskError(path, key, f"{rel!r} lies in a protected folder")
    if hidden_rel in files:
        raise TaskError(path, "workspace.files", f"hidden configs {hidden_rel!r} may not be copied into the workspace")
    if seen_rel not in files:
        raise TaskError(path, "configs.seen", f"{seen_rel!r} must be one of workspace.files (the agent sees it)")
    if entry not in editable:
        raise TaskError(path, "candidate.entry", f"{entry!r} must be an editable path")
    if entry not in files and not any((f / entry).is_file() for f in folders):
        raise TaskError(path, "candidate.entry", f"file {entry!r} not found")

    tolerances = {}
    for dtype, tol in (data.get("tolerance") or {}).items():
        key = f"tolerance.{dtype}"
        if dtype not in _TOLERANCE_DTYPES:
            raise TaskError(path, key, "unknown dtype")
        if not isinstance(tol, dict) or set(tol) - {"atol", "rtol"} or len(tol) != 2:
            raise TaskError(path, key, "must be { atol = X, rtol = Y }")
        for bound in ("atol", "rtol"):
            value = tol[bound]
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < math.inf:
                raise TaskError(path, f"{key}.{bound}", f"must be a finite number >= 0, not {value!r}")
        tolerances[dtype] = Tolerance(float(tol["atol"]), float(tol["rtol"]))

    space = _space(path, data["space"]) if "space" in data else None
    max_speedup = _get(data, "performance.max_speedup")
    if max_speedup is not None and (isinstance(max_speedup, bool) or not isinstance(max_speedup, (int, float))
                                    or not 1 < max_speedup < math.inf):
        raise TaskError(path, "performance.max_speedup", f"must be a finite number > 1, not {max_speedup!r}")

    suites = _str_list(path, "suites", data.get("suites", []))
    for i, name in enumerate(suites):
        if not SUITE_NAME.fullmatch(name):
            raise TaskError(path, f"suites[{i}]", f"{name!r} is not a suite name (lower-case letters, digits, - and _)")
    work = _work(path, data["work"]) if "work" in data else None
    origin = None
    if "source" in data:
        for key in ("benchmark", "path", "category"):
            if not isinstance(data["source"].get(key), str) or not data["source"][key]:
                raise TaskError(path, f"source.{key}", "required: a non-empty string")
        if not isinstance(data["source"].get("commit", ""), str):
            raise TaskError(path, "source.commit", "must be a string")
        origin = Origin(**data["source"])

    task = Task(id=data["id"], category=category, platforms=tuple(platforms),
                description=data["description"].strip(), root=task_dir, files=files,
                editable=tuple(editable), entry=entry, symbol=symbol, compile_flags=flags,
                reference=reference, seen_file=seen_file, hidden_file=hidden_file,
                tolerances=tolerances, solution_dir=solution_dir, bases=bases, space=space,
                max_speedup=float(max_speedup) if max_speedup is not None else None,
                suites=tuple(dict.fromkeys(suites)), work=work, origin=origin, kind=kind)
    seen = task.configs("seen")
    seen_names = {c.name for c in seen}
    if space is not None:  # a drawn config must carry exactly what make_inputs reads
        declared = set(space.shape) | set(space.fixed)
        for c in seen:
            if set(c.params) != declared:
                raise TaskError(path, "space", f"declares {sorted(declared)} but seen config {c.name!r} "
                                f"has {sorted(c.params)}")
            for name in space.shape:
                if isinstance(c.params[name], bool) or not isinstance(c.params[name], int):
                    raise TaskError(path, f"space.shape.{name}", f"seen config {c.name!r} sets it to "
                                    f"{c.params[name]!r}, not an integer")
            # the space claims to describe the configs the agent sees: each must lie in it
            outside = space.outside(c.params)
            if outside:
                raise TaskError(path, outside[0], f"seen config {c.name!r} sets it to {outside[1]}")
    for c in task.configs("unseen"):
        if c.name in seen_names:
            raise TaskError(hidden_file, "config.name", f"{c.name!r} is also a seen config name")
    if space is not None:
        # hidden configs may probe beyond the draw's ranges, never break the contract's relations
        for c in (*seen, *task.configs("unseen")):
            broken = space.violated(c.params)
            if broken:
                raise TaskError(path, f"space.constraints[{space.constraints.index(broken)}]",
                                f"{broken!r} does not hold for {c.split} config {c.name!r}")
    if work is not None:     # every config's work must be a number: the judge divides by it
        for c in (*seen, *task.configs("unseen")):
            for key in ("bytes", "flops"):
                try:
                    work_expr.evaluate(getattr(work, key), c.params)
                except work_expr.WorkError as exc:
                    raise TaskError(path, f"work.{key}", f"{getattr(work, key)!r} {exc} on {c.split} config {c.name!r}")
    if solution_dir is not None:
        for rel in task.solution_files():
            if rel not in editable:
                raise TaskError(path, "solution.dir", f"{solution_rel}/{rel} is not an editable path")
    return task


def default_tasks_root() -> Path:
    from runner.resources import suite_root
    return suite_root() / "tasks"


def discover(tasks_root: Path | None = None) -> list[Path]:
    """The task folders (<category>/<name>/task.toml) under the root; a missing or empty root is an
    error naming it (rather than every selector later matching nothing)."""
    root = Path(tasks_root or default_tasks_root())
    if not root.is_dir():
        raise TaskError(root, "--tasks-root", "no such folder" if not root.exists() else "not a folder")
    dirs = sorted(p.parent for p in root.glob("*/*/task.toml"))
    if not dirs:
        raise TaskError(root, "--tasks-root", "holds no task (no <category>/<name>/task.toml)")
    return dirs


def _suggest(name: str, ids: list[str]) -> str:
    """' (did you mean cuda2cuda/softmax, ...?)' for a bare or mistyped task id; '' if nothing is close."""
    import difflib
    leaf = name.rsplit("/", 1)[-1]
    near_leaves = set(difflib.get_close_matches(leaf, [i.rsplit("/", 1)[-1] for i in ids], n=3))
    close = ([i for i in ids if i.rsplit("/", 1)[-1] == leaf]
             or [i for i in ids if i.rsplit("/", 1)[-1] in near_leaves]
             or difflib.get_close_matches(name, sorted({i.split("/")[0] for i in ids}) + ids, n=3))
    return f" (did you mean {', '.join(close)}?)" if close else ""


def find_task(task_id: str, tasks_root: Path | None = None) -> Path:
    """The folder of one task id (category/name), or a TaskError that suggests the ids meant."""
    root = Path(tasks_root or default_tasks_root())
    dirs = discover(root)
    ids = {f"{d.parent.name}/{d.name}": d for d in dirs}
    wanted = task_id.strip("/")
    if wanted not in ids:
        raise TaskError(root, "task", f"no task {task_id!r}{_suggest(wanted, list(ids))}")
    return ids[wanted]


def select(selectors: list[str] | tuple[str, ...], tasks_root: Path | None = None,
           suite: str | None = None) -> list[Task]:
    """Tasks whose id equals a selector or starts with `selector/` ('all' or nothing selects all),
    and that are in `suite` when one is named."""
    root = Path(tasks_root or default_tasks_root())
    return [load_task(d, root) for d in select_dirs(selectors, root, suite)]


def select_dirs(selectors: list[str] | tuple[str, ...], tasks_root: Path | None = None,
                suite: str | None = None) -> list[Path]:
    """The folders `select` loads, unloaded (so `tasks validate` can report each bad one); a selector
    that matches nothing is a TaskError that suggests the ids meant."""
    root = Path(tasks_root or default_tasks_root())
    dirs = _select_dirs(selectors, root)
    return dirs if suite is None else _in_suite(dirs, suite, root)


def _in_suite(dirs: list[Path], suite: str, root: Path) -> list[Path]:
    """The folders whose task.toml names `suite` (a task's own `suites`: they are not inherited). A
    task.toml that cannot say is kept, so the loader reports it rather than the filter hiding it."""
    chosen, members, known = [], 0, set()
    for d in dirs:
        try:
            names = _read_toml(d / "task.toml").get("suites", [])
        except TaskError:
            chosen.append(d)
            continue
        if not isinstance(names, list):
            chosen.append(d)
            continue
        known.update(n for n in names if isinstance(n, str))
        if suite in names:
            chosen.append(d)
            members += 1
    if not members:
        raise TaskError(root, "--suite", f"no selected task is in suite {suite!r} "
                        f"(suites there: {', '.join(sorted(known)) or 'none'})")
    return chosen


def _select_dirs(selectors: list[str] | tuple[str, ...], tasks_root: Path | None = None) -> list[Path]:
    root = Path(tasks_root or default_tasks_root())
    dirs = discover(root)
    ids = [f"{d.parent.name}/{d.name}" for d in dirs]
    wanted = [s.strip("/") for s in selectors if s not in ("all", "")]
    chosen = []
    for sel in wanted:
        match = [d for d, i in zip(dirs, ids) if i == sel or i.startswith(sel + "/") or d.parent.name == sel]
        if not match:
            raise TaskError(root, "selector", f"{sel!r} matches no task{_suggest(sel, ids)}")
        chosen.extend(m for m in match if m not in chosen)
    return chosen if wanted else dirs
