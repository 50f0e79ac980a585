"""The host side of device printf on its own: record walking and robustness of the formatter
(``ptx2gcn.runtime.printf``); the end-to-end comparison with glibc is tests/codegen/test_printf.py."""

from __future__ import annotations

import struct

from hypothesis import given, settings
from hypothesis import strategies as st

from ptx2gcn.link.codeobject import PRINTF_RECORD_HEADER
from ptx2gcn.runtime.printf import format_printf, format_records

FORMATS = {0x1000: b"x=%d y=%s\n", 0x2000: b"plain\n", 0x3000: b"%5.1f|%lld\n"}


def read(address: int, size: int) -> bytes:
    """Device memory holding the three format strings (each NUL-terminated); anything else faults."""
    for base, text in FORMATS.items():
        if base <= address < base + len(text) + 1:
            return (text + b"\0")[address - base : address - base + size]
    raise ValueError(f"unmapped 0x{address:x}")


def record(fmt: int, arguments: bytes, strings: bytes = b"") -> bytes:
    size = -(-(PRINTF_RECORD_HEADER.size + len(arguments) + len(strings)) // 8) * 8
    body = PRINTF_RECORD_HEADER.pack(size, len(arguments), fmt) + arguments + strings
    return body.ljust(size, b"\0")


def test_records_in_order_with_their_strings() -> None:
    fifo = (record(0x1000, struct.pack("<i4xQ", -3, 0x9999), b"copied\0")
            + record(0x2000, b"")
            + record(0x3000, struct.pack("<dq", 2.25, -(2**40))))
    assert format_records(fifo, read) == b"x=-3 y=copied\nplain\n  2.2|-1099511627776\n"


def test_walk_stops_at_an_unwritten_or_truncated_record() -> None:
    good = record(0x2000, b"")
    assert format_records(good + bytes(32) + good, read) == b"plain\n"  # reserved, never written
    assert format_records(good + record(0x2000, b"")[:-8], read) == b"plain\n"  # cut by the used mark


def test_unreadable_string_and_format() -> None:
    """A %s the record does not carry is read from memory; unreadable memory prints a marker."""
    assert format_records(record(0x1000, struct.pack("<i4xQ", 1, 0x5000)), read) == b"x=1 y=(bad address)\n"
    assert format_records(record(0x7000, b""), read) == b"(bad address)"


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=64), st.binary(max_size=64), st.binary(max_size=32))
def test_formatting_never_raises(fmt: bytes, arguments: bytes, strings: bytes) -> None:
    out = format_printf(b"%" + fmt, arguments, read, strings)
    assert isinstance(out, bytes)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=256))
def test_any_fifo_contents_format_without_raising(fifo: bytes) -> None:
    assert isinstance(format_records(fifo, read), bytes)


def test_huge_widths_are_bounded() -> None:
    """Above INT_MAX glibc prints nothing (EOVERFLOW); up to it, ptx2gcn clamps to MAX_FIELD."""
    from ptx2gcn.runtime.printf import MAX_FIELD

    assert format_printf(b"a%99999999999d", struct.pack("<i", 5), read) == b""
    assert len(format_printf(b"%.2000000000f", struct.pack("<d", 1.5), read)) == MAX_FIELD + 2
    assert format_printf(b"%2000000000d|", struct.pack("<i", 5), read) == b" " * (MAX_FIELD - 1) + b"5|"
