"""``range_prefix`` (shared by the checker's ``NameSet`` and the IR builder's register scopes) against
an eager model: ``prefix<count>`` declares exactly the names ``prefix + str(i)`` for 0 <= i < count
(PTX ISA 5.3.? "Parameterized variable names")."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ptx2gcn.frontend import parse_ptx
from ptx2gcn.frontend.check import check_module
from ptx2gcn.frontend.names import range_prefix

PREFIXES = st.sampled_from(["%r", "%r1", "%rd", "%a12", "%x_", "t"])


@settings(max_examples=400, deadline=None)
@given(st.dictionaries(PREFIXES, st.integers(0, 40), max_size=4), PREFIXES,
       st.one_of(st.integers(0, 60).map(str), st.sampled_from(["", "0", "00", "01", "007", "x", "1a"])))
def test_range_prefix_matches_the_eager_expansion(ranges: dict[str, int], prefix: str, suffix: str) -> None:
    name = prefix + suffix
    declaring = {p for p, count in ranges.items() for i in range(count) if p + str(i) == name}
    found = range_prefix(name, ranges.get)
    if declaring:
        assert found in declaring
    else:
        assert found is None


def test_only_ascii_digits_index_a_range() -> None:
    # '²' and '٣' are str.isdigit() (and '٣' even int()-able), but no PTX register index.
    ranges = {"%r": 10}
    assert range_prefix("%r3", ranges.get) == "%r"
    assert range_prefix("%r\u00b2", ranges.get) is None
    assert range_prefix("%r\u0663", ranges.get) is None


def test_a_non_ascii_digit_is_an_undeclared_register_not_a_crash() -> None:
    text = (".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n"
            ".reg .b32 %r\u00b2;\n.reg .b32 %r<10>;\nmov.b32 %r\u00b3, 1;\nret;\n}\n")
    problems = [d.message for d in check_module(parse_ptx(text))]
    assert problems == ["undeclared register '%r\u00b3'"]
