"""Fuzz programs as self-contained launch cases (``runtime/cases/case.py`` format) on disk.

A case directory holds ``case.toml`` (kernel ``fuzz``, grid/block, ``in``/``out`` buffers of
``u64`` slots, ``[expect] out``), ``kernel.ptx``, ``in.npy``, ``expected.npy``, ``mask.npy`` (True:
the slot's bits are fixed by PTX and compared; False: PTX leaves them open, e.g. a NaN payload)
and ``fuzz.json`` (seed, what went wrong, and ``known_bug`` when the bug is not fixed yet). A case
whose mask is all True is also checked by plain ``ptx2gcn run case.toml --check``.

Invariant: ``write_case`` and ``read_case`` round-trip; the expected buffer is never copied from the
device under test (it comes from the reference model or, for goldens, from CUDA).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from ptx2gcn.fuzz.program import BLOCK, GRID

CASE_TOML = """\
# A fuzz program written by `ptx2gcn fuzz` ({origin}); replayed by tests/fuzz/test_regressions.py.
# Compare only the slots mask.npy marks True (all of them here: {complete}).
ptx = "kernel.ptx"
kernel = "fuzz"
grid = [{grid}]
block = [{block}]

[[args]]
name = "input"
buffer = "u64"
data = "in.npy"

[[args]]
name = "out"
buffer = "u64"
count = {slots}

[expect]
out = "expected.npy"
"""


@dataclass(frozen=True)
class StoredCase:
    directory: Path
    ptx: str
    inputs: npt.NDArray[np.uint64]
    expected: npt.NDArray[np.uint64]
    mask: npt.NDArray[np.bool_]
    meta: dict[str, object]


def case_name(ptx: str, seed: int) -> str:
    return f"seed{seed}-{hashlib.sha256(ptx.encode()).hexdigest()[:10]}"


def write_case(
    root: Path,
    ptx: str,
    inputs: bytes,
    expected: bytes,
    mask: npt.NDArray[np.bool_],
    meta: dict[str, object],
    origin: str = "reference model",
) -> Path:
    """Write one case under ``root``; returns its directory."""
    directory = root / case_name(ptx, int(meta.get("seed", 0)))  # type: ignore[arg-type]
    directory.mkdir(parents=True, exist_ok=True)
    want = np.frombuffer(expected, dtype="<u8")
    (directory / "kernel.ptx").write_text(ptx, encoding="utf-8")
    np.save(directory / "in.npy", np.frombuffer(inputs, dtype="<u8"), allow_pickle=False)
    np.save(directory / "expected.npy", want, allow_pickle=False)
    np.save(directory / "mask.npy", np.asarray(mask, dtype=np.bool_), allow_pickle=False)
    (directory / "fuzz.json").write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    (directory / "case.toml").write_text(
        CASE_TOML.format(
            origin=origin,
            complete="yes" if bool(np.all(mask)) else "no",
            grid=GRID,
            block=BLOCK,
            slots=want.size,
        ),
        encoding="utf-8",
    )
    return directory


def read_case(directory: Path) -> StoredCase:
    return StoredCase(
        directory,
        (directory / "kernel.ptx").read_text(encoding="utf-8"),
        np.load(directory / "in.npy", allow_pickle=False),
        np.load(directory / "expected.npy", allow_pickle=False),
        np.load(directory / "mask.npy", allow_pickle=False),
        json.loads((directory / "fuzz.json").read_text(encoding="utf-8")),
    )


def case_directories(root: Path) -> list[Path]:
    return sorted(p.parent for p in root.glob("*/case.toml")) if root.is_dir() else []
