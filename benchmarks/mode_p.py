"""Mode P's own costs: instructions ptx2gcn emits per warp collective, against an ideal count (issue #17.3).

Usage: ``.venv/bin/python benchmarks/mode_p.py [--asm NAME]``

Each row is one PTX warp operation in a minimal kernel (load a value per thread, apply the operation,
store the result). Its cost is the number of gfx942 instructions of that kernel minus those of the same
kernel with the operation replaced by a ``mov`` (LLVM's ``-O3`` assembly, ``s_waitcnt`` and ``s_nop``
included, nothing after ``s_endpgm``); the code is straight-line, so static and executed counts are equal.
clang has no equivalent (CUDA warps are half a wave64 here), so the reference is an *ideal* count derived
from the gfx942 instructions that can implement the operation under Mode P (docs/mode-p.md, "Costs"):

- a lane pattern that stays inside rows of 16 (``quad_perm``, ``row_shl``/``row_shr``/``row_ror``,
  ``row_mirror``): one ``v_mov_b32_dpp``;
- a pattern that is a bitwise function of the lane index inside each 32-lane half: ``ds_swizzle_b32``
  in bit mode + ``s_waitcnt``; plus ``s_mov_b64`` + ``v_cndmask`` when some lanes keep their own value;
- any other lane pattern: ``ds_bpermute_b32`` + ``s_waitcnt`` + the lane index (2 ``v_mbcnt``) and the
  address arithmetic;
- a vote: the ballot (``v_cmp``, or none when the predicate is already a lane mask), this warp's 32
  bits (``v_lshrrev_b64`` by the half's base, 2 ``v_mbcnt`` + ``v_and``), the membermask ``and`` and a
  compare;
- ``bar.sync 0`` without a count: one ``s_barrier`` (the workgroup fences need no code at that scope).

The ideal counts are this module's ``IDEAL`` table, derived by hand from the CDNA3 ISA, never from the
output under test. ``gap`` is emitted − ideal.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ptx2gcn.compiler import compile_assembly  # noqa: E402

_KERNEL = """.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out, .param .u64 in)
{{
	.reg .b32 %r<8>;
	.reg .pred %p<4>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd1, [out];
	ld.param.u64 %rd2, [in];
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd3, %r1, 4;
	add.u64 %rd4, %rd2, %rd3;
	ld.global.u32 %r2, [%rd4];
	{body}
	add.u64 %rd5, %rd1, %rd3;
	st.global.u32 [%rd5], %r3;
	ret;
}}
"""

_BASELINE = "mov.b32 %r3, %r2;"


@dataclass(frozen=True)
class Row:
    name: str
    body: str
    ideal: int
    why: str


def _shfl(mode: str, b: int, c: int) -> str:
    return f"shfl.sync.{mode}.b32 %r3, %r2, {b}, {c:#x}, -1;"


def _vote(mode: str) -> str:
    setp = "setp.ne.u32 %p1, %r2, 0;"
    if mode == "ballot":
        return f"{setp} vote.sync.ballot.b32 %r3, %p1, -1;"
    return f"{setp} vote.sync.{mode}.pred %p2, %p1, -1; selp.u32 %r3, 1, 0, %p2;"


_DPP = "v_mov_b32_dpp {} + s_nop (a DPP read of a VGPR written just before needs wait states)"
_BPERMUTE = ("2 v_mbcnt + 2 s_mov_b32 (the 64-bit mask of the moving lanes) + v_cndmask (offset or 0) + "
             "v_add_lshl + ds_bpermute + s_waitcnt")
_BALLOT = "v_cmp + s_nop (VCC read as a VALU operand) + 2 v_mbcnt + v_and (base) + v_lshrrev_b64"

IDEAL: tuple[Row, ...] = (
    Row("shfl.bfly 1", _shfl("bfly", 1, 0x1F), 2, _DPP.format("quad_perm:[1,0,3,2]")),
    Row("shfl.bfly 2", _shfl("bfly", 2, 0x1F), 2, _DPP.format("quad_perm:[2,3,0,1]")),
    Row("shfl.bfly 4", _shfl("bfly", 4, 0x1F), 2, "ds_swizzle xor 4 + s_waitcnt"),
    Row("shfl.bfly 16", _shfl("bfly", 16, 0x1F), 2, "ds_swizzle xor 16 + s_waitcnt"),
    Row("shfl.bfly 15", _shfl("bfly", 15, 0x1F), 2, _DPP.format("row_mirror")),
    Row("shfl.idx 7", _shfl("idx", 7, 0x1F), 2, "ds_swizzle and 0, or 7 (a broadcast inside each half) + s_waitcnt"),
    Row("shfl.idx 3 width 8", _shfl("idx", 3, 0x181F), 2, "ds_swizzle and 0x18, or 3 + s_waitcnt"),
    Row("shfl.down 1 width 16", _shfl("down", 1, 0x101F), 2, _DPP.format("row_shl:1 (out-of-row lanes keep theirs)")),
    Row("shfl.up 2 width 16", _shfl("up", 2, 0x1000), 2, _DPP.format("row_shr:2")),
    Row("shfl.down 16", _shfl("down", 16, 0x1F), 2, "ds_swizzle or 16 (lanes 16..31 read themselves) + s_waitcnt"),
    Row("shfl.up 16", _shfl("up", 16, 0), 2, "ds_swizzle and 0xf (lanes 0..15 read themselves) + s_waitcnt"),
    Row("shfl.down 1", _shfl("down", 1, 0x1F), 8, _BPERMUTE),
    Row("shfl.up 1", _shfl("up", 1, 0), 8, _BPERMUTE),
    Row("shfl.idx (register lane)", "and.b32 %r4, %r2, 31; shfl.sync.idx.b32 %r3, %r2, %r4, 0x1f, -1;", 7,
        "2 v_mbcnt + v_and (b[4:0]) + v_and_or (| base) + v_lshlrev + ds_bpermute + s_waitcnt"),
    Row("vote.ballot", _vote("ballot"), 6, _BALLOT.replace("s_nop (VCC read as a VALU operand) + ", "")),
    Row("vote.any", _vote("any"), 9, _BALLOT + " + v_cmp + s_nop + v_cndmask"),
    Row("vote.all", _vote("all"), 10, "the ballot of the predicate and of the active set (EXEC) + 2 shifts + v_cmp "
        "+ v_cndmask"),
    Row("bar.sync 0", "bar.sync 0; mov.b32 %r3, %r2;", 1, "s_barrier"),
)


def _instructions(asm: str) -> list[str]:
    """The instruction lines of the kernel's body in LLVM's AMDGPU assembly, up to ``s_endpgm``."""
    body = asm.split("k:", 1)[1]
    found: list[str] = []
    for line in body.splitlines():
        text = line.split(";")[0].strip()
        if not text or text.startswith((".", "$", "//")) or text.endswith(":"):
            continue
        found.append(text)
        if text.startswith("s_endpgm"):
            break
    return found


def assembly(body: str) -> str:
    return compile_assembly(_KERNEL.format(body=body), arch="gfx942", opt=3, name="mode_p.ptx")


def cost(body: str) -> int:
    return len(_instructions(assembly(body))) - len(_instructions(assembly(_BASELINE)))


def report() -> str:
    lines = ["| operation | emitted | ideal | gap | ideal instructions |", "|---|---|---|---|---|"]
    total_gap = 0
    for row in IDEAL:
        emitted = cost(row.body)
        total_gap += emitted - row.ideal
        lines.append(f"| `{row.name}` | {emitted} | {row.ideal} | {emitted - row.ideal:+d} | {row.why} |")
    lines.append(f"total gap: {total_gap:+d} instructions over {len(IDEAL)} operations")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--asm", metavar="NAME", help="print the assembly of one row (its operation name)")
    args = parser.parse_args(argv)
    if args.asm:
        row = next((r for r in IDEAL if r.name == args.asm), None)
        if row is None:
            parser.error(f"no row {args.asm!r}; rows: {', '.join(r.name for r in IDEAL)}")
        print("\n".join(_instructions(assembly(row.body))))
        return 0
    print(report())
    return 0


if __name__ == "__main__":
    sys.exit(main())
