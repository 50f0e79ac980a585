"""``ptx2gcn.frontend.units``: cutting a module into lazily compiled units.

Expected units are written from what each PTX text says (which kernel names which variable or
function), never read back from the splitter.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ptx2gcn.diagnostics import Ptx2GcnError, Severity
from ptx2gcn.frontend import parse_ptx
from ptx2gcn.frontend.check import check_module
from ptx2gcn.frontend.units import function_bodies, skeleton, split_units
from ptx2gcn.runtime.driver.jit import unit_text

ROOT = Path(__file__).resolve().parents[2]
HEADER = ".version 8.0\n.target sm_80\n.address_size 64\n"


def _kernel(name: str, body: str = "ret;") -> str:
    return f".visible .entry {name}()\n{{\n\t.reg .b64 %rd<2>;\n\t.reg .b32 %r<2>;\n\t{body}\n}}\n"


def _units(text: str) -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    return [(u.kernels, u.globals) for u in split_units(text).units]


def test_kernels_sharing_data_share_a_unit_and_the_rest_stand_alone() -> None:
    text = (HEADER + ".global .u32 g;\n.global .u32 lonely;\n.const .u32 tab[2] = {1, 2};\n"
            + _kernel("a", "ld.global.u32 %r1, [g];\n\tret;")
            + _kernel("b", "ret;")
            + _kernel("c", "st.global.u32 [g], %r1;\n\tret;")
            + _kernel("d", "ld.const.u32 %r1, [tab];\n\tret;"))
    assert _units(text) == [(("a", "c"), ("g",)), (("b",), ()), (("d",), ("tab",)), ((), ("lonely",))]


def test_callees_come_along_and_data_behind_a_callee_joins_its_callers() -> None:
    text = (HEADER + ".global .u32 g;\n"
            ".func f()\n{\n\t.reg .b32 %r<2>;\n\tld.global.u32 %r1, [g];\n\tret;\n}\n"
            ".func h()\n{\n\tret;\n}\n"
            + _kernel("a", "call.uni f;\n\tret;")
            + _kernel("b", "call.uni h;\n\tret;")
            + _kernel("c", "call.uni f;\n\tret;"))
    units = split_units(text).units
    assert [(u.kernels, u.globals) for u in units] == [(("a", "c"), ("g",)), (("b",), ())]
    b_text = unit_text(text, units[1].ranges)
    assert ".func h()" in b_text and ".func f()" not in b_text and ".global .u32 g;" not in b_text


def test_a_kernel_pointer_stored_in_a_global_joins_that_globals_unit() -> None:
    text = HEADER + _kernel("target") + ".global .u64 slot = target;\n" + _kernel("other")
    assert _units(text) == [(("target",), ("slot",)), (("other",), ())]


def test_a_function_declaring_data_in_its_body_joins_its_callers() -> None:
    text = (HEADER + ".func f()\n{\n\t.global .u32 hidden;\n\tret;\n}\n"
            + _kernel("a", "call.uni f;\n\tret;") + _kernel("b", "call.uni f;\n\tret;"))
    assert [u.kernels for u in split_units(text).units] == [("a", "b")]


def test_unit_text_keeps_every_line_number() -> None:
    text = HEADER + _kernel("a") + "// a comment between\n" + _kernel("b", "add.u32 %r1, %r1, 1;\n\tret;")
    units = split_units(text).units
    b_text = unit_text(text, units[1].ranges)
    assert b_text.splitlines()[text.splitlines().index("\tadd.u32 %r1, %r1, 1;")] == "\tadd.u32 %r1, %r1, 1;"
    assert ".entry a" not in b_text and ".version 8.0" in b_text
    assert parse_ptx(b_text).functions[0].name == "b"


def test_debug_sections_are_left_out_of_units() -> None:
    text = HEADER + _kernel("a") + ".section .debug_str\n{\n.b8 65,0\n}\n"
    assert ".section" not in unit_text(text, split_units(text).units[0].ranges)


def test_skeleton_keeps_lines_and_columns_outside_bodies() -> None:
    text = HEADER + ".global .u32 g[2] = {1, 2};\n" + _kernel("a", "{ // nested }\n\t}\n\tret; /* } */") + "// {\n"
    bodies = function_bodies(text)
    assert len(bodies) == 1
    inside = text[bodies[0][0]:bodies[0][1]]
    assert "ret;" in inside and ".global" not in inside
    empty = skeleton(text, bodies)
    assert len(empty.splitlines()) == len(text.splitlines())
    outside = [i for i, line in enumerate(text.splitlines()) if i < 4 or line in ("}", "// {")]
    assert [empty.splitlines()[i] for i in outside] == [text.splitlines()[i] for i in outside]


def test_body_scan_ignores_statements_strings_and_comments_inside_bodies() -> None:
    """Inside a body only braces count: a ``.entry``, ``=`` or ``;`` there starts nothing, and braces
    in strings and comments (inside and outside bodies) are not braces."""
    inner = '{ .reg .b32 %x; }\n\t// .entry fake() {\n\t/* = { */ mov.u32 %r1, 1;\n\t.pragma "{";\n\tret;'
    text = HEADER + _kernel("a", inner) + '// }\n.global .u32 g[2] = {1, 2};\n' + _kernel("b")
    bodies = function_bodies(text)
    assert [text[s:e].count("\n") for s, e in bodies] == [4 + inner.count("\n"), 4]  # the kernels' own lines
    assert all(text[e] == "}" for _s, e in bodies)
    assert "mov.u32" in text[bodies[0][0]:bodies[0][1]] and ".global" not in text[bodies[0][0]:bodies[0][1]]
    assert text[bodies[1][0]:bodies[1][1]].strip().endswith("ret;")


def test_the_split_runs_with_the_cyclic_collector_paused(monkeypatch: pytest.MonkeyPatch) -> None:
    import gc

    from ptx2gcn.frontend import units

    seen: list[bool] = []

    def parse(text: str, filename: str = "<input>") -> object:
        seen.append(gc.isenabled())
        return parse_ptx(text, filename)

    monkeypatch.setattr(units, "parse_ptx", parse)
    assert gc.isenabled()
    assert _units(HEADER + _kernel("a")) == [(("a",), ())]
    assert seen == [False] and gc.isenabled()  # paused for the split, on again after it


def test_a_declaration_error_is_reported_by_the_split() -> None:
    with pytest.raises(Ptx2GcnError, match=r"m\.ptx:4:\d+: error"):
        split_units(HEADER + ".global .u32 g\n" + _kernel("a"), "m.ptx")


def test_a_body_error_is_left_to_the_units_compile_unless_bodies_are_checked() -> None:
    text = HEADER + _kernel("a", "this is not ptx;") + _kernel("b")
    assert _units(text) == [(("a",), ()), (("b",), ())]
    with pytest.raises(Ptx2GcnError, match=r"m\.ptx:8:\d+: error"):
        split_units(text, "m.ptx", check_bodies=True)


NVCC = sorted((ROOT / "corpora/nvcc/sm_80").glob("*.ptx"))


@pytest.mark.parametrize("path", NVCC[:8] if len(NVCC) > 8 else NVCC, ids=lambda p: p.name)
def test_units_of_corpus_modules_partition_kernels_and_parse(path: Path) -> None:
    text = path.read_text()
    module = parse_ptx(text, str(path))
    kernels = [f.name for f in module.functions if f.kind == ".entry"]
    units = split_units(text, str(path)).units
    assert sorted(k for u in units for k in u.kernels) == sorted(kernels)
    for unit in units:
        parsed = parse_ptx(unit_text(text, unit.ranges), str(path))
        assert {f.name for f in parsed.functions if f.kind == ".entry"} >= set(unit.kernels)


@pytest.mark.slow
def test_every_unit_of_every_compiling_corpus_file_parses_and_checks() -> None:
    """948 units when written: each unit text passes the checks its whole module passes."""
    outcomes = json.loads((ROOT / "tests/codegen/corpus_outcomes.json").read_text())
    failures = []
    for name, outcome in sorted(outcomes.items()):
        if outcome != "compiles" or name.startswith("corpora/large/"):
            continue
        text = (ROOT / name).read_text()
        for unit in split_units(text, name).units:
            module = parse_ptx(unit_text(text, unit.ranges), name)
            errors = [d.message for d in check_module(module) if d.severity is Severity.ERROR]
            if errors:
                failures.append((name, unit.kernels, errors[0]))
    assert failures == []
