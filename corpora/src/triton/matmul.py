# SPDX-License-Identifier: Apache-2.0
"""Triton tensor-core kernels: blocked fp16 matmul with grouped program ordering and a fused activation
(tl.dot: mma.sync on sm_80, wgmma on sm_90a), bf16, int8 (s32 accumulate) and tf32 variants, an fp8 (e4m3) matmul on
sm_90 only, and a small causal flash-attention forward pass (online softmax, two tl.dot per block)."""

from __future__ import annotations

import triton
import triton.language as tl
from _corpus import KernelSpec, main


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
                  ACTIVATION: tl.constexpr, ACC_TYPE: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    group_id = pid // (GROUP_M * num_pid_n)
    first_m = group_id * GROUP_M
    group_size = min(num_pid_m - first_m, GROUP_M)
    pid_m = first_m + (pid % group_size)
    pid_n = (pid % (GROUP_M * num_pid_n)) // group_size
    offs_m = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_n = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=ACC_TYPE)
    for k in range(tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
        acc = tl.dot(a, b, acc, out_dtype=ACC_TYPE)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    if ACTIVATION == "leaky_relu":
        acc = tl.where(acc >= 0, acc, 0.01 * acc)
    c = acc.to(c_ptr.dtype.element_ty)
    cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    tl.store(c_ptr + stride_cm * cm[:, None] + stride_cn * cn[None, :], c, mask=(cm[:, None] < M) & (cn[None, :] < N))


@triton.jit
def attention_fwd_kernel(q_ptr, k_ptr, v_ptr, o_ptr, seq_len, sm_scale, stride_s, BLOCK_M: tl.constexpr,
                         BLOCK_N: tl.constexpr, HEAD_DIM: tl.constexpr):
    start_m = tl.program_id(0)
    head = tl.program_id(1)
    base = head * seq_len * stride_s
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    q = tl.load(q_ptr + base + offs_m[:, None] * stride_s + offs_d[None, :], mask=offs_m[:, None] < seq_len)
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    for start_n in range(0, (start_m + 1) * BLOCK_M, BLOCK_N):
        cols = start_n + offs_n
        k = tl.load(k_ptr + base + cols[None, :] * stride_s + offs_d[:, None], mask=cols[None, :] < seq_len)
        qk = tl.dot(q, k) * sm_scale
        qk = tl.where(offs_m[:, None] >= cols[None, :], qk, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2((qk - m_new[:, None]) * 1.4426950408889634)
        alpha = tl.math.exp2((m_i - m_new) * 1.4426950408889634)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(v_ptr + base + cols[:, None] * stride_s + offs_d[None, :], mask=cols[:, None] < seq_len)
        acc = acc * alpha[:, None] + tl.dot(p.to(tl.float16), v)
        m_i = m_new
    acc = acc / l_i[:, None]
    tl.store(o_ptr + base + offs_m[:, None] * stride_s + offs_d[None, :], acc.to(tl.float16),
             mask=offs_m[:, None] < seq_len)


_MATMUL_SIG = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32", "K": "i32",
               "stride_am": "i32", "stride_ak": "i32", "stride_bk": "i32", "stride_bn": "i32", "stride_cm": "i32",
               "stride_cn": "i32"}
_TILES = {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32, "GROUP_M": 8, "ACC_TYPE": tl.float32}

SPECS = [
    KernelSpec("matmul_fp16_leaky_relu", matmul_kernel, _MATMUL_SIG, {**_TILES, "ACTIVATION": "leaky_relu"},
               num_warps=8, num_stages=3),
    KernelSpec("matmul_bf16", matmul_kernel,
               {**_MATMUL_SIG, "a_ptr": "*bf16", "b_ptr": "*bf16", "c_ptr": "*fp32"},
               {**_TILES, "BLOCK_M": 64, "BLOCK_N": 64, "ACTIVATION": ""}, num_warps=4, num_stages=2),
    KernelSpec("matmul_fp8e4m3", matmul_kernel,
               {**_MATMUL_SIG, "a_ptr": "*fp8e4nv", "b_ptr": "*fp8e4nv", "c_ptr": "*fp16"},
               {**_TILES, "BLOCK_K": 64, "ACTIVATION": ""}, num_warps=8, num_stages=3, min_arch=90),
    KernelSpec("matmul_int8", matmul_kernel,
               {**_MATMUL_SIG, "a_ptr": "*i8", "b_ptr": "*i8", "c_ptr": "*i32"},
               {**_TILES, "BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 64, "ACTIVATION": "", "ACC_TYPE": tl.int32},
               num_warps=4, num_stages=2),
    KernelSpec("matmul_tf32", matmul_kernel,
               {**_MATMUL_SIG, "a_ptr": "*fp32", "b_ptr": "*fp32", "c_ptr": "*fp32"},
               {**_TILES, "BLOCK_M": 64, "BLOCK_N": 64, "ACTIVATION": "leaky_relu"}, num_warps=4, num_stages=2),
    KernelSpec("attention_fwd_kernel", attention_fwd_kernel,
               {"q_ptr": "*fp16", "k_ptr": "*fp16", "v_ptr": "*fp16", "o_ptr": "*fp16", "seq_len": "i32",
                "sm_scale": "fp32", "stride_s": "i32"}, {"BLOCK_M": 64, "BLOCK_N": 64, "HEAD_DIM": 64},
               num_warps=4, num_stages=2),
]

if __name__ == "__main__":
    main(SPECS)
