"""T22: ldmatrix / stmatrix / movmatrix ``.m8n8.b16`` (x1/x2/x4, ``.trans``) on the emulator against
the reference model: scattered, per-warp row addresses in shared memory (rows not contiguous, lanes
beyond the used address lanes hold garbage addresses), two waves, and a launch in which one warp of
each wave skips the instruction after its lanes diverged and reconverged."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import numpy.typing as npt
import pytest

from ptx2gcn.reference.mma import WARP, ldmatrix, movmatrix, stmatrix
from tests.warp.conftest import SENTINEL
from tests.warp.matrix_harness import matrix_kernel, run_matrix

WARPS = 4
REGION = 512
"""Bytes of shared memory per warp (32 slots of 16 bytes)."""
WORDS = WARPS * REGION // 4 // (WARPS * WARP)
"""Shared-memory words each thread initialises (or reads back)."""

_SHARED = f".shared .align 16 .b8 shm[{WARPS * REGION}];\n.reg .b32 %sa;\n.reg .b32 %x<4>;"


def _fill(source: str) -> str:
    """Every thread copies ``WORDS`` words between its registers and its part of ``shm``."""
    lines = ["mov.u32 %sa, shm;", f"mad.lo.u32 %sa, %gid, {4 * WORDS}, %sa;"]
    if source == "init":
        lines += [f"st.shared.u32 [%sa+{4 * j}], %i{j};" for j in range(WORDS)]
    else:
        lines += [f"ld.shared.u32 %o{j}, [%sa+{4 * j}];" for j in range(WORDS)]
    return "\n".join(lines)


def _addresses(rng: np.random.Generator, count: int) -> npt.NDArray[np.int64]:
    """Per lane of every warp: a row address in the warp's region (garbage beyond ``count``)."""
    addresses = np.zeros(WARPS * WARP, dtype=np.int64)
    for w in range(WARPS):
        slots = rng.permutation(REGION // 16)[:WARP]
        addresses[w * WARP:(w + 1) * WARP] = w * REGION + 16 * slots
        addresses[w * WARP + count:(w + 1) * WARP] = rng.integers(0, 2**32, WARP - count) & ~15
    return addresses


def _inputs(words: npt.NDArray[np.int64], extra: list[npt.NDArray[np.int64]], skipped: tuple[int, ...]
            ) -> npt.NDArray[np.int64]:
    skip = np.array([int(t // WARP in skipped) for t in range(WARPS * WARP)])
    return np.column_stack([words, *extra, skip])


def _writer(halves: npt.NDArray[np.uint16]) -> Callable[[int, int], None]:
    def write16(address: int, value: int) -> None:
        halves[address // 2] = value
    return write16


NUMS = (1, 2, 4)


@pytest.mark.parametrize("trans", [False, True], ids=["plain", "trans"])
@pytest.mark.parametrize("num", NUMS, ids=[f"x{n}" for n in NUMS])
def test_ldmatrix(num: int, trans: bool, rng: np.random.Generator) -> None:
    regs = "{" + ", ".join(f"%x{m}" for m in range(num)) + "}"
    body = (f"mov.u32 %t5, shm; add.u32 %t5, %t5, %i{WORDS};\n"
            f"ldmatrix.sync.aligned.m8n8.x{num}{'.trans' if trans else ''}.shared.b16 {regs}, [%t5];\n"
            + "\n".join(f"mov.b32 %o{m}, %x{m};" for m in range(num)))
    n_in = WORDS + 2
    ptx = matrix_kernel(body, n_in, num, _SHARED, prologue=_fill("init") + "\nbar.sync 0;")
    memory = rng.integers(0, 2**32, (WARPS * WARP, WORDS))
    halves = memory.astype(np.uint32).view(np.uint16).reshape(-1)
    addresses = _addresses(rng, 8 * num)
    for skipped in ((), (1, 2)):
        out = run_matrix(ptx, WARPS * WARP, _inputs(memory, [addresses], skipped), num)
        for w in range(WARPS):
            lanes = out[w * WARP:(w + 1) * WARP]
            if w in skipped:
                assert (lanes == SENTINEL).all()
                continue
            expected = ldmatrix(num, trans, [int(a) for a in addresses[w * WARP:(w + 1) * WARP]],
                                lambda address: int(halves[address // 2]))
            assert lanes.tolist() == expected, (w, skipped)


@pytest.mark.parametrize("trans", [False, True], ids=["plain", "trans"])
@pytest.mark.parametrize("num", NUMS, ids=[f"x{n}" for n in NUMS])
def test_stmatrix(num: int, trans: bool, rng: np.random.Generator) -> None:
    regs = "{" + ", ".join(f"%i{WORDS + 1 + m}" for m in range(num)) + "}"
    body = (f"mov.u32 %t5, shm; add.u32 %t5, %t5, %i{WORDS};\n"
            f"stmatrix.sync.aligned.m8n8.x{num}{'.trans' if trans else ''}.shared.b16 [%t5], {regs};")
    n_in = WORDS + 2 + num
    ptx = matrix_kernel(body, n_in, WORDS, _SHARED, prologue=_fill("init") + "\nbar.sync 0;",
                        epilogue="bar.sync 0;\n" + _fill("read"))
    memory = rng.integers(0, 2**32, (WARPS * WARP, WORDS))
    addresses = _addresses(rng, 8 * num)
    fragments = rng.integers(0, 2**32, (WARPS * WARP, num))
    for skipped in ((), (0, 3)):
        out = run_matrix(ptx, WARPS * WARP, _inputs(memory, [addresses, fragments], skipped), WORDS)
        halves = memory.astype(np.uint32).view(np.uint16).reshape(-1).copy()
        for w in range(WARPS):
            if w not in skipped:
                lanes = slice(w * WARP, (w + 1) * WARP)
                stmatrix(num, trans, [int(a) for a in addresses[lanes]], fragments[lanes].tolist(),
                         _writer(halves))
        assert (out.reshape(-1) == halves.view(np.uint32)).all(), skipped


def test_movmatrix(rng: np.random.Generator) -> None:
    body = "movmatrix.sync.aligned.m8n8.trans.b16 %x0, %i0;\nmov.b32 %o0, %x0;"
    ptx = matrix_kernel(body, 2, 1, ".reg .b32 %x<1>;")
    values = rng.integers(0, 2**32, WARPS * WARP)
    for skipped in ((), (1, 2)):
        out = run_matrix(ptx, WARPS * WARP, _inputs(values[:, None], [], skipped), 1)
        for w in range(WARPS):
            lanes = out[w * WARP:(w + 1) * WARP, 0]
            if w in skipped:
                assert (lanes == SENTINEL).all()
            else:
                assert lanes.tolist() == movmatrix([int(v) for v in values[w * WARP:(w + 1) * WARP]])
