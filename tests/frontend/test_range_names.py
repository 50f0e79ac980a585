"""``range_prefix`` (shared by the checker's ``NameSet`` and the IR builder's register scopes) against
an eager model: ``prefix<count>`` declares exactly the names ``prefix + str(i)`` for 0 <= i < count
(PTX ISA 5.3.? "Parameterized variable names")."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

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
