"""Launch case files: loading, validation with located errors, parameter buffers, output checks."""

from __future__ import annotations

import json
import math
import re
import struct
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ptx2gcn.runtime.cases.case import BufferArg, BytesArg, CaseError, ScalarArg, load_case
from ptx2gcn.runtime.cases.check import Tolerance

SAXPY = """\
ptx = "kernels.ptx"
kernel = "h_saxpy"
grid = [10, 1, 1]
block = [100, 1, 1]
shared_bytes = 0
[[args]]
scalar = "s32"
value = 1000
[[args]]
name = "x"
scalar = "f32"
value = 2.5
[[args]]
name = "y"
buffer = "f32"
data = "y.npy"
[[args]]
name = "p"
bytes = "p.bin"
[[args]]
name = "flags"
buffer = "u8"
count = 16
[expect]
y = "y.expected.npy"
[tolerance]
y = { rtol = 1e-6, atol = 0.0 }
"""


@pytest.fixture
def case_dir(tmp_path: Path) -> Path:
    (tmp_path / "kernels.ptx").write_text(".version 8.0\n")
    np.save(tmp_path / "y.npy", np.arange(1000, dtype=np.float32))
    np.save(tmp_path / "y.expected.npy", np.arange(1000, dtype=np.float32) * 3.5)
    (tmp_path / "p.bin").write_bytes(b"\x01\x02\x03\x04\x05\x06\x07\x08")
    (tmp_path / "case.toml").write_text(SAXPY)
    return tmp_path


def write_case(case_dir: Path, text: str) -> Path:
    path = case_dir / "case.toml"
    path.write_text(text)
    return path


def test_load_full_case(case_dir: Path) -> None:
    case = load_case(case_dir / "case.toml")
    assert (case.source_kind, case.source, case.kernel) == ("ptx", case_dir / "kernels.ptx", "h_saxpy")
    assert (case.grid, case.block, case.shared_bytes) == ((10, 1, 1), (100, 1, 1), 0)
    n, x, y, p, flags = case.args
    assert isinstance(n, ScalarArg) and n.name == "arg0" and n.encoded == struct.pack("<i", 1000)
    assert isinstance(x, ScalarArg) and x.encoded == struct.pack("<f", 2.5)
    assert isinstance(y, BufferArg) and y.initial.dtype == np.float32 and y.initial[999] == 999.0
    assert isinstance(p, BytesArg) and p.data == bytes(range(1, 9))
    assert isinstance(flags, BufferArg) and flags.nbytes == 16 and not flags.initial.any()
    assert [b.name for b in case.buffers()] == ["y", "flags"]
    assert case.tolerances == {"y": Tolerance(rtol=1e-6, atol=0.0)}


def test_parameter_buffer_and_check(case_dir: Path) -> None:
    case = load_case(case_dir / "case.toml")
    layout = [(0, 4, 4), (4, 4, 4), (8, 8, 8), (16, 8, 4), (24, 8, 8)]
    packed = case.parameter_buffer(layout, {"y": 0x7F0000001000, "flags": 0x7F0000002000})
    assert packed == struct.pack("<ifQ8sQ", 1000, 2.5, 0x7F0000001000, bytes(range(1, 9)), 0x7F0000002000)
    with pytest.raises(
        CaseError, match=r"case.toml: error: kernel h_saxpy: args\[1\]: the kernel declares 8"
    ):
        case.parameter_buffer(
            [(0, 4, 4), (8, 8, 8), (16, 8, 8), (24, 8, 8), (32, 8, 8)], {"y": 1, "flags": 2}
        )
    with pytest.raises(CaseError, match=r"args\[2\]: no device address for buffer 'y'"):
        case.parameter_buffer(layout, {"flags": 2})
    raw = (np.arange(1000, dtype=np.float32) * 3.5).tobytes()
    outputs = case.decode_outputs({"y": raw, "flags": bytes(16)})
    assert case.check(outputs).ok
    wrong = np.arange(1000, dtype=np.float32) * 3.5
    wrong[5] += 1.0
    report = case.check({"y": wrong})
    assert not report.ok and "[5] expected 17.5, got 18.5" in report.render()


@pytest.mark.parametrize(
    ("old", "new", "where", "message"),
    [
        (
            'buffer = "f32"',
            'buffer = "f33"',
            "15:1",
            r"args\[2\]\.buffer: unknown element type 'f33' \(expected one of s8",
        ),
        ('scalar = "s32"', 'scalar = "i32"', "7:1", r"args\[0\]\.scalar: unknown scalar type 'i32'"),
        ('scalar = "s32"', "scalar = []", "7:1", r"args\[0\]\.scalar: unknown scalar type \[\]"),
        ("value = 1000", "value = 5000000000", "8:1", r"args\[0\]\.value: 5000000000 does not fit s32"),
        ("value = 2.5", 'value = "x"', "12:1", r"args\[1\]\.value: f32 needs a number"),
        ("grid = [10, 1, 1]", "grid = [10, 0]", "3:1", r"grid: y must be an integer from 1 to 65535, got 0"),
        ("block = [100, 1, 1]", "block = [100, 100]", "4:1", r"block: 100x100x1 threads exceed 1024"),
        ("block = [100, 1, 1]", "block = [1, 1, 65]", "4:1", r"block: z must be an integer from 1 to 64"),
        ("shared_bytes = 0", "shared_bytes = -1", "5:1", r"shared_bytes: expected a byte count >= 0"),
        (
            'kernel = "h_saxpy"',
            'kernal = "h_saxpy"',
            "2:1",
            r"kernal: unknown field \(did you mean 'kernel'\?\)",
        ),
        ('data = "y.npy"', 'data = "missing.npy"', "16:1", r"args\[2\]\.data: no such file: .*missing.npy"),
        (
            'data = "y.npy"',
            'data = "y.npy"\ncount = 3',
            "13:1",
            r"args\[2\]: a buffer needs exactly one of data",
        ),
        ('name = "p"', 'name = "y"', "18:1", r"args\[3\]\.name: duplicate argument name 'y'"),
        (
            'name = "p"\nbytes = "p.bin"',
            'name = "p"\nbytes = "p.bin"\nvalue = 3',
            "20:1",
            r"args\[3\]\.value: not allowed here \(this argument takes name, bytes\)",
        ),
        (
            'y = "y.expected.npy"',
            'z = "y.expected.npy"',
            "25:1",
            r"expect\.z: no buffer argument is named 'z'",
        ),
        ("rtol = 1e-6", "rtol = -1", "27:7", r"tolerance\.y\.rtol: expected a finite number >= 0"),
        ("rtol = 1e-6", "rtl = 1", "27:7", r"tolerance\.y\.rtl: unknown field \(did you mean 'rtol'\?\)"),
        (
            'ptx = "kernels.ptx"',
            'ptx = "kernels.ptx"\nhsaco = "k.hsaco"',
            "2:1",
            r"hsaco: give exactly one of ptx, fatbin or hsaco \(found ptx, hsaco\)",
        ),
        ("grid = [10, 1, 1]", "grid = [10, 1, 1", "4:1", r"invalid TOML: Unclosed array"),
    ],
)
def test_errors_name_file_field_and_line(
    case_dir: Path, old: str, new: str, where: str, message: str
) -> None:
    assert old in SAXPY
    path = write_case(case_dir, SAXPY.replace(old, new, 1))
    with pytest.raises(CaseError) as info:
        load_case(path)
    text = str(info.value)
    assert text.startswith(f"{path}:{where}: error: "), text
    assert re.search(message, text), text
    assert "^" in text  # the caret excerpt


def test_array_files_are_checked(case_dir: Path) -> None:
    np.save(case_dir / "y.npy", np.arange(1000, dtype=np.float64))
    with pytest.raises(CaseError, match=r"args\[2\]\.data: y.npy holds float64, but the element type is f32"):
        load_case(case_dir / "case.toml")
    np.save(case_dir / "y.npy", np.arange(1000, dtype=np.float32))
    np.save(case_dir / "y.expected.npy", np.arange(999, dtype=np.float32))
    with pytest.raises(CaseError, match=r"expect\.y: 999 elements expected, but buffer 'y' has 1000"):
        load_case(case_dir / "case.toml")
    np.save(case_dir / "y.expected.npy", np.array([{"a": 1}], dtype=object))
    with pytest.raises(CaseError, match=r"expect\.y: cannot read y.expected.npy as a .npy array"):
        load_case(case_dir / "case.toml")
    (case_dir / "y.expected.npy").write_bytes(b"garbage")
    with pytest.raises(CaseError, match=r"expect\.y: cannot read"):
        load_case(case_dir / "case.toml")


def test_big_endian_and_multidimensional_arrays(case_dir: Path) -> None:
    np.save(case_dir / "y.npy", np.arange(1000, dtype=">f4").reshape(10, 100))
    (_, _, y, _, _) = load_case(case_dir / "case.toml").args
    assert isinstance(y, BufferArg) and y.initial.dtype == np.dtype("<f4")
    assert y.initial.tolist() == list(range(1000))


def test_bit_typed_buffers_accept_signed_arrays(case_dir: Path) -> None:
    np.save(case_dir / "bits.npy", np.array([-1, 2], dtype=np.int32))
    path = write_case(
        case_dir, 'ptx = "kernels.ptx"\nkernel = "k"\n[[args]]\nbuffer = "b32"\ndata = "bits.npy"\n'
    )
    (buffer,) = load_case(path).args
    assert isinstance(buffer, BufferArg) and buffer.initial.tolist() == [0xFFFFFFFF, 2]


def test_defaults_and_other_sources(case_dir: Path) -> None:
    (case_dir / "app").write_bytes(b"\x7fELF")
    case = load_case(write_case(case_dir, 'fatbin = "app"\nkernel = "k"\ngrid = 4\n'))
    assert (case.source_kind, case.grid, case.block, case.args, case.expect) == (
        "fatbin",
        (4, 1, 1),
        (1, 1, 1),
        (),
        {},
    )


def test_integer_tolerance_is_rejected(case_dir: Path) -> None:
    np.save(case_dir / "n.npy", np.zeros(4, np.int32))
    text = (
        'ptx = "kernels.ptx"\nkernel = "k"\n[[args]]\nname = "n"\nbuffer = "s32"\ncount = 4\n'
        '[expect]\nn = "n.npy"\n[tolerance]\nn = { atol = 1 }\n'
    )
    with pytest.raises(CaseError, match="integers always compare exactly"):
        load_case(write_case(case_dir, text))


def test_unreadable_case_file(tmp_path: Path) -> None:
    with pytest.raises(CaseError, match=r"missing.toml: error: cannot read"):
        load_case(tmp_path / "missing.toml")


# Values of every TOML type, for fields given the wrong kind of value.
_TOML_VALUES = st.recursive(
    st.one_of(
        st.integers(-(2**63), 2**63 - 1),
        st.floats(allow_nan=True),
        st.booleans(),
        st.sampled_from(["f32", "s32", "y.npy", "p.bin", "kernels.ptx", "", "x", "nan", "0f3F800000"]),
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(
            st.sampled_from(
                ["name", "scalar", "value", "buffer", "data", "count", "bytes", "rtol", "atol", "y"]
            ),
            inner,
            max_size=4,
        ),
    ),
    max_leaves=8,
)


# case_dir is read-only here, so sharing it between examples is fine; nested TOML values are slow to draw.
@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    st.dictionaries(
        st.sampled_from(
            [
                "ptx",
                "fatbin",
                "kernel",
                "grid",
                "block",
                "shared_bytes",
                "args",
                "expect",
                "tolerance",
                "bogus",
            ]
        ),
        _TOML_VALUES,
        max_size=8,
    )
)
def test_any_toml_document_loads_or_fails_cleanly(case_dir: Path, document: dict[str, object]) -> None:
    """A valid case with random fields replaced or added: it loads, or fails with a CaseError."""
    base: dict[str, object] = {
        "ptx": "kernels.ptx",
        "kernel": "k",
        "grid": [2],
        "block": [32, 2],
        "args": [{"scalar": "s32", "value": 1}, {"name": "y", "buffer": "f32", "data": "y.npy"}],
        "expect": {"y": "y.expected.npy"},
        "tolerance": {"y": {"rtol": 1e-6}},
    }
    text = "".join(f"{key} = {toml_value(value)}\n" for key, value in {**base, **document}.items())
    path = write_case(case_dir, text)
    try:
        load_case(path)
    except CaseError as error:
        assert str(error).startswith(str(path)), str(error)


def toml_value(value: object) -> str:
    """A TOML literal (inline forms only) for the JSON-like values the strategy draws."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return (
            "nan"
            if math.isnan(value)
            else ("inf" if value > 0 else "-inf")
            if math.isinf(value)
            else repr(value)
        )
    if isinstance(value, (int, str)):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(item) for item in value) + "]"
    assert isinstance(value, dict)
    return "{" + ", ".join(f"{key} = {toml_value(item)}" for key, item in value.items()) + "}"
