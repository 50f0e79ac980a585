"""Scalar ALU semantics: SOP2, SOP1 and SOPC (CDNA3 ISA ch. 4 and the SOP opcode tables).

Invariant: each opcode is one entry mapping unsigned Python-int sources to ``(result, scc)`` where
``scc`` is ``None`` when the instruction leaves SCC alone; results are masked to the destination
width by the writer. Signed views (``_s32``/``_s64``) are taken explicitly where the ISA says
"signed". EXEC-writing ops go through ``Wave.set_sreg*`` so ``exec_mask`` stays in step.
"""

from __future__ import annotations

from collections.abc import Callable

from ptx2gcn.runtime.emulator.decoder import Instruction
from ptx2gcn.runtime.emulator.errors import WaveFault
from ptx2gcn.runtime.emulator.semantics_common import (
    Builder,
    Handler,
    ScalarRead,
    ScalarWrite,
    scalar_reader,
    scalar_writer,
)
from ptx2gcn.runtime.emulator.wave import M0, MASK32, MASK64, Wave

Result = tuple[int, int | None]
Op2 = Callable[[int, int, int], Result]  # (s0, s1, scc) -> (d, scc)


def _s32(x: int) -> int:
    return x - (1 << 32) if x & 0x80000000 else x


def _s64(x: int) -> int:
    return x - (1 << 64) if x >> 63 & 1 else x


def sext(x: int, bits: int) -> int:
    x &= (1 << bits) - 1
    return x - (1 << bits) if bits and x >> (bits - 1) & 1 else x


def _nz(d: int, mask: int = MASK32) -> Result:
    return d & mask, int(d & mask != 0)


def add_i32(a: int, b: int) -> Result:
    r = _s32(a) + _s32(b)
    return r & MASK32, int(not -(1 << 31) <= r < 1 << 31)


def _sub_i32(a: int, b: int) -> Result:
    r = _s32(a) - _s32(b)
    return r & MASK32, int(not -(1 << 31) <= r < 1 << 31)


def _bfe(value: int, control: int, bits: int, signed: bool) -> Result:
    offset = control & (bits - 1)
    width = control >> 16 & 0x7F
    field = value >> offset & ((1 << width) - 1) if width else 0
    if signed and width:
        field = sext(field, min(width, bits - offset)) & ((1 << bits) - 1)
    return _nz(field, (1 << bits) - 1)


def _shift_add(n: int) -> Op2:
    def op(a: int, b: int, scc: int) -> Result:
        total = ((a << n) & MASK32) + b
        return total & MASK32, int(total >> 32 != 0 or a >> (32 - n) != 0)

    return op


SOP2: dict[str, Op2] = {
    "s_add_u32": lambda a, b, c: ((a + b) & MASK32, int(a + b > MASK32)),
    "s_sub_u32": lambda a, b, c: ((a - b) & MASK32, int(b > a)),
    "s_add_i32": lambda a, b, c: add_i32(a, b),
    "s_sub_i32": lambda a, b, c: _sub_i32(a, b),
    "s_addc_u32": lambda a, b, c: ((a + b + c) & MASK32, int(a + b + c > MASK32)),
    "s_subb_u32": lambda a, b, c: ((a - b - c) & MASK32, int(b + c > a)),
    "s_min_i32": lambda a, b, c: (a if _s32(a) < _s32(b) else b, int(_s32(a) < _s32(b))),
    "s_min_u32": lambda a, b, c: (min(a, b), int(a < b)),
    "s_max_i32": lambda a, b, c: (a if _s32(a) > _s32(b) else b, int(_s32(a) > _s32(b))),
    "s_max_u32": lambda a, b, c: (max(a, b), int(a > b)),
    "s_cselect_b32": lambda a, b, c: (a if c else b, None),
    "s_cselect_b64": lambda a, b, c: (a if c else b, None),
    "s_and_b32": lambda a, b, c: _nz(a & b),
    "s_and_b64": lambda a, b, c: _nz(a & b, MASK64),
    "s_or_b32": lambda a, b, c: _nz(a | b),
    "s_or_b64": lambda a, b, c: _nz(a | b, MASK64),
    "s_xor_b32": lambda a, b, c: _nz(a ^ b),
    "s_xor_b64": lambda a, b, c: _nz(a ^ b, MASK64),
    "s_andn2_b32": lambda a, b, c: _nz(a & ~b),
    "s_andn2_b64": lambda a, b, c: _nz(a & ~b, MASK64),
    "s_orn2_b32": lambda a, b, c: _nz(a | ~b),
    "s_orn2_b64": lambda a, b, c: _nz(a | ~b, MASK64),
    "s_nand_b32": lambda a, b, c: _nz(~(a & b)),
    "s_nand_b64": lambda a, b, c: _nz(~(a & b), MASK64),
    "s_nor_b32": lambda a, b, c: _nz(~(a | b)),
    "s_nor_b64": lambda a, b, c: _nz(~(a | b), MASK64),
    "s_xnor_b32": lambda a, b, c: _nz(~(a ^ b)),
    "s_xnor_b64": lambda a, b, c: _nz(~(a ^ b), MASK64),
    "s_lshl_b32": lambda a, b, c: _nz(a << (b & 31)),
    "s_lshl_b64": lambda a, b, c: _nz(a << (b & 63), MASK64),
    "s_lshr_b32": lambda a, b, c: _nz(a >> (b & 31)),
    "s_lshr_b64": lambda a, b, c: _nz(a >> (b & 63), MASK64),
    "s_ashr_i32": lambda a, b, c: _nz(_s32(a) >> (b & 31)),
    "s_ashr_i64": lambda a, b, c: _nz(_s64(a) >> (b & 63), MASK64),
    "s_bfm_b32": lambda a, b, c: ((((1 << (a & 31)) - 1) << (b & 31)) & MASK32, None),
    "s_bfm_b64": lambda a, b, c: ((((1 << (a & 63)) - 1) << (b & 63)) & MASK64, None),
    "s_mul_i32": lambda a, b, c: ((a * b) & MASK32, None),
    "s_mul_hi_u32": lambda a, b, c: ((a * b) >> 32, None),
    "s_mul_hi_i32": lambda a, b, c: ((_s32(a) * _s32(b)) >> 32 & MASK32, None),
    "s_bfe_u32": lambda a, b, c: _bfe(a, b, 32, False),
    "s_bfe_i32": lambda a, b, c: _bfe(a, b, 32, True),
    "s_bfe_u64": lambda a, b, c: _bfe(a, b, 64, False),
    "s_bfe_i64": lambda a, b, c: _bfe(a, b, 64, True),
    "s_absdiff_i32": lambda a, b, c: _nz(abs(_s32(a) - _s32(b))),
    "s_lshl1_add_u32": _shift_add(1),
    "s_lshl2_add_u32": _shift_add(2),
    "s_lshl3_add_u32": _shift_add(3),
    "s_lshl4_add_u32": _shift_add(4),
    "s_pack_ll_b32_b16": lambda a, b, c: ((a & 0xFFFF) | (b & 0xFFFF) << 16, None),
    "s_pack_lh_b32_b16": lambda a, b, c: ((a & 0xFFFF) | (b >> 16) << 16, None),
    "s_pack_hh_b32_b16": lambda a, b, c: ((a >> 16) | (b >> 16) << 16, None),
}


def _ff(value: int, bits: int, want: int) -> int:
    for i in range(bits):
        if value >> i & 1 == want:
            return i
    return MASK32


def _flbit(value: int, bits: int) -> int:
    return MASK32 if value == 0 else bits - value.bit_length()


def _flbit_signed(value: int, bits: int) -> int:
    if value >> (bits - 1) & 1:
        value = ~value & ((1 << bits) - 1)
    return _flbit(value, bits)


def _brev(value: int, bits: int) -> int:
    return int(f"{value:0{bits}b}"[::-1], 2)


def _wqm(value: int, bits: int) -> Result:
    out = 0
    for quad in range(0, bits, 4):
        if value >> quad & 0xF:
            out |= 0xF << quad
    return _nz(out, (1 << bits) - 1)


def _quadmask(value: int, bits: int) -> Result:
    out = 0
    for quad in range(bits // 4):
        if value >> (4 * quad) & 0xF:
            out |= 1 << quad
    return _nz(out)


def _bitreplicate(value: int) -> int:
    return sum(3 << (2 * i) for i in range(32) if value >> i & 1)


Op1 = Callable[[int, int, int], Result]  # (s0, d_old, scc) -> (d, scc)

SOP1: dict[str, Op1] = {
    "s_mov_b32": lambda a, d, c: (a, None),
    "s_mov_b64": lambda a, d, c: (a, None),
    "s_cmov_b32": lambda a, d, c: (a if c else d, None),
    "s_cmov_b64": lambda a, d, c: (a if c else d, None),
    "s_not_b32": lambda a, d, c: _nz(~a),
    "s_not_b64": lambda a, d, c: _nz(~a, MASK64),
    "s_wqm_b32": lambda a, d, c: _wqm(a, 32),
    "s_wqm_b64": lambda a, d, c: _wqm(a, 64),
    "s_brev_b32": lambda a, d, c: (_brev(a, 32), None),
    "s_brev_b64": lambda a, d, c: (_brev(a, 64), None),
    "s_bcnt0_i32_b32": lambda a, d, c: _nz(32 - a.bit_count()),
    "s_bcnt0_i32_b64": lambda a, d, c: _nz(64 - a.bit_count()),
    "s_bcnt1_i32_b32": lambda a, d, c: _nz(a.bit_count()),
    "s_bcnt1_i32_b64": lambda a, d, c: _nz(a.bit_count()),
    "s_ff0_i32_b32": lambda a, d, c: (_ff(a, 32, 0), None),
    "s_ff0_i32_b64": lambda a, d, c: (_ff(a, 64, 0), None),
    "s_ff1_i32_b32": lambda a, d, c: (_ff(a, 32, 1), None),
    "s_ff1_i32_b64": lambda a, d, c: (_ff(a, 64, 1), None),
    "s_flbit_i32_b32": lambda a, d, c: (_flbit(a, 32), None),
    "s_flbit_i32_b64": lambda a, d, c: (_flbit(a, 64), None),
    "s_flbit_i32": lambda a, d, c: (_flbit_signed(a, 32), None),
    "s_flbit_i32_i64": lambda a, d, c: (_flbit_signed(a, 64), None),
    "s_sext_i32_i8": lambda a, d, c: (sext(a, 8) & MASK32, None),
    "s_sext_i32_i16": lambda a, d, c: (sext(a, 16) & MASK32, None),
    "s_bitset0_b32": lambda a, d, c: (d & ~(1 << (a & 31)) & MASK32, None),
    "s_bitset0_b64": lambda a, d, c: (d & ~(1 << (a & 63)) & MASK64, None),
    "s_bitset1_b32": lambda a, d, c: (d | 1 << (a & 31), None),
    "s_bitset1_b64": lambda a, d, c: (d | 1 << (a & 63), None),
    "s_abs_i32": lambda a, d, c: _nz(abs(_s32(a))),
    "s_quadmask_b32": lambda a, d, c: _quadmask(a, 32),
    "s_quadmask_b64": lambda a, d, c: _quadmask(a, 64),
    "s_bitreplicate_b64_b32": lambda a, d, c: (_bitreplicate(a), None),
}

# saveexec family: (s0, exec) -> new exec; D = old EXEC (wrexec: D = new EXEC); SCC = new EXEC != 0.
SAVEEXEC: dict[str, Callable[[int, int], int]] = {
    "s_and_saveexec_b64": lambda s, e: s & e,
    "s_or_saveexec_b64": lambda s, e: s | e,
    "s_xor_saveexec_b64": lambda s, e: s ^ e,
    "s_andn2_saveexec_b64": lambda s, e: s & ~e,
    "s_orn2_saveexec_b64": lambda s, e: s | ~e,
    "s_nand_saveexec_b64": lambda s, e: ~(s & e),
    "s_nor_saveexec_b64": lambda s, e: ~(s | e),
    "s_xnor_saveexec_b64": lambda s, e: ~(s ^ e),
    "s_andn1_saveexec_b64": lambda s, e: ~s & e,
    "s_orn1_saveexec_b64": lambda s, e: ~s | e,
    "s_andn1_wrexec_b64": lambda s, e: ~s & e,
    "s_andn2_wrexec_b64": lambda s, e: s & ~e,
}

Cmp = Callable[[int, int], bool]
SOPC: dict[str, Cmp] = {
    "s_cmp_eq_i32": lambda a, b: a == b,
    "s_cmp_lg_i32": lambda a, b: a != b,
    "s_cmp_gt_i32": lambda a, b: _s32(a) > _s32(b),
    "s_cmp_ge_i32": lambda a, b: _s32(a) >= _s32(b),
    "s_cmp_lt_i32": lambda a, b: _s32(a) < _s32(b),
    "s_cmp_le_i32": lambda a, b: _s32(a) <= _s32(b),
    "s_cmp_eq_u32": lambda a, b: a == b,
    "s_cmp_lg_u32": lambda a, b: a != b,
    "s_cmp_gt_u32": lambda a, b: a > b,
    "s_cmp_ge_u32": lambda a, b: a >= b,
    "s_cmp_lt_u32": lambda a, b: a < b,
    "s_cmp_le_u32": lambda a, b: a <= b,
    "s_cmp_eq_u64": lambda a, b: a == b,
    "s_cmp_lg_u64": lambda a, b: a != b,
    "s_bitcmp0_b32": lambda a, b: not a >> (b & 31) & 1,
    "s_bitcmp1_b32": lambda a, b: bool(a >> (b & 31) & 1),
    "s_bitcmp0_b64": lambda a, b: not a >> (b & 63) & 1,
    "s_bitcmp1_b64": lambda a, b: bool(a >> (b & 63) & 1),
}


def _bits(inst: Instruction, index: int) -> int:
    assert inst.info is not None
    return inst.info.srcs[index].bits if index < len(inst.info.srcs) else 32


def _dst_bits(inst: Instruction) -> int:
    assert inst.info is not None
    return inst.info.dst.bits if inst.info.dst is not None else 32


def _signed(inst: Instruction, index: int) -> bool:
    assert inst.info is not None
    return index < len(inst.info.srcs) and inst.info.srcs[index].is_signed


def _bind_sop2(inst: Instruction) -> Handler:
    op = SOP2[inst.opcode]
    f = inst.fields
    a = scalar_reader(inst, f["ssrc0"], _bits(inst, 0), signed=_signed(inst, 0))
    b = scalar_reader(inst, f["ssrc1"], _bits(inst, 1), signed=_signed(inst, 1))
    return _scalar_op(op, a, b, scalar_writer(inst, f["sdst"], _dst_bits(inst)))


def _bind_sop1(inst: Instruction) -> Handler:
    op = SOP1[inst.opcode]
    f = inst.fields
    bits = _dst_bits(inst)
    a = scalar_reader(inst, f["ssrc0"], _bits(inst, 0), signed=_signed(inst, 0))
    old = scalar_reader(inst, f["sdst"], bits) if f["sdst"] < 128 else (lambda w: 0)
    return _scalar_op(op, a, old, scalar_writer(inst, f["sdst"], bits))


def _scalar_op(op: Op2, a: ScalarRead, b: ScalarRead, write: ScalarWrite) -> Handler:
    """The handler of a SOP2/SOP1 operation: ``d, scc = op(a, b, SCC)``; SCC is kept when ``op``
    gives None for it."""

    def run(w: Wave) -> None:
        d, scc = op(a(w), b(w), w.scc)
        write(w, d)
        if scc is not None:
            w.scc = scc

    return run


def _bind_saveexec(inst: Instruction) -> Handler:
    op = SAVEEXEC[inst.opcode]
    a = scalar_reader(inst, inst.fields["ssrc0"], 64)
    write = scalar_writer(inst, inst.fields["sdst"], 64)
    wrexec = inst.opcode.endswith("wrexec_b64")

    def run(w: Wave) -> None:
        source, old = a(w), w.exec
        new = op(source, old) & MASK64
        w.set_exec(new)
        write(w, new if wrexec else old)
        w.scc = int(new != 0)

    return run


def _bind_pc(inst: Instruction) -> Handler:
    f = inst.fields
    name = inst.opcode
    # Handlers run with ``w.pc`` already past the instruction: that is the "PC + 4" the ISA saves.
    if name == "s_getpc_b64":
        write = scalar_writer(inst, f["sdst"], 64)
        return lambda w: write(w, w.pc)
    source = scalar_reader(inst, f["ssrc0"], 64)
    if name == "s_setpc_b64":

        def setpc(w: Wave) -> None:
            w.pc = source(w)

        return setpc
    write = scalar_writer(inst, f["sdst"], 64)

    def swappc(w: Wave) -> None:
        target = source(w)
        write(w, w.pc)
        w.pc = target

    return swappc


def _relative(base: int, offset: int, step: int) -> int:
    """SGPR ``base + M0`` of s_movrels/s_movreld; it must stay inside s0..s101 (a fault otherwise)."""
    code = base + offset
    if code + step > 102:
        raise WaveFault(f"M0-relative SGPR index s{code} (base s{base} + M0 {offset}) is outside s0..s101")
    return code


def _bind_movrel(inst: Instruction) -> Handler:
    f = inst.fields
    bits = _dst_bits(inst)
    step = bits // 32
    if inst.opcode.startswith("s_movrels"):
        base, dst = f["ssrc0"], f["sdst"]
        write = scalar_writer(inst, dst, bits)

        def movrels(w: Wave) -> None:
            code = _relative(base, w.s[M0], step)
            write(w, w.s[code] | (w.s[code + 1] << 32 if step == 2 else 0))

        return movrels
    read = scalar_reader(inst, f["ssrc0"], bits)

    def movreld(w: Wave) -> None:
        code = _relative(f["sdst"], w.s[M0], step)
        value = read(w)
        for i in range(step):
            w.set_sreg(code + i, value >> (32 * i))

    return movreld


def _bind_sopc(inst: Instruction) -> Handler:
    cmp = SOPC[inst.opcode]
    a = scalar_reader(inst, inst.fields["ssrc0"], _bits(inst, 0))
    b = scalar_reader(inst, inst.fields["ssrc1"], _bits(inst, 1))

    def run(w: Wave) -> None:
        w.scc = int(cmp(a(w), b(w)))

    return run


def builders() -> dict[str, Builder]:
    table: dict[str, Builder] = {}
    table.update({name: _bind_sop2 for name in SOP2})
    table.update({name: _bind_sop1 for name in SOP1})
    table.update({name: _bind_saveexec for name in SAVEEXEC})
    table.update({name: _bind_sopc for name in SOPC})
    for name in ("s_getpc_b64", "s_setpc_b64", "s_swappc_b64"):
        table[name] = _bind_pc
    for name in ("s_movrels_b32", "s_movrels_b64", "s_movreld_b32", "s_movreld_b64"):
        table[name] = _bind_movrel
    return table
