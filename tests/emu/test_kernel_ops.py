"""LLVM operations as LLVM 22 lowers them for gfx942 (division sequences, 64-bit conversions, bit
tricks, math intrinsics), run in the emulator over edge and random inputs, against numpy/Python models.

All kernels live in one module: ``out[i] = op(a[i], b[i])`` for 128 work-items (two waves)."""

from __future__ import annotations

import math
import struct
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from ptx2gcn.runtime.emulator.launch import launch
from ptx2gcn.runtime.emulator.loader import Program
from ptx2gcn.runtime.emulator.memory import DeviceMemory

N = 128
I32_EDGES = [0, 1, -1, 2, -2, 7, -7, 2**31 - 1, -(2**31), 12345678, -12345678, 65536, 3, 1000000007]
I64_EDGES = [0, 1, -1, 2**63 - 1, -(2**63), 2**32, -(2**32), 12345678901234, -98765432109876, 3, 2**40 + 7]
F32_EDGES = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    1.5,
    2.5,
    -2.5,
    3.7,
    -3.7,
    1e-40,
    -1e-40,
    1e30,
    -1e30,
    np.inf,
    -np.inf,
    np.nan,
    8388607.5,
    2.0**31,
    -(2.0**31),
    4294967296.0,
    1e-7,
    123.456,
]

# name: (LLVM type of a/b, LLVM type of the result, body computing %r from %x and %y, model)
Model = Callable[[np.ndarray, np.ndarray], np.ndarray]


def _i32(values: Any) -> np.ndarray:
    return np.asarray(values, dtype=np.int64).astype(np.int32)


def _sdiv(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    out = [
        int(x / y) if y != 0 and not (x == -(2**31) and y == -1) else 0
        for x, y in zip(a.tolist(), b.tolist())
    ]
    return _i32(out)


def _trunc_div(x: int, y: int) -> int:
    q = abs(x) // abs(y)
    return q if (x >= 0) == (y >= 0) else -q


OPS: dict[str, tuple[str, str, str, Model]] = {
    "sdiv32": (
        "i32",
        "i32",
        "%r = sdiv i32 %x, %y",
        lambda a, b: _i32([_trunc_div(x, y) for x, y in zip(a.tolist(), b.tolist())]),
    ),
    "urem32": (
        "i32",
        "i32",
        "%r = urem i32 %x, %y",
        lambda a, b: (a.view(np.uint32) % b.view(np.uint32)).view(np.int32),
    ),
    "sdiv64": (
        "i64",
        "i64",
        "%r = sdiv i64 %x, %y",
        lambda a, b: np.array([_trunc_div(x, y) for x, y in zip(a.tolist(), b.tolist())], np.int64),
    ),
    "urem64": (
        "i64",
        "i64",
        "%r = urem i64 %x, %y",
        lambda a, b: (a.view(np.uint64) % b.view(np.uint64)).view(np.int64),
    ),
    "mulhi64": (
        "i64",
        "i64",
        "%wa = zext i64 %x to i128\n  %wb = zext i64 %y to i128\n  %m = mul i128 %wa, %wb\n"
        "  %h = lshr i128 %m, 64\n  %r = trunc i128 %h to i64",
        lambda a, b: np.array(
            [(x % 2**64) * (y % 2**64) >> 64 for x, y in zip(a.tolist(), b.tolist())], np.uint64
        ).view(np.int64),
    ),
    "ctlz64": (
        "i64",
        "i64",
        "%r = call i64 @llvm.ctlz.i64(i64 %x, i1 false)",
        lambda a, b: np.array([64 - (x % 2**64).bit_length() for x in a.tolist()], np.int64),
    ),
    "cttz32": (
        "i32",
        "i32",
        "%r = call i32 @llvm.cttz.i32(i32 %x, i1 false)",
        lambda a, b: _i32([((x % 2**32) & -(x % 2**32)).bit_length() - 1 if x else 32 for x in a.tolist()]),
    ),
    "popcount64": (
        "i64",
        "i64",
        "%r = call i64 @llvm.ctpop.i64(i64 %x)",
        lambda a, b: np.array([bin(x % 2**64).count("1") for x in a.tolist()], np.int64),
    ),
    "bitreverse32": (
        "i32",
        "i32",
        "%r = call i32 @llvm.bitreverse.i32(i32 %x)",
        lambda a, b: _i32([int(f"{x % 2**32:032b}"[::-1], 2) for x in a.tolist()]),
    ),
    "bswap32": ("i32", "i32", "%r = call i32 @llvm.bswap.i32(i32 %x)", lambda a, b: a.byteswap()),
    "fshr32": (
        "i32",
        "i32",
        "%r = call i32 @llvm.fshr.i32(i32 %x, i32 %y, i32 %y)",
        lambda a, b: _i32(
            [(((x % 2**32) << 32 | (y % 2**32)) >> (y % 32)) % 2**32 for x, y in zip(a.tolist(), b.tolist())]
        ),
    ),
    "smin_abs": (
        "i32",
        "i32",
        "%m = call i32 @llvm.smin.i32(i32 %x, i32 %y)\n  %r = call i32 @llvm.abs.i32(i32 %m, i1 false)",
        lambda a, b: np.abs(np.minimum(a, b)),
    ),
    "fptosi64": (
        "float",
        "i64",
        "%r = call i64 @llvm.fptosi.sat.i64.f32(float %x)",
        lambda a, b: np.array(
            [
                0
                if math.isnan(x)
                else max(-(2**63), min(2**63 - 1, int(x)))
                if not math.isinf(x)
                else (2**63 - 1 if x > 0 else -(2**63))
                for x in a.tolist()
            ],
            np.int64,
        ),
    ),
    "uitofp64": (
        "i64",
        "float",
        "%r = uitofp i64 %x to float",
        lambda a, b: np.array([np.float32(x % 2**64) for x in a.tolist()], np.float32),
    ),
    "sitofp64d": ("i64", "double", "%r = sitofp i64 %x to double", lambda a, b: a.astype(np.float64)),
    "fptrunc_f16": ("float", "half", "%r = fptrunc float %x to half", lambda a, b: a.astype(np.float16)),
    "sqrt_f32": ("float", "float", "%r = call float @llvm.sqrt.f32(float %x)", lambda a, b: np.sqrt(a)),
    "sqrt_f64": ("double", "double", "%r = call double @llvm.sqrt.f64(double %x)", lambda a, b: np.sqrt(a)),
    "floor_rint": (
        "float",
        "float",
        "%f = call float @llvm.floor.f32(float %x)\n"
        "  %g = call float @llvm.rint.f32(float %y)\n  %r = fadd float %f, %g",
        lambda a, b: np.floor(a) + np.rint(b),
    ),
    "minnum_copysign": (
        "float",
        "float",
        "%m = call float @llvm.minnum.f32(float %x, float %y)\n"
        "  %r = call float @llvm.copysign.f32(float %m, float %y)",
        lambda a, b: np.copysign(np.fmin(a, b), b),
    ),
    "fdiv_f64": ("double", "double", "%r = fdiv double %x, %y", lambda a, b: a / b),
    "frem_f32": ("float", "float", "%r = frem float %x, %y", lambda a, b: np.fmod(a, b)),
    "fma_f64": ("double", "double", "%r = call double @llvm.fma.f64(double %x, double %y, double %x)", None),
    "ldexp_f32": (
        "float",
        "float",
        "%e = fptosi float %y to i32\n  %c = call i32 @llvm.smin.i32(i32 %e, i32 300)\n"
        "  %d = call i32 @llvm.smax.i32(i32 %c, i32 -300)\n"
        "  %r = call float @llvm.ldexp.f32.i32(float %x, i32 %d)",
        None,
    ),
    "half_math": ("half", "half", "%m = fmul half %x, %y\n  %r = fsub half %m, %y", lambda a, b: a * b - b),
    "half_to_int": (
        "half",
        "i32",
        "%r = call i32 @llvm.fptosi.sat.i32.f16(half %x)",
        lambda a, b: _i32(
            [
                0
                if math.isnan(x)
                else max(-(2**31), min(2**31 - 1, int(x)))
                if math.isfinite(x)
                else (2**31 - 1 if x > 0 else -(2**31))
                for x in a.tolist()
            ]
        ),
    ),
    "double_floor_trunc": (
        "double",
        "double",
        "%f = call double @llvm.floor.f64(double %x)\n"
        "  %tr = call double @llvm.trunc.f64(double %y)\n  %r = fsub double %f, %tr",
        lambda a, b: np.floor(a) - np.trunc(b),
    ),
    "fptoui_f64": (
        "double",
        "i32",
        "%r = call i32 @llvm.fptoui.sat.i32.f64(double %x)",
        lambda a, b: (
            np.array(
                [
                    0
                    if math.isnan(x)
                    else int(max(0.0, min(float(2**32 - 1), math.trunc(x))))
                    if math.isfinite(x)
                    else (2**32 - 1 if x > 0 else 0)
                    for x in a.tolist()
                ],
                np.uint64,
            )
            .astype(np.uint32)
            .view(np.int32)
        ),
    ),
    "umul_overflow": (
        "i32",
        "i32",
        "%p = call {i32, i1} @llvm.umul.with.overflow.i32(i32 %x, i32 %y)\n"
        "  %v = extractvalue {i32, i1} %p, 0\n  %o = extractvalue {i32, i1} %p, 1\n"
        "  %r = select i1 %o, i32 -1, i32 %v",
        lambda a, b: _i32(
            [
                -1 if (x % 2**32) * (y % 2**32) >= 2**32 else (x * y) % 2**32
                for x, y in zip(a.tolist(), b.tolist())
            ]
        ),
    ),
    "icmp64_select": (
        "i64",
        "i64",
        "%c = icmp slt i64 %x, %y\n  %d = icmp ugt i64 %x, %y\n"
        "  %s = select i1 %c, i64 %x, i64 %y\n  %e = zext i1 %d to i64\n  %r = add i64 %s, %e",
        lambda a, b: np.minimum(a, b) + (a.view(np.uint64) > b.view(np.uint64)),
    ),
    "ashr_lshr64": (
        "i64",
        "i64",
        "%s = and i64 %y, 63\n  %l = lshr i64 %x, %s\n  %q = ashr i64 %x, %s\n  %r = xor i64 %l, %q",
        lambda a, b: (
            (a.view(np.uint64) >> (b.view(np.uint64) & np.uint64(63))).view(np.int64) ^ (a >> (b & 63))
        ),
    ),
    "fcmp_unordered": (
        "float",
        "i32",
        "%c = fcmp ult float %x, %y\n  %d = fcmp one float %x, %y\n"
        "  %e = zext i1 %c to i32\n  %f = zext i1 %d to i32\n  %g = shl i32 %f, 1\n  %r = or i32 %e, %g",
        lambda a, b: (~(a >= b)).astype(np.int32) | (((a < b) | (a > b)).astype(np.int32) << 1),
    ),
}

TYPES = {
    "i32": (np.int32, 4),
    "i64": (np.int64, 8),
    "float": (np.float32, 4),
    "double": (np.float64, 8),
    "half": (np.float16, 2),
}
DECLS = """
declare i32 @llvm.amdgcn.workitem.id.x()
declare i64 @llvm.ctlz.i64(i64, i1)
declare i32 @llvm.cttz.i32(i32, i1)
declare i64 @llvm.ctpop.i64(i64)
declare i32 @llvm.bitreverse.i32(i32)
declare i32 @llvm.bswap.i32(i32)
declare i32 @llvm.fshr.i32(i32, i32, i32)
declare i32 @llvm.smin.i32(i32, i32)
declare i32 @llvm.smax.i32(i32, i32)
declare i32 @llvm.abs.i32(i32, i1)
declare i64 @llvm.fptosi.sat.i64.f32(float)
declare float @llvm.sqrt.f32(float)
declare double @llvm.sqrt.f64(double)
declare float @llvm.floor.f32(float)
declare float @llvm.rint.f32(float)
declare float @llvm.minnum.f32(float, float)
declare float @llvm.copysign.f32(float, float)
declare double @llvm.fma.f64(double, double, double)
declare float @llvm.ldexp.f32.i32(float, i32)
declare double @llvm.floor.f64(double)
declare double @llvm.trunc.f64(double)
declare i32 @llvm.fptoui.sat.i32.f64(double)
declare i32 @llvm.fptosi.sat.i32.f16(half)
declare {i32, i1} @llvm.umul.with.overflow.i32(i32, i32)
"""


def module() -> str:
    kernels = []
    for name, (src, dst, body, _) in OPS.items():
        kernels.append(f"""
define amdgpu_kernel void @{name}(ptr addrspace(1) %a, ptr addrspace(1) %b, ptr addrspace(1) %out) {{
  %t = call i32 @llvm.amdgcn.workitem.id.x()
  %pa = getelementptr {src}, ptr addrspace(1) %a, i32 %t
  %pb = getelementptr {src}, ptr addrspace(1) %b, i32 %t
  %x = load {src}, ptr addrspace(1) %pa
  %y = load {src}, ptr addrspace(1) %pb
  {body}
  %po = getelementptr {dst}, ptr addrspace(1) %out, i32 %t
  store {dst} %r, ptr addrspace(1) %po
  ret void
}}""")
    return DECLS + "\n".join(kernels)


def inputs(kind: str, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    dtype = TYPES[kind][0]
    if kind == "i32":
        values = np.concatenate([I32_EDGES, rng.integers(-(2**31), 2**31, N)])
    elif kind == "i64":
        values = np.concatenate(
            [I64_EDGES, rng.integers(-(2**63), 2**63, N, dtype=np.int64) >> rng.integers(0, 60, N)]
        )
    else:
        values = np.concatenate([F32_EDGES, rng.standard_normal(N) * 10.0 ** rng.integers(-8, 8, N)])
    with np.errstate(over="ignore"):  # large values become inf in f16/f32 on purpose
        return values[:N].astype(dtype)


def _fma_model(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    from fractions import Fraction

    out = []
    for x, y in zip(a.tolist(), b.tolist()):
        if not (math.isfinite(x) and math.isfinite(y)) or x == 0 or y == 0:
            out.append(x * y + x)
            continue
        exact = Fraction(x) * Fraction(y) + Fraction(x)
        try:
            out.append(exact.numerator / exact.denominator if exact else 0.0)
        except OverflowError:
            out.append(math.copysign(math.inf, exact))
    return np.array(out)


def _ldexp_model(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    exps = [
        0
        if math.isnan(y)
        else max(-300, min(300, int(y) if abs(y) < 2**31 else (2**31 - 1 if y > 0 else -(2**31))))
        for y in b.tolist()
    ]
    return np.array(
        [np.float32(math.ldexp(float(x), e)) if math.isfinite(x) else x for x, e in zip(a.tolist(), exps)],
        np.float32,
    )


MODELS: dict[str, Model] = {"fma_f64": _fma_model, "ldexp_f32": _ldexp_model}


@pytest.fixture(scope="module")
def program(kernel: Callable[[str], Program]) -> Program:
    return kernel(module())


@pytest.mark.parametrize("name", sorted(OPS))
def test_operation_matches_model(program: Program, name: str) -> None:
    src, dst, _, model = OPS[name]
    model = model or MODELS[name]
    a, b = inputs(src, 1), inputs(src, 2)
    if name in ("sdiv32", "urem32", "sdiv64", "urem64"):
        b = np.where(b == 0, 3, b).astype(a.dtype)  # division by zero is undefined in LLVM IR
        if name == "sdiv32":
            b = np.where((a == -(2**31)) & (b == -1), 5, b).astype(a.dtype)
        if name == "sdiv64":
            b = np.where((a == -(2**63)) & (b == -1), 5, b).astype(a.dtype)
    memory = DeviceMemory()
    pa, pb = memory.alloc(a.nbytes), memory.alloc(b.nbytes)
    memory.write(pa, a.tobytes())
    memory.write(pb, b.tobytes())
    out_type, out_size = TYPES[dst]
    po = memory.alloc(N * out_size)
    launch(program, name, grid=(1,), block=(N,), kernarg=struct.pack("<3Q", pa, pb, po), memory=memory)
    got = np.frombuffer(memory.read(po, N * out_size), out_type)
    with np.errstate(all="ignore"):
        expected = np.asarray(model(a, b)).astype(out_type)
    np.testing.assert_array_equal(got, expected)
