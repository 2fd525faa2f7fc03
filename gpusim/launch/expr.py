"""The launch file's expressions: integer/float arithmetic over a size's parameters, nothing else.

An expression is a string such as ``"cdiv(n, 256)"`` or ``"ni * nk"``.  It is parsed with :mod:`ast` and
evaluated by walking a whitelist of node types: numbers, the size's parameters by name, ``+ - * / // % **``,
unary ``+``/``-``, parentheses, and calls of :data:`FUNCTIONS` with positional arguments.  Anything else
(attribute access, subscripts, strings, comparisons, lambdas, other names) is refused before evaluation, so a
launch file cannot run code through an expression (python code lives in the ``.py`` files it names).
"""
from __future__ import annotations

import ast
import math
import operator
from typing import Any, Callable, Mapping

from gpusim.errors import LaunchFileError


def _cdiv(a, b):
    """Ceiling division: the number of blocks of ``b`` that cover ``a``."""
    if isinstance(a, int) and isinstance(b, int):
        return -(-a // b)
    return math.ceil(a / b)


FUNCTIONS: dict[str, Callable] = {"cdiv": _cdiv, "min": min, "max": max, "ceil": math.ceil,
                                  "floor": math.floor, "log2": math.log2}

_BINOPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
           ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow}
_UNARY = {ast.USub: operator.neg, ast.UAdd: operator.pos}
_MAX_POW_BITS = 4096          # 2 ** 4096 is plenty for a size; refuses 10 ** 10 ** 10


class _Refused(Exception):
    pass


def _number(v, what: str):
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise _Refused(f"{what} is {v!r}, not a number")
    return v


def _walk(node: ast.AST, names: Mapping[str, Any]):
    if isinstance(node, ast.Expression):
        return _walk(node.body, names)
    if isinstance(node, ast.Constant):
        return _number(node.value, "the constant")
    if isinstance(node, ast.Name):
        if node.id not in names:
            known = ", ".join(sorted(names)) or "none"
            raise _Refused(f"unknown name {node.id!r} (the size's parameters: {known})")
        return _number(names[node.id], f"parameter {node.id!r}")
    if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
        a, b = _walk(node.left, names), _walk(node.right, names)
        if isinstance(node.op, ast.Pow) and abs(b) * max(1, math.log2(abs(a) or 1)) > _MAX_POW_BITS:
            raise _Refused(f"{a} ** {b} is too large")
        return _BINOPS[type(node.op)](a, b)
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _UNARY[type(node.op)](_walk(node.operand, names))
    if isinstance(node, ast.Call):
        if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS:
            what = node.func.id if isinstance(node.func, ast.Name) else ast.unparse(node.func)
            raise _Refused(f"unknown function {what!r} (functions: {', '.join(FUNCTIONS)})")
        if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
            raise _Refused(f"{node.func.id}() takes positional arguments only")
        return FUNCTIONS[node.func.id](*[_walk(a, names) for a in node.args])
    kind = {ast.Attribute: "attribute access", ast.Subscript: "subscripts", ast.Compare: "comparisons",
            ast.BoolOp: "and/or", ast.Lambda: "lambda", ast.IfExp: "if/else"}.get(type(node),
                                                                                  type(node).__name__)
    raise _Refused(f"{kind} is not allowed (only numbers, parameters, + - * / // % ** and "
                   f"{', '.join(FUNCTIONS)})")


def evaluate(value, params: Mapping[str, Any], where: str):
    """The value of ``value`` (a number, or an expression string) over the size's ``params``.

    ``where`` names the file and key (``"gemm.toml: [launch] grid[0]"``); every error is a
    :class:`LaunchFileError` that starts with it and quotes the expression."""
    if isinstance(value, bool):
        raise LaunchFileError(f"{where}: expected a number or an expression, got {value!r}")
    if isinstance(value, (int, float)):
        return value
    if not isinstance(value, str):
        raise LaunchFileError(f"{where}: expected a number or an expression string, got {value!r}")
    try:
        tree = ast.parse(value.strip(), mode="eval")
    except SyntaxError as e:
        raise LaunchFileError(f"{where}: {value!r} is not an expression ({e.msg})") from None
    try:
        return _walk(tree, params)
    except _Refused as e:
        raise LaunchFileError(f"{where}: {value!r}: {e}") from None
    except ZeroDivisionError:
        raise LaunchFileError(f"{where}: {value!r}: division by zero") from None
    except (TypeError, ValueError, OverflowError) as e:
        raise LaunchFileError(f"{where}: {value!r}: {e}") from None


def evaluate_int(value, params: Mapping[str, Any], where: str, *, minimum: int | None = None) -> int:
    """:func:`evaluate`, and the result must be an integer (a float with an integral value is accepted)."""
    v = evaluate(value, params, where)
    if isinstance(v, float):
        if not v.is_integer():
            raise LaunchFileError(f"{where}: {value!r} is {v:g}, not an integer (use // or cdiv)")
        v = int(v)
    if minimum is not None and v < minimum:
        raise LaunchFileError(f"{where}: {value!r} is {v}; it must be >= {minimum}")
    return v


def names_in(value) -> set[str]:
    """The parameter names an expression string uses (empty for a number or a malformed string)."""
    if not isinstance(value, str):
        return set()
    try:
        tree = ast.parse(value.strip(), mode="eval")
    except SyntaxError:
        return set()
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} - set(FUNCTIONS)
