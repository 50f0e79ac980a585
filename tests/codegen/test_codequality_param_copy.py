"""By-value kernel parameters indexed dynamically are read from the kernarg segment, not from scratch.

nvcc copies such a parameter into the ``.local`` depot member by member and reads the depot
(``ld.local [%rd11+4]``); ``ptx2gcn.emit.param_copy`` turns the copy into one ``memcpy`` from the
``byref`` kernarg pointer, which LLVM forwards, so the alloca and every scratch access disappear. The
PTX below is nvcc 13's output (``-arch=sm_80 -O3``) for::

    struct Params { float scale; float bias[3]; int n; };
    extern "C" __global__ void byval_bias(Params p, const float *x, float *y) {
        int i = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
        if (i < p.n) y[i] = x[i] * p.scale + p.bias[threadIdx.z % 3];
    }

``byval_bias_written`` is the same kernel with one extra ``st.local`` of a computed value into the
depot (so the depot is no longer a copy of the parameter): it must keep its alloca, and both must
compute what numpy computes.
"""

from __future__ import annotations

import struct

import numpy as np
import pytest

from ptx2gcn.compiler import compile as compile_ptx
from ptx2gcn.compiler import compile_assembly, compile_llvm
from ptx2gcn.runtime.emulator.launch import launch
from ptx2gcn.runtime.emulator.loader import load
from ptx2gcn.runtime.emulator.memory import DeviceMemory

_BODY = """
.visible .entry NAME(
	.param .align 4 .b8 NAME_param_0[20],
	.param .u64 NAME_param_1,
	.param .u64 NAME_param_2
)
{
	.local .align 4 .b8 	__local_depot0[20];
	.reg .b64 	%SP;
	.reg .b64 	%SPL;
	.reg .pred 	%p<2>;
	.reg .f32 	%f<10>;
	.reg .b32 	%r<12>;
	.reg .b64 	%rd<14>;
	mov.u64 	%SPL, __local_depot0;
	ld.param.u64 	%rd2, [NAME_param_1];
	ld.param.u64 	%rd3, [NAME_param_2];
	add.u64 	%rd1, %SPL, 0;
	ld.param.f32 	%f1, [NAME_param_0];
	st.local.f32 	[%rd1], %f1;
	ld.param.u32 	%r3, [NAME_param_0+16];
	ld.param.f32 	%f2, [NAME_param_0+12];
	ld.param.f32 	%f3, [NAME_param_0+8];
	ld.param.f32 	%f4, [NAME_param_0+4];
	st.local.f32 	[%rd1+4], %f4;
	st.local.f32 	[%rd1+8], %f3;
	st.local.f32 	[%rd1+12], %f2;
	st.local.u32 	[%rd1+16], %r3;
	EXTRA
	mov.u32 	%r4, %ntid.y;
	mov.u32 	%r1, %tid.z;
	mov.u32 	%r5, %tid.y;
	mad.lo.s32 	%r6, %r1, %r4, %r5;
	mov.u32 	%r7, %ntid.x;
	mov.u32 	%r8, %tid.x;
	mad.lo.s32 	%r2, %r6, %r7, %r8;
	setp.ge.s32 	%p1, %r2, %r3;
	@%p1 bra 	$L__BB0_2;
	cvta.to.global.u64 	%rd5, %rd2;
	mul.wide.s32 	%rd6, %r2, 4;
	add.s64 	%rd7, %rd5, %rd6;
	ld.global.f32 	%f5, [%rd7];
	mul.wide.u32 	%rd8, %r1, -1431655765;
	shr.u64 	%rd9, %rd8, 33;
	cvt.u32.u64 	%r9, %rd9;
	mul.lo.s32 	%r10, %r9, 3;
	sub.s32 	%r11, %r1, %r10;
	mul.wide.u32 	%rd10, %r11, 4;
	add.s64 	%rd11, %rd1, %rd10;
	ld.local.f32 	%f6, [%rd11+4];
	fma.rn.f32 	%f7, %f5, %f1, %f6;
	cvta.to.global.u64 	%rd12, %rd3;
	add.s64 	%rd13, %rd12, %rd6;
	st.global.f32 	[%rd13], %f7;
$L__BB0_2:
	ret;
}
"""
# Doubles bias[1] in the depot: a write that is not a copy of the parameter.
_WRITE = "add.f32 \t%f9, %f3, %f3;\n\tst.local.f32 \t[%rd1+8], %f9;"
PTX = ".version 9.0\n.target sm_80\n.address_size 64\n" + _BODY.replace("NAME", "byval_bias").replace(
    "EXTRA", "") + _BODY.replace("NAME", "byval_bias_written").replace("EXTRA", _WRITE)

BLOCK = (4, 2, 5)
SCALE, BIAS, N = 1.5, (0.25, -2.0, 8.0), 37


def _function(text: str, name: str) -> str:
    start = text.index(f"@{name}(")
    return text[start:text.index("\n}", start)]


def _run(name: str) -> np.ndarray:
    program = load(compile_ptx(PTX).data, "byval.hsaco")
    memory = DeviceMemory()
    threads = BLOCK[0] * BLOCK[1] * BLOCK[2]
    x = np.arange(threads, dtype=np.float32) * np.float32(0.5) - np.float32(3)
    x_addr, y_addr = memory.alloc(x.nbytes), memory.alloc(x.nbytes)
    memory.write(x_addr, x.tobytes())
    memory.write(y_addr, np.full(threads, -1, np.float32).tobytes())
    kernarg = struct.pack("<f3fi4xQQ", SCALE, *BIAS, N, x_addr, y_addr)
    launch(program, name, grid=(1, 1, 1), block=BLOCK, kernarg=kernarg, memory=memory)
    return np.frombuffer(memory.read(y_addr, x.nbytes), np.float32)


def _expected(bias: tuple[float, ...]) -> np.ndarray:
    threads = BLOCK[0] * BLOCK[1] * BLOCK[2]
    x = np.arange(threads, dtype=np.float32) * np.float32(0.5) - np.float32(3)
    tz = np.arange(threads) // (BLOCK[0] * BLOCK[1])
    b = np.asarray(bias, np.float32)[tz % 3]
    y = (x.astype(np.float64) * SCALE + b).astype(np.float32)  # exact: the product fits, one rounding
    return np.where(np.arange(threads) < N, y, np.float32(-1))


def test_parameter_copy_is_read_from_kernarg() -> None:
    llvm = _function(compile_llvm(PTX), "byval_bias")
    assert " = alloca " not in llvm and "addrspace(5)" not in llvm, llvm
    asm = compile_assembly(PTX, kernels=["byval_bias"])
    assert "scratch_" not in asm
    assert ".private_segment_fixed_size: 0" in asm


def test_depot_written_otherwise_keeps_its_alloca() -> None:
    assert " = alloca " in _function(compile_llvm(PTX), "byval_bias_written")


@pytest.mark.parametrize(("name", "bias"), [("byval_bias", BIAS),
                                            ("byval_bias_written", (BIAS[0], BIAS[1] * 2, BIAS[2]))])
def test_results_match_numpy(name: str, bias: tuple[float, ...]) -> None:
    np.testing.assert_array_equal(_run(name), _expected(bias))
