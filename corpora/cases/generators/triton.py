"""Cases of the Triton kernels (corpora/src/triton/*.py): elementwise, matmul, attention.

Part of ``corpora/cases/make_cases.py`` (see its docstring for the invariant)."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
from casegen import Buffer, CaseSpec, Scalar

from generators.atomics import bf16_round
from generators.common import CORPUS, F32, case, f32_inputs, rng, small_ints_f32, wrap32
from generators.control_flow import cvt_rzi_s32
from generators.int_intrinsics import u32_inputs

# == Triton (src/triton/*.py) =======================================================================
TR = "triton/sm_80/"


def entry_param_count(source: str) -> int:
    """How many .param lines the (single) .entry of a corpus PTX file declares."""
    text = (CORPUS / source).read_text(encoding="utf-8")
    head = text[text.index(".entry") :]
    return head[: head.index(")")].count(".param")


def triton_case(kernel: str, grid: object, args: list, expect: dict, entry: str = "", **kw: object) -> CaseSpec:
    """Triton 3.9 appends two pointer parameters (global and profile scratch): passed as null.
    ``kernel`` names the corpus file; ``entry`` the kernel in it when that name differs."""
    src = TR + kernel + ".ptx"
    text = (CORPUS / src).read_text(encoding="utf-8")
    threads = int(text.split(".reqntid", 1)[1].split()[0])
    extra = entry_param_count(src) - len(args)
    full = args + [(f"scratch{k}", Scalar("u64", 0)) for k in range(extra)]
    return case(src, entry or kernel, grid, threads, full, expect, **kw)


def rotl32(x: np.ndarray, k: int) -> np.ndarray:
    return ((x << np.uint32(k)) | (x >> np.uint32(32 - k))).astype(np.uint32)


def triton_kernels() -> Iterator[tuple[str, CaseSpec]]:
    r = rng(180)
    n = 2500
    x, y = f32_inputs(181, n), f32_inputs(182, n)
    with np.errstate(all="ignore"):
        out = x + y
    yield "triton/add_kernel", triton_case(
        "add_kernel", 3,
        [
            ("x_ptr", Buffer("f32", x)), ("y_ptr", Buffer("f32", y)), ("out_ptr", Buffer("f32", count=n)),
            ("n", Scalar("s32", n)),
        ],
        {"out_ptr": out},
        note="BLOCK = 1024, 128 threads (num_warps 4)",
    )
    n = 700
    x = (r.standard_normal(n) * 1e5).astype(np.float32)
    x[:6] = [0.5, 1.5, -2.5, 65519.0, 65520.0, -1e30]
    lo, hi = -1e5, 9e4
    c = np.minimum(np.maximum(x, F32(lo)), F32(hi))
    with np.errstate(over="ignore"):
        c16 = c.astype(np.float16)
    yield "triton/cast_clamp_kernel", triton_case(
        "cast_clamp_kernel", 3,
        [
            ("x_ptr", Buffer("f32", x)), ("h_ptr", Buffer("f16", count=n)), ("b_ptr", Buffer("u16", count=n)),
            ("i_ptr", Buffer("s32", count=n)), ("n", Scalar("s32", n)), ("lo", Scalar("f32", lo)),
            ("hi", Scalar("f32", hi)),
        ],
        {"h_ptr": c16, "b_ptr": bf16_round(c), "i_ptr": cvt_rzi_s32(c)},
        note="fp16/bf16 round to nearest even (65520 -> inf in fp16); int32 truncates; bf16 buffer as raw u16 bits",
    )
    n = 1300
    u = u32_inputs(183, n)
    yield "triton/inline_asm_kernel", triton_case(
        "inline_asm_kernel", 3,
        [("x_ptr", Buffer("u32", u)), ("y_ptr", Buffer("u32", count=n)), ("n", Scalar("s32", n))],
        {"y_ptr": rotl32(u, 7) ^ u},
    )
    n = 5000
    x = small_ints_f32(184, n, -100, 100)
    x[4321] = 1000.0
    total0 = np.array([0.5, -np.inf], np.float32)
    yield "triton/sum_atomic_kernel", triton_case(
        "sum_atomic_kernel", 3,
        [("x_ptr", Buffer("f32", x)), ("total_ptr", Buffer("f32", total0)), ("n", Scalar("s32", n))],
        {"total_ptr": np.array([0.5 + x.sum(dtype=np.float64), 1000.0], np.float32)},
        shared_bytes=8192,
        note="small-integer floats: exact in any order; shared_bytes covers Triton's global_smem scratch",
    )
    rows, cols, stride = 5, 300, 320
    x = (r.standard_normal(rows * stride) * 10).astype(np.float32)
    m = x.reshape(rows, stride)
    m[1, 250] = m[1, 20] = 99.0  # a tie: the lower index wins
    m[2, 310] = 1e9  # beyond n_cols: ignored
    yield "triton/argmax_kernel", triton_case(
        "argmax_kernel", rows,
        [
            ("x_ptr", Buffer("f32", x)), ("idx_ptr", Buffer("s32", count=rows)), ("stride", Scalar("s32", stride)),
            ("n_cols", Scalar("s32", cols)),
        ],
        {"idx_ptr": np.argmax(m[:, :cols], axis=1).astype(np.int32)},
        shared_bytes=8192,
    )
    rows = 3
    x = r.integers(-(2**31), 2**31, rows * 256, dtype=np.int64).astype(np.int32)
    yield "triton/cumsum_kernel", triton_case(
        "cumsum_kernel", rows,
        [("x_ptr", Buffer("s32", x)), ("y_ptr", Buffer("s32", count=rows * 256))],
        {"y_ptr": np.concatenate([wrap32(np.cumsum(row.astype(np.int64))) for row in x.reshape(rows, 256)])},
        shared_bytes=8192,
    )
    rows = 2
    x = (r.standard_normal(rows * 128) * 100).astype(np.float32)
    x[:3] = [np.inf, -np.inf, 3e38]
    yield "triton/sort_kernel", triton_case(
        "sort_kernel", rows,
        [("x_ptr", Buffer("f32", x)), ("y_ptr", Buffer("f32", count=rows * 128))],
        {"y_ptr": -np.sort(-x.reshape(rows, 128), axis=1).reshape(-1)},
    )
    rows, cols, stride = 4, 700, 704
    x = (r.standard_normal(rows * stride) * 5).astype(np.float32)
    m = x.reshape(rows, stride)[:, :cols].astype(np.float64)
    e = np.exp(m - m.max(axis=1, keepdims=True))
    sm = np.zeros((rows, stride), np.float32)
    sm[:, :cols] = e / e.sum(axis=1, keepdims=True)
    yield "triton/softmax_kernel", triton_case(
        "softmax_kernel", rows,
        [
            ("out_ptr", Buffer("f32", count=rows * stride)), ("in_ptr", Buffer("f32", x)),
            ("in_stride", Scalar("s32", stride)), ("out_stride", Scalar("s32", stride)),
            ("n_cols", Scalar("s32", cols)),
        ],
        {"out_ptr": sm.reshape(-1)},
        tolerance={"out_ptr": (2e-5, 1e-9)},
        shared_bytes=8192,
        note="tl.exp is ex2.approx.f32 (2^-22 relative) and the division div.full.f32 (2 ulp): rtol 2e-5 vs. f64",
    )
    rows, n, stride, eps = 3, 1500, 1536, 1e-5
    x = (r.standard_normal(rows * stride) * 2 + 0.5).astype(np.float16)
    w = r.standard_normal(n).astype(np.float32)
    b = r.standard_normal(n).astype(np.float32)
    xm = x.reshape(rows, stride)[:, :n].astype(np.float64)
    mean = xm.mean(axis=1)
    rstd = 1 / np.sqrt(((xm - mean[:, None]) ** 2).mean(axis=1) + eps)
    yv = x.reshape(rows, stride).copy()
    yv[:, :n] = ((xm - mean[:, None]) * rstd[:, None] * w + b).astype(np.float16)
    yield "triton/layernorm_kernel", triton_case(
        "layernorm_kernel", rows,
        [
            ("x_ptr", Buffer("f16", x)), ("y_ptr", Buffer("f16", x)), ("w_ptr", Buffer("f32", w)),
            ("b_ptr", Buffer("f32", b)), ("mean_ptr", Buffer("f32", count=rows)),
            ("rstd_ptr", Buffer("f32", count=rows)), ("stride", Scalar("s32", stride)), ("n", Scalar("s32", n)),
            ("eps", Scalar("f32", eps)),
        ],
        {"y_ptr": yv.reshape(-1), "mean_ptr": mean.astype(np.float32), "rstd_ptr": rstd.astype(np.float32)},
        tolerance={"y_ptr": (2e-3, 2e-3), "mean_ptr": (1e-5, 1e-6), "rstd_ptr": (1e-5, 0.0)},
        shared_bytes=8192,
        note="f32 sums of 1500 terms in Triton's tree order vs. f64: rtol 1e-5; y is fp16 (1 ulp = 2^-10 relative)",
    )
    n = 1100
    x = (r.standard_normal(n) * 3).astype(np.float16)
    xf = x.astype(np.float64)
    from math import erf

    exact = 0.5 * xf * (1.0 + np.array([erf(v * 0.7071067811865476) for v in xf]))
    inner = 0.7978845608028654 * (xf + 0.044715 * xf**3)
    approx = 0.5 * xf * (1.0 + (2.0 / (1.0 + np.exp(-2.0 * inner)) - 1.0))
    yield "triton/gelu_kernel", triton_case(
        "gelu_kernel", 3,
        [("x_ptr", Buffer("f16", x)), ("out_ptr", Buffer("f16", count=n)), ("n", Scalar("s32", n))],
        {"out_ptr": (exact + approx).astype(np.float16)},
        tolerance={"out_ptr": (2e-3, 2e-3)},
        note="f32 erf/sigmoid (ex2.approx) then fp16: within 2e-3 (fp16 half-ulp 4.9e-4 plus f32 error)",
    )
    n = 600
    x = r.uniform(0.1, 3.0, n).astype(np.float32)
    xf = x.astype(np.float64)
    ym = (
        np.exp(xf)
        + np.log(xf)
        + np.sin(xf) * np.cos(xf)
        + np.sqrt(xf)
        + 1 / np.sqrt(xf)
        + xf**1.5
        + np.tanh(xf)
        + np.floor(xf)
        + np.abs(xf)
        + np.exp2(xf)
        + xf / (xf + 1.0)
        + (xf * xf + xf)
    )
    yield "triton/math_kernel", triton_case(
        "math_kernel", 3,
        [("x_ptr", Buffer("f32", x)), ("out_ptr", Buffer("f32", count=n)), ("n", Scalar("s32", n))],
        {"out_ptr": ym.astype(np.float32)},
        tolerance={"out_ptr": (1e-5, 1e-5)},
        note="approximate exp/log/sin/cos/rsqrt (ex2/lg2/sin/cos/rsqrt.approx.f32, ~2^-21) summed: rtol 1e-5",
    )


# == Triton matmul.py ================================================================================
def triton_matmul() -> Iterator[tuple[str, CaseSpec]]:
    r = rng(230)
    # Small-integer matrices: tf32/bf16/fp16 hold them exactly and every partial sum is exact, so the
    # tensor-core accumulation order cannot matter.
    specs = [
        ("matmul_int8", "s8", "s32", 64, 64, (70, 50, 100), ""),
        ("matmul_tf32", "f32", "f32", 64, 64, (70, 50, 40), "leaky_relu"),
        ("matmul_bf16", "u16", "f32", 64, 64, (70, 50, 40), ""),
        ("matmul_fp16_leaky_relu", "f16", "f16", 128, 128, (100, 60, 40), "leaky_relu"),
    ]
    for kernel, in_t, out_t, bm, bn, (m, n, k), act in specs:
        a = r.integers(-8, 9, (m, k))
        b = r.integers(-8, 9, (k, n))
        c = (a @ b).astype(np.float64)
        if act:
            c = np.where(c >= 0, c, np.float64(F32(0.01)) * c)
        conv = {
            "s8": lambda z: z.astype(np.int8),
            "f32": lambda z: z.astype(np.float32),
            "f16": lambda z: z.astype(np.float16),
            "u16": lambda z: bf16_round(z.astype(np.float32)),
        }[in_t]
        expect = {
            "s32": lambda z: z.astype(np.int32),
            "f32": lambda z: z.astype(np.float32),
            "f16": lambda z: z.astype(np.float32).astype(np.float16),
        }[out_t](c)
        grid = -(-m // bm) * -(-n // bn)
        yield f"triton/{kernel}", triton_case(
            kernel, grid,
            [
                ("a_ptr", Buffer(in_t, conv(a).reshape(-1))), ("b_ptr", Buffer(in_t, conv(b).reshape(-1))),
                ("c_ptr", Buffer(out_t, count=m * n)), ("M", Scalar("s32", m)), ("N", Scalar("s32", n)),
                ("K", Scalar("s32", k)), ("stride_am", Scalar("s32", k)), ("stride_ak", Scalar("s32", 1)),
                ("stride_bk", Scalar("s32", n)), ("stride_bn", Scalar("s32", 1)), ("stride_cm", Scalar("s32", n)),
                ("stride_cn", Scalar("s32", 1)),
            ],
            {"c_ptr": expect.reshape(-1)},
            entry="matmul_kernel",
            shared_bytes=65536,
            note="small-integer inputs: exact in tf32/bf16/fp16 and in any accumulation order; leaky_relu "
            "multiplies by the f32 constant 0.01 once",
        )


# == Triton attention ================================================================================
def triton_attention() -> Iterator[tuple[str, CaseSpec]]:
    r = rng(270)
    heads, seq, dim, scale = 2, 100, 64, 0.125
    q, k, v = ((r.standard_normal((heads, seq, dim)) * 0.5).astype(np.float16) for _ in range(3))
    out = np.zeros((heads, seq, dim), np.float16)
    for h in range(heads):
        s_ = (q[h].astype(np.float64) @ k[h].astype(np.float64).T) * scale
        s_[np.triu_indices(seq, 1)] = -np.inf  # causal: key j <= query i
        w = np.exp(s_ - s_.max(axis=1, keepdims=True))
        out[h] = ((w / w.sum(axis=1, keepdims=True)) @ v[h].astype(np.float64)).astype(np.float16)
    yield "triton/attention_fwd_kernel", triton_case(
        "attention_fwd_kernel", (2, heads),
        [
            ("q_ptr", Buffer("f16", q.reshape(-1))), ("k_ptr", Buffer("f16", k.reshape(-1))),
            ("v_ptr", Buffer("f16", v.reshape(-1))), ("o_ptr", Buffer("f16", count=heads * seq * dim)),
            ("seq_len", Scalar("s32", seq)), ("sm_scale", Scalar("f32", scale)), ("stride_s", Scalar("s32", dim)),
        ],
        {"o_ptr": out.reshape(-1)},
        tolerance={"o_ptr": (3e-3, 3e-3)},
        shared_bytes=65536,
        note="causal softmax(q k^T * scale) v in f64; the kernel rounds p to fp16 before the second tl.dot "
        "and the output to fp16 (2^-11 each), and uses ex2.approx: rtol/atol 3e-3",
    )
