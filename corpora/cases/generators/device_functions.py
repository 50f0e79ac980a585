"""Cases of corpora/nvcc device_functions.cu.

Part of ``corpora/cases/make_cases.py`` (see its docstring for the invariant)."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
from casegen import Buffer, CaseSpec, Raw, Scalar

from generators.common import F32, NV, case, f32_inputs, fma, rng


def particles(seed: int, n: int) -> np.ndarray:
    """Particle {Vec3 pos, vel; float mass; int id} as 8 little-endian 32-bit words each."""
    r = rng(seed)
    words = np.zeros((n, 8), np.uint32)
    words[:, :7] = (r.standard_normal((n, 7)) * 4).astype(np.float32).view(np.uint32)
    words[:, 7] = np.arange(n, dtype=np.uint32) * 7 + 3
    return words.reshape(-1)


def step_model(
    words: np.ndarray, dt: float, damping: float, steps: int, g: tuple[float, float, float]
) -> np.ndarray:
    """step(): vel = (vel + g*dt) * damping; pos = pos + vel*dt; f32, no contraction across __noinline__ calls."""
    p = words.reshape(-1, 8).copy()
    f = p[:, :7].view(np.float32)
    gd = np.array(g, np.float64).astype(np.float32) * F32(dt)
    for _ in range(steps):
        f[:, 3:6] = (f[:, 3:6] + gd) * F32(damping)
        f[:, 0:3] = f[:, 0:3] + f[:, 3:6] * F32(dt)
    return p


def integrate_const_model(ps: np.ndarray, n: int, fused: bool) -> np.ndarray:
    """integrate_const: step() with c_params, then mass *= c_table[i & 63] (zeros) + dot(pos, vel).

    nvcc -O3 emits dot() as mul y*y, fma x*x, fma z*z; the -G build as three mul.f32 and two add.f32."""
    p = step_model(ps[: n * 8], 0.01, 0.99, 4, (0.0, -9.81, 0.0))
    f = p[:, :7].view(np.float32)
    pos, vel = f[:, 0:3], f[:, 3:6]
    if fused:
        d = fma(pos[:, 2], vel[:, 2], fma(pos[:, 0], vel[:, 0], pos[:, 1] * vel[:, 1], F32), F32)
    else:
        d = (pos[:, 0] * vel[:, 0] + pos[:, 1] * vel[:, 1]) + pos[:, 2] * vel[:, 2]
    f[:, 6] = f[:, 6] * (F32(0.0) + d)
    expect = ps.reshape(-1, 8).copy()
    expect[:n] = p
    return expect.reshape(-1)


def device_functions() -> Iterator[tuple[str, CaseSpec]]:
    src = NV + "device_functions.ptx"
    n = 100
    ps = particles(80, n + 5)
    dt, damping, steps, g = 0.02, 0.95, 3, (0.5, -9.81, 1.25)
    params = (
        np.array([dt, damping], np.float32).tobytes()
        + np.int32(steps).tobytes()
        + bytes(4)
        + np.array(g, np.float64).tobytes()
        + b"tag\0\0\0"
        + bytes(2)
    )
    assert len(params) == 48
    expect = ps.reshape(-1, 8).copy()
    expect[:n] = step_model(ps[: n * 8], dt, damping, steps, g)
    yield "device_functions/integrate", case(
        src, "integrate", 2, 70,
        [("ps", Buffer("b32", ps)), ("n", Scalar("s32", n)), ("prm", Raw(params))],
        {"ps": expect.reshape(-1)},
        note="Params {float dt, damping; int steps; double g[3]; char tag[6]} passed by value (48 bytes)",
    )
    # integrate_const: c_params = {0.01f, 0.99f, 4, {0, -9.81, 0}}; c_table has no initializer (zeros).
    expect = integrate_const_model(ps, n, fused=True)
    yield "device_functions/integrate_const", case(
        src, "integrate_const", 2, 70,
        [("ps", Buffer("b32", ps)), ("n", Scalar("s32", n))],
        {"ps": expect},
        note="dot() is mul.f32 y*y, fma x*x, fma z*z in nvcc's PTX; modelled the same way with exact fmas",
    )

    def fib(k: int) -> int:
        a, b = 0, 1
        for _ in range(k):
            a, b = b, a + b
        return a

    def ackermann(m: int, k: int) -> int:
        return k + 1 if m == 0 else 2 + (k + 3) - 3 if m == 1 else 2 * k + 3

    t = 40
    ins = rng(81).integers(0, 2**32, t, dtype=np.uint64).astype(np.uint32)
    ins[:3] = [0, 1, 19]
    fibs = np.array([fib(int(v) % 20) for v in ins], np.uint32)
    acks = np.array([ackermann(int(v) % 3, i % 4) for i, v in enumerate(ins)], np.uint64)
    rows = []
    for v in ins:
        h = (int(v) * 2654435761) & 0xFFFFFFFF
        rows.append(sorted(((h >> (k + 8)) & 1023) for k in range(16)))
    yield "device_functions/recursion", case(
        src, "recursion", 1, t,
        [
            ("in", Buffer("u32", ins)), ("fibs", Buffer("u32", count=t)), ("ack", Buffer("u64", count=t)),
            ("sorted", Buffer("s32", count=t * 16)),
        ],
        {"fibs": fibs, "ack": acks, "sorted": np.array(rows, np.int32).reshape(-1)},
        note="ackermann(1, n) = n + 2, ackermann(2, n) = 2n + 3",
    )
    t = 50
    x = f32_inputs(82, t)
    which = rng(83).integers(0, 1000, t).astype(np.int32)
    fns = [lambda v: v * v, lambda v: -v, lambda v: F32(0.5) * v]
    with np.errstate(all="ignore"):
        out = np.array([fns[w % 3](v) for v, w in zip(x, which)], np.float32)
    yield "device_functions/indirect_calls", case(
        src, "indirect_calls", 1, t,
        [("in", Buffer("f32", x)), ("out", Buffer("f32", count=t)), ("which", Buffer("s32", which))],
        {"out": out},
    )
    t, n = 80, 9
    idx = rng(84).integers(0, 1000, n).astype(np.int32)
    out = np.zeros(t, np.float32)
    for th in range(t):
        buf = [F32(k * k) + F32(th) for k in range(32)]
        acc = F32(0)
        for k in range(n):
            acc = F32(acc + buf[idx[k] & 31])
        buf[idx[0] & 31] = acc
        out[th] = buf[idx[1] & 31] + F32(0)  # g_buffer: zero-initialised __device__ array
    yield "device_functions/local_array", case(
        src, "local_array", 1, t,
        [("idx", Buffer("s32", idx)), ("out", Buffer("f32", count=t)), ("n", Scalar("s32", n))],
        {"out": out},
    )
    a = rng(85).integers(-4, 5, (4, 4)).astype(np.float32)
    b = rng(86).integers(-4, 5, (4, 4)).astype(np.float32)
    tm = (a.astype(np.float64) @ b).astype(np.float32)
    n = 150
    pts = rng(87).integers(-20, 21, (n + 10, 4)).astype(np.float32)
    for flags, shift in ((0x81, -3), (0x80, -300)):
        out = pts.copy()
        q = (pts[:n].astype(np.float64) @ tm[:3].T.astype(np.float64)).astype(np.float32)
        out[:n, :3] = q
        out[:n, 3] = pts[:n, 3] if flags & 1 else np.float32(shift)
        yield f"device_functions/transform_flags{flags:#x}", case(
            src, "transform", 3, 60,
            [
                ("a", Raw(a.tobytes())), ("b", Raw(b.tobytes())), ("points", Buffer("f32", pts.reshape(-1))),
                ("n", Scalar("s32", n)), ("flags", Scalar("u8", flags)), ("shift", Scalar("s16", shift)),
            ],
            {"points": out.reshape(-1)},
            note="Matrix4 by value (64 bytes); small integers: every product exact",
        )
    t = 90
    v = f32_inputs(88, t)
    v[20] = np.nan
    lo, hi = -2.5, 7.0
    changed = (v < lo) | (v > hi)
    clamped = np.fmin(np.fmax(v, F32(lo)), F32(hi))
    yield "device_functions/clamp_kernel", case(
        src, "clamp_kernel", 1, t,
        [
            ("v", Buffer("f32", v)), ("clamped", Buffer("s32", np.array([1000], np.int32))), ("lo", Scalar("f32", lo)),
            ("hi", Scalar("f32", hi)),
        ],
        {"v": clamped, "clamped": np.array([1000 + changed.sum()], np.int32)},
        note="fminf/fmaxf return the non-NaN operand: a NaN input clamps to lo",
    )
