"""Which MFMA computes which PTX ``mma`` form, and how data moves between the PTX fragments and the
MFMA operands: compile-time tables only (no LLVM here; ``lower_mfma_forms`` turns a ``Plan`` into code).

Invariant: a ``Plan`` is derived from two layout descriptions and checked while it is built:
the PTX fragment layouts of ``matrix_layouts`` (``Layout.home``) and the CDNA3 layout of the
single-block 16x16xK MFMAs (docs/emulator-mfma.md: A/B element (i, k) in lane ``16*(k // E) + i``,
element ``k % E``; a 32-bit C/D element (i, j) in lane ``16*(i // 4) + j``, element ``i % 4``; an f64
one in lane ``16*(i % 4) + j``, element ``i // 4``). Every MFMA operand dword is one whole dword of
one PTX register of one lane (or zero, for K padding), so the code moves dwords with
``ds_bpermute_b32`` and never splits or repacks elements; ``_operand_table`` raises if a choice below
breaks that. What is chosen here, per form (``plan_for``):

- the MFMA (``OPS``, per target: gfx90a has no ``16x16x32_i8`` but ``16x16x16i8``, only gfx942 has
  ``16x16x8_xf32``);
- the *stacking* of the two CUDA warps of the wave: ``pair`` (16-row forms): MFMA chain w multiplies
  warp w's A (rows permuted by ``rho``) by the shared B = [B_0 | B_1] and C = [C_0 | C_1] and its
  columns 8w..8w+7 are D_w; ``diag`` (m8n8k4 f64): one MFMA for both warps, computing D^T = B^T A^T
  with warp w in rows and columns 8w..8w+7 (the off-diagonal blocks are discarded);
- the K order: MFMA k index ``q*E + e`` of step s stands for PTX k
  ``(s*R + e // chunk) * 4*chunk + q*chunk + e % chunk`` (chunk = PTX elements per register, R = PTX
  registers per MFMA operand): the k's PTX lane ``t = q`` holds, so operand dwords are whole
  registers; k beyond the PTX K is zero padding in A and B (0 * 0 = 0, no NaN from padding).
  Steps run in ascending k order, chained through C (f64: MFMA k = PTX k order, so the MFMA FMA chain
  is PTX's FMA chain, bit exact);
- integer *terms*: MFMA i8 multiplies signed bytes; a ``.u8`` operand x is ``lo - hi`` with
  ``lo = x & 0x7f`` and ``hi = x & 0x80`` read as s8 (-128 or 0), so the product sum is a signed sum
  of MFMAs of those parts; a chain keeps its accumulator as +-(partial sum) and negates it where the
  sign changes (``Step.negate``), ordered so that at most one change happens before the last term.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from ptx2gcn.emit.matrix_layouts import KIND, MMA, Layout

WAVE = 64
Src = tuple[int, int] | None
"""Where a destination lane's dword comes from: (source wave lane, source dword index), ``None`` for
zero, ``ANY`` for a dword nobody reads."""
ANY: Src = (-1, -1)


@dataclass(frozen=True)
class MfmaOp:
    """One single-block 16x16xK MFMA."""

    asm: str
    intrinsic: str
    k: int
    in_bits: int
    operand: str
    """LLVM type of an A/B operand: ``v4f16``, ``v4i16``, ``v2f32``, ``i64``, ``i32``, ``f64``."""
    acc: str
    """C/D element type: ``f32``, ``i32`` or ``f64``."""

    @property
    def per_lane(self) -> int:
        """A/B elements per lane (E): four lane groups of 16 cover K."""
        return self.k // 4

    @property
    def operand_dwords(self) -> int:
        return self.per_lane * self.in_bits // 32

    @property
    def acc_words(self) -> int:
        """Dwords per C/D element."""
        return 2 if self.acc == "f64" else 1

    def operand_home(self, i: int, k: int) -> tuple[int, int]:
        """(lane, element) of A element (i, k) or B element (k, i)."""
        return 16 * (k // self.per_lane) + i, k % self.per_lane

    def acc_element(self, lane: int, element: int) -> tuple[int, int]:
        """(i, j) of C/D element ``element`` of ``lane``."""
        if self.acc == "f64":
            return 4 * element + lane // 16, lane % 16
        return 4 * (lane // 16) + element, lane % 16

    def acc_home(self, i: int, j: int) -> tuple[int, int]:
        """(lane, element) of C/D element (i, j)."""
        if self.acc == "f64":
            return 16 * (i % 4) + j, i // 4
        return 16 * (i // 4) + j, i % 4


F16 = MfmaOp("v_mfma_f32_16x16x16_f16", "llvm.amdgcn.mfma.f32.16x16x16f16", 16, 16, "v4f16", "f32")
BF16 = MfmaOp("v_mfma_f32_16x16x16_bf16", "llvm.amdgcn.mfma.f32.16x16x16bf16.1k", 16, 16, "v4i16", "f32")
XF32 = MfmaOp("v_mfma_f32_16x16x8_xf32", "llvm.amdgcn.mfma.f32.16x16x8.xf32", 8, 32, "v2f32", "f32")
I8 = MfmaOp("v_mfma_i32_16x16x32_i8", "llvm.amdgcn.mfma.i32.16x16x32.i8", 32, 8, "i64", "i32")
I8_GFX90A = MfmaOp("v_mfma_i32_16x16x16i8", "llvm.amdgcn.mfma.i32.16x16x16i8", 16, 8, "i32", "i32")
F64 = MfmaOp("v_mfma_f64_16x16x4_f64", "llvm.amdgcn.mfma.f64.16x16x4f64", 4, 64, "f64", "f64")

OPS: dict[tuple[str, str], MfmaOp] = {
    ("f16", "gfx942"): F16, ("bf16", "gfx942"): BF16, ("tf32", "gfx942"): XF32, ("f64", "gfx942"): F64,
    ("i8", "gfx942"): I8, ("i8", "gfx950"): I8, ("i8", "gfx90a"): I8_GFX90A, ("f64", "gfx90a"): F64,
}
"""(A/B element type -- f16, bf16, tf32, i8 for s8/u8, f64 --, target) -> the MFMA. Only where the
numerics are known to meet PTX's: gfx942 (CDNA3, measured by MMA-Sim and modelled by the emulator)
for every type; integer MFMAs everywhere they exist (exact in any order); gfx90a's f64 MFMA (CDNA2,
MMA-Sim: an FMA chain like CDNA3's). Not: gfx90a f16/bf16 (CDNA2 flushes subnormal inputs and
results, MMA-Sim; PTX mma keeps them), gfx950 floating point (CDNA4: not measured), xf32 outside
gfx942 (LLVM 22 selects it only there)."""

FORMS: dict[str, tuple[str, ...]] = {
    "f16": ("m16n8k16", "m16n8k8"), "bf16": ("m16n8k16", "m16n8k8"), "tf32": ("m16n8k8", "m16n8k4"),
    "i8": ("m16n8k32", "m16n8k16"), "f64": ("m8n8k4", "m16n8k4", "m16n8k8", "m16n8k16"),
}
"""Shapes with an MFMA plan, by A/B element type (any accumulator types PTX allows for them)."""


SLOWER_THAN_EXACT = frozenset({("m16n8k32", "u8", "u8"), ("m16n8k16", "u8", "u8"), ("m16n8k4", "f64", "f64"),
                               ("m16n8k8", "f64", "f64")})
"""(shape, A type, B type) whose MFMA path executes more wave-instructions per mma than the exact
path (docs/tensor-cores.md, measured on the emulator in a K loop): ``--mma auto`` keeps the exact
path for them, ``--mma mfma`` uses the plan. u8 x u8 needs four MFMAs per warp while LLVM gives the
exact path ``v_dot4_u32_u8``; the 16-row f64 forms with K <= 8 move more f64 accumulator dwords
(two candidates each) than their few FMAs cost."""


@dataclass(frozen=True)
class Table:
    """One dword per destination lane: ``lanes[l]`` is the ``Src`` of wave lane l's dword, read from
    the dwords of ``source`` (``a``, ``b``, ``c``: the PTX fragments as dword lists; ``d``: the final
    MFMA results of all chains, chain-major)."""

    source: str
    lanes: tuple[Src, ...]


@dataclass(frozen=True)
class Step:
    """One MFMA: its operand dwords, the integer part of each (``all``, ``lo``, ``hi``), and whether
    the accumulator is negated before it."""

    a: tuple[Table, ...]
    b: tuple[Table, ...]
    a_part: str = "all"
    b_part: str = "all"
    negate: bool = False


@dataclass(frozen=True)
class Chain:
    steps: tuple[Step, ...]
    negate: bool = False
    """Negate the accumulator after the last step."""


@dataclass(frozen=True)
class Plan:
    """How one PTX mma form runs on MFMAs (module docstring). ``c`` is None when C starts at zero and
    the PTX C is added afterwards (integers: wrapping or ``.satfinite`` add, exact either way)."""

    op: MfmaOp
    chains: tuple[Chain, ...]
    c: tuple[Table, ...] | None
    d: tuple[Table, ...]
    """PTX D dwords (the f32/s32/f64 accumulator layout) from the chains' results."""

    @property
    def mfmas(self) -> int:
        return sum(len(chain.steps) for chain in self.chains)


Element = tuple[int, str, int, int] | None
"""(warp, PTX operand ``a``/``b``, row, col) of a PTX multiplicand element, None for padding."""
AccElement = tuple[int, int, int] | None
"""(warp, row, col) of a PTX accumulator element, None where the MFMA element is not used."""


def _dwords(bits: int, element: int) -> list[tuple[int, int]]:
    """(dword, bit offset) of each 32-bit piece of ``element`` in a lane's dword stream."""
    if bits == 64:
        return [(2 * element, 0), (2 * element + 1, 0)]
    return [(element * bits // 32, element * bits % 32)]


def _ptx_home(layouts: dict[str, Layout], warp: int, operand: str, row: int, col: int, piece: int
              ) -> tuple[int, int, int]:
    """(wave lane, dword, bit offset) of a PTX element's ``piece``-th 32-bit part."""
    layout = layouts[operand]
    lane, index = layout.home(row, col)
    dword, offset = _dwords(layout.elem_bits, index)[piece]
    return 32 * warp + lane, dword, offset


def _operand_table(op: MfmaOp, layouts: dict[str, Layout], element: Callable[[int, int], Element],
                   dword: int) -> Table:
    """MFMA operand dword ``dword`` of every lane; ``element(i, kk)``: the PTX element at MFMA row
    (or column) i, MFMA k index kk."""
    bits = op.in_bits
    per_dword = max(32 // bits, 1)
    lanes: list[Src] = []
    operands: set[str] = set()
    for lane in range(WAVE):
        homes: set[tuple[int, int]] = set()
        padding = 0
        for sub in range(per_dword):
            e = dword * per_dword + sub if bits <= 32 else dword // 2
            i, kk = lane % 16, (lane // 16) * op.per_lane + e
            assert op.operand_home(i, kk) == (lane, e)
            found = element(i, kk)
            if found is None:
                padding += 1
                continue
            warp, operand, row, col = found
            operands.add(operand)
            src_lane, src_dword, offset = _ptx_home(layouts, warp, operand, row, col, dword % 2 if bits == 64 else 0)
            if offset != ((e * bits) % 32 if bits <= 32 else 0):
                raise AssertionError(f"MFMA dword {dword} lane {lane}: element {e} at bit {offset} of its PTX dword")
            homes.add((src_lane, src_dword))
        if padding == per_dword:
            lanes.append(None)
        elif padding or len(homes) != 1:
            raise AssertionError(f"MFMA dword {dword} lane {lane} is not one PTX dword: {homes}, {padding} padding")
        else:
            lanes.append(homes.pop())
    if len(operands) > 1:
        raise AssertionError(f"MFMA operand dword {dword} reads PTX {operands}")
    return Table(operands.pop() if operands else "a", tuple(lanes))


def _k_map(op: MfmaOp, chunk: int, k_ptx: int, step: int, kk: int) -> int | None:
    """PTX k of MFMA k index ``kk`` in ``step`` (module docstring), None for padding."""
    per_lane = op.per_lane
    regs = max(per_lane // chunk, 1)
    q, e = divmod(kk, per_lane)
    k = (step * regs + e // chunk) * 4 * chunk + q * chunk + e % chunk
    return k if k < k_ptx else None


def _rho32(i: int) -> int:
    """MFMA row -> PTX row with a 32-bit accumulator: MFMA lane group q holds rows 4q..4q+3, which
    are PTX rows 2q, 2q+1, 2q+8, 2q+9 (two PTX lanes' registers per C/D dword)."""
    return 8 * (i >> 1 & 1) + 2 * (i >> 2) + (i & 1)


def _rho64(i: int) -> int:
    """MFMA row -> PTX row with an f64 accumulator (element i // 4 of lane group i % 4): element 0
    and 1 hold PTX rows 0-7 (even, odd), 2 and 3 rows 8-15."""
    return 2 * (i % 4) + (i >> 2 & 1) + 8 * (i >> 3)


def _acc_tables(op: MfmaOp, layout: Layout, chains: int, c_element: Callable[[int, int], AccElement],
                d_element: Callable[[int, int, int], AccElement]) -> tuple[tuple[Table, ...], tuple[Table, ...]]:
    """C tables (MFMA C dwords from PTX C) and D tables (PTX D dwords from the chains' results);
    ``d_element(chain, i, j)``."""
    words = op.acc_words
    c_tables = []
    for dword in range(4 * words):
        lanes: list[Src] = []
        for lane in range(WAVE):
            found = c_element(*op.acc_element(lane, dword // words))
            if found is None:
                lanes.append(ANY)
                continue
            warp, row, col = found
            src_lane, src_dword, _ = _ptx_home({"c": layout}, warp, "c", row, col, dword % words)
            lanes.append((src_lane, src_dword))
        c_tables.append(Table("c", tuple(lanes)))
    where: dict[tuple[int, int, int], tuple[int, int]] = {}
    for chain in range(chains):
        for i in range(16):
            for j in range(16):
                found = d_element(chain, i, j)
                if found is not None:
                    assert found not in where, found
                    lane, element = op.acc_home(i, j)
                    where[found] = (lane, chain * 4 * words + element * words)
    d_tables = []
    per_lane = layout.regs * layout.per_reg
    for dword in range(per_lane * words):
        lanes = []
        for wave_lane in range(WAVE):
            row, col = layout.owned[wave_lane % 32][dword // words]
            lane, first = where[(wave_lane // 32, row, col)]
            lanes.append((lane, first + dword % words))
        d_tables.append(Table("d", tuple(lanes)))
    return tuple(c_tables), tuple(d_tables)


def _terms(atype: str, btype: str) -> list[tuple[str, str, int]]:
    """(A part, B part, sign) whose signed MFMA sum is the product sum (module docstring)."""
    parts = {"u8": [("lo", 1), ("hi", -1)]}
    signed = [("all", 1)]
    terms = [(pa, pb, sa * sb) for pa, sa in parts.get(atype, signed) for pb, sb in parts.get(btype, signed)]
    return sorted(terms, key=lambda term: term[2])


def _chain(op: MfmaOp, layouts: dict[str, Layout], k_steps: int, terms: list[tuple[str, str, int]],
           a_element: Callable[[int, int, int], Element], b_element: Callable[[int, int, int], Element]) -> Chain:
    steps = []
    sign = terms[0][2]
    for s in range(k_steps):
        a = tuple(_operand_table(op, layouts, lambda i, kk, s=s: a_element(s, i, kk), d)
                  for d in range(op.operand_dwords))
        b = tuple(_operand_table(op, layouts, lambda j, kk, s=s: b_element(s, j, kk), d)
                  for d in range(op.operand_dwords))
        for a_part, b_part, term_sign in terms:
            steps.append(Step(a, b, a_part, b_part, negate=term_sign != sign))
            sign = term_sign
    return Chain(tuple(steps), negate=sign < 0)


@cache
def plan_for(shape: str, atype: str, btype: str, arch: str) -> Plan | None:
    """The MFMA plan of ``mma.sync.aligned.<shape>.row.col`` with these A/B types on ``arch``, or
    None (the exact path then runs). Accumulator types do not change the plan: f16 C/D are widened to
    and narrowed from the f32 layout by the caller, integer C is added afterwards."""
    kind = "i8" if KIND.get(atype) == "i8" else atype
    if (KIND.get(btype) == "i8") != (kind == "i8") or (kind != "i8" and atype != btype) or \
            shape not in FORMS.get(kind, ()) or (kind, arch) not in OPS:
        return None
    op = OPS[(kind, arch)]
    mma = MMA[(shape, KIND[atype])]
    k_ptx = mma.k
    chunk = max(32 // op.in_bits, 1)
    k_steps = -(-k_ptx // (4 * chunk * max(op.per_lane // chunk, 1)))
    layouts = {"a": mma.a, "b": mma.b, "c": mma.acc}
    terms = _terms(atype, btype) if kind == "i8" else [("all", "all", 1)]

    def k_of(step: int, kk: int) -> int | None:
        return _k_map(op, chunk, k_ptx, step, kk)

    if mma.a.rows == 8:
        return _diag_plan(op, layouts, k_steps, terms, k_of)
    rho = _rho64 if op.acc == "f64" else _rho32
    chains = []
    for warp in (0, 1):
        def a_element(s: int, i: int, kk: int, warp: int = warp) -> Element:
            k = k_of(s, kk)
            return None if k is None else (warp, "a", rho(i), k)

        def b_element(s: int, j: int, kk: int) -> Element:
            k = k_of(s, kk)
            return None if k is None else (j // 8, "b", k, j % 8)
        chains.append(_chain(op, layouts, k_steps, terms, a_element, b_element))
    c, d = _acc_tables(op, mma.acc, 2, lambda i, j: (j // 8, rho(i), j % 8),
                       lambda chain, i, j: (chain, rho(i), j % 8) if j // 8 == chain else None)
    return Plan(op, tuple(chains), None if kind == "i8" else c, d)


def _diag_plan(op: MfmaOp, layouts: dict[str, Layout], k_steps: int, terms: list[tuple[str, str, int]],
               k_of: Callable[[int, int], int | None]) -> Plan:
    """m8n8 forms: one MFMA chain for both warps, D^T = B^T A^T. MFMA row i is column
    n = 2 (i % 4) + (i >> 2 & 1) of warp i // 8 (so each C/D dword holds one PTX register of one
    lane), MFMA column j is row j % 8 of warp j // 8."""
    def col_of(i: int) -> tuple[int, int]:
        return i // 8, 2 * (i % 4) + (i >> 2 & 1)

    def a_element(s: int, i: int, kk: int) -> Element:
        k = k_of(s, kk)
        warp, n = col_of(i)
        return None if k is None else (warp, "b", k, n)

    def b_element(s: int, j: int, kk: int) -> Element:
        k = k_of(s, kk)
        return None if k is None else (j // 8, "a", j % 8, k)

    def acc_element(i: int, j: int) -> AccElement:
        warp, n = col_of(i)
        return (warp, j % 8, n) if warp == j // 8 else None

    chain = _chain(op, layouts, k_steps, terms, a_element, b_element)
    c, d = _acc_tables(op, layouts["c"], 1, acc_element, lambda _chain, i, j: acc_element(i, j))
    return Plan(op, (chain,), None if op.acc == "i32" else c, d)
