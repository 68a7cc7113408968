"""The work of one call of a task's operator: the `[work]` table of task.toml.

    [work]
    bytes = "2*rows*cols*4 + cols*4"    # bytes that must move (read + write), per call
    flops = "5*rows*cols"               # floating-point operations per call (0: pure data movement)
    dtype = "float32"                   # whose math ceiling applies

`bytes` and `flops` are expressions over a config's parameters: numbers, the names of the config's
parameters, + - * / // **, unary minus, and the calls min(...) and max(...). They are parsed with
`ast` and walked below, never `eval`ed. The judge divides them by a timed call to report GB/s,
TFLOP/s and the fraction of this GPU's measured ceiling (runner/evaluator/judge/roofline.py); `tasks
validate` checks them against the reference's tensors and counted FLOPs (runner/tasks/refcheck.py).

Standard library only: the evaluator imports this inside containers.
"""
from __future__ import annotations

import ast
import functools
import math
import operator
from dataclasses import dataclass

# The dtypes a ceiling is measured for (runner/evaluator/judge/roofline.py): tfloat32 is float32 tensors
# multiplied on tensor cores, the ceiling a float32 GEMM may use when the task allows TF32.
DTYPES = ("float32", "tfloat32", "bfloat16", "float16", "float8_e4m3fn", "int8")

_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
           ast.FloorDiv: operator.floordiv, ast.Pow: operator.pow}
_CALLS = {"min": min, "max": max}


class WorkError(ValueError):
    """Why an expression is not a work expression, or cannot be evaluated on a config."""


def problem(expr: str) -> str | None:
    """Why `expr` is not a work expression (names aside: they are checked against each config), or None."""
    try:
        tree = ast.parse(expr, mode="eval")
    except SyntaxError:
        return "is not an expression"
    for node in ast.walk(tree.body):
        if isinstance(node, ast.Call):
            if not isinstance(node.func, ast.Name) or node.func.id not in _CALLS or node.keywords or not node.args:
                return "calls something other than min(...) or max(...)"
        elif isinstance(node, ast.Name):
            continue      # a parameter name, or the callee of min/max
        elif isinstance(node, ast.Constant):
            if isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
                return f"has the constant {node.value!r} (numbers only)"
        elif isinstance(node, ast.BinOp):
            if type(node.op) not in _BINARY:
                return f"uses {type(node.op).__name__} (only + - * / // **)"
        elif isinstance(node, ast.UnaryOp):
            if not isinstance(node.op, (ast.USub, ast.UAdd)):
                return f"uses {type(node.op).__name__} (only unary minus)"
        elif not isinstance(node, (ast.Load, ast.USub, ast.UAdd, *_BINARY)):
            return f"uses {type(node).__name__} (numbers, parameter names, + - * / // **, min, max only)"
    return None


@functools.lru_cache(maxsize=None)
def _parsed(expr: str):
    return ast.parse(expr, mode="eval").body


def _value(node, params: dict):
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        if node.id not in params:
            raise WorkError(f"names {node.id!r}, not a parameter of the config")
        value = params[node.id]
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise WorkError(f"names {node.id!r}, whose value {value!r} is not a number")
        return value
    if isinstance(node, ast.UnaryOp):
        operand = _value(node.operand, params)
        return -operand if isinstance(node.op, ast.USub) else operand
    if isinstance(node, ast.BinOp):
        left, right = _value(node.left, params), _value(node.right, params)
        if isinstance(node.op, (ast.Div, ast.FloorDiv)) and right == 0:
            raise WorkError("divides by zero")
        if isinstance(node.op, ast.Pow) and abs(right) > 64:
            raise WorkError(f"raises to the power {right} (at most 64)")
        return _BINARY[type(node.op)](left, right)
    if isinstance(node, ast.Call):
        return _CALLS[node.func.id](*(_value(a, params) for a in node.args))
    raise WorkError(f"not a work expression node: {type(node).__name__}")


def evaluate(expr: str, params: dict) -> float:
    """The expression's value on a config's parameters: a finite number >= 0, or WorkError."""
    why = problem(expr)
    if why:
        raise WorkError(why)
    value = _value(_parsed(expr), params)
    if not math.isfinite(value) or value < 0:
        raise WorkError(f"is {value!r} (must be a finite number >= 0)")
    return float(value)


@dataclass(frozen=True)
class Work:
    bytes: str      # expression: bytes that must move per call (read + write)
    flops: str      # expression: floating-point operations per call
    dtype: str      # one of DTYPES: whose math ceiling applies

    def of(self, params: dict) -> tuple[float, float]:
        """(bytes, flops) of one call on a config."""
        return evaluate(self.bytes, params), evaluate(self.flops, params)
