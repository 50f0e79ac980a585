# SPDX-License-Identifier: Apache-2.0
"""numba-cuda kernels with the Numba ABI (each array argument expands to meminfo, parent, nitems, itemsize,
data, shape and strides): axpy with cuda.grid, a grid-stride 2D loop, shared-memory tiled matmul, 3D
indexing, local arrays, device functions (inlined by NVVM), print() (vprintf), a fast-math variant, a
line-info build (.loc), an unoptimised debug build (.target ..., debug with DWARF sections), and a
stand-alone device function with the C ABI (a .visible .func)."""

from __future__ import annotations

import math

from _corpus import KernelSpec, main
from numba import cuda, float32, float64, int32

TPB = 16


def axpy(r, a, x, y):
    i = cuda.grid(1)
    if i < r.size:
        r[i] = a * x[i] + y[i]


def scale_2d(m, s):
    x0, y0 = cuda.grid(2)
    sx, sy = cuda.gridsize(2)
    for y in range(y0, m.shape[0], sy):
        for x in range(x0, m.shape[1], sx):
            m[y, x] *= s


def matmul_shared(a, b, c):
    sa = cuda.shared.array(shape=(TPB, TPB), dtype=float32)
    sb = cuda.shared.array(shape=(TPB, TPB), dtype=float32)
    x, y = cuda.grid(2)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    acc = float32(0.0)
    for t in range((a.shape[1] + TPB - 1) // TPB):
        sa[ty, tx] = 0
        sb[ty, tx] = 0
        if y < a.shape[0] and t * TPB + tx < a.shape[1]:
            sa[ty, tx] = a[y, t * TPB + tx]
        if x < b.shape[1] and t * TPB + ty < b.shape[0]:
            sb[ty, tx] = b[t * TPB + ty, x]
        cuda.syncthreads()
        for k in range(TPB):
            acc += sa[ty, k] * sb[k, tx]
        cuda.syncthreads()
    if y < c.shape[0] and x < c.shape[1]:
        c[y, x] = acc


def volume_3d(v, out):
    x, y, z = cuda.grid(3)
    if x < v.shape[2] and y < v.shape[1] and z < v.shape[0]:
        out[z, y, x] = v[z, y, x] * (x + 2 * y + 3 * z)


@cuda.jit(device=True)
def clamp(v, lo, hi):
    return min(max(v, lo), hi)


@cuda.jit(device=True)
def polynomial(x):
    acc = 0.0
    for c in (1.0, -0.5, 0.25, -0.125):
        acc = acc * x + c
    return acc


def local_array_sort(inp, out):
    i = cuda.grid(1)
    if i >= inp.shape[0]:
        return
    buf = cuda.local.array(8, int32)
    for k in range(8):
        buf[k] = inp[i, k]
    for p in range(1, 8):  # insertion sort in thread-private memory
        key = buf[p]
        q = p - 1
        while q >= 0 and buf[q] > key:
            buf[q + 1] = buf[q]
            q -= 1
        buf[q + 1] = key
    for k in range(8):
        out[i, k] = clamp(buf[k], 0, 1000)


def device_calls(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = polynomial(x[i]) + math.sqrt(abs(x[i]))


def polynomial_c(x):
    """Compiled on its own as a device function with the C ABI: a ``.visible .func`` with a return value.

    (Iterating over a tuple of constants here, as ``polynomial`` does, makes numba-cuda 0.30.4 hand NVVM
    invalid IR for the C ABI; a counted loop works.)
    """
    acc = 0.0
    for k in range(4):
        acc = acc * x + (-0.5) ** k
    return acc


def print_kernel(x):
    i = cuda.grid(1)
    if i == 0:
        print("x[0] =", x[0], "size", x.size)


SPECS = [
    KernelSpec("axpy", axpy, (float32[:], float32, float32[:], float32[:])),
    KernelSpec("scale_2d", scale_2d, (float64[:, :], float64)),
    KernelSpec("matmul_shared", matmul_shared, (float32[:, :], float32[:, :], float32[:, :])),
    KernelSpec("volume_3d", volume_3d, (float32[:, :, :], float32[:, :, :])),
    KernelSpec("local_array_sort", local_array_sort, (int32[:, :], int32[:, :])),
    KernelSpec("device_calls", device_calls, (float64[:], float64[:])),
    KernelSpec("device_calls_fastmath", device_calls, (float32[:], float32[:]), {"fastmath": True}),
    KernelSpec("print_kernel", print_kernel, (float64[:],)),
    KernelSpec("matmul_shared_lineinfo", matmul_shared, (float32[:, :], float32[:, :], float32[:, :]),
               {"lineinfo": True}),
    KernelSpec("axpy_debug", axpy, (float32[:], float32, float32[:], float32[:]), {"debug": True, "opt": False}),
    KernelSpec("polynomial_c_abi", polynomial_c, float64(float64),
               {"device": True, "abi": "c", "abi_info": {"abi_name": "polynomial"}}),
]

if __name__ == "__main__":
    main(SPECS)
