"""Scalar encoding and parameter-buffer packing, against struct/numpy-computed bytes."""

from __future__ import annotations

import math
import struct
import subprocess
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ptx2gcn.runtime.kernargs import (
    ArgumentError,
    ParamSlot,
    encode_scalar,
    explicit_parameter_slots,
    pack_parameters,
)

INT_FORMATS = {
    "s8": "<b",
    "s16": "<h",
    "s32": "<i",
    "s64": "<q",
    "u8": "<B",
    "u16": "<H",
    "u32": "<I",
    "u64": "<Q",
}


@pytest.mark.parametrize("type_name", sorted(INT_FORMATS))
def test_integer_limits(type_name: str) -> None:
    fmt = INT_FORMATS[type_name]
    bits = struct.calcsize(fmt) * 8
    low, high = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if type_name[0] == "s" else (0, (1 << bits) - 1)
    for value in (low, high, 0, 1):
        assert encode_scalar(type_name, value) == struct.pack(fmt, value)
    for value in (low - 1, high + 1):
        with pytest.raises(ArgumentError, match="does not fit"):
            encode_scalar(type_name, value)


@given(st.integers(-(1 << 31), (1 << 32) - 1))
def test_bit_types_take_signed_or_unsigned(value: int) -> None:
    assert encode_scalar("b32", value) == struct.pack("<I", value & 0xFFFFFFFF)


@given(st.floats(allow_nan=False, width=64))
def test_f64_and_f32_round_like_the_hardware(value: float) -> None:
    assert encode_scalar("f64", value) == struct.pack("<d", value)
    # f32: round to nearest even; values that round past the largest finite f32 are rejected.
    with np.errstate(over="ignore"):
        expected = np.float32(value)
    if math.isinf(value) or not math.isinf(expected):
        assert encode_scalar("f32", value) == expected.tobytes()
    else:
        with pytest.raises(ArgumentError, match="overflows f32"):
            encode_scalar("f32", value)


def test_float_spellings() -> None:
    assert encode_scalar("f32", "0f3F800000") == struct.pack("<f", 1.0)
    assert encode_scalar("f64", "0d3FF0000000000000") == struct.pack("<d", 1.0)
    assert encode_scalar("f32", "0f7FC00001") == bytes.fromhex("0100c07f")  # payload kept exactly
    assert encode_scalar("f32", "-inf") == struct.pack("<f", float("-inf"))
    assert encode_scalar("f16", 1.5) == struct.pack("<e", 1.5)
    assert encode_scalar("f32", 3) == struct.pack("<f", 3.0)
    with pytest.raises(ArgumentError, match="overflows f16"):
        encode_scalar("f16", 65520.0)  # halfway to the next binade rounds to inf
    assert encode_scalar("f16", 65519.0) == struct.pack("<e", 65504.0)
    with pytest.raises(ArgumentError, match="not a f32 bit pattern"):
        encode_scalar("f32", "0d3FF0000000000000")
    with pytest.raises(ArgumentError, match="needs a number"):
        encode_scalar("f32", "one")
    with pytest.raises(ArgumentError, match="needs an integer"):
        encode_scalar("s32", 1.5)
    with pytest.raises(ArgumentError, match="unknown scalar type 'f33'"):
        encode_scalar("f33", 1)


def test_pack_with_gaps_and_padding() -> None:
    values = [struct.pack("<i", 7), struct.pack("<Q", 0x1122334455667788), b"\xaa"]
    packed = pack_parameters(values, [(0, 4, 4), (8, 8, 8), (16, 1, 1)])
    assert packed == struct.pack("<i4xQB7x", 7, 0x1122334455667788, 0xAA)
    assert pack_parameters(
        values, [ParamSlot(0, 4, 4), ParamSlot(8, 8, 8), ParamSlot(16, 1, 1)], 32
    ) == packed + bytes(8)
    assert pack_parameters([], []) == b""


@pytest.mark.parametrize(
    ("layout", "values", "message"),
    [
        ([(0, 4, 4)], [b"1234", b"5678"], "takes 1 parameter"),
        ([(2, 4, 4)], [b"1234"], "parameter 0: offset 2 is not a multiple of its alignment 4"),
        ([(0, 8, 8)], [b"1234"], "parameter 0: the kernel declares 8 byte"),
        ([(0, 8, 8), (4, 4, 4)], [bytes(8), bytes(4)], "parameters 0 and 1 overlap"),
        ([(0, 4, 3)], [b"1234"], "invalid slot"),
    ],
)
def test_pack_rejects_bad_layouts(
    layout: list[tuple[int, int, int]], values: list[bytes], message: str
) -> None:
    with pytest.raises(ArgumentError, match=message):
        pack_parameters(values, layout)
    with pytest.raises(ArgumentError, match="smaller than its last parameter"):
        pack_parameters([b"12345678"], [(0, 8, 8)], total_size=4)


def test_slots_from_code_object_metadata(tmp_path: Path, llvm_tool: Callable[[str], str]) -> None:
    """Explicit arguments of a real code object (LLVM + ld.lld), hidden ones left out."""
    from ptx2gcn.emit.target import emit_object
    from ptx2gcn.link.codeobject import read_code_object
    from ptx2gcn.options import CompileOptions

    ir = """
define amdgpu_kernel void @k(ptr addrspace(1) %p, i32 %n, i8 %c, double %d) {
  ret void
}
"""
    (tmp_path / "k.o").write_bytes(emit_object(ir, CompileOptions()))
    subprocess.run(
        [llvm_tool("ld.lld-22"), "-shared", "-o", str(tmp_path / "k.hsaco"), str(tmp_path / "k.o")],
        check=True,
    )
    meta = read_code_object((tmp_path / "k.hsaco").read_bytes()).kernels["k"].meta
    assert any(arg.hidden for arg in meta.args)
    slots = explicit_parameter_slots(meta.args)
    # The AMDGPU kernarg ABI lays explicit arguments out at natural alignment: 0, 8, 12, 16.
    assert slots == [ParamSlot(0, 8, 8), ParamSlot(8, 4, 4), ParamSlot(12, 1, 1), ParamSlot(16, 8, 8)]
    packed = pack_parameters(
        [struct.pack("<Q", 0x1000), struct.pack("<i", 5), b"\x07", struct.pack("<d", 0.5)], slots
    )
    assert packed == struct.pack("<QiB3xd", 0x1000, 5, 7, 0.5)
