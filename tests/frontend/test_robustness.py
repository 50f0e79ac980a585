"""No input makes the front end crash or hang: it returns a module or raises a located error.

Hypothesis mutates real PTX (delete / insert / duplicate bytes and whole tokens, truncate, splice in
binary junk); whatever comes out must parse to a module that round-trips through the printer and
checks without raising, or raise ``Ptx2GcnError`` with a rendered, located diagnostic.
"""

from __future__ import annotations

import dataclasses
import os
import re
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ptx2gcn.diagnostics import Ptx2GcnError
from ptx2gcn.frontend import ast, parse_bytes, parse_ptx
from ptx2gcn.frontend.check import check_module
from ptx2gcn.frontend.printer import print_module

DATA = Path(__file__).resolve().parent / "data"
SEEDS: list[bytes] = [p.read_bytes() for p in sorted(DATA.glob("*.ptx"))]
TOKENS = [b"{", b"}", b";", b",", b"[", b"]", b"(", b")", b"<", b">", b"|", b"!", b"@", b"-", b"+",
          b".reg", b".b32", b".entry", b".func", b"%r1", b"_", b"0f", b"0x", b"09", b"/*", b"*/",
          b"//", b'"', b"\n", b"\t", b"\x00", b"\xff", b"\xc3\xa9", b"@@DWARF", b"$L__BB0_1:",
          b".loc 1 2 3", b"generic(", b".section", b"1e", b".align 3", b"9" * 5000, b"%r" + b"7" * 5000,
          b"0x" + b"f" * 40, b".version 9" + b"9" * 5000, b"<4294967296>", b"# 1 \"x.cu\"\n", b"#define"]


# Terminal names of the grammar must never leak into a message (they are not PTX words).
LARK_WORDS = re.compile(r"__ANON|\$END|\b(?:SEMI|COMMA|REGISTER|IDENT|DOTWORD|OPCODE|LSQB|RSQB|LPAR|RPAR|"
                        r"LBRACE|RBRACE|SIMPLE_OPERANDS|SIMPLE_INSTRUCTIONS|LABEL_DEF|INT|FLOAT|SINK|GUARD)\b")


def _outcome(data: bytes) -> None:
    """The property: a module that round-trips and checks, or a located Ptx2GcnError."""
    try:
        module = parse_bytes(data, "fuzz.ptx")
    except Ptx2GcnError as error:
        assert error.diagnostics and error.render().startswith("fuzz.ptx")
        assert not LARK_WORDS.search(error.diagnostics[0].message), error.diagnostics[0].message
        return
    printed = print_module(module)
    assert parse_ptx(printed, "printed.ptx") == module
    for diagnostic in check_module(module):
        assert diagnostic.span is not None and diagnostic.render()


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    data = bytearray(draw(st.sampled_from(SEEDS)))
    for _ in range(draw(st.integers(1, 4))):
        if not data:
            break
        at = draw(st.integers(0, len(data) - 1))
        kind = draw(st.sampled_from(["delete", "insert", "duplicate", "token", "drop_token", "truncate"]))
        if kind == "delete":
            del data[at:at + draw(st.integers(1, 16))]
        elif kind == "insert":
            data[at:at] = draw(st.binary(min_size=1, max_size=8))
        elif kind == "duplicate":
            data[at:at] = data[at:at + draw(st.integers(1, 200))]
        elif kind == "token":
            data[at:at] = draw(st.sampled_from(TOKENS))
        elif kind == "drop_token":
            words = list(re.finditer(rb"\S+", bytes(data)))
            if words:
                word = words[draw(st.integers(0, len(words) - 1))]
                del data[word.start():word.end()]
        else:
            del data[at:]
    return bytes(data)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_mutated_ptx_never_crashes(data: bytes) -> None:
    _outcome(data)


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=2000))
def test_random_bytes_never_crash(data: bytes) -> None:
    _outcome(data)


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("{}[]();,.%@!-+_|<>=0123456789abfxU \n\t\"/*:$")),
               max_size=300))
def test_ptx_alphabet_soup_never_crashes(data: str) -> None:
    _outcome(data.encode())


def test_every_truncation_of_a_real_file() -> None:
    text = SEEDS[0]
    for end in range(0, len(text), 37):
        _outcome(text[:end])


def test_binary_input_is_rejected_promptly_with_its_position() -> None:
    data = b".version 8.5\n.target sm_90\n" + bytes(range(256)) * 4096  # 1 MiB of binary
    started = time.perf_counter()
    with pytest.raises(Ptx2GcnError) as caught:
        parse_bytes(data, "blob.bin")
    assert time.perf_counter() - started < 5
    assert caught.value.render().startswith("blob.bin:3:1: error: unexpected control byte 0x00")


def test_invalid_utf8_names_the_byte() -> None:
    with pytest.raises(Ptx2GcnError) as caught:
        parse_bytes(b".version 8.5\n.target sm_\xff90\n", "bad.ptx")
    assert caught.value.render() == (
        "bad.ptx:2:12: error: invalid UTF-8 byte 0xff at offset 24: this is not a PTX text file\n")


@pytest.mark.parametrize("text", [
    ".version 8.5\n.target sm_90\n.entry k() " + "{" * 100_000,
    ".version 8.5\n.target sm_90\n.global .u32 x = " + "(" * 100_000 + "1",
    ".version 8.5\n.target sm_90\n.global .u32 x = " + "1+" * 100_000 + "1;",
    ".version 8.5\n.target sm_90\n.global .u32 x[1] = " + "{" * 100_000 + "1",
])
def test_deep_nesting_is_an_error_not_a_recursion(text: str) -> None:
    with pytest.raises(Ptx2GcnError, match="nested more than"):
        parse_ptx(text)


def test_huge_single_token_line_is_reported_without_echoing_it() -> None:
    with pytest.raises(Ptx2GcnError) as caught:
        parse_ptx("x" * 2_000_000, "huge.ptx")
    rendered = caught.value.render()
    assert rendered.startswith("huge.ptx:1:1: error: expected a directive") and len(rendered) < 400


@pytest.mark.slow
def test_100_megabytes_of_random_bytes() -> None:
    started = time.perf_counter()
    with pytest.raises(Ptx2GcnError):
        parse_bytes(os.urandom(100 << 20), "random.bin")
    assert time.perf_counter() - started < 30


@pytest.mark.slow
def test_100_megabytes_of_text_junk() -> None:
    junk = ("mov.u32 %r1, %r2; " * 6_000_000).encode()[: 100 << 20]  # instructions outside a function
    started = time.perf_counter()
    with pytest.raises(Ptx2GcnError, match="expected a directive"):
        parse_bytes(junk, "junk.ptx")
    assert time.perf_counter() - started < 30


def test_parse_result_contains_only_ast_nodes() -> None:
    module = parse_bytes(SEEDS[0])
    stack: list[object] = [module]
    allowed = (str, int, float, bool, type(None))
    while stack:
        node = stack.pop()
        if isinstance(node, tuple):
            stack.extend(node)
        elif not isinstance(node, allowed):
            assert type(node).__module__ == ast.__name__, type(node)
            stack.extend(getattr(node, f.name) for f in dataclasses.fields(node) if f.name != "span")


def test_crlf_line_endings_parse_like_lf() -> None:
    text = SEEDS[0].decode()
    assert parse_ptx(text.replace("\n", "\r\n")) == parse_ptx(text)


def test_parallel_parses_do_not_mix_files() -> None:
    from concurrent.futures import ThreadPoolExecutor

    texts = [seed.decode() for seed in SEEDS]
    expected = [parse_ptx(t, f"f{i}.ptx") for i, t in enumerate(texts)]
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda i: parse_ptx(texts[i % len(texts)], f"f{i % len(texts)}.ptx"),
                                range(4 * len(texts))))
    for i, module in enumerate(results):
        assert module == expected[i % len(texts)]
        assert module.span.file == f"f{i % len(texts)}.ptx"


@pytest.mark.parametrize("literal", ["9" * 5000, "0x" + "f" * 5000, "0" + "7" * 5000, "0b" + "1" * 65,
                                     "18446744073709551616"])
def test_oversized_integer_constants_are_errors(literal: str) -> None:
    text = f".version 8.5\n.target sm_90\n.entry k()\n{{\n.reg .b64 %rd1;\nmov.u64 %rd1, {literal};\nret;\n}}\n"
    with pytest.raises(Ptx2GcnError, match="does not fit in 64 bits"):
        parse_ptx(text)


@pytest.mark.parametrize("version", ["9" * 5000 + ".5", "8." + "5" * 5000, "1e5", "8.5e3", ".5"])
def test_malformed_versions_are_errors(version: str) -> None:
    with pytest.raises(Ptx2GcnError, match="malformed PTX version"):
        parse_ptx(f".version {version}\n.target sm_90\n")


def test_register_names_with_thousands_of_digits() -> None:
    digits = "9" * 5000
    text = (f".version 8.5\n.target sm_90\n.entry k()\n{{\n.reg .b32 %r<5>;\n.reg .b32 %r{digits};\n"
            f"mov.u32 %r{digits}9, 1;\nmov.u32 %r{digits}, %r4;\nret;\n}}\n")
    messages = [d.message for d in check_module(parse_ptx(text))]
    assert messages == [f"undeclared register '%r{digits}9'"]
