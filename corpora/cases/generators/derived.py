"""Modules with one rejected kernel: the corpus module without that kernel, written under _derived/,
and the cases of the remaining kernels against it.

Part of ``corpora/cases/make_cases.py`` (see its docstring for the invariant)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

from casegen import CaseSpec

from generators.common import CORPUS, NV
from generators.int_intrinsics import int_intrinsics
from generators.warp_intrinsics import warp_intrinsics

# == modules with one rejected kernel, split ========================================================
# When one kernel of a corpus module uses an instruction ptx2gcn rejects, the whole module fails to load,
# hiding the other kernels. `_derived/<stem>.without_<kernel>.ptx` is the corpus file with that kernel's
# `.entry` block removed (text only, nothing else changes), so the other kernels run today too.
DERIVED: dict[str, tuple[str, tuple[str, ...]]] = {
    "cases/_derived/warp_intrinsics.without_lane_masks.ptx": (NV + "warp_intrinsics.ptx", ("lane_masks",)),
    "cases/_derived/int_intrinsics.bit_ops_saturating.ptx": (
        NV + "int_intrinsics.ptx",
        ("int_arith", "ptx_bitfield"),
    ),
}


def without_entry(text: str, kernel: str) -> str:
    start = text.index(f".visible .entry {kernel}(")
    end = text.index("\n}\n", start) + 3
    return text[:start] + text[end:].lstrip("\n")


def write_derived(cases_root: Path) -> None:
    for target, (source, kernels) in DERIVED.items():
        path = cases_root / target.removeprefix("cases/")
        path.parent.mkdir(parents=True, exist_ok=True)
        text = (CORPUS / source).read_text(encoding="utf-8")
        for kernel in kernels:
            text = without_entry(text, kernel)
        path.write_text(text, encoding="utf-8")


def split_modules() -> Iterator[tuple[str, CaseSpec]]:

    for derived, (source, dropped) in DERIVED.items():
        maker = warp_intrinsics if "warp" in derived else int_intrinsics
        for name, spec in maker():
            if spec.source == source and spec.kernel not in dropped:
                note = (
                    f"{spec.note}\nthe corpus module without {', '.join(dropped)} (see make_cases.py DERIVED)"
                )
                yield f"{name}_split", dataclasses.replace(spec, source=derived, note=note.strip())
