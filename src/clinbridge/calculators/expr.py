"""A safe expression language for calculator formulas.

Expressions use Python's *syntax* (parsed with :func:`ast.parse`) but are never passed to
``eval``/``exec``: the AST is checked against a whitelist of node types, names and functions, and
compiled into a tree of closures. Allowed: numbers, strings, booleans, ``None``; names of inputs
and earlier steps; ``+ - * / // % **``; comparisons (chained), ``in``/``not in`` against a
tuple/list of constants; ``and``/``or``/``not``; ``a if cond else b``; and the functions in
:data:`FUNCTIONS`. Anything else (attributes, subscripts, lambdas, comprehensions, keyword
arguments, unknown names) is rejected with :class:`~clinbridge.errors.CalculatorSpecError`.

Example:
    >>> f = compile_expr("weight / (height / 100) ** 2", names={"weight", "height"})
    >>> round(f({"weight": 70.0, "height": 175.0}), 2)
    22.86
"""

from __future__ import annotations

import ast
import datetime as dt
import math
import operator
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from clinbridge.errors import CalculatorInputError, CalculatorSpecError

__all__ = ["FUNCTIONS", "Expr", "compile_expr", "names_in"]

Env = Mapping[str, Any]
Fn = Callable[[Env], Any]


def _add_days(d: dt.date, n: float) -> dt.date:
    return d + dt.timedelta(days=round(n))


def _days_between(a: dt.date, b: dt.date) -> int:
    return (b - a).days


def _clamp(x: float, lo: float, hi: float) -> float:
    return max(lo, min(hi, x))


def _round_half_up(x: float, ndigits: int = 0) -> float:
    q = 10.0**ndigits
    return math.floor(abs(x) * q + 0.5) / q * (1 if x >= 0 else -1)


def _count(*xs: Any) -> int:
    return sum(1 for x in xs if x)


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "abs": abs,
    "add_days": _add_days,
    "ceil": math.ceil,
    "clamp": _clamp,
    "count": _count,
    "days_between": _days_between,
    "exp": math.exp,
    "floor": math.floor,
    "ln": math.log,
    "log": math.log,
    "log10": math.log10,
    "max": max,
    "min": min,
    "round": _round_half_up,
    "sqrt": math.sqrt,
}
"""Functions an expression may call. ``log`` and ``ln`` are natural logarithms; ``round`` rounds
half away from zero; ``count(a, b, ...)`` counts true arguments; ``add_days(date, n)`` and
``days_between(a, b)`` do date arithmetic."""

_BINOPS: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_CMPOPS: dict[type[ast.cmpop], Callable[[Any, Any], bool]] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b,
}


class Expr:
    """A compiled expression: call it with a mapping of names to values."""

    __slots__ = ("_fn", "names", "source")

    def __init__(self, source: str, fn: Fn, names: frozenset[str]) -> None:
        self.source = source
        self._fn = fn
        self.names = names

    def __call__(self, env: Env) -> Any:
        """Evaluate the expression in ``env``."""
        try:
            return self._fn(env)
        except ZeroDivisionError as exc:
            raise CalculatorInputError(
                f"division by zero in {self.source!r}", expression=self.source
            ) from exc
        except (ValueError, OverflowError, TypeError) as exc:
            raise CalculatorInputError(
                f"cannot evaluate {self.source!r}: {exc}", expression=self.source
            ) from exc

    def __repr__(self) -> str:
        return f"Expr({self.source!r})"


def names_in(source: str) -> set[str]:
    """Names (not function names) an expression refers to."""
    tree = _parse(source)
    called = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and id(n) not in called}


def _parse(source: str) -> ast.Expression:
    try:
        return ast.parse(source.strip(), mode="eval")
    except SyntaxError as exc:
        raise CalculatorSpecError(
            f"syntax error in expression {source!r}: {exc.msg}", expression=source
        ) from exc


def compile_expr(source: str | float | int, *, names: Iterable[str]) -> Expr:
    """Check an expression against the whitelist and compile it.

    Args:
        source: the expression text (a bare number is accepted too).
        names: the names it may refer to.

    Raises:
        CalculatorSpecError: syntax error, a node type outside the whitelist, an unknown name
            or function.
    """
    text = repr(source) if isinstance(source, int | float) else str(source)
    known = frozenset(names)
    fn = _Compiler(text, known).visit(_parse(text).body)
    return Expr(text, fn, frozenset(names_in(text)))


class _Compiler:
    def __init__(self, source: str, names: frozenset[str]) -> None:
        self.source = source
        self.names = names

    def fail(self, what: str) -> CalculatorSpecError:
        return CalculatorSpecError(f"{what} in expression {self.source!r}", expression=self.source)

    def visit(self, node: ast.AST) -> Fn:
        method = getattr(self, f"visit_{type(node).__name__}", None)
        if method is None:
            raise self.fail(f"'{type(node).__name__}' is not allowed")
        fn: Fn = method(node)
        return fn

    def visit_Constant(self, node: ast.Constant) -> Fn:
        value = node.value
        if not isinstance(value, int | float | str | bool) and value is not None:
            raise self.fail(f"constant {value!r} is not allowed")
        return lambda env: value

    def visit_Name(self, node: ast.Name) -> Fn:
        name = node.id
        if name in ("True", "False", "None"):  # pragma: no cover - parsed as Constant
            raise self.fail("reserved name")
        if name not in self.names:
            raise self.fail(f"unknown name {name!r}")
        return lambda env: env[name]

    def visit_Tuple(self, node: ast.Tuple) -> Fn:
        items = [self.visit(e) for e in node.elts]
        return lambda env: tuple(f(env) for f in items)

    visit_List = visit_Tuple

    def visit_BinOp(self, node: ast.BinOp) -> Fn:
        op = _BINOPS.get(type(node.op))
        if op is None:
            raise self.fail(f"operator {type(node.op).__name__} is not allowed")
        left, right = self.visit(node.left), self.visit(node.right)
        if isinstance(node.op, ast.Pow):

            def power(env: Env) -> Any:
                base, exponent = left(env), right(env)
                if abs(exponent) > 100:
                    raise ValueError("exponent too large")
                return base**exponent

            return power
        return lambda env: op(left(env), right(env))

    def visit_UnaryOp(self, node: ast.UnaryOp) -> Fn:
        operand = self.visit(node.operand)
        if isinstance(node.op, ast.USub):
            return lambda env: -operand(env)
        if isinstance(node.op, ast.UAdd):
            return lambda env: +operand(env)
        if isinstance(node.op, ast.Not):
            return lambda env: not operand(env)
        raise self.fail(f"operator {type(node.op).__name__} is not allowed")

    def visit_BoolOp(self, node: ast.BoolOp) -> Fn:
        parts = [self.visit(v) for v in node.values]
        if isinstance(node.op, ast.And):
            return lambda env: all(p(env) for p in parts)
        return lambda env: any(p(env) for p in parts)

    def visit_Compare(self, node: ast.Compare) -> Fn:
        first = self.visit(node.left)
        ops: list[Callable[[Any, Any], bool]] = []
        for op in node.ops:
            f = _CMPOPS.get(type(op))
            if f is None:
                raise self.fail(f"comparison {type(op).__name__} is not allowed")
            ops.append(f)
        rest = [self.visit(c) for c in node.comparators]

        def compare(env: Env) -> bool:
            a = first(env)
            for op_fn, comp in zip(ops, rest, strict=True):
                b = comp(env)
                if not op_fn(a, b):
                    return False
                a = b
            return True

        return compare

    def visit_IfExp(self, node: ast.IfExp) -> Fn:
        test, body, orelse = self.visit(node.test), self.visit(node.body), self.visit(node.orelse)
        return lambda env: body(env) if test(env) else orelse(env)

    def visit_Call(self, node: ast.Call) -> Fn:
        if not isinstance(node.func, ast.Name):
            raise self.fail("only plain function calls are allowed")
        fname = node.func.id
        func = FUNCTIONS.get(fname)
        if func is None:
            raise self.fail(f"unknown function {fname!r} (allowed: {', '.join(sorted(FUNCTIONS))})")
        if node.keywords:
            raise self.fail("keyword arguments are not allowed")
        args = [self.visit(a) for a in node.args]
        if any(isinstance(a, ast.Starred) for a in node.args):  # pragma: no cover - visit rejects
            raise self.fail("starred arguments are not allowed")
        return lambda env: func(*(a(env) for a in args))
