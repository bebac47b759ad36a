"""A small, safe expression language for task cards: recompute rules, criteria, expectations.

Cards are data, never code: an expression such as `-loglog_slope(n, survival)` or
`p_grok_l1_on > p_grok_l1_off` is parsed with `ast` and evaluated by walking a whitelist of node
types (numbers, names, arithmetic, comparisons, and/or/not, calls of the functions in FUNCTIONS,
constant indexing). Names resolve to numpy arrays or numbers from the namespace the grader
supplies (raw arrays, workspace parameters, reported metrics). Anything else is an ExprError.
"""

from __future__ import annotations

import ast
import math
import operator
from typing import Any, Callable

import numpy as np

MAX_EXPR_CHARS = 400


class ExprError(ValueError):
    """An expression that is not in the language, or failed on its data."""


def _arr(a: Any) -> np.ndarray:
    return np.asarray(a, dtype=float).ravel()


def _xy(x: Any, y: Any) -> tuple[np.ndarray, np.ndarray]:
    x, y = _arr(x), _arr(y)
    if x.size != y.size:
        raise ExprError(f"arrays of different sizes ({x.size} and {y.size})")
    if x.size < 2:
        raise ExprError("a fit needs at least two points")
    return x, y


def slope(x: Any, y: Any) -> float:
    """Least-squares slope of y against x."""
    x, y = _xy(x, y)
    return float(np.polyfit(x, y, 1)[0])


def loglog_slope(x: Any, y: Any) -> float:
    """Least-squares slope of log y against log x (points with x <= 0 or y <= 0 are dropped)."""
    x, y = _xy(x, y)
    keep = (x > 0) & (y > 0) & np.isfinite(x) & np.isfinite(y)
    if keep.sum() < 2:
        raise ExprError("fewer than two positive points for a log-log fit")
    return float(np.polyfit(np.log(x[keep]), np.log(y[keep]), 1)[0])


def prop_slope(x: Any, y: Any) -> float:
    """Least-squares slope of y = k x through the origin: sum(x y) / sum(x^2)."""
    x, y = _xy(x, y)
    return float(np.sum(x * y) / np.sum(x * x))


def corr(x: Any, y: Any) -> float:
    """Pearson correlation."""
    x, y = _xy(x, y)
    return float(np.corrcoef(x, y)[0, 1])


def bimodality(a: Any) -> float:
    """Sample bimodality coefficient (g^2 + 1) / (k + 3 (n-1)^2 / ((n-2)(n-3)))."""
    a = _arr(a)
    n = a.size
    if n < 4:
        raise ExprError("the bimodality coefficient needs at least four values")
    m, s = a.mean(), a.std()
    g = np.mean((a - m) ** 3) / s**3
    k = np.mean((a - m) ** 4) / s**4 - 3
    return float((g * g + 1) / (k + 3 * (n - 1) ** 2 / ((n - 2) * (n - 3))))


def colmean(a: Any) -> np.ndarray:
    """Column means of a 2-D array (rows are samples): one value per grid point."""
    a = np.asarray(a, dtype=float)
    if a.ndim != 2 or a.shape[0] == 0:
        raise ExprError(f"colmean needs a 2-D array of samples, got shape {a.shape}")
    return a.mean(axis=0)


def ccdf(samples: Any, at: Any) -> np.ndarray:
    """Fraction of `samples` greater than each value of `at` (an empirical survival function)."""
    s, t = np.sort(_arr(samples)), _arr(at)
    if s.size == 0:
        raise ExprError("empty array")
    return 1.0 - np.searchsorted(s, t, side="right") / s.size


def _reduce(fn: Callable[[np.ndarray], Any]) -> Callable[[Any], float]:
    def f(a: Any) -> float:
        a = _arr(a)
        if a.size == 0:
            raise ExprError("empty array")
        return float(fn(a))
    return f


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "mean": _reduce(np.mean), "median": _reduce(np.median), "sum": _reduce(np.sum), "std": _reduce(np.std),
    "min": _reduce(np.min), "max": _reduce(np.max), "first": _reduce(lambda a: a[0]), "last": _reduce(lambda a: a[-1]),
    "size": lambda a: float(_arr(a).size), "colmean": colmean, "ccdf": ccdf, "round": np.round,
    "abs": np.abs, "sqrt": np.sqrt, "log": np.log, "exp": np.exp,
    "slope": slope, "loglog_slope": loglog_slope, "prop_slope": prop_slope, "corr": corr, "bimodality": bimodality,
}

_BINOPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
           ast.Pow: operator.pow}
_CMPOPS = {ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge,
           ast.Eq: operator.eq, ast.NotEq: operator.ne}


def parse(text: str) -> ast.Expression:
    if not isinstance(text, str) or len(text) > MAX_EXPR_CHARS:
        raise ExprError("not an expression string of at most %d characters" % MAX_EXPR_CHARS)
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as e:
        raise ExprError(f"syntax error in {text!r}: {e.msg}") from None
    for node in ast.walk(tree):
        if isinstance(node, (ast.Expression, ast.Load, ast.Name, ast.BinOp, ast.UnaryOp, ast.Compare, ast.BoolOp,
                             ast.Call, ast.Subscript, ast.And, ast.Or, ast.Not, ast.USub, ast.UAdd,
                             *_BINOPS, *_CMPOPS)):
            continue
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
            continue
        raise ExprError(f"{type(node).__name__} is not allowed in {text!r}")
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and (not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS
                                           or node.keywords):
            raise ExprError(f"only calls of {sorted(FUNCTIONS)} (positional arguments) are allowed in {text!r}")
    return tree


def names(text: str) -> set[str]:
    """The data names an expression reads (function names excluded)."""
    tree = parse(text)
    funcs = {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} - funcs


def evaluate(text: str, namespace: dict[str, Any]) -> Any:
    """Value of `text` with names from `namespace`; ExprError on anything outside the language."""
    tree = parse(text)

    def ev(node: ast.AST) -> Any:
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            if node.id not in namespace:
                raise ExprError(f"unknown name {node.id!r}")
            return namespace[node.id]
        if isinstance(node, ast.UnaryOp):
            v = ev(node.operand)
            if isinstance(node.op, ast.USub):
                return -v
            if isinstance(node.op, ast.UAdd):
                return +v
            return not bool(v)
        if isinstance(node, ast.BinOp):
            left, right = ev(node.left), ev(node.right)
            if isinstance(node.op, ast.Pow) and np.max(np.abs(right)) > 16:
                raise ExprError("exponents above 16 are not allowed")
            return _BINOPS[type(node.op)](left, right)
        if isinstance(node, ast.Compare):
            left = ev(node.left)
            result: Any = True
            for op, comp in zip(node.ops, node.comparators):
                right = ev(comp)
                result = result & _CMPOPS[type(op)](left, right)
                left = right
            return result
        if isinstance(node, ast.BoolOp):
            values = [bool(ev(v)) for v in node.values]
            return all(values) if isinstance(node.op, ast.And) else any(values)
        if isinstance(node, ast.Call):
            return FUNCTIONS[node.func.id](*[ev(a) for a in node.args])
        if isinstance(node, ast.Subscript):
            idx = ev(node.slice)
            if not isinstance(idx, int):
                raise ExprError("only integer indexing is allowed")
            return _arr(ev(node.value))[idx]
        raise ExprError(f"{type(node).__name__} is not allowed")

    try:
        with np.errstate(all="ignore"):
            return ev(tree)
    except ExprError:
        raise
    except (ArithmeticError, ValueError, TypeError, IndexError, np.linalg.LinAlgError) as e:
        raise ExprError(f"{text!r} failed: {e}") from None


def as_number(value: Any) -> float:
    arr = np.asarray(value, dtype=float)
    if arr.size != 1:
        raise ExprError(f"expected one number, got an array of {arr.size}")
    v = float(arr.ravel()[0])
    if not math.isfinite(v):
        raise ExprError("the value is not finite")
    return v
