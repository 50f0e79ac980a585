"""The file-test format (``tests/filetests/README.md``): ``// RUN:`` lines and ``// LAUNCH:`` blocks
read from a self-contained ``.ptx`` or ``.ir`` file.

Invariant: ``parse`` returns every RUN command and every launch block of a file, or raises
``FileTestError`` naming the file and line of the first malformed directive; values are exact
(integers wrap to the element type's width, as PTX registers do), and ``expr(N, "...")`` evaluates
a restricted integer expression of the element index ``i`` (no names but ``i`` and ``n``, no
attribute access, no calls but ``min``/``max``/``abs``), so expected values are written in the test
as a specification, never computed by the code under test.
"""

from __future__ import annotations

import ast
import operator
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ptx2gcn.runtime.kernargs import SCALAR_TYPES


class FileTestError(Exception):
    pass


@dataclass
class Launch:
    """One ``// LAUNCH:`` block: a kernel, its launch shape, arguments and expected buffers."""

    line: int
    kernel: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    shared: int = 0
    args: list[tuple[str, str, object]] = field(default_factory=lambda: [])
    """(name, type, value): a scalar's value is a number, a buffer's (type ``u32[]``...) an array."""
    expect: dict[str, npt.NDArray[Any]] = field(default_factory=lambda: {})


@dataclass
class FileTest:
    path: Path
    runs: list[tuple[int, str]]
    """(line, shell command with %s substituted)."""
    launches: list[Launch]
    reference_gap: str = ""
    """``// REFERENCE-UNSUPPORTED: <why>``: the reference interpreter does not model an instruction the
    file launches; its reference items must fail with that located ``unsupported`` (strict xfail)."""


_DIRECTIVE = re.compile(r"^\s*//\s*(RUN|LAUNCH|ARG|EXPECT|REFERENCE-UNSUPPORTED):\s*(.*?)\s*$")


def parse(path: Path) -> FileTest:
    test = FileTest(path, [], [])
    for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        match = _DIRECTIVE.match(text)
        if match is None:
            continue
        kind, body = match.groups()
        try:
            _directive(test, kind, body, number)
        except (ValueError, KeyError, SyntaxError, TypeError, IndexError) as error:
            raise FileTestError(f"{path}:{number}: {kind}: {error}") from None
    return test


def _directive(test: FileTest, kind: str, body: str, line: int) -> None:
    if kind == "RUN":
        test.runs.append((line, body.replace("%s", str(test.path))))
        return
    if kind == "LAUNCH":
        test.launches.append(_launch(body, line))
        return
    if kind == "REFERENCE-UNSUPPORTED":
        if not body:
            raise ValueError("say which instruction the reference interpreter does not model")
        test.reference_gap = body
        return
    if not test.launches:
        raise ValueError("before any LAUNCH")
    launch = test.launches[-1]
    name, _, value = (part.strip() for part in body.partition("="))
    if kind == "ARG":
        typ, _, rest = value.partition(" ")
        if typ.endswith("[]"):
            launch.args.append((name, typ, values(typ[:-2], rest.strip())))
        else:
            _element(typ)
            launch.args.append((name, typ, _number(rest.strip())))
        return
    buffers = {n: t for n, t, _ in launch.args if t.endswith("[]")}
    if name not in buffers:
        raise ValueError(f"no buffer argument named {name!r}")
    launch.expect[name] = values(buffers[name][:-2], value)


def _launch(body: str, line: int) -> Launch:
    kernel, *fields = body.split()
    options = dict(f.split("=", 1) for f in fields)
    unknown = set(options) - {"grid", "block", "shared"}
    if unknown:
        raise ValueError(f"unknown launch field(s) {', '.join(sorted(unknown))}")
    return Launch(line, kernel, _dims(options.get("grid", "1")), _dims(options.get("block", "1")),
                  int(options.get("shared", "0"), 0))


def _dims(text: str) -> tuple[int, int, int]:
    parts = [int(p, 0) for p in text.split(",")]
    if not 1 <= len(parts) <= 3 or min(parts) < 1:
        raise ValueError(f"bad dimensions {text!r}")
    x, y, z = (*parts, 1, 1)[:3]
    return x, y, z


def _element(typ: str) -> np.dtype[Any]:
    if typ not in SCALAR_TYPES:
        raise ValueError(f"unknown element type {typ!r} (expected one of {', '.join(SCALAR_TYPES)})")
    return SCALAR_TYPES[typ]


def _number(text: str) -> int | float:
    value = ast.literal_eval(text)
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise ValueError(f"expected a number, got {text!r}")
    return value


def values(typ: str, text: str) -> npt.NDArray[Any]:
    """``[a, b, ...]``, ``zeros(N)``, ``fill(N, v)``, ``iota(N[, start[, step]])`` or ``expr(N, "...")``
    as a 1-D array of element type ``typ`` (integers wrap to its width)."""
    dtype = _element(typ)
    tree = ast.parse(text, mode="eval").body
    if isinstance(tree, ast.List):
        items = [ast.literal_eval(e) for e in tree.elts]
    elif isinstance(tree, ast.Call) and isinstance(tree.func, ast.Name):
        items = _generator(tree.func.id, [ast.literal_eval(a) for a in tree.args])
    else:
        raise ValueError(f"expected [..], zeros(), fill(), iota() or expr(), got {text!r}")
    if dtype.kind == "f":
        return np.array(items, dtype=dtype)
    bits = dtype.itemsize * 8
    wrapped = [int(v) % (1 << bits) for v in items]
    return np.array(wrapped, dtype=np.dtype(f"<u{dtype.itemsize}")).view(dtype)


def _generator(name: str, args: list[Any]) -> list[Any]:
    if name == "zeros":
        return [0] * args[0]
    if name == "fill":
        return [args[1]] * args[0]
    if name == "iota":
        count, start, step = args[0], args[1] if len(args) > 1 else 0, args[2] if len(args) > 2 else 1
        return [start + step * i for i in range(count)]
    if name == "expr":
        count, source = args
        function = _compile(source)
        return [int(v) if isinstance(v, bool) else v for v in (function(i, count) for i in range(count))]
    raise ValueError(f"unknown generator {name}()")


_BINARY: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod, ast.BitXor: operator.xor, ast.BitAnd: operator.and_, ast.BitOr: operator.or_,
    ast.LShift: operator.lshift, ast.RShift: operator.rshift, ast.Pow: operator.pow,
}
_UNARY: dict[type[ast.unaryop], Callable[[Any], Any]] = {
    ast.USub: operator.neg, ast.Invert: operator.invert, ast.Not: operator.not_, ast.UAdd: operator.pos,
}
_COMPARE: dict[type[ast.cmpop], Callable[[Any, Any], Any]] = {
    ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
}
_CALLS: dict[str, Callable[..., Any]] = {"min": min, "max": max, "abs": abs}


def _compile(source: str) -> Callable[[int, int], Any]:
    tree = ast.parse(source, mode="eval").body
    return lambda i, n: _eval(tree, {"i": i, "n": n})


def _eval(node: ast.expr, names: dict[str, int]) -> Any:  # noqa: C901 - one case per node kind
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return node.value
    if isinstance(node, ast.Name) and node.id in names:
        return names[node.id]
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        return _BINARY[type(node.op)](_eval(node.left, names), _eval(node.right, names))
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _UNARY[type(node.op)](_eval(node.operand, names))
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _COMPARE:
        return _COMPARE[type(node.ops[0])](_eval(node.left, names), _eval(node.comparators[0], names))
    if isinstance(node, ast.IfExp):
        return _eval(node.body if _eval(node.test, names) else node.orelse, names)
    if isinstance(node, ast.BoolOp):
        results = [_eval(v, names) for v in node.values]
        return all(results) if isinstance(node.op, ast.And) else any(results)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _CALLS:
        return _CALLS[node.func.id](*(_eval(a, names) for a in node.args))
    raise ValueError(f"not allowed in expr(): {ast.unparse(node)}")
