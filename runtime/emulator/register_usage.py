"""Which vector registers an instruction reads and writes, and how it counts for the MFMA hazard rules.

Invariant: ``usage(inst)`` lists, as register-file rows (v0..v255 = 0..255, a0..a255 = 256..511),
every VGPR/AGPR the instruction may read and every one it may write, over-approximating where a
form reads its destination (``v_fmac``-style accumulation, d16 loads that keep half a register)
and never missing one; it classifies the instruction the way LLVM's ``GCNHazardRecognizer`` does
for gfx940: "mfma" (a ``v_mfma_*``), "valu" (every other VALU, ``v_accvgpr_*`` included), "mem"
(DS, FLAT/GLOBAL/SCRATCH, MUBUF) or "other" (SALU, SMEM, SOPP); ``wait_states`` is 1, or N + 1
for ``s_nop N`` (SIMM16[3:0], CDNA3 ISA).
"""

from __future__ import annotations

from dataclasses import dataclass

from ptx2gcn.runtime.emulator.decoder import Instruction
from ptx2gcn.runtime.emulator.mfma_shapes import is_mfma, shape
from ptx2gcn.runtime.emulator.wave import EXEC_LO

Rows = tuple[int, ...]
_NO_ADDRESS_DS = frozenset({"ds_nop", "ds_append", "ds_consume", "ds_gws_init", "ds_gws_sema_v",
                            "ds_gws_sema_br", "ds_gws_sema_p", "ds_gws_barrier",
                            "ds_gws_sema_release_all", "ds_read_addtid_b32", "ds_write_addtid_b32"})
_SGPR_RESULT = ("v_readlane_b32", "v_readfirstlane_b32")
_ACCUMULATING = ("v_fmac_", "v_mac_", "v_dot2c_", "v_dot4c_", "v_dot8c_", "v_pk_fmac_")


@dataclass(frozen=True)
class Usage:
    kind: str
    reads: Rows
    writes: Rows
    wait_states: int = 1
    writes_exec: bool = False
    is_dot: bool = False
    is_fma64: bool = False
    ab: Rows = ()
    """MFMA: the rows of A and B."""
    c: Rows = ()
    """MFMA: the rows of C (empty for an inline constant)."""


def _span(row: int, count: int) -> Rows:
    return tuple(range(row, min(row + count, 512)))


def _vector(code: int, count: int, agpr: bool = False) -> Rows:
    return _span(code - 256 + (256 if agpr else 0), count) if code >= 256 else ()


def _mfma(inst: Instruction) -> Usage:
    s, f = shape(inst.opcode), inst.fields
    acc, acc_cd = f.get("acc", 0), bool(f.get("acc_cd"))
    ab = _vector(f["src0"], s.in_dwords, bool(acc & 1)) + _vector(f["src1"], s.in_dwords, bool(acc & 2))
    c = _vector(f["src2"], s.out_dwords, acc_cd)
    d = _span(f["vdst"] + (256 if acc_cd else 0), s.out_dwords)
    return Usage("mfma", ab + c, d, ab=ab, c=c)


def _valu(inst: Instruction) -> Usage:
    f, info, name = inst.fields, inst.info, inst.opcode
    assert info is not None
    reads: Rows = ()
    for index, dtype in enumerate(info.srcs[:3]):
        code = f.get(f"src{index}")
        if code is not None:
            agpr = index == 0 and name in ("v_accvgpr_read_b32", "v_accvgpr_mov_b32")
            reads += _vector(code, dtype.dwords, agpr)
    writes: Rows = ()
    writes_exec = f.get("sdst") in (EXEC_LO, EXEC_LO + 1) or "cmpx" in name
    if info.dst is not None and "vdst" in f and not name.startswith(("v_cmp", *_SGPR_RESULT)):
        writes = _span(f["vdst"] + (256 if name in ("v_accvgpr_write_b32", "v_accvgpr_mov_b32") else 0),
                       info.dst.dwords)
        if name.startswith(_ACCUMULATING) or inst.form == "sdwa" or f.get("op_sel", 0):
            reads += writes  # the destination is a source, or part of it is kept
    elif name.startswith(_SGPR_RESULT):
        writes_exec = f.get("vdst") in (EXEC_LO, EXEC_LO + 1)
    if name == "v_swap_b32":
        writes += _vector(f["src0"], 1)
    return Usage("valu", reads, writes, writes_exec=writes_exec, is_dot=name.startswith("v_dot"),
                 is_fma64=name in ("v_fma_f64", "v_fmac_f64"))


def _memory(inst: Instruction) -> Usage:
    f, info, name = inst.fields, inst.info, inst.opcode
    assert info is not None
    agpr = bool(f.get("acc"))
    data = [dtype.dwords for dtype in info.srcs]
    reads: Rows = ()
    if inst.encoding == "DS":
        if name not in _NO_ADDRESS_DS:
            reads += _span(f["addr"], 1)
        for field, dwords in zip(("data0", "data1"), data):
            reads += _span(f[field] + (256 if agpr else 0), dwords)
        vdst = f["vdst"]
    elif inst.encoding == "MUBUF":
        reads += _span(f["vaddr"], f["offen"] + f["idxen"])
        if data:
            reads += _span(f["vdata"] + (256 if agpr else 0), data[0])
        vdst = f["vdata"]
    else:
        if inst.encoding == "SCRATCH":
            reads += _span(f["vaddr"], 1) if f.get("sve") else ()
        else:
            reads += _span(f["vaddr"], 2 if inst.encoding == "FLAT" or f.get("saddr") == 0x7F else 1)
        for dwords in data[:1]:
            reads += _span(f["vdata"] + (256 if agpr else 0), dwords)
        vdst = f["vdst"]
    writes: Rows = ()
    returns = "atomic" not in name or f.get("sc0", 0) or f.get("glc", 0) or inst.encoding == "DS"
    if info.dst is not None and returns and not f.get("lds", 0):
        writes = _span(vdst + (256 if agpr else 0), info.dst.dwords)
        if "d16" in name:
            reads += writes
    return Usage("mem", reads, writes)


def usage(inst: Instruction) -> Usage:
    if is_mfma(inst.opcode):
        return _mfma(inst)
    if inst.encoding in ("VOP1", "VOP2", "VOPC", "VOP3", "VOP3P"):
        return _valu(inst)
    if inst.encoding in ("DS", "FLAT", "GLOBAL", "SCRATCH", "MUBUF"):
        return _memory(inst)
    waits = (inst.fields.get("simm16", 0) & 0xF) + 1 if inst.opcode == "s_nop" else 1
    return Usage("other", (), (), wait_states=waits)
