"""Which warp-matrix spellings are PTX: the forms of ``mma``, ``wmma``, ``ldmatrix``/``stmatrix``/
``movmatrix`` the PTX ISA defines (9.7.14 "Warp Level Matrix Multiply-Accumulate Instructions") and
ptxas 13 accepts, with the target and PTX version each needs.

Invariant: each check raises a located ``Ptx2GcnError`` (worded like ptxas where ptxas's wording is
known) exactly when ptxas rejects the spelling for the module's ``.target``/``.version``, and
returns otherwise; whether a valid form has a gfx942 lowering is not decided here (the emitter's
``unsupported``). ``ptx2gcn/conformance/matrix_acceptance.json`` holds ptxas's verdicts on every
conformance spelling and near miss for sm_75/80/89/90; ``tests/conformance/test_matrix_acceptance.py``
holds the translator to them.
"""

from __future__ import annotations

from dataclasses import dataclass

from ptx2gcn.diagnostics import UnsupportedError
from ptx2gcn.frontend import ast
from ptx2gcn.translate.emitter import FnCtx
from ptx2gcn.translate.target_gates import require_target, target_of

KIND = {"f16": "f16", "bf16": "bf16", "tf32": "tf32", "f64": "f64", "s8": "i8", "u8": "i8", "s4": "i4", "u4": "i4",
        "b1": "b1", "e4m3": "f8", "e5m2": "f8"}
"""A/B element type -> its kind (types of one kind may be mixed in A and B only for i8, i4, f8)."""

_F16_ACC = frozenset({("f16", "f16"), ("f32", "f32")})
_VOLTA_ACC = frozenset({("f16", "f16"), ("f32", "f16"), ("f32", "f32")})
_F32 = frozenset({("f32", "f32")})
_F64 = frozenset({("f64", "f64")})
_S32 = frozenset({("s32", "s32")})

Gate = tuple[str, int, tuple[int, int]]
"""(feature name, sm, PTX version) a form needs."""


@dataclass(frozen=True)
class MmaRule:
    """One (shape, element kind) of ``mma``: its (dtype, ctype) pairs and gates."""

    accumulators: frozenset[tuple[str, str]]
    gates: tuple[Gate, ...]
    any_layout: bool = False


MMA_RULES: dict[tuple[str, str], MmaRule] = {
    ("m8n8k4", "f16"): MmaRule(_VOLTA_ACC, (("mma", 70, (6, 4)),), any_layout=True),
    ("m16n8k8", "f16"): MmaRule(_F16_ACC, ((".m16n8k8", 75, (6, 5)),)),
    ("m16n8k16", "f16"): MmaRule(_F16_ACC, ((".m16n8k16", 80, (7, 0)),)),
    ("m16n8k8", "bf16"): MmaRule(_F32, ((".bf16", 80, (7, 0)),)),
    ("m16n8k16", "bf16"): MmaRule(_F32, ((".bf16", 80, (7, 0)),)),
    ("m16n8k4", "tf32"): MmaRule(_F32, ((".tf32", 80, (7, 0)),)),
    ("m16n8k8", "tf32"): MmaRule(_F32, ((".tf32", 80, (7, 0)),)),
    ("m8n8k4", "f64"): MmaRule(_F64, ((".m8n8k4 with double types", 80, (7, 0)),)),
    ("m16n8k4", "f64"): MmaRule(_F64, ((".m16n8k4 with double types", 90, (7, 8)),)),
    ("m16n8k8", "f64"): MmaRule(_F64, ((".m16n8k8 with double types", 90, (7, 8)),)),
    ("m16n8k16", "f64"): MmaRule(_F64, ((".m16n8k16 with double types", 90, (7, 8)),)),
    ("m8n8k16", "i8"): MmaRule(_S32, ((".m8n8k16", 75, (6, 5)),)),
    ("m16n8k16", "i8"): MmaRule(_S32, ((".m16n8k16", 80, (7, 0)),)),
    ("m16n8k32", "i8"): MmaRule(_S32, ((".m16n8k32", 80, (7, 0)),)),
    ("m8n8k32", "i4"): MmaRule(_S32, ((".m8n8k32", 75, (6, 5)),)),
    ("m16n8k32", "i4"): MmaRule(_S32, ((".m16n8k32", 80, (7, 0)),)),
    ("m16n8k64", "i4"): MmaRule(_S32, ((".m16n8k64", 80, (7, 0)),)),
    ("m8n8k128", "b1"): MmaRule(_S32, ((".m8n8k128", 75, (7, 0)),)),
    ("m16n8k128", "b1"): MmaRule(_S32, ((".m16n8k128", 80, (7, 0)),)),
    ("m16n8k256", "b1"): MmaRule(_S32, ((".m16n8k256", 80, (7, 0)),)),
    ("m16n8k32", "f8"): MmaRule(_F16_ACC, (("mma with FP8 floating point type", 89, (8, 4)),)),
    ("m16n8k16", "f8"): MmaRule(_F16_ACC, (("mma with FP8 floating point type", 89, (8, 4)),
                                           ("mma with FP8 floating point type and .m16n8k16 shape", 89, (8, 7)))),
}
"""PTX ISA 9.7.14.5.14 (mma), target/version notes; versions and wordings checked with ptxas 13."""

_FP8_F16_ACC: Gate = ("mma with FP8 floating point type and FP16 accumulation", 89, (8, 7))
_B1_AND: Gate = ("Modifier '.and' on 'mma'", 80, (7, 1))

_BITS = {"f16": 16, "bf16": 16, "tf32": 32, "f64": 64, "i8": 8, "i4": 4, "b1": 1, "f8": 8}


def _dims(shape: str) -> tuple[int, int, int]:
    m, rest = shape[1:].split("n")
    n, k = rest.split("k")
    return int(m), int(n), int(k)


def mma_registers(shape: str, kind: str, dtype: str, ctype: str) -> tuple[int, int, int, int]:
    """Registers of the D, A, B, C fragments of a valid mma form (PTX ISA 9.7.14.5.x figures)."""
    m, n, k = _dims(shape)
    reg = 64 if kind == "f64" else 32
    if (shape, kind) == ("m8n8k4", "f16"):  # Volta: four 8x8x4 products, 4 A/B elements per lane
        a = b = 2
    else:
        a, b = m * k * _BITS[kind] // 32 // reg, k * n * _BITS[kind] // 32 // reg
    quads = 4 if (shape, kind) == ("m8n8k4", "f16") else 1

    def acc(t: str) -> int:
        return quads * m * n // 32 // (2 if t == "f16" else 1)
    return acc(dtype), max(a, 1), max(b, 1), acc(ctype)


def require_sync_aligned(ctx: FnCtx, ins: ast.Instruction, name: str, sync: bool, aligned: bool) -> None:
    """Every warp-matrix instruction spells ``.sync.aligned``."""
    for word, present in (("sync", sync), ("aligned", aligned)):
        if not present:
            raise ctx.error(ins.span, f".{word} modifier required for instruction '{name}'")


def _gate(ctx: FnCtx, ins: ast.Instruction, gate: Gate) -> None:
    feature, sm, version = gate
    target = target_of(ctx)
    if feature.startswith("Modifier "):  # ptxas words modifier gates differently
        if target.sm and target.sm < sm:
            raise ctx.error(ins.span, f"{feature} requires .target sm_{sm} or higher")
        if target.version < version:
            raise ctx.error(ins.span, f"{feature} requires PTX ISA .version {version[0]}.{version[1]} or later")
        return
    require_target(ctx, ins, feature, sm, version)


def _mma_kind(ctx: FnCtx, ins: ast.Instruction, shape: str, layouts: list[str], types: list[str]) -> str:
    if len(layouts) != 2:
        raise ctx.error(ins.span, "mma needs an A and a B layout (.row/.col)")
    if len(types) != 4:
        raise ctx.error(ins.span, f"Incorrect instruction type specified for mma with shape '.{shape}'")
    _, atype, btype, _ = types
    kind = KIND.get(atype)
    if kind is None or KIND.get(btype) != kind or (kind not in ("i8", "i4", "f8") and atype != btype):
        raise ctx.error(ins.span, "Unexpected instruction types specified for 'mma'")
    return kind


def check_mma(ctx: FnCtx, ins: ast.Instruction, shape: str, layouts: list[str], types: list[str],
              satfinite: bool, bitop: str | None) -> str:
    """A dense ``mma.sync.aligned`` spelling is PTX for this module; returns the element kind."""
    kind = _mma_kind(ctx, ins, shape, layouts, types)
    dtype, atype, _, ctype = types
    if (shape, kind) == ("m8n8k4", "bf16"):  # ptxas 13 takes it; the PTX ISA documents no such form
        require_target(ctx, ins, ".bf16", 80, (7, 0))
        raise UnsupportedError.feature(ins.span, "mma", ".m8n8k4 .bf16: ptxas accepts it, but the PTX ISA "
                                       "defines no m8n8k4 .bf16 form (no fragment layout to implement)")
    rule = MMA_RULES.get((shape, kind))
    if rule is None:
        shapes = sorted({s for s, k in MMA_RULES if k == kind})
        raise ctx.error(ins.span, f"Illegal matrix shape '.{shape}' for .{atype} 'mma' (PTX has "
                        f"{', '.join('.' + s for s in shapes)})")
    if not rule.any_layout and tuple(layouts) != ("row", "col"):
        which, word = ("alayout", layouts[0]) if layouts[0] != "row" else ("blayout", layouts[1])
        raise ctx.error(ins.span, f"Illegal {which} '.{word}' for instruction 'mma' (.{shape} .{atype} is .row.col)")
    if (dtype, ctype) not in rule.accumulators:
        pairs = ", ".join(f".{d}.{c}" for d, c in sorted(rule.accumulators))
        raise ctx.error(ins.span, f"Unexpected instruction types specified for 'mma': .{shape} .{atype} takes "
                        f"dtype.ctype {pairs}, not .{dtype}.{ctype}")
    if satfinite and kind not in ("i8", "i4"):
        raise ctx.error(ins.span, "Illegal modifier '.satfinite' for instruction 'mma' (integer forms only)")
    if (kind == "b1") != (bitop is not None):
        raise ctx.error(ins.span, f"Unexpected number of operations specified for mma with shape '.{shape}' "
                        "(.b1 takes .and.popc or .xor.popc, other types none)")
    for gate in rule.gates:
        _gate(ctx, ins, gate)
    if kind == "f8" and dtype == "f16":
        _gate(ctx, ins, _FP8_F16_ACC)
    if bitop == "and":
        _gate(ctx, ins, _B1_AND)
    return kind


SPARSE_RULES: dict[tuple[str, str], tuple[frozenset[tuple[str, str]], int]] = {
    ("m16n8k16", "f16"): (_F16_ACC, 80), ("m16n8k32", "f16"): (_F16_ACC, 80),
    ("m16n8k16", "bf16"): (_F32, 80), ("m16n8k32", "bf16"): (_F32, 80),
    ("m16n8k8", "tf32"): (_F32, 80), ("m16n8k16", "tf32"): (_F32, 80),
    ("m16n8k32", "i8"): (_S32, 80), ("m16n8k64", "i8"): (_S32, 80),
    ("m16n8k64", "i4"): (_S32, 80), ("m16n8k128", "i4"): (_S32, 80),
    ("m16n8k64", "f8"): (_F32, 89),  # f16 accumulators: sm_120 only (ptxas 13)
}
"""(shape, element kind) of ``mma.sp`` -> its (dtype, ctype) pairs and minimum sm (PTX ISA 9.7.14.6;
checked with ptxas 13)."""


def check_mma_sp(ctx: FnCtx, ins: ast.Instruction, shape: str, layouts: list[str], types: list[str],
                 satfinite: bool) -> tuple[int, int, int, int]:
    """A sparse ``mma.sp[::ordered_metadata]`` spelling is PTX for this module; returns the register
    counts of its D, A (half of K), B and C fragments."""
    kind = _mma_kind(ctx, ins, shape, layouts, types)
    dtype, atype, _, ctype = types
    rule = SPARSE_RULES.get((shape, kind))
    if rule is None:
        raise ctx.error(ins.span, f"Illegal matrix shape '.{shape}' for .{atype} sparse 'mma'")
    if tuple(layouts) != ("row", "col"):
        which, word = ("alayout", layouts[0]) if layouts[0] != "row" else ("blayout", layouts[1])
        raise ctx.error(ins.span, f"Illegal {which} '.{word}' for instruction 'mma' (sparse mma is .row.col)")
    if (dtype, ctype) not in rule[0] or satfinite and kind not in ("i8", "i4"):
        raise ctx.error(ins.span, f"Unexpected instruction types specified for sparse 'mma': "
                        f".{shape}{'.satfinite' if satfinite else ''}.{'.'.join(types)}")
    if kind == "f8":
        require_target(ctx, ins, "mma with FP8 floating point type", 89, (8, 4))
    d, a, b, c = mma_registers(shape, kind, dtype, ctype)
    return d, max(a // 2, 1), b, c


def check_fragments(ctx: FnCtx, ins: ast.Instruction, name: str, got: tuple[int, ...],
                    wanted: tuple[int, ...]) -> None:
    """Operand counts (d, a, b, c) of a matrix instruction."""
    if got != wanted:
        raise ctx.error(ins.span, f"Arguments mismatch for instruction '{name}': fragments of "
                        f"{', '.join(map(str, got))} registers (d, a, b, c); the form has "
                        f"{', '.join(map(str, wanted))}")


# ---- wmma ---------------------------------------------------------------------------------------

_WMMA_SHAPES: dict[str, dict[str, frozenset[str]]] = {
    # shape -> fragment -> element types (PTX ISA 9.7.14.4.x wmma.load/store/mma)
    **{s: {"a": frozenset({"f16", "bf16", "s8", "u8"}), "b": frozenset({"f16", "bf16", "s8", "u8"}),
           "c": frozenset({"f16", "f32", "s32"}), "d": frozenset({"f16", "f32", "s32"})}
       for s in ("m16n16k16", "m32n8k16", "m8n32k16")},
    "m16n16k8": {"a": frozenset({"tf32"}), "b": frozenset({"tf32"}), "c": frozenset({"f32"}),
                 "d": frozenset({"f32"})},
    "m8n8k4": {x: frozenset({"f64"}) for x in "abcd"},
    "m8n8k32": {"a": frozenset({"s4", "u4"}), "b": frozenset({"s4", "u4"}), "c": frozenset({"s32"}),
                "d": frozenset({"s32"})},
    "m8n8k128": {"a": frozenset({"b1"}), "b": frozenset({"b1"}), "c": frozenset({"s32"}), "d": frozenset({"s32"})},
}
_WMMA_TYPE_GATES: dict[str, Gate] = {
    "bf16": (".bf16", 80, (7, 0)), "tf32": (".tf32", 80, (7, 0)), "f64": ("WMMA with fp64 types", 80, (7, 0)),
    "s8": ("wmma with .s8/.u8", 72, (6, 3)), "u8": ("wmma with .s8/.u8", 72, (6, 3)),
    "s4": ("wmma with sub-byte types", 75, (6, 3)), "u4": ("wmma with sub-byte types", 75, (6, 3)),
    "b1": ("wmma with sub-byte types", 75, (6, 3)),
}
_WMMA_SHAPE_GATES: dict[str, Gate] = {"m16n16k8": ("Modifier '.m16n16k8'", 80, (7, 0))}
_SUB_BYTE_SHAPES = frozenset({"m8n8k32", "m8n8k128"})


def _wmma_gates(ctx: FnCtx, ins: ast.Instruction, shape: str, types: list[str]) -> None:
    require_target(ctx, ins, "wmma", 70, (6, 0))
    for t in types:
        if t in _WMMA_TYPE_GATES:
            _gate(ctx, ins, _WMMA_TYPE_GATES[t])
            return
    if shape in _WMMA_SHAPE_GATES:
        _gate(ctx, ins, _WMMA_SHAPE_GATES[shape])


def check_wmma_ldst(ctx: FnCtx, ins: ast.Instruction, load: bool, frag: str | None, shape: str, layout: str | None,
                    types: list[str]) -> None:
    """``wmma.load.{a,b,c}`` / ``wmma.store.d``."""
    name = f"wmma.{'load' if load else 'store'}.{frag}"
    if frag is None or (frag == "d") == load:
        raise ctx.error(ins.span, "wmma.load takes .a, .b or .c, wmma.store takes .d")
    if layout is None or len(types) != 1:
        raise ctx.error(ins.span, f"{name} needs a layout (.row/.col) and one type")
    allowed = _WMMA_SHAPES.get(shape)
    if allowed is None:
        raise ctx.error(ins.span, f"Illegal matrix shape '.{shape}' for instruction '{name}'")
    if types[0] not in allowed[frag]:
        raise ctx.error(ins.span, f"Unexpected instruction types specified for '{name}': .{shape} .{frag} takes "
                        f"{', '.join('.' + t for t in sorted(allowed[frag]))}")
    if shape in _SUB_BYTE_SHAPES and frag in "ab" and layout != ("row" if frag == "a" else "col"):
        raise ctx.error(ins.span, f"Illegal {'alayout' if frag == 'a' else 'blayout'} '.{layout}' for instruction "
                        f"'{name}' (sub-byte and .b1 A is .row, B is .col)")
    _wmma_gates(ctx, ins, shape, types)


def _wmma_types(ctx: FnCtx, ins: ast.Instruction, shape: str, types: list[str],
                allowed: dict[str, frozenset[str]]) -> list[str]:
    """dtype, atype, btype, ctype of a wmma.mma (``.f16`` forms spell only dtype.ctype)."""
    f16 = shape in ("m16n16k16", "m32n8k16", "m8n32k16") and len(types) == 2
    full = ["", "f16", "f16", ""] if f16 else list(types)
    if f16:
        full[0], full[3] = types
    ok = len(full) == 4 and (not f16 or {types[0], types[1]} <= {"f16", "f32"})
    if ok:
        dtype, atype, btype, ctype = full
        integer = KIND.get(atype) in ("i8", "i4", "b1")
        accumulators = {("s32", "s32")} if integer else {("f64", "f64")} if atype == "f64" else \
            {(d, c) for d in ("f16", "f32") for c in ("f16", "f32")} if f16 else {("f32", "f32")}
        ok = (atype != "f16" or f16) and atype == btype and atype in allowed["a"] and (dtype, ctype) in accumulators
    if not ok:
        raise ctx.error(ins.span, f"Unexpected instruction types specified for 'wmma.mma': "
                        f".{shape} .{'.'.join(types)}")
    return full


def check_wmma_mma(ctx: FnCtx, ins: ast.Instruction, shape: str, layouts: list[str], types: list[str],
                   satfinite: bool, bitop: str | None) -> list[str]:
    """``wmma.mma``; returns dtype, atype, btype, ctype."""
    if len(layouts) != 2:
        raise ctx.error(ins.span, "wmma.mma needs an A and a B layout (.row/.col)")
    allowed = _WMMA_SHAPES.get(shape)
    if allowed is None:
        raise ctx.error(ins.span, f"Illegal matrix shape '.{shape}' for instruction 'wmma.mma'")
    full = _wmma_types(ctx, ins, shape, types, allowed)
    atype = full[1]
    integer = KIND.get(atype) in ("i8", "i4", "b1")
    if shape in _SUB_BYTE_SHAPES and tuple(layouts) != ("row", "col"):
        which, word = ("alayout", layouts[0]) if layouts[0] != "row" else ("blayout", layouts[1])
        raise ctx.error(ins.span, f"Illegal {which} '.{word}' for instruction 'wmma.mma' (sub-byte and .b1 "
                        "wmma.mma is .row.col)")
    if (atype == "b1") != (bitop is not None):
        raise ctx.error(ins.span, f"Unexpected number of operations specified for wmma.mma with shape '.{shape}' "
                        "(.b1 takes .xor.popc or .and.popc, other types none)")
    if satfinite and not integer and target_of(ctx).version >= (6, 5):
        raise ctx.error(ins.span, "Instruction 'wmma.mma' with floating point type with '.satfinite' is not "
                        "supported starting from PTX ISA version 6.5")
    if satfinite and atype == "b1":
        raise ctx.error(ins.span, "Illegal modifier '.satfinite' for instruction 'wmma.mma'")
    _wmma_gates(ctx, ins, shape, full)
    if bitop == "and":
        _gate(ctx, ins, ("Modifier '.and' on 'wmma.mma'", 80, (7, 1)))
    return full


# ---- ldmatrix / stmatrix / movmatrix ------------------------------------------------------------

LDST_GATES: dict[str, Gate] = {"ldmatrix": ("ldmatrix", 75, (6, 5)), "stmatrix": ("stmatrix", 90, (7, 8)),
                               "movmatrix": ("movmatrix", 75, (7, 8))}


def check_ldst_target(ctx: FnCtx, ins: ast.Instruction) -> None:
    _gate(ctx, ins, LDST_GATES[ins.opcode])
