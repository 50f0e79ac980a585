"""Metamorphic conformance: every form run twice, operands from memory and operands as constants.

A conformance group kernel loads every source operand from memory, so LLVM never folds one into an
instruction as an inline constant or a literal, and a wrong reading of constants in the emulator
(issue #13: the f16 inline constant of ``v_pk_add_f16 ... 0.5`` read as the f32 pattern) stays
invisible. Here each *variant* fixes one source of one form to a constant (``CONSTANTS``: every
inline-constant value of gfx942 in the operand's type, the f32/f16/bf16 patterns of those values
seen through other types, and values that need a literal) and runs the same lanes twice: once with
the constant in the ``in`` buffer (loaded), once written as an immediate (``constant_move``) that
LLVM folds. The two ``out`` buffers must agree bit for bit on every lane whose result PTX fixes to
one value; on a lane where the model accepts several answers (undefined, open NaN payload,
``.approx`` interval, ``.ftz`` alternative) both runs must be accepted by the model instead, since
LLVM may legitimately fold such an operation to another accepted answer.

Invariant: a variant is reported exactly when some lane breaks that rule, or when the folded kernel
does not compile or run while the loaded one does; expected values come only from the two runs and
the reference model.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ptx2gcn.conformance.forms import WARP, Form
from ptx2gcn.conformance.kernel import Instance, group_kernel, instances, storage_bytes
from ptx2gcn.conformance.run import group_inputs, instance_seed, operand_columns, output_size
from ptx2gcn.conformance.table import build_code
from ptx2gcn.reference import Result, run
from ptx2gcn.reference.ptxtypes import PtxType

_F16 = (0x3800, 0xB800, 0x3C00, 0xBC00, 0x4000, 0xC000, 0x4400, 0xC400, 0x3118)
"""gfx942's float inline constants (0.5, -0.5, 1, -1, 2, -2, 4, -4, 1/(2*pi)) as f16 ..."""
_BF16 = (0x3F00, 0xBF00, 0x3F80, 0xBF80, 0x4000, 0xC000, 0x4080, 0xC080, 0x3E22)
_F32 = (0x3F000000, 0xBF000000, 0x3F800000, 0xBF800000, 0x40000000, 0xC0000000, 0x40800000,
        0xC0800000, 0x3E22F983)
_F64 = (0x3FE0000000000000, 0xBFE0000000000000, 0x3FF0000000000000, 0xBFF0000000000000,
        0x4000000000000000, 0xC000000000000000, 0x4010000000000000, 0xC010000000000000,
        0x3FC45F306DC9C882)
_INTS = (0, 1, 2, 16, 31, 32, 63, 64, 65, -1, -2, -16, -17, 0x7FFF, 0x8000, 0xFFFF, 0x12345678,
         0x7FFFFFFF, 0x80000000, -0x80000000, 0x100000000, 0x7FFFFFFFFFFFFFFF)
"""Integer inline constants (0..64, -1..-16), their neighbours (literals) and sign boundaries."""
_FLOAT_EXTRA = {16: (0x0000, 0x8000, 0x4200, 0x0001, 0x7C00, 0x7E00, 0x3C01),
                32: (0x00000000, 0x80000000, 0x40400000, 0x00000001, 0x7F800000, 0x7FC00000, 0x3F800001),
                64: (0, 0x8000000000000000, 0x4008000000000000, 0x3FF0000000000001, 0x7FF0000000000000,
                     0x400921FB00000000)}
"""Zeros, 3.0 and 1+ulp (literals), the smallest denormal, infinity, a quiet NaN; f64: a value
whose low dword is zero (a 32-bit literal's high-dword form)."""


def _unique(values: Iterable[int], width: int) -> tuple[int, ...]:
    mask = (1 << width) - 1
    return tuple(dict.fromkeys(v & mask for v in values))


def _pairs(elements: Sequence[int], width: int) -> list[int]:
    """Packed pairs of 16-bit constants: both halves, low only, high only."""
    out: list[int] = []
    for e in elements:
        out += [e | e << width, e, e << width]
    return out


def constant_candidates(t: PtxType) -> tuple[int, ...]:
    """The constants a variant may fix a source of type ``t`` to (bit patterns of ``t``)."""
    if t.kind == "pred":
        return (0, 1)
    width = t.width
    if t.lanes == 2 and t.element in ("f16", "bf16", "u16", "s16"):
        floats = _F16 if t.element == "f16" else _BF16
        ints = [v & 0xFFFF for v in _INTS[:14]]
        return _unique([*_pairs(floats, 16), *_pairs(ints[:6], 16), 0xFFFFFFFF, 0x00000001, 0x00010001,
                        *_F32[:3], 0x3F003F00, 0x42004200, 0x3C004000], 32)
    if t.is_float and t.lanes == 1 and width in (16, 32, 64):
        named = {16: _BF16 if t.name == "bf16" else _F16, 32: _F32, 64: _F64}[width]
        return _unique([*named, *_FLOAT_EXTRA[width], *_F32[:2], 1, 0xFFFFFFFF], width)
    return _unique([*_INTS, *_F32, *_F16, *(_F64 if width == 64 else ())], width)


@dataclass(frozen=True)
class Variant:
    """One instance of a form with source ``source`` fixed to the constant ``bits``."""

    instance: Instance
    source: int
    bits: int

    @property
    def label(self) -> str:
        return f"{self.instance.label} src{self.source}=0x{self.bits:x}"


def variants(form: Form, per_source: int | None, seed: int) -> list[Variant]:
    """Variants of ``form``: for each instance and each source that is not an immediate-only
    operand, ``per_source`` constants (a deterministic choice per form and seed; None: all)."""
    out: list[Variant] = []
    for inst in instances(form):
        fixed = dict(inst.immediates)
        for k, t in enumerate(form.sources):
            if k in fixed:
                continue
            pool = constant_candidates(t)
            if per_source is not None and per_source < len(pool):
                rng = np.random.default_rng(zlib.crc32(f"{inst.label}/{k}/{seed}".encode()))
                pool = tuple(pool[i] for i in sorted(rng.choice(len(pool), per_source, replace=False)))
            out += [Variant(inst, k, bits) for bits in pool]
    return out


def _columns(variant: Variant, lanes: int, seed: int) -> list[npt.NDArray[np.generic]]:
    inst = variant.instance
    columns = operand_columns(inst, lanes, instance_seed(inst, seed))
    t = inst.form.sources[variant.source]
    columns[variant.source] = np.full(lanes, bool(variant.bits) if t.kind == "pred" else variant.bits,
                                      dtype=t.dtype)
    return columns


def _model(inst: Instance, columns: Sequence[npt.NDArray[np.generic]]) -> list[tuple[slice, Result]]:
    lanes = len(columns[0]) if columns else 0
    step = WARP if inst.form.is_warp else max(lanes, 1)
    return [(slice(s, s + step), run(inst.form.spelling, *(c[s:s + step] for c in columns)))
            for s in range(0, max(lanes, 1), step)]


def _single_valued(result: Result) -> list[npt.NDArray[np.bool_]]:
    """Per destination: lanes where the model accepts exactly one bit pattern."""
    out = []
    for o in result.outputs:
        single = np.asarray(o.defined, dtype=np.bool_) & (np.asarray(o.any_nan) == 0)
        if o.bounded is not None:
            bounded = np.asarray(o.bounded)
            single &= ~(bounded.any(axis=-1) if bounded.ndim > single.ndim else bounded)
        if o.alternative is not None:
            single &= np.asarray(o.alternative == o.bits)
        out.append(single)
    return out


def _destinations(inst: Instance, raw: bytes, offset: int, lanes: int) -> tuple[list[npt.NDArray[np.generic]], int]:
    values = []
    for t in inst.form.destinations:
        size = storage_bytes(t) * lanes
        chunk = np.frombuffer(raw[offset:offset + size], dtype=np.uint8 if t.kind == "pred" else t.dtype)
        values.append(chunk.astype(np.bool_) if t.kind == "pred" else chunk)
        offset += size
    return values, offset


def judge(variant: Variant, columns: Sequence[npt.NDArray[np.generic]], loaded: Sequence[npt.NDArray[np.generic]],
          folded: Sequence[npt.NDArray[np.generic]], limit: int = 3) -> list[str]:
    """Failure lines of one variant (empty: the two runs agree as the module docstring requires)."""
    failures: list[str] = []
    for part, result in _model(variant.instance, columns):
        singles = _single_valued(result)
        ok_loaded = result.matches(*(a[part] for a in loaded))
        ok_folded = result.matches(*(a[part] for a in folded))
        bad = np.zeros(len(ok_loaded), dtype=np.bool_)
        for single, a, b in zip(singles, loaded, folded):
            differ = np.asarray(a[part] != b[part])
            bad |= differ & (np.broadcast_to(single, differ.shape) | ~ok_loaded | ~ok_folded)
        for lane in np.flatnonzero(bad)[:limit]:
            index = int(lane) + (part.start or 0)
            ins = ", ".join(f"0x{int(c[index]):x}" for c in columns)
            got = " / ".join(", ".join(f"0x{int(v[index]):x}" for v in side) for side in (loaded, folded))
            failures.append(f"{variant.label} lane {index}: inputs ({ins}) -> loaded / folded {got}; "
                            f"model {result.explain(int(lane)).splitlines()[0]}")
    return failures


CHUNK = 48
"""Variants per kernel pair."""


def run_variants(chosen: Sequence[Variant], lanes: int, seed: int) -> dict[str, list[str]]:
    """Run ``chosen`` (both ways, ``CHUNK`` per kernel pair); variant label -> failure lines (every
    variant gets an entry; empty when it passed)."""
    results: dict[str, list[str]] = {}
    for start in range(0, len(chosen), CHUNK):
        chunk = chosen[start:start + CHUNK]
        try:
            results.update(_run_chunk(chunk, lanes, seed))
        except Exception:  # noqa: BLE001 - isolated below, per variant
            for variant in chunk:
                try:
                    results.update(_run_chunk([variant], lanes, seed))
                except Exception as error:  # noqa: BLE001 - reported as this variant's failure
                    results[variant.label] = [f"{variant.label}: {type(error).__name__}: {error}"]
    return results


def _run_chunk(chunk: Sequence[Variant], lanes: int, seed: int) -> dict[str, list[str]]:
    from ptx2gcn.fuzz.device import run_kernel

    group = [v.instance for v in chunk]
    plain = group_kernel(group)
    folded = group_kernel(group, [{v.source: v.bits} for v in chunk])
    columns = {j: _columns(v, lanes, seed) for j, v in enumerate(chunk)}
    data, all_columns = group_inputs(plain, lanes, seed, columns)
    size = output_size(plain, lanes)
    raw_loaded = run_kernel(build_code(plain.ptx), "k", data, size, lanes)
    raw_folded = run_kernel(build_code(folded.ptx), "k", data, size, lanes)
    results: dict[str, list[str]] = {}
    offset = 0
    for variant, cols in zip(chunk, all_columns):
        loaded, end = _destinations(variant.instance, raw_loaded, offset, lanes)
        folded_values, _ = _destinations(variant.instance, raw_folded, offset, lanes)
        offset = end
        results[variant.label] = judge(variant, cols, loaded, folded_values)
    return results


def sample_forms(forms: Sequence[Form], every: int, must: Iterable[str] = ()) -> list[Form]:
    """A deterministic sample: the forms named in ``must`` plus every form whose spelling hashes
    to 0 modulo ``every`` (independent of the table's order and size)."""
    named = set(must)
    return [f for f in forms if f.spelling in named or zlib.crc32(f.spelling.encode()) % every == 0]
