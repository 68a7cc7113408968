"""The house's shape, read from the code's own imports: no import circle anywhere in runner/ (a lazy
import inside a function counts: a circle hidden in a function is still a circle a reader must hold
in mind), and the judge side of the evaluator never imports the modules that run beside the
candidate."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from .conftest import REPO

pytestmark = pytest.mark.quick

PACKAGE = REPO / "runner"


def module_name(path: Path, root: Path = PACKAGE) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(root: Path = PACKAGE) -> dict[str, set[str]]:
    """module -> the runner modules it imports (at module level or in a function)."""
    modules = {module_name(p, root): p for p in root.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                wanted = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    base = ".".join(up + ([node.module] if node.module else []))
                # `from pkg import mod` imports the module pkg.mod; `from mod import name` imports mod
                wanted = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
            else:
                continue
            for target in wanted:
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                if target and target != name:
                    targets.add(target)
        graph[name] = targets
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def test_runner_has_no_import_circle():
    graph = import_graph()
    assert len(graph) > 40, "the walk found too few modules to mean anything"
    found = circles(graph)
    assert not found, "import circles in runner/: " + "; ".join(
        " <-> ".join(f"{m} -> {sorted(graph[m] & set(c))}" for m in c) for c in found)


def test_the_check_finds_a_circle_when_there_is_one(tmp_path):
    """The walk and the search both work: a two-module circle through a lazy import is found."""
    package = tmp_path / "runner"
    (package / "inner").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "inner" / "__init__.py").write_text("")
    (package / "a.py").write_text("from runner.inner import b\n")
    (package / "inner" / "b.py").write_text("def f():\n    from ..a import x\n")
    (package / "c.py").write_text("import runner.a\n")
    assert circles(import_graph(package)) == [["runner.a", "runner.inner.b"]]


# What runs in a kernel runner's process, beside the candidate: nothing the judge may lean on.
RUNNER_SIDE = ("runner.evaluator.kernel_runner", "runner.evaluator.clock", "runner.evaluator.guard",
               "runner.evaluator.launch_gate", "runner.evaluator.nofork", "runner.evaluator.own_blocks")


def test_the_judge_side_never_imports_the_runner_side():
    """runner/evaluator/judge/ is the trusted side; it talks to a kernel runner only through
    protocol.py and arena.py, and imports none of the modules that run beside the candidate."""
    graph = import_graph()
    judge_side = sorted(m for m in graph if m.startswith("runner.evaluator.judge"))
    assert len(judge_side) >= 8, judge_side
    assert all(m in graph for m in RUNNER_SIDE), [m for m in RUNNER_SIDE if m not in graph]
    for module in judge_side:
        reached = graph[module] & set(RUNNER_SIDE)
        assert not reached, f"{module} imports the runner side: {sorted(reached)}"


def test_every_package_is_shipped():
    """pyproject lists its packages by hand: a package left off is missing from a non-editable
    install (`pip install .`), and only a user of that install would find out."""
    import tomllib
    listed = set(tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {module_name(init) for init in PACKAGE.rglob("__init__.py")}
    assert found - listed == set(), f"packages missing from pyproject.toml: {sorted(found - listed)}"
