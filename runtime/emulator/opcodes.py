"""gfx942 opcode lookup: (encoding, opcode number) -> ``OpInfo``, over the per-family tables.

Invariant: one row per (encoding, opcode number) names the instruction exactly as LLVM 22 spells it
for gfx942 (without the ``_e32``/``_e64``/``_dpp``/``_sdwa`` form suffix): the scalar rows live in
``opcodes_salu``, the vector ALU rows in ``opcodes_valu``, the memory rows in ``opcodes_memory``.
Every other fact about an opcode (data types and widths of its destination and sources, VOP3b
carry-out, MFMA) is derived from that name by ``opcodes_types.signature``, so one edit changes one
instruction everywhere. ``lookup(encoding, op)`` returns the ``OpInfo`` or ``None``.

The rows were produced by running every opcode number of every encoding through LLVM 22's gfx942
disassembler once, offline; ``tests/emu/test_decoder_llvm.py`` re-checks every row, its operand
register widths (through the printed register ranges) and its text against llvm-objdump and
llvm-mc. VOP3 rows hold only VOP3-only opcodes; the promoted VOPC/VOP2/VOP1 forms live at 0x000+op,
0x100+op and 0x140+op of the VOP3 space and reuse the native row (``NO_VOP3_FORM`` lists the native
opcodes that have no promoted form).

For VOP instructions ``OpInfo.srcs`` lists src0, src1, src2 in encoding order; for SALU ssrc0,
ssrc1; for memory instructions the data operand(s) (DS data0, data1; FLAT/GLOBAL/SCRATCH/MUBUF/SMEM
vdata or sdata) and ``dst`` the returned data (``None`` for stores and non-returning forms; atomics
return only when ``sc0``/``glc`` is set).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from ptx2gcn.runtime.emulator.opcodes_memory import (
    DS_NAMES,
    FLAT_NAMES,
    GLOBAL_NAMES,
    MUBUF_NAMES,
    SCRATCH_NAMES,
)
from ptx2gcn.runtime.emulator.opcodes_salu import (
    SMEM_NAMES,
    SOP1_NAMES,
    SOP2_NAMES,
    SOPC_NAMES,
    SOPK_NAMES,
    SOPP_NAMES,
)
from ptx2gcn.runtime.emulator.opcodes_types import DType, signature, vop3p_source_count
from ptx2gcn.runtime.emulator.opcodes_valu import (
    NO_VOP3_FORM,
    VOP1_NAMES,
    VOP2_NAMES,
    VOP3_CARRY_OUT,
    VOP3_NAMES,
    VOP3_PROMOTED_BASE,
    VOP3P_NAMES,
    VOPC_NAMES,
)

__all__ = ["NO_VOP3_FORM", "DType", "OpInfo", "all_opcodes", "lookup", "native_form"]

_SOURCE_COUNT: dict[str, int] = {"SOP1": 1, "SOP2": 2, "SOPC": 2, "SOPK": 0, "SOPP": 0,
                                 "VOP1": 1, "VOP2": 2, "VOPC": 2}


@dataclass(frozen=True, slots=True)
class OpInfo:
    """Static facts about one opcode of one encoding."""

    name: str
    encoding: str
    op: int
    dst: DType | None
    srcs: tuple[DType, ...]
    vop3b: bool = False
    """VOP3 form carries an SGPR destination (carry-out / div_scale flag) in ``sdst``."""
    mai: bool = False
    """MFMA / ``v_accvgpr_*``: VOP3P-MAI modifier fields (cbsz, abid, blgp, acc)."""
    promoted_from: str | None = None
    """For a VOP3 row that is the ``_e64`` form of a VOPC/VOP2/VOP1 opcode: that encoding."""


def _info(encoding: str, op: int, row: str) -> OpInfo:
    name, _, count_text = row.partition("/")
    if count_text:
        count = int(count_text)
    elif encoding == "VOP3P":
        count = vop3p_source_count(name)
    else:
        count = _SOURCE_COUNT.get(encoding, 0)
    dst, srcs = signature(name, encoding, count)
    return OpInfo(name, encoding, op, dst, srcs, vop3b=name in VOP3_CARRY_OUT,
                  mai=name.startswith(("v_mfma", "v_smfmac", "v_accvgpr")))


_NATIVE: dict[str, dict[int, str]] = {
    "SOP2": SOP2_NAMES, "SOPK": SOPK_NAMES, "SOP1": SOP1_NAMES, "SOPC": SOPC_NAMES, "SOPP": SOPP_NAMES,
    "SMEM": SMEM_NAMES, "VOP2": VOP2_NAMES, "VOP1": VOP1_NAMES, "VOPC": VOPC_NAMES, "VOP3": VOP3_NAMES,
    "VOP3P": VOP3P_NAMES, "DS": DS_NAMES, "FLAT": FLAT_NAMES, "GLOBAL": GLOBAL_NAMES,
    "SCRATCH": SCRATCH_NAMES, "MUBUF": MUBUF_NAMES,
}


@cache
def _all() -> dict[tuple[str, int], OpInfo]:
    table = {(enc, op): _info(enc, op, row) for enc, rows in _NATIVE.items() for op, row in rows.items()}
    for native, base in VOP3_PROMOTED_BASE.items():
        for op, row in _NATIVE[native].items():
            if row not in NO_VOP3_FORM:
                info = table[(native, op)]
                table[("VOP3", base + op)] = OpInfo(info.name, "VOP3", base + op, info.dst, info.srcs,
                                                   vop3b=info.vop3b, mai=info.mai, promoted_from=native)
    return table


def lookup(encoding: str, op: int) -> OpInfo | None:
    """The opcode ``op`` of ``encoding`` ("VOP3" includes promoted VOPC/VOP2/VOP1), or ``None``."""
    return _all().get((encoding, op))


def all_opcodes() -> list[OpInfo]:
    """Every (encoding, opcode) row, promoted VOP3 forms included."""
    return list(_all().values())


def native_form(info: OpInfo) -> str | None:
    """For a VOP3 row promoted from VOPC/VOP2/VOP1, that native encoding; else ``None``."""
    return info.promoted_from
