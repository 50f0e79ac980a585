"""Writing one launch case folder (``case.toml`` + ``.npy`` files) for ``corpora/cases/make_cases.py``.

Invariant: ``CaseSpec.write`` produces a folder that ``ptx2gcn.runtime.cases.case.load_case`` accepts: every
argument named, every buffer's ``.npy`` in the argument's element dtype, every expected array the same
length as its buffer. The expected values are given by the caller (an independent numpy model of the
CUDA/Triton/numba source); nothing here runs a kernel.
"""

from __future__ import annotations

import hashlib
import io
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

_DTYPES = {
    **{f"s{n}": np.dtype(f"<i{n // 8}") for n in (8, 16, 32, 64)},
    **{f"u{n}": np.dtype(f"<u{n // 8}") for n in (8, 16, 32, 64)},
    **{f"b{n}": np.dtype(f"<u{n // 8}") for n in (8, 16, 32, 64)},
    "f16": np.dtype("<f2"),
    "f32": np.dtype("<f4"),
    "f64": np.dtype("<f8"),
}


@dataclass(frozen=True)
class Scalar:
    type: str
    value: int | float


@dataclass(frozen=True)
class Buffer:
    type: str
    data: npt.NDArray[Any] | None = None
    count: int | None = None


@dataclass(frozen=True)
class Raw:
    data: bytes


Arg = Scalar | Buffer | Raw


@dataclass
class CaseSpec:
    """One launch: ``source`` is relative to the corpus root (``corpora/``)."""

    source: str
    kernel: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    args: list[tuple[str, Arg]]
    expect: dict[str, npt.NDArray[Any]]
    tolerance: dict[str, tuple[float, float]] = field(default_factory=dict)
    shared_bytes: int = 0
    note: str = ""

    def write(  # noqa: C901
        self, folder: Path, source: str, pool: dict[str, Path] | None = None, dry_run: bool = False
    ) -> None:
        """Write into ``folder``; ``source`` is the code's path relative to the case's final folder.

        ``pool`` maps the SHA-256 of each ``.npy`` already written (by earlier cases) to its path: an
        identical array is referenced there instead of being stored again. ``dry_run`` only records this
        case's arrays in ``pool`` (for ``--only``: the other cases are assumed to be on disk already)."""
        pool = {} if pool is None else pool
        if not dry_run:
            folder.mkdir(parents=True, exist_ok=True)
            for stale in folder.glob("*.npy"):
                stale.unlink()

        def save(array: npt.NDArray[Any], filename: str) -> str:
            buffer = io.BytesIO()
            np.save(buffer, array)
            data = buffer.getvalue()
            key = hashlib.sha256(data).hexdigest()
            if key in pool:
                return os.path.relpath(pool[key], folder)
            if not dry_run:
                (folder / filename).write_bytes(data)
            pool[key] = folder / filename
            return filename

        kind = "fatbin" if self.source.endswith(".fatbin") else "ptx"
        lines = []
        if self.note:
            lines += [f"# {line}".rstrip() for line in self.note.strip().splitlines()]
        lines += [
            f'{kind} = "{source}"',
            f'kernel = "{self.kernel}"',
            f"grid = {list(self.grid)}",
            f"block = {list(self.block)}",
            f"shared_bytes = {self.shared_bytes}",
        ]
        buffers: dict[str, Buffer] = {}
        for name, arg in self.args:
            lines += ["", "[[args]]", f'name = "{name}"']
            if isinstance(arg, Scalar):
                value = repr(float(arg.value)) if arg.type[0] == "f" else str(int(arg.value))
                if arg.type[0] == "f" and not np.isfinite(arg.value):
                    raise ValueError(f"{name}: non-finite scalar")
                lines += [f'scalar = "{arg.type}"', f"value = {value}"]
            elif isinstance(arg, Buffer):
                buffers[name] = arg
                lines.append(f'buffer = "{arg.type}"')
                if arg.data is not None:
                    data = np.ascontiguousarray(arg.data).reshape(-1)
                    if data.dtype != _DTYPES[arg.type]:
                        raise TypeError(f"{name}: {data.dtype} is not {arg.type}")
                    lines.append(f'data = "{save(data, f"{name}.npy")}"')
                else:
                    lines.append(f"count = {arg.count}")
            else:
                if not dry_run:
                    (folder / f"{name}.bin").write_bytes(arg.data)
                lines.append(f'bytes = "{name}.bin"')
        lines += ["", "[expect]"]
        for name, expected in self.expect.items():
            buffer = buffers[name]
            data = np.ascontiguousarray(expected).reshape(-1)
            if data.dtype != _DTYPES[buffer.type]:
                raise TypeError(f"expect.{name}: {data.dtype} is not {buffer.type}")
            length = buffer.count if buffer.data is None else buffer.data.size
            if data.size != length:
                raise ValueError(f"expect.{name}: {data.size} elements, buffer has {length}")
            lines.append(f'{name} = "{save(data, f"{name}.expected.npy")}"')
        if self.tolerance:
            lines += ["", "[tolerance]"]
            for name, (rtol, atol) in self.tolerance.items():
                lines.append(f"{name} = {{ rtol = {rtol!r}, atol = {atol!r} }}")
        if not dry_run:
            (folder / "case.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")
