"""Vector compares (VOPC and their VOP3 forms): ``v_cmp_*``, ``v_cmpx_*``, ``v_cmp_class_*``.

Invariant: a compare writes one bit per lane to VCC (e32/DPP/SDWA) or to the SGPR pair ``sdst``
(e64); bits of inactive lanes are written 0. ``v_cmpx_*`` (GFX9 semantics) writes the same mask to
EXEC as well. SDWA compares select bytes/words of their sources; DPP compares permute src0 (lanes
whose DPP source is invalid without ``bound_ctrl`` compare as false). Float predicates follow IEEE
ordered/unordered rules: ``lt/eq/le/gt/lg/ge/o`` are false on NaN, their negations
``nge/nlg/ngt/nle/neq/nlt`` and ``u`` are true on NaN.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ptx2gcn.runtime.emulator.decoder import Instruction
from ptx2gcn.runtime.emulator.semantics_common import (
    Builder,
    Handler,
    check_sgprs,
    unsupported,
    vector_reader,
)
from ptx2gcn.runtime.emulator.semantics_dpp import dpp_source, sdwa_source
from ptx2gcn.runtime.emulator.semantics_fp import float_class_mask
from ptx2gcn.runtime.emulator.semantics_valu import TYPES, bits_modifier, flush_denormals
from ptx2gcn.runtime.emulator.wave import MASK32, VCC_LO, Wave, bits_of

A = Any
_ALWAYS = np.ones(64, dtype=bool)
PREDICATES: dict[str, Callable[[A, A], A]] = {
    "f": lambda a, b: np.zeros(np.broadcast(a, b).shape or (64,), dtype=bool),
    "t": lambda a, b: np.ones(np.broadcast(a, b).shape or (64,), dtype=bool),
    "tru": lambda a, b: np.ones(np.broadcast(a, b).shape or (64,), dtype=bool),
    "lt": np.less,
    "eq": np.equal,
    "le": np.less_equal,
    "gt": np.greater,
    "ge": np.greater_equal,
    "ne": np.not_equal,
    "lg": lambda a, b: (a < b) | (a > b),
    "o": lambda a, b: ~(np.isnan(a) | np.isnan(b)),
    "u": lambda a, b: np.isnan(a) | np.isnan(b),
    "nge": lambda a, b: ~(a >= b),
    "nlg": lambda a, b: ~((a < b) | (a > b)),
    "ngt": lambda a, b: ~(a > b),
    "nle": lambda a, b: ~(a <= b),
    "neq": lambda a, b: ~(a == b),
    "nlt": lambda a, b: ~(a < b),
}


def _parse(name: str) -> tuple[bool, str, str]:
    """``v_cmpx_lt_f32`` -> (writes exec, predicate, type)."""
    parts = name.split("_")
    return parts[1] == "cmpx", parts[2], parts[3]


def _narrowed(read: Callable[[Wave], A], dtype: A) -> Callable[[Wave], A]:
    return lambda w: np.asarray(read(w)).astype(dtype)


def _modified(read: Callable[[Wave], A], modifier: Callable[[A], A]) -> Callable[[Wave], A]:
    return lambda w: modifier(read(w))


def _compare(inst: Instruction) -> Callable[[Wave], A]:  # noqa: C901
    _, predicate, type_name = _parse(inst.opcode)
    bits, is_float, signed, dtype = TYPES[type_name]
    f = inst.fields
    abs_bits, neg_bits = f.get("abs", 0), f.get("neg", 0)
    if inst.form in ("dpp", "sdwa"):
        abs_bits = f.get("src0_abs", 0) | f.get("src1_abs", 0) << 1
        neg_bits = f.get("src0_neg", 0) | f.get("src1_neg", 0) << 1
    if bits == 64 and inst.form in ("dpp", "sdwa"):
        raise unsupported(inst, f"64-bit {inst.form} compare")
    unsigned = {16: np.uint16, 32: np.uint32, 64: np.uint64}
    readers: list[Callable[[Wave], A]] = []
    for i in range(2):
        width = bits if predicate != "class" or i == 0 else 32
        if inst.form == "sdwa":
            read = _narrowed(sdwa_source(inst, i, f16=width == 16 and is_float), unsigned[width])
        else:
            read = vector_reader(inst, f[f"src{i}"], width, is_float, signed)
        modifier = (
            bits_modifier(width, bool(abs_bits >> i & 1), bool(neg_bits >> i & 1)) if is_float else None
        )
        readers.append(read if modifier is None else _modified(read, modifier))
    if inst.form == "dpp":
        permuted = dpp_source(inst, readers[0])
        readers[0] = lambda w: permuted(w)[0]
    r0, r1 = readers
    if predicate == "class":

        def classify(w: Wave) -> A:
            return (float_class_mask(r0(w).view(dtype)) & np.asarray(r1(w), dtype=np.uint32)) != 0

        return classify
    test = PREDICATES[predicate]
    if not is_float:
        return lambda w: np.broadcast_to(test(r0(w).view(dtype), r1(w).view(dtype)), (64,))

    def compare_float(w: Wave) -> A:
        a, b = r0(w), r1(w)
        if not w.mode.is_default and (w.mode.denorm_32 if bits == 32 else w.mode.denorm_16_64) in (0, 2):
            a, b = flush_denormals(a, bits), flush_denormals(b, bits)  # MODE flushes input denormals
        return np.broadcast_to(test(a.view(dtype), b.view(dtype)), (64,))

    return compare_float


def bind_cmp(inst: Instruction) -> Handler:
    writes_exec, _, _ = _parse(inst.opcode)
    compute = _compare(inst)
    f = inst.fields
    if inst.form == "sdwa":
        dst = f["sdst"] if f.get("sd", 0) else VCC_LO
    else:
        dst = f.get("sdst", VCC_LO) if inst.form == "e64" or inst.encoding == "VOP3" else VCC_LO

    if dst >= 128:
        raise unsupported(inst, f"compare destination code {dst} is not a scalar register")
    check_sgprs(inst, dst, 2)

    def run(w: Wave) -> None:
        mask = bits_of(compute(w) & w.exec_mask)
        if dst != 125:  # null
            w.s[dst] = mask & MASK32
            w.s[dst + 1] = mask >> 32
        if writes_exec or dst in (126,):
            w.set_exec(mask)

    return run


def builders(names: list[str]) -> dict[str, Builder]:
    return {name: bind_cmp for name in names if name.startswith(("v_cmp_", "v_cmpx_"))}
