"""Fixtures for code-generation tests: compile PTX with ``ptx2gcn.compiler`` and run it on the emulator.

``run_kernel(ptx, name, buffers, scalars, n)`` launches one thread per element and returns the
buffers' final contents; ``run_op(instruction, in_types, out_type, *inputs)`` wraps one PTX
instruction (``"add.rz.f32 %d, %a0, %a1"``) into a kernel that applies it element-wise to the
inputs and returns the raw output bits, so tests can compare with ``ptx2gcn.reference``.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt
import pytest

from ptx2gcn.compiler import compile
from ptx2gcn.runtime.emulator.launch import launch
from ptx2gcn.runtime.emulator.loader import load
from ptx2gcn.runtime.emulator.memory import DeviceMemory

BLOCK = 64
_WIDTH = {"pred": 32, "b8": 8, "u8": 8, "s8": 8, "b16": 16, "u16": 16, "s16": 16, "f16": 16, "bf16": 16,
          "b32": 32, "u32": 32, "s32": 32, "f32": 32, "f16x2": 32, "bf16x2": 32,
          "b64": 64, "u64": 64, "s64": 64, "f64": 64}
_STORAGE = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}


def _reg(ptx_type: str) -> str:
    """Register declaration type for a value of ``ptx_type``."""
    if ptx_type in ("f32", "f64"):
        return ptx_type
    if ptx_type == "pred":
        return "pred"
    return f"b{max(_WIDTH[ptx_type], 16)}"


def _mem(ptx_type: str) -> str:
    """Load/store type for a value of ``ptx_type`` (predicates travel as u32)."""
    if ptx_type == "pred":
        return "u32"
    if ptx_type in ("f16", "bf16"):
        return "b16"
    if ptx_type in ("f16x2", "bf16x2"):
        return "b32"
    return ptx_type


def op_kernel(instruction: str, in_types: Sequence[str], out_type: str) -> str:
    """A kernel ``k(out, in0, in1, ..., n)`` applying ``instruction`` to element i of each input."""
    params = ",\n".join([".param .u64 out"] + [f".param .u64 in{i}" for i in range(len(in_types))] +
                        [".param .u32 n"])
    lines = [".version 8.0", ".target sm_90", ".address_size 64", f".visible .entry k(\n{params}\n)", "{",
             ".reg .b32 %r<8>;", ".reg .b64 %rd<32>;", ".reg .pred %p<4>;", ".reg .b32 %tmp;"]
    for i, t in enumerate(in_types):
        lines.append(f".reg .{_reg(t)} %a{i};")
    lines.append(f".reg .{_reg(out_type)} %d;")
    lines += ["mov.u32 %r1, %ctaid.x;", "mov.u32 %r2, %ntid.x;", "mov.u32 %r3, %tid.x;",
              "mad.lo.s32 %r1, %r1, %r2, %r3;", "ld.param.u32 %r4, [n];", "setp.ge.u32 %p1, %r1, %r4;",
              "@%p1 bra DONE;", "cvt.u64.u32 %rd1, %r1;"]
    for i, t in enumerate(in_types):
        size = max(_WIDTH[t] // 8, 1)
        lines += [f"ld.param.u64 %rd{2 + 3 * i}, [in{i}];", f"mul.lo.u64 %rd{3 + 3 * i}, %rd1, {size};",
                  f"add.u64 %rd{4 + 3 * i}, %rd{2 + 3 * i}, %rd{3 + 3 * i};"]
        if t == "pred":
            lines += [f"ld.global.u32 %tmp, [%rd{4 + 3 * i}];", f"setp.ne.u32 %a{i}, %tmp, 0;"]
        else:
            lines.append(f"ld.global.{_mem(t)} %a{i}, [%rd{4 + 3 * i}];")
    lines.append(instruction + ";")
    size = max(_WIDTH[out_type] // 8, 1)
    lines += ["ld.param.u64 %rd20, [out];", f"mul.lo.u64 %rd21, %rd1, {size};", "add.u64 %rd22, %rd20, %rd21;"]
    if out_type == "pred":
        lines += ["selp.u32 %tmp, 1, 0, %d;", "st.global.u32 [%rd22], %tmp;"]
    else:
        lines.append(f"st.global.{_mem(out_type)} [%rd22], %d;")
    lines += ["DONE:", "ret;", "}"]
    return "\n".join(lines) + "\n"


def storage(ptx_type: str, values: npt.ArrayLike) -> npt.NDArray[np.generic]:
    """``values`` as the raw storage array of ``ptx_type`` (floats reinterpreted, ints wrapped)."""
    array = np.asarray(values)
    dtype = _STORAGE[_WIDTH[ptx_type]]
    if array.dtype.kind == "f":
        return array.view(dtype) if array.dtype.itemsize == np.dtype(dtype).itemsize else array.astype(dtype)
    if array.dtype == np.bool_:
        return array.astype(dtype)
    return (array.astype(np.int64) if array.dtype.kind == "i" else array).astype(dtype)


def run_compiled(data: bytes, name: str, outputs: Sequence[int], inputs: Sequence[bytes], n: int,
                 extra: bytes = b"") -> list[bytes]:
    """Launch kernel ``name`` with (out buffers..., in buffers..., n) arguments; return outputs."""
    program = load(data, "test.hsaco")
    memory = DeviceMemory()
    out_addrs = [memory.alloc(max(size, 4)) for size in outputs]
    in_addrs = []
    for blob in inputs:
        addr = memory.alloc(max(len(blob), 4))
        memory.write(addr, blob)
        in_addrs.append(addr)
    kernarg = struct.pack(f"<{len(out_addrs) + len(in_addrs)}QI", *out_addrs, *in_addrs, n) + extra
    grid = (n + BLOCK - 1) // BLOCK
    launch(program, name, grid=(grid, 1, 1), block=(BLOCK, 1, 1), kernarg=kernarg, memory=memory)
    return [memory.read(addr, size) for addr, size in zip(out_addrs, outputs)]


_cache: dict[str, bytes] = {}


def compiled(ptx: str) -> bytes:
    if ptx not in _cache:
        _cache[ptx] = compile(ptx).data
    return _cache[ptx]


RunOp = Callable[..., npt.NDArray[np.generic]]


@pytest.fixture(scope="session")
def run_op() -> RunOp:
    def run(
        instruction: str, in_types: Sequence[str], out_type: str, *inputs: npt.ArrayLike
    ) -> npt.NDArray[np.generic]:
        arrays = [storage(t, v) for t, v in zip(in_types, inputs, strict=True)]
        n = len(arrays[0])
        data = compiled(op_kernel(instruction, in_types, out_type))
        size = max(_WIDTH[out_type] // 8, 1)
        (raw,) = run_compiled(data, "k", [size * n], [a.tobytes() for a in arrays], n)
        result = np.frombuffer(raw, dtype=_STORAGE[max(_WIDTH[out_type], 8)])
        return result.astype(np.bool_) if out_type == "pred" else result
    return run
