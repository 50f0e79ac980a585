"""What the reference model answers: expected destination values plus what may legitimately differ.

Invariant: an ``Output`` never claims more than PTX specifies. Lanes where PTX leaves the result
unspecified are ``defined == False`` (compare nothing); NaN results whose payload PTX leaves open
set a bit in ``any_nan`` (compare only "is a NaN", per packed element; ``nan_payload`` narrows that
to "a NaN with these fraction bits"); where two answers are both correct, ``alternative`` holds the
second; ``.approx`` results carry an inclusive ``[lo, hi]`` interval built from the manual's error
bound. Everything else is bit-exact.
``Output.matches`` is the single comparison the conformance suite and the fuzzer use.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt

from ptx2gcn.reference.floatformat import float_format
from ptx2gcn.reference.ptxtypes import PtxType, ptx_type, split

BoolArray = npt.NDArray[np.bool_]
G = TypeVar("G", bound=np.generic)


@dataclass(frozen=True)
class Output:
    """One destination operand over all lanes."""

    type: PtxType
    bits: npt.NDArray[np.generic]
    """Expected bit patterns (unsigned dtype of the type's width; bool for ``.pred``)."""
    defined: BoolArray
    any_nan: npt.NDArray[np.uint8]
    """Bit ``k`` set: packed element ``k`` is a NaN whose bit pattern PTX does not fix."""
    interval: tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]] | None = None
    """For ``.approx`` results: accepted values ``lo <= x <= hi`` (as float64) where ``bounded``.
    For packed types the arrays (and ``bounded``) have a trailing axis, one entry per element."""
    bounded: BoolArray | None = None
    zero_bits: int = 0
    """Bits an accepted ``bounded`` or open-payload NaN result must have clear (the low word of
    rcp/rsqrt.approx.ftz.f64: PTX ISA 9.7.3.14/17 "d[31:0] = 0x00000000")."""
    nan_payload: npt.NDArray[np.uint8] | None = None
    """Bit ``k`` set (with ``any_nan``): element ``k`` must be a NaN with the expected fraction bits
    (f64 arithmetic propagates NaN payloads; the sign is not fixed)."""
    alternative: npt.NDArray[np.generic] | None = None
    """A second acceptable bit pattern per lane (equal to ``bits`` where there is none), e.g. the
    flushed zero of a ``.ftz`` result that rounded up to the smallest normal."""

    def matches(self, actual: object) -> BoolArray:
        """Per lane: does ``actual`` (bits or a float array of the type) satisfy the model?"""
        got = _as_storage(actual, self.type)
        shape = np.broadcast_shapes(got.shape, self.bits.shape)
        if shape != self.bits.shape:
            return self.broadcast(shape).matches(got)
        got = np.broadcast_to(got, shape)
        exact = got == self.bits
        if self.alternative is not None:
            exact = exact | (got == self.alternative)
        nan_ok = self._nan_ok(got)
        if self.zero_bits:  # a NaN of open payload still has the form's fixed zero bits
            nan_ok &= np.vectorize(lambda g: int(g) & self.zero_bits == 0, otypes=[np.bool_])(got)
        ok = exact | nan_ok
        if self.interval is not None and self.bounded is not None and self.bounded.ndim > self.bits.ndim:
            ok = self._elements_ok(got, ok)
        elif self.interval is not None and self.bounded is not None:
            within = self._within(got)
            if self.zero_bits:
                within &= np.vectorize(lambda g: int(g) & self.zero_bits == 0, otypes=[np.bool_])(got)
            ok = np.where(self.bounded, within, ok)
        return np.asarray(ok | ~self.defined, dtype=np.bool_)

    def describe(self, index: int | tuple[int, ...]) -> str:
        """What lane ``index`` accepts, for failure messages: ``0x3f800000``, ``any NaN``, ..."""
        if not self.defined[index]:
            return "anything (unspecified by PTX)"
        digits = max(1, self.type.width // 4)
        text = (str(bool(self.bits[index])) if self.type.kind == "pred"
                else f"0x{int(self.bits[index]):0{digits}x}")
        if self.bounded is not None and self.interval is not None and self.bounded.ndim > self.bits.ndim:
            if self.bounded[index].any():
                spans = ", ".join(f"[{float(lo)!r}, {float(hi)!r}]" if bounded else "exact"
                                  for lo, hi, bounded in zip(self.interval[0][index], self.interval[1][index],
                                                             self.bounded[index]))
                return f"elements in {spans} (nearest {text})"
        elif self.bounded is not None and self.interval is not None and self.bounded[index]:
            lo, hi = float(self.interval[0][index]), float(self.interval[1][index])
            return f"a value in [{lo!r}, {hi!r}] (nearest {text})"
        if int(self.any_nan[index]):
            payload = 0 if self.nan_payload is None else int(self.nan_payload[index])
            what = "a NaN with its payload" if payload else "any NaN"
            return f"{text}, where packed elements {int(self.any_nan[index]):#b} may be {what}"
        if self.alternative is not None and self.alternative[index] != self.bits[index]:
            return f"{text} or 0x{int(self.alternative[index]):0{digits}x}"
        return text

    def fixed(self) -> BoolArray:
        """Lanes whose bits PTX fixes exactly: defined, no NaN of open payload, no ``.approx``
        interval, no second acceptable answer (``bits`` is then the one right answer)."""
        fixed = np.asarray(self.defined, dtype=np.bool_).copy()
        fixed &= np.asarray(self.any_nan) == 0
        if self.interval is not None and self.bounded is not None:
            bounded = np.asarray(self.bounded, dtype=np.bool_)
            fixed &= ~(bounded.any(axis=-1) if bounded.ndim > fixed.ndim else bounded)
        if self.alternative is not None:
            fixed &= np.asarray(self.alternative) == np.asarray(self.bits)
        return fixed

    def broadcast(self, shape: tuple[int, ...]) -> Output:
        """The same expectation repeated over ``shape`` (e.g. one input, many candidate results)."""
        def grow(a: npt.NDArray[G]) -> npt.NDArray[G]:
            return np.broadcast_to(a, shape).copy()
        interval = None if self.interval is None else (grow(self.interval[0]), grow(self.interval[1]))
        bounded = None if self.bounded is None else grow(self.bounded)
        payload = None if self.nan_payload is None else grow(self.nan_payload)
        alternative = None if self.alternative is None else grow(self.alternative)
        return Output(self.type, grow(self.bits), grow(self.defined), grow(self.any_nan), interval, bounded,
                      self.zero_bits, payload, alternative)

    def _nan_ok(self, got: npt.NDArray[np.generic]) -> BoolArray:
        if not self.any_nan.any():
            return np.zeros(self.bits.shape, dtype=np.bool_)
        fmt = float_format(self.type.element)
        width = self.type.element_width
        out = np.zeros(self.bits.shape, dtype=np.bool_)
        for index in np.ndindex(self.bits.shape):
            flags = int(self.any_nan[index])
            if not flags:
                continue
            payload = 0 if self.nan_payload is None else int(self.nan_payload[index])
            got_parts = split(int(got[index]), width, self.type.lanes)
            want_parts = split(int(self.bits[index]), width, self.type.lanes)
            out[index] = all(
                (fmt.is_nan(g) and (not payload >> k & 1 or fmt.magnitude(g) == fmt.magnitude(w)))
                if flags >> k & 1 else g == w
                for k, (g, w) in enumerate(zip(got_parts, want_parts)))
        return out

    def _elements_ok(self, got: npt.NDArray[np.generic], ok: BoolArray) -> BoolArray:
        """Packed ``.approx`` results: each element is in its interval, or (unbounded elements)
        equal to the expected element or an accepted NaN."""
        assert self.interval is not None and self.bounded is not None
        fmt = float_format(self.type.element)
        width, count = self.type.element_width, self.type.lanes
        out = np.array(ok, dtype=np.bool_, copy=True)
        for index in np.ndindex(self.bits.shape):
            if not self.bounded[index].any():
                continue
            got_parts = split(int(got[index]), width, count)
            want_parts = split(int(self.bits[index]), width, count)
            nan_flags = int(self.any_nan[index])
            out[index] = all(
                (self.interval[0][index][k] <= _to_float(fmt.name, g) <= self.interval[1][index][k])
                if self.bounded[index][k] else
                (g == w or (bool(nan_flags >> k & 1) and fmt.is_nan(g)))
                for k, (g, w) in enumerate(zip(got_parts, want_parts)))
        return out

    def _within(self, got: npt.NDArray[np.generic]) -> BoolArray:
        assert self.interval is not None
        lo, hi = self.interval
        native = _NATIVE_FLOATS.get(self.type.name)
        if native is not None:  # numpy decodes these formats exactly
            values = got.view(native).astype(np.float64)
        else:
            values = np.array([_to_float(self.type.name, int(b)) for b in got.reshape(-1)],
                              dtype=np.float64).reshape(got.shape)
        return np.asarray((values >= lo) & (values <= hi), dtype=np.bool_)


_NATIVE_FLOATS: dict[str, type[np.floating[Any]]] = {
    "f16": np.float16, "f32": np.float32, "f64": np.float64}


def _to_float(fmt_name: str, bits: int) -> float:
    fmt = float_format(fmt_name)
    if fmt.is_nan(bits):
        return float("nan")
    if fmt.is_inf(bits):
        return float("-inf") if fmt.is_negative(bits) else float("inf")
    value = float(fmt.exact(bits))
    return -0.0 if value == 0 and fmt.is_negative(bits) else value


def _as_storage(actual: object, t: PtxType) -> npt.NDArray[np.generic]:
    arr = np.asarray(actual)
    if t.kind == "pred":
        return arr.astype(np.bool_)
    if arr.dtype.kind == "f":
        return arr.view(t.dtype)
    return arr.astype(t.dtype)


@dataclass(frozen=True)
class Result:
    """All destination operands of one instruction, in PTX operand order."""

    outputs: tuple[Output, ...]
    notes: tuple[str, ...] = field(default=())
    """Human-readable remarks (why lanes are undefined, which manual rule applied)."""
    sources: tuple[PtxType, ...] = field(default=())
    """The types the source operands were read as, in PTX order (implicit CC.CF last)."""

    @property
    def value(self) -> npt.NDArray[np.generic]:
        """Bits of the first destination (the common single-destination case)."""
        return self.outputs[0].bits

    @property
    def defined(self) -> BoolArray:
        return self.outputs[0].defined

    def explain(self, index: int | tuple[int, ...]) -> str:
        """One line per destination saying what lane ``index`` accepts, plus the notes."""
        lines = [f"d{k}.{out.type.name}: {out.describe(index)}" for k, out in enumerate(self.outputs)]
        return "\n".join(lines + [f"note: {note}" for note in self.notes])

    def matches(self, *actual: object) -> BoolArray:
        """Per lane, all given destinations match; pass them in PTX operand order."""
        if len(actual) != len(self.outputs):
            raise ValueError(f"expected {len(self.outputs)} destination arrays, got {len(actual)}")
        ok: BoolArray = np.ones(self.outputs[0].bits.shape, dtype=np.bool_)
        for out, got in zip(self.outputs, actual):
            ok = ok & out.matches(got)
        return ok


def make_output(type_name: str | PtxType, bits: npt.NDArray[np.object_],
                defined: npt.NDArray[np.generic] | None = None,
                any_nan: npt.NDArray[np.generic] | None = None,
                nan_payload: npt.NDArray[np.generic] | None = None) -> Output:
    """Build an ``Output`` from object arrays of Python ints/bools (the model's working form)."""
    t = type_name if isinstance(type_name, PtxType) else ptx_type(type_name)
    shape = np.shape(bits)
    flat = [x for x in np.asarray(bits, dtype=object).reshape(-1)]
    storage = np.array([bool(x) for x in flat] if t.kind == "pred" else [int(x) for x in flat],
                       dtype=t.dtype).reshape(shape)
    ok = np.ones(shape, dtype=np.bool_) if defined is None else np.asarray(defined).astype(np.bool_)
    nan = (np.zeros(shape, dtype=np.uint8) if any_nan is None
           else np.asarray(any_nan).astype(np.uint8))
    payload = None if nan_payload is None else np.broadcast_to(np.asarray(nan_payload).astype(np.uint8),
                                                                shape).copy()
    return Output(t, storage, np.broadcast_to(ok, shape).copy(), np.broadcast_to(nan, shape).copy(),
                  nan_payload=payload)
