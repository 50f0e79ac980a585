"""The semantics table: opcode name -> builder, over every instruction family module; ``bind``.

Invariant: ``bind(inst)`` returns a handler for any decoded instruction. An opcode with no entry
(or a form its family does not implement) gets a handler that raises ``UnknownInstruction`` naming
the encoding, opcode and PC when - and only when - it is executed, so code objects load even if
they contain instructions a given kernel never reaches.
"""

from __future__ import annotations

import dataclasses
from functools import cache

from ptx2gcn.runtime.emulator import (
    semantics_control,
    semantics_division,
    semantics_ds,
    semantics_fp8,
    semantics_lane,
    semantics_mfma,
    semantics_packed,
    semantics_salu,
    semantics_sopk,
    semantics_vmem,
    semantics_vopc,
)
from ptx2gcn.runtime.emulator.decoder import Instruction
from ptx2gcn.runtime.emulator.errors import UnknownInstruction
from ptx2gcn.runtime.emulator.opcodes import all_opcodes
from ptx2gcn.runtime.emulator.operands import LITERAL_CODE
from ptx2gcn.runtime.emulator.semantics_common import Builder, Handler, unsupported
from ptx2gcn.runtime.emulator.semantics_valu import VOp, bind_vop
from ptx2gcn.runtime.emulator.semantics_valu_float import OPS as FLOAT_OPS
from ptx2gcn.runtime.emulator.semantics_valu_int import ACCUMULATING as INT_ACCUMULATING
from ptx2gcn.runtime.emulator.semantics_valu_int import OPS as INT_OPS
from ptx2gcn.runtime.emulator.wave import Wave

__all__ = ["Handler", "bind", "supported_opcodes"]

# Accumulating forms: the destination is also the third source.
_ACCUMULATE = frozenset({"v_fmac_f32", "v_fmac_f64", "v_mac_f16", "v_dot2c_f32_f16", *INT_ACCUMULATING})
# K-constant forms (VOP2 with a mandatory literal): fmamk D = S0 * K + S1, fmaak D = S0 * S1 + K.
_MADMK = {"v_fmamk_f32": "v_fma_f32", "v_madmk_f16": "v_mad_f16"}
_MADAK = {"v_fmaak_f32": "v_fma_f32", "v_madak_f16": "v_mad_f16"}


def _vop_builder(op: VOp) -> Builder:
    def build(inst: Instruction) -> Handler:
        return bind_vop(inst, op)

    return build


def _accumulate_builder(op: VOp) -> Builder:
    def build(inst: Instruction) -> Handler:
        fields = dict(inst.fields)
        fields["src2"] = 256 + fields["vdst"]
        return bind_vop(dataclasses.replace(inst, fields=fields), op)

    return build


def _k_builder(op: VOp, k_position: int) -> Builder:
    def build(inst: Instruction) -> Handler:
        if inst.form in ("dpp", "sdwa"):
            raise unsupported(inst, f"{inst.form} form of a K-constant instruction")
        fields = dict(inst.fields)
        if k_position == 1:
            fields["src1"], fields["src2"] = LITERAL_CODE, fields["src1"]
        else:
            fields["src2"] = LITERAL_CODE
        return bind_vop(dataclasses.replace(inst, fields=fields), op)

    return build


@cache
def _table() -> dict[str, Builder]:
    names = [info.name for info in all_opcodes()]
    table: dict[str, Builder] = {}
    for name, op in {**INT_OPS, **FLOAT_OPS}.items():
        table[name] = _accumulate_builder(op) if name in _ACCUMULATE else _vop_builder(op)
    for name, base in _MADMK.items():
        table[name] = _k_builder(FLOAT_OPS[base], 1)
    for name, base in _MADAK.items():
        table[name] = _k_builder(FLOAT_OPS[base], 2)
    table.update(semantics_lane.BUILDERS)
    table.update(semantics_division.BUILDERS)
    table.update(semantics_fp8.BUILDERS)
    table.update(semantics_packed.BUILDERS)
    table.update(semantics_salu.builders())
    table.update(semantics_sopk.builders())
    table.update(semantics_control.builders())
    table.update(semantics_vopc.builders(names))
    table.update(semantics_vmem.builders(names))
    table.update(semantics_ds.builders(names))
    table.update(semantics_mfma.builders())
    return table


def supported_opcodes() -> frozenset[str]:
    """Opcode names that have semantics (every form of them, unless a family says otherwise)."""
    return frozenset(_table())


def _raiser(error: UnknownInstruction) -> Handler:
    def run(w: Wave) -> None:
        raise error

    return run


def bind(inst: Instruction, pc: int) -> Handler:
    """The handler of ``inst``, which the executor runs at device address ``pc``."""
    builder = _table().get(inst.opcode)
    if builder is None:
        return _raiser(UnknownInstruction(pc, inst.encoding, f"{inst.opcode}: no semantics in the emulator"))
    try:
        return builder(inst)
    except UnknownInstruction as error:
        return _raiser(UnknownInstruction(pc, inst.encoding, str(error).split(": ", 2)[-1]))
