# SPDX-License-Identifier: Apache-2.0
"""Triton element-wise kernels: masked vector add, fused GELU (erf and a sigmoid-based tanh), dropout with the
Philox generator (tl.rand), fp16/bf16 casts, a clamp with minimum/maximum, and
libdevice math (pow, tanh) next to Triton's own exp/log/sin/cos/sqrt/rsqrt, and inline PTX through
tl.inline_asm_elementwise."""

from __future__ import annotations

import triton
import triton.language as tl
from _corpus import KernelSpec, main
from triton.language.extra import libdevice


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


@triton.jit
def gelu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    exact = 0.5 * x * (1.0 + tl.erf(x * 0.7071067811865476))
    inner = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    approx = 0.5 * x * (1.0 + (2.0 * tl.sigmoid(2.0 * inner) - 1.0))
    tl.store(out_ptr + offs, (exact + approx).to(tl.float16), mask=mask)


@triton.jit
def dropout_kernel(x_ptr, out_ptr, n, p, seed, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    keep = tl.rand(seed, offs) > p
    tl.store(out_ptr + offs, tl.where(keep, x / (1 - p), 0.0), mask=mask)


@triton.jit
def cast_clamp_kernel(x_ptr, h_ptr, b_ptr, i_ptr, n, lo, hi, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    c = tl.minimum(tl.maximum(x, lo), hi)
    tl.store(h_ptr + offs, c.to(tl.float16), mask=mask)
    tl.store(b_ptr + offs, c.to(tl.bfloat16), mask=mask)
    tl.store(i_ptr + offs, c.to(tl.int32), mask=mask)


@triton.jit
def math_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1.0)
    y = tl.exp(x) + tl.log(x) + tl.sin(x) * tl.cos(x) + tl.sqrt(x) + tl.rsqrt(x)
    y += libdevice.pow(x, 1.5) + libdevice.tanh(x) + tl.floor(x) + tl.abs(x) + tl.exp2(x)
    y += tl.fdiv(x, x + 1.0, ieee_rounding=True) + tl.fma(x, x, x)
    tl.store(out_ptr + offs, y, mask=mask)


@triton.jit
def inline_asm_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    rotated = tl.inline_asm_elementwise("shf.l.wrap.b32 $0, $1, $1, 7;", "=r,r", [x], dtype=tl.uint32, is_pure=True,
                                        pack=1)
    tl.store(y_ptr + offs, rotated ^ x, mask=mask)


SPECS = [
    KernelSpec("add_kernel", add_kernel, {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"},
               {"BLOCK": 1024}),
    KernelSpec("gelu_kernel", gelu_kernel, {"x_ptr": "*fp16", "out_ptr": "*fp16", "n": "i32"}, {"BLOCK": 512}),
    KernelSpec("dropout_kernel", dropout_kernel,
               {"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "p": "fp32", "seed": "i32"}, {"BLOCK": 1024}),
    KernelSpec("cast_clamp_kernel", cast_clamp_kernel,
               {"x_ptr": "*fp32", "h_ptr": "*fp16", "b_ptr": "*bf16", "i_ptr": "*i32", "n": "i32", "lo": "fp32",
                "hi": "fp32"}, {"BLOCK": 256}, num_warps=2),
    KernelSpec("inline_asm_kernel", inline_asm_kernel, {"x_ptr": "*u32", "y_ptr": "*u32", "n": "i32"}, {"BLOCK": 512}),
    KernelSpec("math_kernel", math_kernel, {"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"}, {"BLOCK": 256}),
]

if __name__ == "__main__":
    main(SPECS)
