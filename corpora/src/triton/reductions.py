# SPDX-License-Identifier: Apache-2.0
"""Triton row-wise kernels: fused softmax, layer norm forward (mean/var/rstd), a sum with tl.atomic_add,
argmax, cumulative sum (tl.cumsum: warp-shuffle scans) and tl.sort (bitonic network in registers)."""

from __future__ import annotations

import triton
import triton.language as tl
from _corpus import KernelSpec, main


@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_stride, out_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * in_stride + cols, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    tl.store(out_ptr + row * out_stride + cols, num / tl.sum(num, axis=0), mask=mask)


@triton.jit
def layernorm_kernel(x_ptr, y_ptr, w_ptr, b_ptr, mean_ptr, rstd_ptr, stride, n, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    x_ptr += row * stride
    y_ptr += row * stride
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, n, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + cols, mask=cols < n, other=0.0).to(tl.float32)
    mean = tl.sum(acc, axis=0) / n
    var_acc = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, n, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + cols, mask=cols < n, other=0.0).to(tl.float32)
        x = tl.where(cols < n, x - mean, 0.0)
        var_acc += x * x
    rstd = 1 / tl.sqrt(tl.sum(var_acc, axis=0) / n + eps)
    tl.store(mean_ptr + row, mean)
    tl.store(rstd_ptr + row, rstd)
    for off in range(0, n, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        mask = cols < n
        w = tl.load(w_ptr + cols, mask=mask)
        b = tl.load(b_ptr + cols, mask=mask)
        x = tl.load(x_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        tl.store(y_ptr + cols, ((x - mean) * rstd * w + b).to(tl.float16), mask=mask)


@triton.jit
def sum_atomic_kernel(x_ptr, total_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.atomic_add(total_ptr, tl.sum(x, axis=0))
    tl.atomic_max(total_ptr + 1, tl.max(x, axis=0))


@triton.jit
def argmax_kernel(x_ptr, idx_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=-float("inf"))
    tl.store(idx_ptr + row, tl.argmax(x, axis=0))


@triton.jit
def cumsum_kernel(x_ptr, y_ptr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * BLOCK + cols)
    tl.store(y_ptr + row * BLOCK + cols, tl.cumsum(x, axis=0))


@triton.jit
def sort_kernel(x_ptr, y_ptr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * BLOCK + cols)
    tl.store(y_ptr + row * BLOCK + cols, tl.sort(x, descending=True))


SPECS = [
    KernelSpec("softmax_kernel", softmax_kernel,
               {"out_ptr": "*fp32", "in_ptr": "*fp32", "in_stride": "i32", "out_stride": "i32", "n_cols": "i32"},
               {"BLOCK": 1024}, num_warps=8),
    KernelSpec("layernorm_kernel", layernorm_kernel,
               {"x_ptr": "*fp16", "y_ptr": "*fp16", "w_ptr": "*fp32", "b_ptr": "*fp32", "mean_ptr": "*fp32",
                "rstd_ptr": "*fp32", "stride": "i32", "n": "i32", "eps": "fp32"}, {"BLOCK": 1024}, num_warps=8),
    KernelSpec("sum_atomic_kernel", sum_atomic_kernel, {"x_ptr": "*fp32", "total_ptr": "*fp32", "n": "i32"},
               {"BLOCK": 2048}),
    KernelSpec("argmax_kernel", argmax_kernel, {"x_ptr": "*fp32", "idx_ptr": "*i32", "stride": "i32",
                                                "n_cols": "i32"}, {"BLOCK": 512}),
    KernelSpec("cumsum_kernel", cumsum_kernel, {"x_ptr": "*i32", "y_ptr": "*i32"}, {"BLOCK": 256}, num_warps=2),
    KernelSpec("sort_kernel", sort_kernel, {"x_ptr": "*fp32", "y_ptr": "*fp32"}, {"BLOCK": 128}, num_warps=1),
]

if __name__ == "__main__":
    main(SPECS)
