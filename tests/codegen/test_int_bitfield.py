"""szext, fns, bmsk, dp4a and dp2a on the emulator vs Python models transcribed from the PTX ISA pseudocode.

PTX ISA 9.7.1.21 szext, 9.7.1.17 fns, 9.7.1.22 bmsk, 9.7.1.23 dp4a, 9.7.1.24 dp2a. The models follow the
pseudocode literally (fns walks bit by bit), independently of the lowerings' bit tricks.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

import numpy as np
import pytest

from ptx2gcn.compiler import compile
from ptx2gcn.reference import run as reference
from tests.codegen.conftest import op_kernel, run_compiled

M32 = 0xFFFFFFFF
WORDS = [0, 1, 0x80000000, 0xFFFFFFFF, 0x7FFFFFFF, 0x00000F00, 0x80000001, 0x12345678, 0xFEDCBA98,
         0x0000FFFF, 0xAAAAAAAA, 0x55555555, 0x00010000]


# ---- models -------------------------------------------------------------------------------------

def szext_model(mode: str, signed: bool, a: int, b: int) -> int:
    b1 = b & 0x1F
    too_large = b >= 32 and mode == "clamp"
    mask = 0 if too_large else (M32 << b1) & M32
    sign_pos = (b1 - 1) & 0x1F
    sign_bit = False if (b1 == 0 or too_large or not signed) else bool((a >> sign_pos) & 1)
    return (a & ~mask & M32) | (mask if sign_bit else 0)


def fns_model(mask: int, base: int, offset: int) -> int:
    offset = offset - (1 << 32) if offset & 0x80000000 else offset
    d = M32
    if offset == 0:
        if (mask >> base) & 1:
            d = base
        return d
    pos, count, inc = base, abs(offset) - 1, (1 if offset > 0 else -1)
    while 0 <= pos < 32:
        if (mask >> pos) & 1:
            if count == 0:
                return pos
            count -= 1
        pos += inc
    return d


def bmsk_model(mode: str, a: int, b: int) -> int:
    a1, b1 = a & 0x1F, b & 0x1F
    mask0 = (M32 << a1) & M32
    total = a1 + b1
    mask1 = (M32 << total) & M32 if total < 32 else 0
    position_overflow = width_overflow = False
    if mode == "clamp":
        if a >= 32:
            position_overflow, mask0 = True, 0
        width_overflow = b >= 32
    if total >= 32 or position_overflow or width_overflow:
        mask1 = 0
    elif b1 == 0:
        mask1 = M32
    return mask0 & ~mask1 & M32


def _bytes(x: int, signed: bool, width: int, count: int, first: int = 0) -> list[int]:
    out = []
    for i in range(first, first + count):
        v = (x >> (width * i)) & ((1 << width) - 1)
        out.append(v - (1 << width) if signed and v >> (width - 1) else v)
    return out


def dp4a_model(atype: str, btype: str, a: int, b: int, c: int) -> int:
    total = sum(x * y for x, y in zip(_bytes(a, atype == "s32", 8, 4), _bytes(b, btype == "s32", 8, 4)))
    return (c + total) & M32


def dp2a_model(mode: str, atype: str, btype: str, a: int, b: int, c: int) -> int:
    halves = _bytes(a, atype == "s32", 16, 2)
    picked = _bytes(b, btype == "s32", 8, 2, 2 if mode == "hi" else 0)
    return (c + sum(x * y for x, y in zip(halves, picked))) & M32


# ---- harness ------------------------------------------------------------------------------------

def _run(data: bytes, *inputs: list[int]) -> list[int]:
    n = len(inputs[0])
    blobs = [np.array(x, np.uint32).tobytes() for x in inputs]
    (raw,) = run_compiled(data, "k", [4 * n], blobs, n)
    return [int(v) for v in np.frombuffer(raw, np.uint32)]


def _compare(got: list[int], expected: list[int], inputs: tuple[list[int], ...], what: str) -> None:
    bad = [i for i, (g, e) in enumerate(zip(got, expected)) if g != e]
    assert not bad, (f"{what}: {len(bad)} lanes differ, first inputs {[hex(x[bad[0]]) for x in inputs]}: "
                     f"got {got[bad[0]]:#x}, expected {expected[bad[0]]:#x}")


# ---- tests --------------------------------------------------------------------------------------

def _ptx_check(instruction: str, model_fn: Callable[..., int], *inputs: list[int]) -> None:
    data = compile(op_kernel(instruction, ["b32"] * len(inputs), "b32")).data
    expected = [model_fn(*xs) for xs in zip(*inputs)]
    _compare(_run(data, *inputs), expected, inputs, instruction)


@pytest.mark.parametrize("mode", ["clamp", "wrap"])
@pytest.mark.parametrize("t", ["u32", "s32"])
def test_szext(mode: str, t: str) -> None:
    lengths = [0, 1, 2, 7, 8, 15, 16, 17, 31, 32, 33, 40, 63, 64, 0x80000000, M32]
    a, b = (list(x) for x in zip(*itertools.product(WORDS, lengths)))
    _ptx_check(f"szext.{mode}.{t} %d, %a0, %a1", lambda x, y: szext_model(mode, t == "s32", x, y), a, b)


def test_fns() -> None:
    masks = WORDS + [0x00000001, 0x80000000 | 0x10, 0xF0F0F0F0]
    offsets = [0, 1, 2, 3, 5, 16, 31, 32, 33, -1, -2, -3, -17, -32, -33, 0x7FFFFFFF, -0x80000000]
    cases = list(itertools.product(masks, [0, 1, 4, 15, 16, 30, 31], offsets))
    mask, base, offset = ([c[i] & M32 for c in cases] for i in range(3))
    _ptx_check("fns.b32 %d, %a0, %a1, %a2", fns_model, mask, base, offset)


@pytest.mark.parametrize("mode", ["clamp", "wrap"])
def test_bmsk(mode: str) -> None:
    values = [0, 1, 5, 16, 27, 31, 32, 33, 40, 63, 64, 0x80000000, M32]
    a, b = (list(x) for x in zip(*itertools.product(values, values)))
    _ptx_check(f"bmsk.{mode}.b32 %d, %a0, %a1", lambda x, y: bmsk_model(mode, x, y), a, b)


SIGNS = [("u32", "u32"), ("u32", "s32"), ("s32", "u32"), ("s32", "s32")]
DOT_WORDS = [0, 1, 0x7F7F7F7F, 0x80808080, 0xFFFFFFFF, 0x01FF80FE, 0x7FFF8000, 0x12345678, 0xFEDCBA98]


@pytest.mark.parametrize("atype,btype", SIGNS)
def test_dp4a(atype: str, btype: str) -> None:
    a, b, c = (list(x) for x in zip(*itertools.product(DOT_WORDS, DOT_WORDS, [0, 1, 0x80000000, M32])))
    _ptx_check(f"dp4a.{atype}.{btype} %d, %a0, %a1, %a2",
               lambda x, y, z: dp4a_model(atype, btype, x, y, z), a, b, c)


@pytest.mark.parametrize("mode", ["lo", "hi"])
@pytest.mark.parametrize("atype,btype", SIGNS)
def test_dp2a(mode: str, atype: str, btype: str) -> None:
    a, b, c = (list(x) for x in zip(*itertools.product(DOT_WORDS, DOT_WORDS, [0, 0x7FFFFFFF, M32])))
    _ptx_check(f"dp2a.{mode}.{atype}.{btype} %d, %a0, %a1, %a2",
               lambda x, y, z: dp2a_model(mode, atype, btype, x, y, z), a, b, c)


@pytest.mark.parametrize("spelling", ["szext.clamp.u32", "szext.clamp.s32", "szext.wrap.u32",
                                      "szext.wrap.s32", "fns.b32"])
def test_szext_fns_match_the_reference_model(spelling: str) -> None:
    """The same lowerings against ptx2gcn.reference (independent of this file's models)."""
    if spelling == "fns.b32":
        instruction = "fns.b32 %d, %a0, %a1, %a2"
        cases = list(itertools.product(WORDS, [0, 3, 16, 31], [0, 1, 2, 7, -1, -2, -9, 40, -40]))
    else:
        instruction = f"{spelling} %d, %a0, %a1"
        cases = list(itertools.product(WORDS, [0, 1, 8, 16, 31, 32, 33, 255]))
    data = compile(op_kernel(instruction, ["b32"] * len(cases[0]), "b32")).data
    inputs = [[c[i] & M32 for c in cases] for i in range(len(cases[0]))]
    got = np.array(_run(data, *inputs), np.uint32)
    ok = reference(spelling, *(np.array(x, np.uint32) for x in inputs)).outputs[0].matches(got)
    assert ok.all(), f"{spelling}: {int((~ok).sum())} lanes differ from ptx2gcn.reference"
