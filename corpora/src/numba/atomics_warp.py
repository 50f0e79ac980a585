# SPDX-License-Identifier: Apache-2.0
"""numba-cuda kernels for atomics, warp intrinsics and math: cuda.atomic.add/max/min/cas/exch on int, float
and double (numba lowers float max/min to CAS loops), warp reductions with shfl_down_sync, ballot/vote/
match_any, popc/clz/brev/ffs, libdevice math (sin, exp, log, erf, atan2, pow) for float32 and float64,
complex64 arithmetic, the xoroshiro128+ generator from numba.cuda.random, and integer division/shifts.

Two kernels call functions that their PTX only declares (``.extern .func``), as numba-cuda's PTX really
does: float16 arithmetic through cuda.fp16 (numba links a C++ shim built with NVRTC at load time) and a
cooperative-groups grid sync (``cudaCGGetIntrinsicHandle``/``cudaCGSynchronize`` from the device runtime
library cudadevrt). They stand for relocatable PTX that needs a link step."""

from __future__ import annotations

import cmath
import math

from _corpus import KernelSpec, main
from numba import complex64, cuda, float32, float64, int32, int64, uint32, uint64
from numba.core.types import float16
from numba.cuda.random import xoroshiro128p_normal_float32, xoroshiro128p_type, xoroshiro128p_uniform_float32


def atomics(ints, floats, doubles, counters):
    i = cuda.grid(1)
    cuda.atomic.add(ints, 0, 1)
    cuda.atomic.max(ints, 1, i)
    cuda.atomic.min(ints, 2, -i)
    cuda.atomic.and_(ints, 3, i)
    cuda.atomic.or_(ints, 4, i)
    cuda.atomic.xor(ints, 5, i)
    cuda.atomic.exch(ints, 6, i)
    cuda.atomic.inc(counters, 0, uint32(100))
    cuda.atomic.dec(counters, 1, uint32(100))
    old = cuda.atomic.compare_and_swap(ints[7:], 0, i)
    cuda.atomic.cas(ints, 8, old, i + 1)
    cuda.atomic.add(floats, 0, 0.5)
    cuda.atomic.max(floats, 1, float32(i))
    cuda.atomic.nanmin(floats, 2, float32(i))
    cuda.atomic.add(doubles, 0, 0.25)
    cuda.atomic.max(doubles, 1, float64(i))
    cuda.atomic.sub(doubles, 2, 1.0)


def warp_sum(x, out):
    i = cuda.grid(1)
    v = x[i]
    offset = 16
    while offset > 0:
        v += cuda.shfl_down_sync(0xFFFFFFFF, v, offset)
        offset //= 2
    if cuda.laneid == 0:
        cuda.atomic.add(out, 0, v)


def warp_votes(x, out):
    i = cuda.grid(1)
    v = x[i]
    mask = cuda.activemask()
    ballot = cuda.ballot_sync(mask, v > 0)
    out[i, 0] = ballot
    out[i, 1] = cuda.all_sync(mask, v != 0)
    out[i, 2] = cuda.any_sync(mask, v < 0)
    out[i, 3] = cuda.eq_sync(mask, v > 0)
    out[i, 4] = cuda.match_any_sync(mask, v)
    out[i, 5] = cuda.popc(ballot) + cuda.clz(ballot) + cuda.ffs(ballot)
    out[i, 6] = cuda.brev(ballot)
    out[i, 7] = cuda.shfl_sync(mask, v, 0) + cuda.shfl_xor_sync(mask, v, 1) + cuda.shfl_up_sync(mask, v, 1)
    out[i, 8] = cuda.lanemask_lt()
    cuda.syncwarp(mask)


def math_f32(x, out):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        out[i] = (math.sin(v) + math.cos(v) + math.exp(v) + math.log(v + 2.0) + math.erf(v) + math.atan2(v, 2.0)
                  + math.pow(v, 1.5) + math.sqrt(abs(v)) + math.tanh(v) + math.floor(v) + math.ceil(v)
                  + math.fmod(v, 0.3) + math.hypot(v, 1.0) + cuda.fma(v, v, v))


def math_f64(x, out):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        out[i] = (math.sin(v) + math.exp(v) + math.log1p(abs(v)) + math.gamma(abs(v) + 1.0) + math.lgamma(abs(v) + 1.0)
                  + math.asinh(v) + math.expm1(v) + math.copysign(2.0, v) + math.isnan(v) + math.isinf(v))


def complex_ops(z, out):
    i = cuda.grid(1)
    if i < z.size:
        w = z[i]
        out[i] = w * w.conjugate() + cmath.exp(w) / (w + 1j) + abs(w) + cmath.sqrt(w)


def half_ops(a, b, out):
    i = cuda.grid(1)
    if i < a.size:
        x = a[i]
        y = b[i]
        out[i] = cuda.fp16.hfma(x, y, cuda.fp16.hsub(x, cuda.fp16.hmul(y, float16(0.5))))


def random_walk(states, out, steps):
    i = cuda.grid(1)
    if i >= out.size:
        return
    pos = float32(0.0)
    for _ in range(steps):
        pos += xoroshiro128p_uniform_float32(states, i) - float32(0.5)
        pos += float32(0.01) * xoroshiro128p_normal_float32(states, i)
    out[i] = pos


def grid_sync_kernel(data, out):
    i = cuda.grid(1)
    data[i] += 1
    cuda.cg.this_grid().sync()
    out[i] = data[(i + 1) % data.size]


def int_ops(a, b, out):
    i = cuda.grid(1)
    if i < a.size:
        x = a[i]
        y = b[i]
        out[i] = (x // (y | 1)) + (x % 7) + (x >> 3) + (x << 2) + (x ^ y) + min(x, y) * max(x, y)


SPECS = [
    KernelSpec("atomics", atomics, (int32[:], float32[:], float64[:], uint32[:])),
    KernelSpec("warp_sum", warp_sum, (float32[:], float32[:])),
    KernelSpec("warp_votes", warp_votes, (int32[:], uint32[:, :])),
    KernelSpec("math_f32", math_f32, (float32[:], float32[:])),
    KernelSpec("math_f64", math_f64, (float64[:], float64[:])),
    KernelSpec("math_f32_fastmath", math_f32, (float32[:], float32[:]), {"fastmath": True}),
    KernelSpec("complex_ops", complex_ops, (complex64[:], complex64[:])),
    KernelSpec("half_ops", half_ops, (float16[:], float16[:], float16[:])),
    KernelSpec("random_walk", random_walk, (xoroshiro128p_type[:], float32[:], int32)),
    KernelSpec("grid_sync_kernel", grid_sync_kernel, (int64[:], int64[:])),
    KernelSpec("int_ops", int_ops, (int64[:], int64[:], int64[:])),
    KernelSpec("uint_ops", int_ops, (uint64[:], uint64[:], uint64[:])),
]

if __name__ == "__main__":
    main(SPECS)
