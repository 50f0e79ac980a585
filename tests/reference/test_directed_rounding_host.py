"""Directed rounding (.rz .rm .rp) of the reference model against the host CPU.

An independent oracle: llvmlite JIT-compiles (MCJIT, host x86) functions that switch the CPU's
rounding mode with ``llvm.set.rounding`` and then run LLVM's constrained FP intrinsics
(``llvm.experimental.constrained.fadd`` etc. with ``round.towardzero``/``upward``/``downward``), so
the hardware rounds, not our code. Covers add/sub/mul/div/sqrt/fma for f32 and f64 and the
f64->f32 and i64->f32/f64 conversions.
"""

from __future__ import annotations

import ctypes
import zlib
from collections.abc import Callable, Iterator

import numpy as np
import pytest

from ptx2gcn.reference import run

MODES = {"rz": (0, "round.towardzero"), "rp": (2, "round.upward"), "rm": (3, "round.downward"),
         "rn": (1, "round.tonearest")}
LL_TYPE = {"f32": "float", "f64": "double"}
SUFFIX = {"f32": "f32", "f64": "f64"}


def _function(name: str, ret: str, params: list[str], body: str, mode: int) -> str:
    args = ", ".join(f"{t} %{chr(97 + i)}" for i, t in enumerate(params))
    return (f"define {ret} @{name}({args}) #0 {{\n"
            f"  call void @llvm.set.rounding(i32 {mode}) #0\n"
            f"  %r = {body} #0\n"
            f"  call void @llvm.set.rounding(i32 1) #0\n"
            f"  ret {ret} %r\n}}\n")


def _module_text() -> str:
    lines = ["declare void @llvm.set.rounding(i32)"]
    for t in ("f32", "f64"):
        ll = LL_TYPE[t]
        for op in ("fadd", "fsub", "fmul", "fdiv"):
            lines.append(f"declare {ll} @llvm.experimental.constrained.{op}.{t}({ll}, {ll}, "
                         "metadata, metadata)")
        lines.append(f"declare {ll} @llvm.experimental.constrained.sqrt.{t}({ll}, metadata, metadata)")
        lines.append(f"declare {ll} @llvm.experimental.constrained.fma.{t}({ll}, {ll}, {ll}, "
                     "metadata, metadata)")
        lines.append(f"declare {ll} @llvm.experimental.constrained.sitofp.{t}.i64(i64, metadata, metadata)")
    lines.append("declare float @llvm.experimental.constrained.fptrunc.f32.f64(double, metadata, metadata)")
    lines.append("declare half @llvm.experimental.constrained.fptrunc.f16.f32(float, metadata, metadata)")
    funcs = []
    for mode_name, (code, meta) in MODES.items():
        md = f'metadata !"{meta}", metadata !"fpexcept.ignore"'
        for t in ("f32", "f64"):
            ll = LL_TYPE[t]
            for op in ("fadd", "fsub", "fmul", "fdiv"):
                call = f"call {ll} @llvm.experimental.constrained.{op}.{t}({ll} %a, {ll} %b, {md})"
                funcs.append(_function(f"{op}_{t}_{mode_name}", ll, [ll, ll], call, code))
            call = f"call {ll} @llvm.experimental.constrained.sqrt.{t}({ll} %a, {md})"
            funcs.append(_function(f"sqrt_{t}_{mode_name}", ll, [ll], call, code))
            call = f"call {ll} @llvm.experimental.constrained.fma.{t}({ll} %a, {ll} %b, {ll} %c, {md})"
            funcs.append(_function(f"fma_{t}_{mode_name}", ll, [ll, ll, ll], call, code))
            call = f"call {ll} @llvm.experimental.constrained.sitofp.{t}.i64(i64 %a, {md})"
            funcs.append(_function(f"sitofp_{t}_{mode_name}", ll, ["i64"], call, code))
        call = f"call float @llvm.experimental.constrained.fptrunc.f32.f64(double %a, {md})"
        funcs.append(_function(f"fptrunc_{mode_name}", "float", ["double"], call, code))
        # Return the half's bits as i16: the C ABI returns _Float16 in xmm0, which ctypes cannot read.
        funcs.append(f"define i16 @fptrunc16_{mode_name}(float %a) #0 {{\n"
                     f"  call void @llvm.set.rounding(i32 {code}) #0\n"
                     f"  %h = call half @llvm.experimental.constrained.fptrunc.f16.f32(float %a, {md}) #0\n"
                     f"  call void @llvm.set.rounding(i32 1) #0\n"
                     f"  %r = bitcast half %h to i16\n"
                     f"  ret i16 %r\n}}\n")
    return "\n".join(lines) + "\n\n" + "\n".join(funcs) + "\nattributes #0 = { strictfp }\n"


@pytest.fixture(scope="module")
def host() -> Iterator[Callable[[str], int]]:
    import llvmlite.binding as llvm  # type: ignore[import-untyped]

    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    module = llvm.parse_assembly(_module_text())
    module.verify()
    target = llvm.Target.from_default_triple()
    machine = target.create_target_machine(cpu=llvm.get_host_cpu_name(),
                                           features=llvm.get_host_cpu_features().flatten())
    engine = llvm.create_mcjit_compiler(module, machine)
    engine.finalize_object()
    yield engine.get_function_address
    del engine


def _call(host: Callable[[str], int], name: str, ctype: type, argtypes: list[type],
          columns: list[np.ndarray]) -> list[float]:
    fn = ctypes.CFUNCTYPE(ctype, *argtypes)(host(name))
    return [fn(*(col[i].item() for col in columns)) for i in range(len(columns[0]))]


def _inputs(rng: np.random.Generator, dtype: type, n: int) -> np.ndarray:
    bits = np.uint32 if dtype is np.float32 else np.uint64
    raw: np.ndarray = rng.integers(0, np.iinfo(bits).max, size=n, dtype=bits, endpoint=True).view(dtype)
    near: np.ndarray = (rng.standard_normal(n) * 2.0 ** rng.integers(-20, 20, n)).astype(dtype)
    tiny: np.ndarray = (rng.standard_normal(n) * np.finfo(dtype).tiny * 4).astype(dtype)
    return np.concatenate([raw, near, tiny])


def _agree(expected: np.ndarray, result_matches: np.ndarray) -> None:
    bad = np.flatnonzero(~result_matches)
    assert bad.size == 0, f"{bad.size} lanes differ, first at index {bad[:5]}"


@pytest.mark.parametrize("t", ["f32", "f64"])
@pytest.mark.parametrize("mode", ["rz", "rm", "rp"])
@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "sqrt", "fma"])
def test_arith_directed_matches_host(host: Callable[[str], int], t: str, mode: str, op: str) -> None:
    dtype, ctype = (np.float32, ctypes.c_float) if t == "f32" else (np.float64, ctypes.c_double)
    rng = np.random.default_rng(zlib.crc32(f"{t}{mode}{op}".encode()))
    arity = {"sqrt": 1, "fma": 3}.get(op, 2)
    columns = [_inputs(rng, dtype, 120) for _ in range(arity)]
    if op in ("add", "sub"):  # cancellation-heavy pairs
        with np.errstate(all="ignore"):
            columns[1][:120] = (columns[0][:120] * dtype(-0.999)).astype(dtype)
    name = {"add": "fadd", "sub": "fsub", "mul": "fmul", "div": "fdiv"}.get(op, op)
    with np.errstate(all="ignore"):
        expected = np.array(_call(host, f"{name}_{t}_{mode}", ctype, [ctype] * arity, columns), dtype=dtype)
    got = run(f"{op}.{mode}.{t}", *columns)
    _agree(expected, got.matches(expected))
    # The oracle really rounded differently from round-to-nearest somewhere (mode switch worked).
    assert (~run(f"{op}.rn.{t}", *columns).matches(expected)).any()


@pytest.mark.parametrize("mode", ["rn", "rz", "rm", "rp"])
def test_f64_to_f32_conversion_matches_host(host: Callable[[str], int], mode: str) -> None:
    rng = np.random.default_rng(5)
    a = _inputs(rng, np.float64, 300)
    a = np.concatenate([a, (rng.standard_normal(300) * 1e-39), rng.standard_normal(300) * 1e38 * 3])
    host_result = _call(host, f"fptrunc_{mode}", ctypes.c_float, [ctypes.c_double], [a])
    expected = np.array(host_result, dtype=np.float32)
    _agree(expected, run(f"cvt.{mode}.f32.f64", a).matches(expected))


@pytest.mark.parametrize("t", ["f32", "f64"])
@pytest.mark.parametrize("mode", ["rn", "rz", "rm", "rp"])
def test_s64_to_float_conversion_matches_host(host: Callable[[str], int], t: str, mode: str) -> None:
    rng = np.random.default_rng(11)
    a = rng.integers(-2 ** 63, 2 ** 63 - 1, size=400, dtype=np.int64)
    a[:100] >>= rng.integers(0, 62, 100)
    dtype, ctype = (np.float32, ctypes.c_float) if t == "f32" else (np.float64, ctypes.c_double)
    expected = np.array(_call(host, f"sitofp_{t}_{mode}", ctype, [ctypes.c_int64], [a]), dtype=dtype)
    _agree(expected, run(f"cvt.{mode}.{t}.s64", a).matches(expected))


@pytest.mark.parametrize("mode", ["rn", "rz", "rm", "rp"])
def test_f32_to_f16_conversion_matches_host(host: Callable[[str], int], mode: str) -> None:
    """x86 F16C ``vcvtps2ph`` rounds by MXCSR, which ``llvm.set.rounding`` sets; without F16C LLVM
    would call a runtime routine that may ignore the mode, so the check needs the feature."""
    import llvmlite.binding as llvm  # type: ignore[import-untyped]

    if "+f16c" not in llvm.get_host_cpu_features().flatten():
        pytest.skip("host CPU has no F16C: the JIT would not round in hardware")
    rng = np.random.default_rng(15)
    a = _inputs(rng, np.float32, 400)
    a = np.concatenate([a, (rng.standard_normal(400) * 2.0 ** rng.integers(-26, 17, 400)).astype(np.float32)])
    fn = ctypes.CFUNCTYPE(ctypes.c_uint16, ctypes.c_float)(host(f"fptrunc16_{mode}"))
    expected = np.array([fn(x) for x in a.tolist()], dtype=np.uint16)
    _agree(expected, run(f"cvt.{mode}.f16.f32", a).matches(expected))
    if mode != "rn":  # the host really switched modes
        assert (~run("cvt.rn.f16.f32", a).matches(expected)).any()
