"""gfx942 instruction decoder: machine code bytes -> ``Instruction`` records, with no LLVM at run time.

Invariant: ``decode(code, pc)`` either returns the one instruction that starts at ``pc`` (its exact
size, LLVM's canonical opcode name, every encoded field) or raises ``DecodeError`` naming the PC, the
dwords it looked at and why; it never returns a partial or guessed instruction.  It is driven by the
format table in ``encodings`` and the opcode table in ``opcodes``.

``Instruction.fields`` holds the raw encoded fields by their CDNA3 names (see ``encodings``), plus
these normalised entries so that an executor reads every VOP form the same way:

* ``src0``, ``src1``, ``src2``: 9-bit operand codes (``operands.source``) for all VALU forms.  For
  VOP2/VOPC ``src1`` is ``256 + vsrc1``; for DPP ``src0`` is the VGPR from the DPP dword; for SDWA
  ``src0``/``src1`` are SGPR or VGPR codes according to the ``s0``/``s1`` bits.
* VOP3P ``op_sel_hi`` is the full 3-bit mask (its bit 2 is stored in the first dword).
* ``sdst`` is the SGPR code a compare writes for every VOPC form: the ``vdst`` bits of the e64
  form, the SDWA ``sdst`` field (or 106 = vcc_lo when its ``sd`` bit is clear); e32/DPP compares
  write VCC implicitly and have no ``sdst``.
* Modifier fields absent from a form read as absent, not as 0 (use ``fields.get(name, 0)``).
  SDWA adds ``src0_sel``/``src1_sel``/``dst_sel``/``dst_unused``/``src*_sext``/``src*_neg``/
  ``src*_abs``/``src*_sgpr``; DPP adds ``dpp_ctrl``/``row_mask``/``bank_mask``/``bound_ctrl``/
  ``src*_neg``/``src*_abs``.

``fields`` is a read-only mapping shared by every instruction with the same words: decoding goes
through an LRU cache keyed by the first two dwords, so a program's repeated instructions (and a
program loaded twice) decode once.

``Instruction.form`` tells which VALU form was used: ``"e32"`` (VOP1/VOP2/VOPC), ``"e64"`` (VOP3 of
a VOPC/VOP2/VOP1 opcode), ``"dpp"``, ``"sdwa"``, or ``""`` (every other instruction, VOP3-only and
VOP3P included).  ``Instruction.info`` is the opcode's ``OpInfo`` (operand data types and widths).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from types import MappingProxyType

from ptx2gcn.runtime.emulator import encodings as enc
from ptx2gcn.runtime.emulator.opcodes import OpInfo, lookup, native_form
from ptx2gcn.runtime.emulator.operands import LITERAL_CODE, SPECIAL_CODE, VGPR_BASE, SpecialReg

VCC_LO_CODE = SPECIAL_CODE[SpecialReg.VCC_LO]


class DecodeError(Exception):
    """Bytes at ``pc`` are not a gfx942 instruction this decoder knows."""

    def __init__(self, pc: int, words: tuple[int, ...], why: str) -> None:
        self.pc = pc
        self.words = words
        self.why = why
        shown = " ".join(f"{word:08X}" for word in words) or "<no bytes>"
        super().__init__(f"pc 0x{pc:X}: cannot decode instruction [{shown}]: {why}")

    def __reduce__(self) -> tuple[type[DecodeError], tuple[int, tuple[int, ...], str]]:
        return (DecodeError, (self.pc, self.words, self.why))


@dataclass(frozen=True, slots=True)
class Instruction:
    pc: int
    """Byte offset of the instruction in the code object."""
    size: int
    """Bytes: 4 or 8, plus 4 with a literal."""
    encoding: str
    """"SOP2", "SOPK", "SOP1", "SOPC", "SOPP", "SMEM", "VOP1", "VOP2", "VOPC", "VOP3", "VOP3P", "DS",
    "FLAT", "GLOBAL", "SCRATCH" or "MUBUF" (a DPP/SDWA instruction keeps its VOP1/VOP2/VOPC name)."""
    opcode: str
    """LLVM's canonical name without ``_e32``/``_e64``/``_dpp``/``_sdwa``, e.g. ``v_add_u32``."""
    fields: Mapping[str, int]
    literal: int | None
    form: str = ""
    """"e32", "e64", "dpp", "sdwa" for VALU forms of VOP1/VOP2/VOPC opcodes, else ""."""
    info: OpInfo | None = None
    """Operand data types/widths of the opcode (never None for a decoded instruction)."""


_SCALAR_SOURCES = ("ssrc0", "ssrc1")
_VECTOR_SOURCES = ("src0", "src1", "src2")
_ALWAYS_LITERAL = frozenset({"v_fmamk_f32", "v_fmaak_f32", "v_madmk_f16", "v_madak_f16",
                             "s_setreg_imm32_b32"})


class _Invalid(Exception):
    """Raised inside the pure decoder; ``decode`` turns it into a located ``DecodeError``."""

    def __init__(self, words: tuple[int, ...], why: str) -> None:
        super().__init__(why)
        self.words = words
        self.why = why


class _Truncated(_Invalid):
    pass


@dataclass(frozen=True, slots=True)
class _Shape:
    """Everything about an instruction except its PC and literal value (shared between equal words)."""

    size: int
    encoding: str
    opcode: str
    fields: Mapping[str, int]
    form: str
    info: OpInfo
    has_literal: bool


def _second_word(word1: int | None, words: tuple[int, ...]) -> int:
    if word1 is None:
        raise _Truncated(words, "instruction runs past the end of the code")
    return word1


_Layout = tuple[tuple[str, int, int, int, int], ...]
_LAYOUTS: dict[enc.Format, _Layout] = {}


def _layout(fmt: enc.Format) -> _Layout:
    """(name, dword, shift, mask, sign bit or 0) per field: ``Field.extract`` unrolled for speed."""
    layout = _LAYOUTS.get(fmt)
    if layout is None:
        layout = _LAYOUTS[fmt] = tuple(
            (f.name, f.word, f.lo, (1 << f.width) - 1, 1 << (f.width - 1) if f.signed else 0)
            for f in fmt.fields)
    return layout


def _extract(fmt: enc.Format, words: tuple[int, ...]) -> dict[str, int]:
    fields = {}
    for name, word, shift, mask, sign in _layout(fmt):
        value = (words[word] >> shift) & mask
        fields[name] = value - (sign << 1) if value & sign else value
    return fields


def _vop_extension(fields: dict[str, int], word1: int, encoding: str) -> str:
    """Fold a DPP or SDWA dword into ``fields``; returns the form name."""
    if fields["src0"] == enc.SRC0_DPP:
        fields.update(_extract(enc.DPP, (word1,)))
        fields["src0"] += VGPR_BASE
        return "dpp"
    sdwa = enc.SDWA_VOPC if encoding == "VOPC" else enc.SDWA
    fields.update(_extract(sdwa, (word1,)))
    fields["src0"] += 0 if fields["src0_sgpr"] else VGPR_BASE
    if "vsrc1" in fields:
        fields["src1"] = fields["vsrc1"] + (0 if fields["src1_sgpr"] else VGPR_BASE)
    return "sdwa"


def _vop3_format(word0: int) -> tuple[enc.Format, OpInfo | None]:
    op = (word0 >> 16) & 0x3FF
    info = lookup("VOP3", op)
    return (enc.VOP3B if info is not None and info.vop3b else enc.VOP3A), info


def _vop3p_format(word0: int) -> tuple[enc.Format, OpInfo | None]:
    info = lookup("VOP3P", (word0 >> 16) & 0x7F)
    return (enc.VOP3P_MAI if info is not None and info.mai else enc.VOP3P), info


def _identify(fmt: enc.Format, word0: int) -> tuple[enc.Format, OpInfo | None]:
    if fmt.name == "VOP3":
        return _vop3_format(word0)
    if fmt.name == "VOP3P":
        return _vop3p_format(word0)
    _, _, shift, mask, _ = next(entry for entry in _layout(fmt) if entry[0] == fmt.opcode_field)
    return fmt, lookup(fmt.name, (word0 >> shift) & mask)


def _form(fmt: enc.Format, info: OpInfo) -> str:
    if fmt.name in ("VOP1", "VOP2", "VOPC"):
        return "e32"
    if fmt.name == "VOP3" and native_form(info) is not None:
        return "e64"
    return ""


def _needs_literal(fmt: enc.Format, fields: Mapping[str, int], info: OpInfo) -> bool:
    """A literal follows when a source the opcode reads is code 255 (VOP1/2/C: src0 only)."""
    if info.name in _ALWAYS_LITERAL:
        return True
    if fmt.name in ("VOP1", "VOP2", "VOPC"):
        return bool(info.srcs) and fields["src0"] == LITERAL_CODE
    names = _SCALAR_SOURCES if fmt.name.startswith("SOP") else _VECTOR_SOURCES
    return any(fields.get(name) == LITERAL_CODE for name in names[:len(info.srcs)])


@lru_cache(maxsize=1 << 16)
def _shape(word0: int, word1: int | None) -> _Shape:
    """Decode the first one or two dwords (``word1`` is None past the end of the code)."""
    fmt = enc.classify(word0)
    if fmt is None:
        raise _Invalid((word0,), "not a gfx942 encoding (MIMG/MTBUF/EXP or reserved)")
    fmt, info = _identify(fmt, word0)
    if info is None:
        op = _extract(fmt, (word0, 0))["op"]
        raise _Invalid((word0,), f"unknown {fmt.name} opcode {op} (0x{op:X})")
    words: tuple[int, ...] = (word0,)
    if fmt.size == 8:
        words = (word0, _second_word(word1, words))
    fields = _extract(fmt, words if fmt.size == 8 else (word0, 0))
    size = fmt.size
    form = _form(fmt, info)
    # v_nop has a DPP form (but no SDWA form); other VOP1 opcodes without sources have neither.
    markers = (enc.SRC0_DPP, enc.SRC0_SDWA) if info.srcs else (enc.SRC0_DPP,) if info.name == "v_nop" else ()
    if form == "e32" and fields["src0"] in markers:
        words = (word0, _second_word(word1, words))
        if info.name != "v_nop" or not (words[1] >> 20) & 0xF:  # v_nop DPP takes no modifiers
            form = _vop_extension(fields, words[1], fmt.name)
            size = 8
    if fmt.name == "MUBUF" and fields["soffset"] == LITERAL_CODE:
        raise _Invalid(words, f"{info.name}: a literal soffset does not exist on gfx942")
    if info.name == "v_readfirstlane_b32" and fields["vdst"] == LITERAL_CODE:
        # (LLVM 22 reads this as a literal *destination*; there is no such register.)
        raise _Invalid(words, "v_readfirstlane_b32: destination code 255 is not an SGPR")
    _normalise(fmt, fields, form, info)
    has_literal = _needs_literal(fmt, fields, info)
    if has_literal and fmt.name in ("VOP3", "VOP3P"):
        raise _Invalid(words, f"{info.name}: VOP3 literal operands do not exist on gfx942")
    return _Shape(size, fmt.name, info.name, MappingProxyType(fields), form, info, has_literal)


def _dword(code: bytes, offset: int) -> int | None:
    if offset < 0 or offset + 4 > len(code):
        return None
    return int.from_bytes(code[offset:offset + 4], "little")


def _dwords(code: bytes, pc: int, count: int) -> tuple[int, ...]:
    return tuple(int.from_bytes(code[pc + 4 * i:pc + 4 * i + 4], "little") for i in range(count))


def decode(code: bytes, pc: int) -> Instruction:
    """Decode the instruction at byte offset ``pc`` of ``code``; raises ``DecodeError``.

    Equal instruction words share one decoded shape (an LRU cache of 64 Ki entries), so
    ``fields`` is a read-only mapping."""
    word0 = _dword(code, pc)
    if word0 is None:
        raise DecodeError(pc, (), f"instruction runs past the end of the code ({len(code)} bytes)")
    try:
        shape = _shape(word0, _dword(code, pc + 4))
    except _Truncated as error:
        raise DecodeError(pc, error.words, f"{error.why} ({len(code)} bytes)") from None
    except _Invalid as error:
        raise DecodeError(pc, error.words, error.why) from None
    literal = None
    size = shape.size
    if shape.has_literal:
        literal = _dword(code, pc + size)
        if literal is None:
            words = _dwords(code, pc, size // 4)
            raise DecodeError(pc, words, f"instruction runs past the end of the code ({len(code)} bytes)")
        size += 4
    return Instruction(pc, size, shape.encoding, shape.opcode, shape.fields, literal, shape.form, shape.info)


def _normalise(fmt: enc.Format, fields: dict[str, int], form: str, info: OpInfo) -> None:
    if "vsrc1" in fields and "src1" not in fields:
        fields["src1"] = fields["vsrc1"] + VGPR_BASE
    if form == "e64" and native_form(info) == "VOPC":
        fields["sdst"] = fields["vdst"]
    elif form == "sdwa" and fmt.name == "VOPC" and not fields["sd"]:
        fields["sdst"] = VCC_LO_CODE
    if fmt is enc.VOP3P:
        fields["op_sel_hi"] |= fields.pop("op_sel_hi2") << 2


def decode_all(code: bytes, start: int, end: int) -> list[Instruction]:
    """Decode the instructions that tile ``code[start:end]`` back to back; raises ``DecodeError``
    at the first that cannot be decoded or that runs past ``end``."""
    result: list[Instruction] = []
    pc = start
    while pc < end:
        inst = decode(code, pc)
        if pc + inst.size > end:
            raise DecodeError(pc, _dwords(code, pc, (end - pc) // 4),
                              f"{inst.opcode} ({inst.size} bytes) runs past the end 0x{end:X}")
        result.append(inst)
        pc += inst.size
    return result
