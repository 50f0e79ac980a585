"""Launch case files (``ptx2gcn run CASE.toml``): load, validate, build the parameter buffer, check.

A case names the code (``ptx``, ``fatbin`` or ``hsaco``, relative to the case file), the kernel, the
launch shape, one ``[[args]]`` table per kernel parameter (``scalar`` + ``value``, ``buffer`` +
``data``/``count``, or ``bytes``), the expected outputs (``[expect]``, ``.npy`` files) and optional
tolerances (``[tolerance]``, ``{rtol, atol}``; exact by default). Field errors are located in the
case file (``ptx2gcn.runtime.cases.locate``).

Invariant: ``load_case`` returns a ``Case`` only when every field is valid and every referenced file
was read (arrays with ``allow_pickle=False``); otherwise it raises ``CaseError`` whose message starts
with the field path, e.g. ``args[2].buffer: unknown element type 'f33'``. A ``Case`` is immutable.
"""

from __future__ import annotations

import difflib
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, cast

import numpy as np
import numpy.typing as npt

from ptx2gcn.diagnostics import Ptx2GcnError, SourceFile, Span
from ptx2gcn.runtime.cases.check import CheckReport, Tolerance, compare_outputs
from ptx2gcn.runtime.cases.locate import decode_error_span, field_span
from ptx2gcn.runtime.kernargs import SCALAR_TYPES, ArgumentError, ParamSlot, encode_scalar, pack_parameters

SourceKind = Literal["ptx", "fatbin", "hsaco"]
_SOURCES: tuple[SourceKind, ...] = ("ptx", "fatbin", "hsaco")
_TOP_FIELDS = (*_SOURCES, "kernel", "grid", "block", "shared_bytes", "args", "expect", "tolerance")
_ARG_FIELDS = ("name", "scalar", "value", "buffer", "data", "count", "bytes")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]*$")
MAX_BLOCK_THREADS = 1024
_GRID_LIMITS = (2**31 - 1, 65535, 65535)
_BLOCK_LIMITS = (1024, 1024, 64)

__all__ = [
    "BufferArg",
    "BytesArg",
    "Case",
    "CaseError",
    "CheckReport",
    "ScalarArg",
    "Tolerance",
    "compare_outputs",
    "load_case",
    "pack_parameters",
]


class CaseError(Ptx2GcnError):
    """An invalid case file; located at the offending field when it can be found."""

    @classmethod
    def located(cls, span: Span, message: str) -> CaseError:
        return cls(Ptx2GcnError.at(span, message).diagnostics)


@dataclass(frozen=True, slots=True)
class ScalarArg:
    index: int
    name: str
    type: str
    value: object
    encoded: bytes


@dataclass(frozen=True, slots=True)
class BufferArg:
    index: int
    name: str
    element: str
    initial: npt.NDArray[Any]
    """The initial contents, 1-D, of the element type's dtype (zeros for ``count = N``)."""

    @property
    def dtype(self) -> np.dtype[Any]:
        return SCALAR_TYPES[self.element]

    @property
    def nbytes(self) -> int:
        return int(self.initial.nbytes)


@dataclass(frozen=True, slots=True)
class BytesArg:
    index: int
    name: str
    data: bytes


Arg = ScalarArg | BufferArg | BytesArg


@dataclass(frozen=True, slots=True)
class Case:
    path: Path
    source_kind: SourceKind
    source: Path
    kernel: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    shared_bytes: int
    args: tuple[Arg, ...]
    expect: Mapping[str, npt.NDArray[Any]]
    """Expected final contents of buffers, by argument name, 1-D in the buffer's dtype."""
    tolerances: Mapping[str, Tolerance]

    def buffers(self) -> list[BufferArg]:
        return [arg for arg in self.args if isinstance(arg, BufferArg)]

    def argument_bytes(self, addresses: Mapping[str, int]) -> list[bytes]:
        """Each parameter's value: scalars and raw bytes as given, buffers as 64-bit device addresses."""
        out: list[bytes] = []
        for arg in self.args:
            if isinstance(arg, BufferArg):
                if arg.name not in addresses:
                    raise CaseError.located(
                        Span.unknown(str(self.path)),
                        f"args[{arg.index}]: no device address for buffer {arg.name!r}",
                    )
                out.append(addresses[arg.name].to_bytes(8, "little"))
            else:
                out.append(arg.encoded if isinstance(arg, ScalarArg) else arg.data)
        return out

    def parameter_buffer(
        self,
        layout: Sequence[tuple[int, int, int] | ParamSlot],
        addresses: Mapping[str, int],
        total_size: int | None = None,
    ) -> bytes:
        """The packed parameter buffer for a kernel whose parameters are laid out as ``layout``."""
        try:
            return pack_parameters(self.argument_bytes(addresses), layout, total_size)
        except ArgumentError as error:
            raise CaseError.located(
                Span.unknown(str(self.path)), f"kernel {self.kernel}: {_arg_path(error)}"
            ) from None

    def decode_outputs(self, raw: Mapping[str, bytes]) -> dict[str, npt.NDArray[Any]]:
        """Device buffer bytes → arrays of each buffer's element type."""
        by_name = {arg.name: arg for arg in self.buffers()}
        return {
            name: np.frombuffer(data, dtype=by_name[name].dtype).copy()
            for name, data in raw.items()
            if name in by_name
        }

    def check(self, outputs: Mapping[str, npt.ArrayLike]) -> CheckReport:
        return compare_outputs(self.expect, outputs, self.tolerances)


def _arg_path(error: ArgumentError) -> str:
    return re.sub(r"^parameter (\d+):", r"args[\1]:", str(error))


# -- loading ------------------------------------------------------------------------------------------
class _Loader:
    """One case file's text, for located errors and relative paths."""

    def __init__(self, path: Path, text: str) -> None:
        self.path = path
        self.source = SourceFile(str(path), text)

    def error(self, field: str, message: str) -> CaseError:
        return CaseError.located(field_span(self.source, field), f"{field}: {message}")

    def file(self, field: str, value: object) -> Path:
        if not isinstance(value, str) or not value:
            raise self.error(field, f"expected a file name, got {value!r}")
        resolved = self.path.parent / value
        if not resolved.is_file():
            raise self.error(field, f"no such file: {resolved}")
        return resolved

    def array(self, field: str, value: object, element: str) -> npt.NDArray[Any]:
        path = self.file(field, value)
        try:
            loaded: object = np.load(path, allow_pickle=False)
        except (OSError, ValueError, EOFError) as error:
            raise self.error(field, f"cannot read {path.name} as a .npy array: {error}") from None
        if not isinstance(loaded, np.ndarray):
            raise self.error(field, f"{path.name} is an .npz archive; expected one .npy array")
        array = cast(npt.NDArray[Any], loaded)
        want = SCALAR_TYPES[element]
        if array.dtype.itemsize != want.itemsize or (
            array.dtype.kind != want.kind and not (element[0] == "b" and array.dtype.kind in "iu")
        ):
            raise self.error(
                field, f"{path.name} holds {array.dtype}, but the element type is {element} ({want})"
            )
        # Byte-swap big-endian files to little-endian values first; then (b types) reinterpret the bits.
        little = np.ascontiguousarray(array, dtype=array.dtype.newbyteorder("<"))
        return little.reshape(-1).view(want)


def load_case(path: str | Path) -> Case:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise CaseError.located(
            Span.unknown(str(path)), f"cannot read: {getattr(error, 'strerror', None) or error}"
        ) from None
    loader = _Loader(path, text)
    try:
        table = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        span, message = decode_error_span(loader.source, str(error))
        raise CaseError.located(span, f"invalid TOML: {message}") from None
    return _build(loader, table)


def _build(loader: _Loader, table: dict[str, Any]) -> Case:
    _reject_unknown(loader, "", table, _TOP_FIELDS)
    kinds: list[SourceKind] = [kind for kind in _SOURCES if kind in table]
    if len(kinds) != 1:
        raise loader.error(
            kinds[1] if len(kinds) > 1 else "ptx",
            "give exactly one of ptx, fatbin or hsaco" + (f" (found {', '.join(kinds)})" if kinds else ""),
        )
    kernel = table.get("kernel")
    if not isinstance(kernel, str) or not kernel:
        raise loader.error("kernel", f"expected the kernel's name, got {kernel!r}")
    args = _args(loader, table.get("args", []))
    buffers = {arg.name: arg for arg in args if isinstance(arg, BufferArg)}
    expect = _expect(loader, table.get("expect", {}), buffers)
    return Case(
        loader.path,
        kinds[0],
        loader.file(kinds[0], table[kinds[0]]),
        kernel,
        _dims(loader, "grid", table.get("grid", 1), _GRID_LIMITS),
        _block(loader, table.get("block", 1)),
        _shared(loader, table.get("shared_bytes", 0)),
        tuple(args),
        expect,
        _tolerances(loader, table.get("tolerance", {}), expect),
    )


def _reject_unknown(loader: _Loader, prefix: str, table: Mapping[str, Any], allowed: Sequence[str]) -> None:
    for key in table:
        if key not in allowed:
            close = difflib.get_close_matches(key, allowed, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else f" (expected {', '.join(allowed)})"
            raise loader.error(f"{prefix}{key}", f"unknown field{hint}")


def _dims(loader: _Loader, field: str, value: object, limits: Sequence[int]) -> tuple[int, int, int]:
    items = [value] if isinstance(value, int) and not isinstance(value, bool) else _list(value)
    if items is None or not 1 <= len(items) <= 3:
        raise loader.error(field, f"expected 1 to 3 positive integers, got {value!r}")
    dims: list[int] = []
    for axis, item in enumerate(items):
        if isinstance(item, bool) or not isinstance(item, int) or not 1 <= item <= limits[axis]:
            raise loader.error(
                field, f"{'xyz'[axis]} must be an integer from 1 to {limits[axis]}, got {item!r}"
            )
        dims.append(item)
    dims += [1] * (3 - len(dims))
    return dims[0], dims[1], dims[2]


def _block(loader: _Loader, value: object) -> tuple[int, int, int]:
    block = _dims(loader, "block", value, _BLOCK_LIMITS)
    if block[0] * block[1] * block[2] > MAX_BLOCK_THREADS:
        raise loader.error(
            "block", f"{block[0]}x{block[1]}x{block[2]} threads exceed {MAX_BLOCK_THREADS} per block"
        )
    return block


def _shared(loader: _Loader, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise loader.error("shared_bytes", f"expected a byte count >= 0, got {value!r}")
    return value


def _list(value: object) -> list[object] | None:
    """``value`` if it is a TOML array (a list), else None."""
    return cast(list[object], value) if isinstance(value, list) else None


def _table(value: object) -> dict[str, object] | None:
    """``value`` if it is a TOML table (a dict with string keys), else None."""
    return cast(dict[str, object], value) if isinstance(value, dict) else None


def _args(loader: _Loader, value: object) -> list[Arg]:
    entries = _list(value)
    if entries is None:
        raise loader.error("args", "expected [[args]] tables, one per kernel parameter")
    out: list[Arg] = []
    names: set[str] = set()
    for index, entry in enumerate(entries):
        prefix = f"args[{index}]"
        item = _table(entry)
        if item is None:
            raise loader.error(prefix, "expected a table")
        _reject_unknown(loader, f"{prefix}.", item, _ARG_FIELDS)
        name = item.get("name", f"arg{index}")
        if not isinstance(name, str) or not _NAME.match(name):
            raise loader.error(f"{prefix}.name", f"expected a name like 'y' or 'out_1', got {name!r}")
        if name in names:
            raise loader.error(f"{prefix}.name", f"duplicate argument name {name!r}")
        names.add(name)
        out.append(_arg(loader, prefix, index, name, item))
    return out


def _arg(loader: _Loader, prefix: str, index: int, name: str, item: Mapping[str, Any]) -> Arg:
    kinds = [kind for kind in ("scalar", "buffer", "bytes") if kind in item]
    if len(kinds) != 1:
        raise loader.error(
            prefix,
            "give exactly one of scalar, buffer or bytes" + (f" (found {', '.join(kinds)})" if kinds else ""),
        )
    kind = kinds[0]
    if kind == "bytes":
        _only(loader, prefix, item, ("name", "bytes"))
        return BytesArg(index, name, loader.file(f"{prefix}.bytes", item["bytes"]).read_bytes())
    element = item[kind]
    if not isinstance(element, str) or element not in SCALAR_TYPES:
        noun = "scalar type" if kind == "scalar" else "element type"
        raise loader.error(
            f"{prefix}.{kind}", f"unknown {noun} {element!r} (expected one of {', '.join(SCALAR_TYPES)})"
        )
    if kind == "scalar":
        _only(loader, prefix, item, ("name", "scalar", "value"))
        if "value" not in item:
            raise loader.error(f"{prefix}.value", f"a scalar {element} argument needs a value")
        try:
            encoded = encode_scalar(element, item["value"])
        except ArgumentError as error:
            raise loader.error(f"{prefix}.value", str(error)) from None
        return ScalarArg(index, name, element, item["value"], encoded)
    _only(loader, prefix, item, ("name", "buffer", "data", "count"))
    return BufferArg(index, name, element, _initial(loader, prefix, item, element))


def _only(loader: _Loader, prefix: str, item: Mapping[str, Any], allowed: Sequence[str]) -> None:
    for key in item:
        if key not in allowed:
            raise loader.error(
                f"{prefix}.{key}", f"not allowed here (this argument takes {', '.join(allowed)})"
            )


def _initial(loader: _Loader, prefix: str, item: Mapping[str, Any], element: str) -> npt.NDArray[Any]:
    if ("data" in item) == ("count" in item):
        raise loader.error(prefix, 'a buffer needs exactly one of data = "file.npy" or count = N')
    if "data" in item:
        return loader.array(f"{prefix}.data", item["data"], element)
    count = item["count"]
    if isinstance(count, bool) or not isinstance(count, int) or count < 0:
        raise loader.error(f"{prefix}.count", f"expected an element count >= 0, got {count!r}")
    return np.zeros(count, dtype=SCALAR_TYPES[element])


def _expect(loader: _Loader, value: object, buffers: Mapping[str, BufferArg]) -> dict[str, npt.NDArray[Any]]:
    table = _table(value)
    if table is None:
        raise loader.error("expect", 'expected a table of buffer name = "file.npy"')
    out: dict[str, npt.NDArray[Any]] = {}
    for name, file in table.items():
        field = f"expect.{name}"
        buffer = buffers.get(name)
        if buffer is None:
            raise loader.error(
                field,
                f"no buffer argument is named {name!r}"
                + (f" (buffers: {', '.join(buffers)})" if buffers else ""),
            )
        array = loader.array(field, file, buffer.element)
        if array.size != buffer.initial.size:
            raise loader.error(
                field, f"{array.size} elements expected, but buffer {name!r} has {buffer.initial.size}"
            )
        out[name] = array
    return out


def _tolerances(loader: _Loader, value: object, expect: Mapping[str, Any]) -> dict[str, Tolerance]:
    table = _table(value)
    if table is None:
        raise loader.error("tolerance", "expected a table of name = { rtol = ..., atol = ... }")
    out: dict[str, Tolerance] = {}
    for name, entry in table.items():
        field = f"tolerance.{name}"
        if name not in expect:
            raise loader.error(field, f"{name!r} has no [expect] entry")
        spec = _table(entry)
        if spec is None:
            raise loader.error(field, "expected { rtol = ..., atol = ... }")
        _reject_unknown(loader, f"{field}.", spec, ("rtol", "atol"))
        numbers: dict[str, float] = {}
        for key in ("rtol", "atol"):
            number = spec.get(key, 0.0)
            if (
                isinstance(number, bool)
                or not isinstance(number, (int, float))
                or not 0 <= number < float("inf")
            ):
                raise loader.error(f"{field}.{key}", f"expected a finite number >= 0, got {number!r}")
            numbers[key] = float(number)
        if expect[name].dtype.kind != "f" and (numbers["rtol"] or numbers["atol"]):
            raise loader.error(field, f"{name!r} is an integer buffer; integers always compare exactly")
        out[name] = Tolerance(**numbers)
    return out
