"""A register ceiling (``CU_JIT_MAX_REGISTERS``, ``.maxnreg``) bounds the VGPRs a kernel uses, as
``CU_FUNC_ATTRIBUTE_NUM_REGS`` reports them, and the kernel still computes the same result (LLVM
spills to scratch). The kernel keeps 48 u32 values live across a loop, so without a ceiling it needs
more than 48 VGPRs; its result is checked against numpy's wrapping u32 arithmetic."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest

from ptx2gcn import cuda
from ptx2gcn.emit.kernel_abi import MIN_REGISTERS
from ptx2gcn.runtime.driver.ptx_link import cap_registers
from tests.driver.conftest import ok

J = cuda.CUjit_option
F = cuda.CUfunction_attribute
LIVE = 48
THREADS = 64
ROUNDS = 3


def _pressure_ptx(directive: str = "") -> bytes:
    """``a[i] = a[i] * a[(i + 1) % LIVE] + i`` for all i at once, ``n`` rounds, per thread."""
    loads = "\n".join(f"  ld.global.u32 %a{i}, [%rd3+{4 * i}];" for i in range(LIVE))
    update = "\n".join(f"  mad.lo.u32 %t{i}, %a{i}, %a{(i + 1) % LIVE}, {i};" for i in range(LIVE))
    moves = "\n".join(f"  mov.u32 %a{i}, %t{i};" for i in range(LIVE))
    stores = "\n".join(f"  st.global.u32 [%rd3+{4 * i}], %a{i};" for i in range(LIVE))
    return f"""
.version 7.0
.target sm_70
.address_size 64
.visible .entry pressure(.param .u64 p, .param .u32 n) {directive}
{{
  .reg .b32 %a<{LIVE}>; .reg .b32 %t<{LIVE}>; .reg .b32 %r<4>; .reg .b64 %rd<4>; .reg .pred %done;
  ld.param.u64 %rd1, [p]; ld.param.u32 %r1, [n];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r2, %tid.x;
  mul.wide.u32 %rd2, %r2, {4 * LIVE};
  add.s64 %rd3, %rd1, %rd2;
{loads}
  mov.u32 %r3, 0;
LOOP:
  setp.ge.u32 %done, %r3, %r1;
  @%done bra DONE;
{update}
{moves}
  add.u32 %r3, %r3, 1;
  bra.uni LOOP;
DONE:
{stores}
  ret;
}}
""".encode()


def _expected(data: np.ndarray) -> np.ndarray:
    a = data.copy()
    for _ in range(ROUNDS):  # uint32 arrays wrap modulo 2^32, as mad.lo.u32 does
        a = a * np.roll(a, -1, axis=1) + np.arange(LIVE, dtype=np.uint32)
    return a


def _run(module: object, kernel: bytes = b"pressure") -> tuple[int, int, np.ndarray]:
    """(NUM_REGS, LOCAL_SIZE_BYTES, the kernel's output)."""
    function = ok(cuda.cuModuleGetFunction(module, kernel))
    data = np.random.default_rng(3).integers(0, 2**32, (THREADS, LIVE), dtype=np.uint32)
    pointer = ok(cuda.cuMemAlloc(data.nbytes))
    ok(cuda.cuMemcpyHtoD(pointer, data, data.nbytes))
    ok(cuda.cuLaunchKernel(function, 1, 1, 1, THREADS, 1, 1, 0, 0, ((pointer, ROUNDS), (None, ctypes.c_uint32)), 0))
    out = np.zeros_like(data)
    ok(cuda.cuMemcpyDtoH(out, pointer, out.nbytes))
    np.testing.assert_array_equal(out, _expected(data))
    registers = ok(cuda.cuFuncGetAttribute(F.CU_FUNC_ATTRIBUTE_NUM_REGS, function))
    local = ok(cuda.cuFuncGetAttribute(F.CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, function))
    return registers, local, out


def test_without_a_ceiling_the_kernel_needs_more_registers(context: cuda.CUcontext) -> None:
    registers, local, _ = _run(ok(cuda.cuModuleLoadData(_pressure_ptx())))
    assert registers > LIVE and local == 0


@pytest.mark.parametrize("ceiling", [40, 37])
def test_cu_jit_max_registers_bounds_the_registers(context: cuda.CUcontext, ceiling: int) -> None:
    module = ok(cuda.cuModuleLoadDataEx(_pressure_ptx(), 1, [J.CU_JIT_MAX_REGISTERS], [ceiling]))
    registers, local, _ = _run(module)
    assert registers <= ceiling and local > 0  # the rest spilled to scratch


def test_maxnreg_bounds_the_registers_and_the_lower_limit_wins(context: cuda.CUcontext) -> None:
    registers, _, _ = _run(ok(cuda.cuModuleLoadData(_pressure_ptx(".maxnreg 40"))))
    assert registers <= 40
    module = ok(cuda.cuModuleLoadDataEx(_pressure_ptx(".maxnreg 100"), 1, [J.CU_JIT_MAX_REGISTERS], [36]))
    assert _run(module)[0] <= 36


def test_a_tiny_ceiling_acts_as_the_floor(context: cuda.CUcontext) -> None:
    module = ok(cuda.cuModuleLoadDataEx(_pressure_ptx(), 1, [J.CU_JIT_MAX_REGISTERS], [4]))
    registers, local, _ = _run(module)
    assert registers <= MIN_REGISTERS and local > 0


def test_a_links_register_ceiling_travels_in_its_output(context: cuda.CUcontext) -> None:
    """numba-cuda passes ``CU_JIT_MAX_REGISTERS`` to ``cuLinkCreate`` and loads the result without
    options: the linked PTX carries the ceiling as ``.maxnreg`` (the lower one where a kernel has its own)."""
    state = ok(cuda.cuLinkCreate(1, [J.CU_JIT_MAX_REGISTERS], [40]))
    for name, directive in ((b"plain.ptx", ""), (b"own.ptx", ".maxnreg 36")):
        unit = _pressure_ptx(directive).replace(b"pressure(", name[:-4] + b"_pressure(")
        ok(cuda.cuLinkAddData(state, cuda.CUjitInputType.CU_JIT_INPUT_PTX, unit, len(unit), name, 0, [], []))
    image, size = ok(cuda.cuLinkComplete(state))
    text = ctypes.string_at(image, size).decode()
    assert text.count(".maxnreg 40") == 1 and text.count(".maxnreg 36") == 1
    module = ok(cuda.cuModuleLoadData(ctypes.string_at(image, size)))
    assert _run(module, b"plain_pressure")[0] <= 40
    ok(cuda.cuLinkDestroy(state))


def test_cap_registers_touches_only_kernel_headers() -> None:
    text = """.version 7.0
.target sm_70
.address_size 64
// .entry in a comment { }
.visible .entry a(.param .u64 p) .maxnreg 64
{ ret; }
.visible .entry b(.param .u64 p) .maxnreg 20 { ret; }
.visible .func f() { ret; }
.visible .entry c() { ret; }
"""
    capped = cap_registers(text, 38)
    assert capped.count(".maxnreg") == 3
    assert ".entry a(.param .u64 p) .maxnreg 38\n{" in capped and ".maxnreg 20 {" in capped
    assert ".entry c()\n.maxnreg 38\n{" in capped and ".func f() { ret; }" in capped
    assert capped.replace(".maxnreg 38", ".maxnreg 64", 1).replace("()\n.maxnreg 38\n", "() ") == text
