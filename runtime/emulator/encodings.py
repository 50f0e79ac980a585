"""gfx942 (CDNA3) instruction encodings: how to recognise each format and where its fields lie.

Invariant: every format LLVM 22 emits for gfx942 is described here once, as data: a ``Format`` names
the encoding, its base size in bytes, the fixed opcode-space prefix of the first dword, and its fields
as ``(name, dword, low bit, width, signed)``.  ``classify(word0)`` returns the format of a first dword
or ``None``; it never guesses.  Field names follow the CDNA3 ISA guide (``ssrc0``, ``sdst``, ``vdst``,
``src0``, ``vsrc1``, ``simm16``, ``offset0``...), with the gfx940 cache-policy names ``sc0``, ``sc1``
and ``nt`` where LLVM prints them.

The VOP3 opcode space (10 bits) also holds the promoted VOPC (0x000-0x0FF), VOP2 (0x100-0x13F) and
VOP1 (0x140-0x1BF) opcodes; VOP3P is the part of that space whose top three opcode bits are set
(first dword bits 31:23 = 0x1A7).  The DPP and SDWA extension dwords follow a VOP1/VOP2/VOPC dword
whose ``src0`` is 0xFA or 0xF9.  Sources: AMD "CDNA3 Instruction Set Architecture", chapter
"Microcode Formats", and LLVM ``llvm/lib/Target/AMDGPU/*Instructions.td`` (``Enc32``/``Enc64``
bit assignments for ``GFX940``).

Field meanings an executor needs beyond the names: SMEM ``imm`` = 1 makes ``offset`` a signed byte
offset (plus the SGPR ``soffset`` when ``soe`` = 1), ``imm`` = 0 makes the low bits of ``offset``
an SGPR code; GLOBAL ``saddr`` = 0x7F means ``off`` (64-bit VGPR address), any other value an SGPR
pair base plus a 32-bit VGPR offset; FLAT-segment instructions have no SGPR base whatever ``saddr``
holds; SCRATCH ``sve`` = 1 adds the VGPR ``vaddr``, ``saddr`` = 0x7F means no SGPR; MUBUF
``buffer_wbl2``/``buffer_inv`` only carry ``sc0``/``sc1``.  ``acc`` selects AGPRs for the data
registers of DS/FLAT/MUBUF and the A/B sources of MFMA (``acc_cd`` for C and D).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Field:
    """One bit field: ``width`` bits starting at bit ``lo`` of dword ``word`` (0 = first dword)."""

    name: str
    word: int
    lo: int
    width: int
    signed: bool = False

    def extract(self, words: tuple[int, ...]) -> int:
        value = (words[self.word] >> self.lo) & ((1 << self.width) - 1)
        if self.signed and value >> (self.width - 1):
            value -= 1 << self.width
        return value


@dataclass(frozen=True, slots=True, eq=False)
class Format:
    """An encoding: name, base size (4 or 8 bytes, before any literal), fields, opcode field name.
    Formats are singletons compared by identity (cheap to hash as dictionary keys)."""

    name: str
    size: int
    fields: tuple[Field, ...]
    opcode_field: str = "op"


def _f(name: str, word: int, hi: int, lo: int, signed: bool = False) -> Field:
    return Field(name, word, lo, hi - lo + 1, signed)


SOP2 = Format("SOP2", 4, (_f("ssrc0", 0, 7, 0), _f("ssrc1", 0, 15, 8), _f("sdst", 0, 22, 16),
                          _f("op", 0, 29, 23)))
SOPK = Format("SOPK", 4, (_f("simm16", 0, 15, 0), _f("sdst", 0, 22, 16), _f("op", 0, 27, 23)))
SOP1 = Format("SOP1", 4, (_f("ssrc0", 0, 7, 0), _f("op", 0, 15, 8), _f("sdst", 0, 22, 16)))
SOPC = Format("SOPC", 4, (_f("ssrc0", 0, 7, 0), _f("ssrc1", 0, 15, 8), _f("op", 0, 22, 16)))
SOPP = Format("SOPP", 4, (_f("simm16", 0, 15, 0), _f("op", 0, 22, 16)))
SMEM = Format("SMEM", 8, (_f("sbase", 0, 5, 0), _f("sdata", 0, 12, 6), _f("soe", 0, 14, 14),
                          _f("nv", 0, 15, 15), _f("glc", 0, 16, 16), _f("imm", 0, 17, 17),
                          _f("op", 0, 25, 18), _f("offset", 1, 20, 0, signed=True),
                          _f("soffset", 1, 31, 25)))
VOP2 = Format("VOP2", 4, (_f("src0", 0, 8, 0), _f("vsrc1", 0, 16, 9), _f("vdst", 0, 24, 17),
                          _f("op", 0, 30, 25)))
VOP1 = Format("VOP1", 4, (_f("src0", 0, 8, 0), _f("op", 0, 16, 9), _f("vdst", 0, 24, 17)))
VOPC = Format("VOPC", 4, (_f("src0", 0, 8, 0), _f("vsrc1", 0, 16, 9), _f("op", 0, 24, 17)))
_VOP3_SOURCES = (_f("src0", 1, 8, 0), _f("src1", 1, 17, 9), _f("src2", 1, 26, 18))
VOP3A = Format("VOP3", 8, (_f("vdst", 0, 7, 0), _f("abs", 0, 10, 8), _f("op_sel", 0, 14, 11),
                           _f("clamp", 0, 15, 15), _f("op", 0, 25, 16), *_VOP3_SOURCES,
                           _f("omod", 1, 28, 27), _f("neg", 1, 31, 29)))
# VOP3b: the carry-out / scale-flag SGPR destination replaces abs and op_sel.
VOP3B = Format("VOP3", 8, (_f("vdst", 0, 7, 0), _f("sdst", 0, 14, 8), _f("clamp", 0, 15, 15),
                           _f("op", 0, 25, 16), *_VOP3_SOURCES, _f("omod", 1, 28, 27),
                           _f("neg", 1, 31, 29)))
# VOP3P: op_sel_hi is split: bits 1:0 in dword 1, bit 2 in dword 0 (assembled by the decoder).
VOP3P = Format("VOP3P", 8, (_f("vdst", 0, 7, 0), _f("neg_hi", 0, 10, 8), _f("op_sel", 0, 13, 11),
                            _f("op_sel_hi2", 0, 14, 14), _f("clamp", 0, 15, 15), _f("op", 0, 22, 16),
                            *_VOP3_SOURCES, _f("op_sel_hi", 1, 28, 27), _f("neg", 1, 31, 29)))
# VOP3P-MAI (MFMA, v_accvgpr_*): same opcode space as VOP3P, different modifier bits.
VOP3P_MAI = Format("VOP3P", 8, (_f("vdst", 0, 7, 0), _f("cbsz", 0, 10, 8), _f("abid", 0, 14, 11),
                                _f("acc_cd", 0, 15, 15), _f("op", 0, 22, 16), *_VOP3_SOURCES,
                                _f("acc", 1, 28, 27), _f("blgp", 1, 31, 29)))
DS = Format("DS", 8, (_f("offset0", 0, 7, 0), _f("offset1", 0, 15, 8), _f("gds", 0, 16, 16),
                      _f("op", 0, 24, 17), _f("acc", 0, 25, 25), _f("addr", 1, 7, 0),
                      _f("data0", 1, 15, 8), _f("data1", 1, 23, 16), _f("vdst", 1, 31, 24)))
_FLAT_FIELDS = (_f("seg", 0, 15, 14), _f("sc0", 0, 16, 16), _f("nt", 0, 17, 17), _f("op", 0, 24, 18),
                _f("sc1", 0, 25, 25), _f("vaddr", 1, 7, 0), _f("vdata", 1, 15, 8), _f("saddr", 1, 22, 16),
                _f("acc", 1, 23, 23), _f("vdst", 1, 31, 24))
# Bit 13 is ``sve`` (a VGPR address is present) for SCRATCH and ``lds`` (load to LDS) otherwise.
# FLAT-segment offsets are 12-bit unsigned on gfx942; GLOBAL and SCRATCH offsets 13-bit signed.
FLAT = Format("FLAT", 8, (_f("offset", 0, 11, 0), _f("lds", 0, 13, 13), *_FLAT_FIELDS))
SCRATCH = Format("SCRATCH", 8, (_f("offset", 0, 12, 0, signed=True), _f("sve", 0, 13, 13), *_FLAT_FIELDS))
GLOBAL = Format("GLOBAL", 8, (_f("offset", 0, 12, 0, signed=True), _f("lds", 0, 13, 13), *_FLAT_FIELDS))
MUBUF = Format("MUBUF", 8, (_f("offset", 0, 11, 0), _f("offen", 0, 12, 12), _f("idxen", 0, 13, 13),
                            _f("sc0", 0, 14, 14), _f("sc1", 0, 15, 15), _f("lds", 0, 16, 16),
                            _f("nt", 0, 17, 17), _f("op", 0, 24, 18), _f("vaddr", 1, 7, 0),
                            _f("vdata", 1, 15, 8), _f("srsrc", 1, 20, 16), _f("acc", 1, 23, 23),
                            _f("soffset", 1, 31, 24)))

# Extension dwords of VOP1/VOP2/VOPC (the second dword; src0 there is a register number).
DPP = Format("DPP", 4, (_f("src0", 0, 7, 0), _f("dpp_ctrl", 0, 16, 8), _f("bound_ctrl", 0, 19, 19),
                        _f("src0_neg", 0, 20, 20), _f("src0_abs", 0, 21, 21), _f("src1_neg", 0, 22, 22),
                        _f("src1_abs", 0, 23, 23), _f("bank_mask", 0, 27, 24),
                        _f("row_mask", 0, 31, 28)))
_SDWA_SOURCES = (_f("src0", 0, 7, 0), _f("src0_sel", 0, 18, 16), _f("src0_sext", 0, 19, 19),
                 _f("src0_neg", 0, 20, 20), _f("src0_abs", 0, 21, 21), _f("src0_sgpr", 0, 23, 23),
                 _f("src1_sel", 0, 26, 24), _f("src1_sext", 0, 27, 27), _f("src1_neg", 0, 28, 28),
                 _f("src1_abs", 0, 29, 29), _f("src1_sgpr", 0, 31, 31))
SDWA = Format("SDWA", 4, (*_SDWA_SOURCES, _f("dst_sel", 0, 10, 8), _f("dst_unused", 0, 12, 11),
                          _f("clamp", 0, 13, 13), _f("omod", 0, 15, 14)))
# VOPC with SDWA: bits 15:8 name the compare destination (sd = 1: an SGPR pair, else VCC).
SDWA_VOPC = Format("SDWA", 4, (*_SDWA_SOURCES, _f("sdst", 0, 14, 8), _f("sd", 0, 15, 15)))

SRC0_SDWA = 0xF9
SRC0_DPP = 0xFA

_SOP_PREFIX = {0x17D: SOP1, 0x17E: SOPC, 0x17F: SOPP}
_SEGMENTS = (FLAT, SCRATCH, GLOBAL)
_BY_TOP6 = {0b110000: SMEM, 0b110110: DS, 0b111000: MUBUF}


def classify(word0: int) -> Format | None:
    """The format of an instruction whose first dword is ``word0`` (VOP3/VOP3P variant chosen
    later by opcode), or ``None`` for an encoding gfx942 does not have (MIMG, EXP, MTBUF...)."""
    top = word0 >> 23
    if top >> 8 == 0:  # bit 31 clear: VOP2, VOP1 (0x3F) or VOPC (0x3E)
        kind = word0 >> 25
        return VOP1 if kind == 0x3F else VOPC if kind == 0x3E else VOP2
    if word0 >> 30 == 0b10:
        if top in _SOP_PREFIX:
            return _SOP_PREFIX[top]
        return SOPK if word0 >> 28 == 0b1011 else SOP2
    top6 = word0 >> 26
    if top6 == 0b110100:
        return VOP3P if top == 0x1A7 else VOP3A
    if top6 == 0b110111:
        segment = (word0 >> 14) & 3
        return _SEGMENTS[segment] if segment < 3 else None
    return _BY_TOP6.get(top6)
