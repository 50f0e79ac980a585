"""Cases of corpora/nvcc control_flow.cu.

Part of ``corpora/cases/make_cases.py`` (see its docstring for the invariant)."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
from casegen import Buffer, CaseSpec, Scalar

from generators.common import F32, NV, case, f32_inputs, fma, rng


# == control_flow.cu =================================================================================
def cvt_rzi_s32(x: np.ndarray) -> np.ndarray:
    """cvt.rzi.s32.f32: truncate, saturate to the s32 range, NaN -> 0."""
    with np.errstate(invalid="ignore"):
        t = np.trunc(np.nan_to_num(x.astype(np.float64), nan=0.0))
    return np.clip(t, -(2**31), 2**31 - 1).astype(np.int64).astype(np.int32)


def nested_loops_model(g: np.ndarray, stop: int, th: int, t: int) -> int:
    """nested_loops for thread ``th`` of ``t``: count odd cells of its columns until a ``stop`` cell."""
    found = 0
    for row in g:
        if row[0] == stop:
            break
        for v in (int(v) for v in row[th::t]):
            if v == stop:
                return found
            if v >= 0:
                found += v & 1
    return found


def collatz_steps(x: int) -> int:
    """irreducible: the Collatz steps to reach 1 (s32 arithmetic, C division), at most 1001 odd steps."""
    n = 0
    state = "odd" if x & 1 else "even"
    while True:
        if state == "even":
            x = int(x / 2)  # C division truncates toward zero
            n += 1
            if x <= 1:
                return n
            state = "odd" if x & 1 else "even"
        else:
            x = (3 * x + 1 + 2**31) % 2**32 - 2**31
            n += 1
            if n > 1000:
                return n
            state = "even"


def builtins_model(v: int) -> int:
    if v == 2**31 - 1:
        return -1
    r = [v, v * 3, v - 7, ~v][v & 3]
    return (r + 2**31) % 2**32 - 2**31


def newton_sqrt(target: float) -> tuple[float, int]:
    """newton_until_converged: the root of ``target`` by Newton's method in f64, and the iterations."""
    x = max(1.0, target)
    it = 0
    while True:
        prev = x
        x = 0.5 * (x + target / x)
        it += 1
        if not (abs(x - prev) > 1e-12 * x and it < 100):
            return x, it


def _bytecode_jump(insn: int, acc: int, pc: int, end: int) -> int:
    """The next pc after ``insn`` (already past it) in the interpreter kernel's byte code."""
    hi, lo = insn >> 4, insn & 15
    if hi == 4 and acc & 1:
        return pc + lo
    if hi == 5:
        return pc - lo if pc - lo >= 0 else end
    return end if hi == 15 else pc


def _bytecode_acc(insn: int, acc: int, stack: list[int]) -> int:
    """The accumulator after ``insn`` (pushing to or popping ``stack``), wrapped to s32."""
    hi, lo = insn >> 4, insn & 15
    if hi == 0:
        acc += lo
    elif hi == 1:
        acc *= lo + 1
    elif hi == 2:
        if len(stack) < 16:
            stack.append(acc)
    elif hi == 3:
        acc += stack.pop() if stack else 0
    elif hi not in (4, 5, 15):
        acc ^= insn
    return (acc + 2**31) % 2**32 - 2**31


def bytecode_model(code: np.ndarray, acc: int) -> int:
    """interpreter: run the byte code on ``acc``; the result plus the final stack depth, as s32."""
    stack: list[int] = []
    pc, fuel = 0, 0
    while pc < len(code):
        fuel += 1
        assert fuel < 10000, "the model program must terminate"
        insn = int(code[pc])
        acc = _bytecode_acc(insn, acc, stack)
        pc = _bytecode_jump(insn, acc, pc + 1, len(code))
    return (acc + len(stack) + 2**31) % 2**32 - 2**31


def control_flow() -> Iterator[tuple[str, CaseSpec]]:
    src = NV + "control_flow.ptx"
    n = 400
    op = rng(90).integers(0, 2**31, n, dtype=np.int64).astype(np.int32)
    a, b = f32_inputs(91, n), f32_inputs(92, n)
    a[16:32], b[32:48] = np.nan, np.nan
    a[48:64] = [3e9, -3e9, 2.5, -2.5, 0.5, -0.7, 1e-40, 2**31, -(2**31), 16777217, 1, 2, 3, 4, 5, 6]
    x, y = a, b
    with np.errstate(all="ignore"):
        results = [
            x + y,
            x - y,
            x * y,
            x / y,
            np.fmin(x, y),
            np.fmax(x, y),
            np.sqrt(np.abs(x)),
            -x,
            fma(x, x, y, F32),
            np.floor(x),
            np.ceil(y),
            x * F32(0.5),
            y * F32(2.0),
            np.where(x > y, x, F32(0)),
            cvt_rzi_s32(x).astype(np.float32),
            np.zeros(n, F32),
        ]
    out = np.choose(op & 15, [r.astype(np.float32) for r in results])
    yield "control_flow/dense_switch", case(
        src, "dense_switch", 4, 110,
        [
            ("op", Buffer("s32", op)), ("a", Buffer("f32", a)), ("b", Buffer("f32", b)),
            ("out", Buffer("f32", count=n)), ("n", Scalar("s32", n)),
        ],
        {"out": out},
        note="div.rn / sqrt.rn are correctly rounded (nvcc default -prec-div/-prec-sqrt); x*x+y is an fma",
    )
    t = 70
    idx = rng(93).integers(0, 2**32, t, dtype=np.uint64).astype(np.uint32)
    table = [10, 21, 32, 43]
    yield "control_flow/indirect_branch", case(
        src, "indirect_branch", 1, t,
        [("idx", Buffer("u32", idx)), ("out", Buffer("s32", count=t))],
        {"out": np.array([table[v & 3] + table[(v >> 2) & 3] for v in idx], np.int32)},
    )
    keys = np.array([7, 100, 1000, 65536, 0xDEADBEEF, 0, 8, 99, 65535, 0xDEADBEEE, 0xFFFFFFFF] * 7, np.uint32)
    cases = {7: 1, 100: 2, 1000: 3, 65536: 4, 0xDEADBEEF: 5}
    yield "control_flow/sparse_switch", case(
        src, "sparse_switch", 1, keys.size,
        [("key", Buffer("u32", keys)), ("out", Buffer("s32", count=keys.size))],
        {"out": np.array([cases.get(int(k), -1) for k in keys], np.int32)},
    )
    w, h, stop, t = 150, 12, 99, 40
    g = rng(94).integers(-3, 60, (h, w)).astype(np.int32)
    g[7, 100] = stop  # threads reaching it leave both loops
    g[9, 0] = stop  # row 9 stops every thread that gets there
    counts = np.array([nested_loops_model(g, stop, th, t) for th in range(t)], np.int32)
    yield "control_flow/nested_loops", case(
        src, "nested_loops", 1, t,
        [
            ("grid", Buffer("s32", g.reshape(-1))), ("counts", Buffer("s32", count=t)), ("w", Scalar("s32", w)),
            ("h", Scalar("s32", h)), ("stop", Scalar("s32", stop)),
        ],
        {"counts": counts},
    )
    t = 100
    v = f32_inputs(95, t)
    v[40:70:3] = np.nan
    with np.errstate(all="ignore"):
        out = np.where(np.isnan(v), F32(0), np.where(v < 0, -v, v * F32(2)))
    yield "control_flow/divergent_returns", case(
        src, "divergent_returns", 1, t,
        [("in", Buffer("f32", v)), ("out", Buffer("f32", count=t))],
        {"out": out.astype(np.float32)},
    )
    t = 90
    xs = rng(96).integers(-50, 5000, t).astype(np.int32)
    xs[:5] = [0, 1, 2, 27, -7]
    yield "control_flow/irreducible", case(
        src, "irreducible", 1, t,
        [("in", Buffer("s32", xs)), ("out", Buffer("s32", count=t))],
        {"out": np.array([collatz_steps(int(x)) for x in xs], np.int32)},
    )
    t, n = 100, 37
    vals = rng(97).integers(-(2**31), 2**31, n, dtype=np.int64).astype(np.int32)
    vals[:3] = [2**31 - 1, -(2**31), 0]
    yield "control_flow/builtins", case(
        src, "builtins", 1, t,
        [("in", Buffer("s32", vals)), ("out", Buffer("s32", count=t)), ("n", Scalar("s32", n))],
        {"out": np.array([builtins_model(int(vals[i % n])) for i in range(t)], np.int32)},
    )
    t = 64 + 7
    targets = np.abs(rng(98).standard_normal(t)) * 10.0 ** rng(99).integers(-3, 8, t)
    targets[:4] = [0.0, 1.0, 2.0, 1e300]
    roots, iters = zip(*(newton_sqrt(float(target)) for target in targets))
    yield "control_flow/newton_until_converged", case(
        src, "newton_until_converged", 1, t,
        [("a", Buffer("f64", targets)), ("root", Buffer("f64", count=t)), ("iters", Buffer("s32", count=t))],
        {"root": np.array(roots), "iters": np.array(iters, np.int32)},
        note="f64 IEEE arithmetic, correctly rounded division: Python floats model it exactly",
    )
    code = np.array(
        [
            0x05,
            0x12,
            0x20,
            0x13,
            0x41,
            0x07,
            0x30,
            0x20,
            0x20,
            0x8A,
            0x43,
            0x01,
            0x01,
            0x41,
            0x53,
            0x31,
            0x0F,
        ],
        np.uint8,
    )
    t = 50
    args = rng(100).integers(-1000, 1000, t).astype(np.int32)

    yield "control_flow/interpreter", case(
        src, "interpreter", 1, t,
        [
            ("code", Buffer("u8", code)), ("code_len", Scalar("s32", code.size)), ("args", Buffer("s32", args)),
            ("results", Buffer("s32", count=t)),
        ],
        {"results": np.array([bytecode_model(code, int(a)) for a in args], np.int32)},
    )
