"""Cases of corpora/nvcc apps_integer.cu.

Part of ``corpora/cases/make_cases.py`` (see its docstring for the invariant)."""

from __future__ import annotations

import hashlib
import zlib
from collections.abc import Iterator

import numpy as np
from casegen import Buffer, CaseSpec, Scalar

from generators.common import F32, M64, NV, case, fma, rng


# == apps_integer.cu / apps_numeric.cu ===============================================================
def apps_integer() -> Iterator[tuple[str, CaseSpec]]:
    src = NV + "apps_integer.ptx"
    # sha256_block compresses one 64-byte block from the standard IV: for a message of < 56 bytes padded
    # by hand that is exactly SHA-256 of the message (hashlib).
    n = 70
    r = rng(160)
    blocks, digests = bytearray(), []
    for m in range(n):
        msg = bytes(r.integers(0, 256, m % 56, dtype=np.uint8)) if m else b""
        padded = msg + b"\x80" + bytes(55 - len(msg)) + (8 * len(msg)).to_bytes(8, "big")
        blocks += padded
        digests.append(np.frombuffer(hashlib.sha256(msg).digest(), ">u4").astype(np.uint32))
    yield "apps_integer/sha256_block", case(
        src, "sha256_block", 2, 48,
        [
            ("blocks", Buffer("u32", np.frombuffer(bytes(blocks), "<u4").copy())),
            ("digests", Buffer("u32", count=n * 8)), ("n", Scalar("s32", n)),
        ],
        {"digests": np.concatenate(digests)},
        note="expected digests: hashlib.sha256 of the unpadded messages",
    )
    msgs = [bytes(r.integers(0, 256, int(k), dtype=np.uint8)) for k in r.integers(0, 40, 75)]
    msgs[0], msgs[1] = b"", b"123456789"
    offsets = np.cumsum([0] + [len(m) for m in msgs]).astype(np.int32)
    yield "apps_integer/crc32", case(
        src, "crc32", 2, 40,
        [
            ("data", Buffer("u8", np.frombuffer(b"".join(msgs) + b"\0", np.uint8).copy())),
            ("offsets", Buffer("s32", offsets)), ("crcs", Buffer("u32", count=75)), ("n_messages", Scalar("s32", 75)),
        ],
        {"crcs": np.array([zlib.crc32(m) for m in msgs], np.uint32)},
        note="expected: zlib.crc32",
    )
    # bfs_step: only frontier[17] has unvisited neighbours, so the order of `next` is fixed.
    nv = 120
    adj_lists = [sorted(set(r.integers(0, 60, 4).tolist())) for _ in range(nv)]
    frontier = np.arange(40, dtype=np.int32)
    special = [61, 70, 70, 99, 61, 119, 3]
    adj_lists[17] = special
    dist = np.full(nv, -1, np.int32)
    dist[:60] = 2
    row_ptr = np.cumsum([0] + [len(a) for a in adj_lists]).astype(np.int32)
    adj = np.array([u for a in adj_lists for u in a], np.int32)
    level = 2
    new_dist = dist.copy()
    nxt = []
    for u in special:
        if new_dist[u] == -1:
            new_dist[u] = level + 1
            nxt.append(u)
    next0 = np.full(16, -7, np.int32)
    next1 = next0.copy()
    next1[: len(nxt)] = nxt
    yield "apps_integer/bfs_step", case(
        src, "bfs_step", 1, 64,
        [
            ("row_ptr", Buffer("s32", row_ptr)), ("adj", Buffer("s32", adj)), ("dist", Buffer("s32", dist)),
            ("frontier", Buffer("s32", frontier)), ("frontier_size", Scalar("s32", 40)), ("next", Buffer("s32", next0)),
            ("next_size", Buffer("s32", count=1)), ("level", Scalar("s32", level)),
        ],
        {"dist": new_dist, "next": next1, "next_size": np.array([len(nxt)], np.int32)},
        note="one frontier vertex reaches unvisited vertices: the atomicAdd order cannot matter",
    )
    grid, block, n = 3, 96, 5000
    data = r.integers(0, 256, n).astype(np.uint8)
    data[:300] = 7  # a hot bin: many same-address atomics
    hist0 = r.integers(0, 1000, 256).astype(np.uint32)
    yield "apps_integer/histogram256_warp_private", case(
        src, "histogram256_warp_private", grid, block,
        [("data", Buffer("u8", data)), ("hist", Buffer("u32", hist0)), ("n", Scalar("s32", n))],
        {"hist": hist0 + np.bincount(data, minlength=256).astype(np.uint32)},
        shared_bytes=block // 32 * 256 * 4,
    )
    w, h = 45, 21
    rgba = r.integers(0, 256, (h * w, 4)).astype(np.uint8)
    rgba[:4, :3] = [[255, 255, 255], [0, 0, 0], [1, 1, 1], [128, 128, 128]]
    c = rgba[:, :3].astype(np.float32)
    g = fma(c[:, 2], F32(0.114), fma(c[:, 0], F32(0.299), c[:, 1] * F32(0.587), F32), F32)
    yield "apps_integer/rgba_to_grey", case(
        src, "rgba_to_grey", (3, 3), (16, 8),
        [
            ("rgba", Buffer("u8", rgba.reshape(-1))), ("grey", Buffer("u8", count=w * h)), ("w", Scalar("s32", w)),
            ("h", Scalar("s32", h)),
        ],
        {"grey": np.rint(g).astype(np.uint8)},
        note="nvcc: mul.f32 y*0.587, fma x*0.299, fma z*0.114, cvt.rni (half to even): modelled op for op",
    )
    words, sets = 5, 150
    a = r.integers(0, 2**64, sets * words, dtype=np.uint64)
    b = r.integers(0, 2**64, words, dtype=np.uint64)
    a[:words] = M64
    counts = [sum((int(a[s * words + i]) & int(b[i])).bit_count() for i in range(words)) for s in range(sets)]
    yield "apps_integer/bitset_intersections", case(
        src, "bitset_intersections", 2, 100,
        [
            ("a", Buffer("u64", a)), ("b", Buffer("u64", b)), ("counts", Buffer("u32", count=sets)),
            ("words", Scalar("s32", words)), ("sets", Scalar("s32", sets)),
        ],
        {"counts": np.array(counts, np.uint32)},
    )
