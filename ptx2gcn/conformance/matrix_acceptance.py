"""ptxas as the acceptance oracle of warp-matrix spellings, per target: which ``mma``/``ldmatrix``/
``stmatrix``/``movmatrix``/``wmma`` lines ptxas 13 accepts for ``.target`` sm_75, sm_80, sm_89 and
sm_90, so the compiler can be held to accepting exactly those (a located error at the line for the
rest). Candidates: every conformance candidate (``matrix_forms.candidates``, mostly forms) plus
``NEAR_MISSES``, spellings one modifier away from a form (wrong layouts, accumulator or element type
mixes, ``.satfinite`` where it does not belong, missing ``.popc``, bad ``.x3``/``.b32``, the
``.b1``/sub-byte wmma and ``mma.sp`` forms).

The verdicts are cached in ``matrix_acceptance.json`` (spelling -> the probe line and, per target,
ptxas's first error line or ``""`` when it accepts), so tests run without CUDA; regenerate with
``python -m ptx2gcn.conformance.matrix_acceptance`` (needs ``ptxas``: ``$PTXAS``, default
``/usr/local/cuda/bin/ptxas``).

Invariant: ``verdicts()`` is a pure function of the cache; ``matrix_forms.probe_module(line, arch)`` is
the exact text ptxas was given, with the probed instruction on line ``PROBE_LINE``.
"""

from __future__ import annotations

import functools
import json
import sys
from pathlib import Path

from ptx2gcn.conformance.matrix_forms import (
    PROBE_LINE,
    candidates,
    probe_line,
    probe_module,
    ptxas_accepts,
    ptxas_path,
    write_cache,
)

CACHE = Path(__file__).with_name("matrix_acceptance.json")
__all__ = ["ARCHS", "CACHE", "NEAR_MISSES", "PROBE_LINE", "probe_module", "probes", "verdicts"]
ARCHS = ("sm_75", "sm_80", "sm_89", "sm_90")
_M = "mma.sync.aligned."
_F32x4 = "{%f0, %f1, %f2, %f3}"
_R4 = "{%r0, %r1, %r2, %r3}"
_R2 = "{%r4, %r5}"
_C4 = "{%f4, %f5, %f6, %f7}"
_H2 = "{%r6, %r7}"
_S4 = "{%r8, %r9, %r10, %r11}"

NEAR_MISSES: dict[str, str] = {
    # mma: layouts other than .row.col for the sm_80 shapes
    f"{_M}m16n8k16.row.row.f32.f16.f16.f32": f"{_F32x4}, {_R4}, {_R2}, {_C4}",
    f"{_M}m16n8k16.col.col.f32.f16.f16.f32": f"{_F32x4}, {_R4}, {_R2}, {_C4}",
    f"{_M}m16n8k8.col.row.f32.bf16.bf16.f32": "{%f0, %f1, %f2, %f3}, {%r0, %r1}, {%r4}, {%f4, %f5, %f6, %f7}",
    f"{_M}m16n8k32.row.row.s32.s8.s8.s32": f"{_S4}, {_R4}, {_R2}, {{%r12, %r13, %r14, %r15}}",
    f"{_M}m8n8k4.col.row.f64.f64.f64.f64": "{%fd0, %fd1}, {%fd2}, {%fd3}, {%fd4, %fd5}",
    # .satfinite on float forms, bit operations without .popc, .popc without a bit operation
    f"{_M}m16n8k16.row.col.satfinite.f32.f16.f16.f32": f"{_F32x4}, {_R4}, {_R2}, {_C4}",
    f"{_M}m16n8k8.row.col.satfinite.f32.tf32.tf32.f32": f"{_F32x4}, {_R4}, {_R2}, {_C4}",
    f"{_M}m8n8k4.row.col.satfinite.f64.f64.f64.f64": "{%fd0, %fd1}, {%fd2}, {%fd3}, {%fd4, %fd5}",
    f"{_M}m16n8k128.row.col.satfinite.s32.b1.b1.s32.xor.popc": f"{_S4}, {{%r0, %r1}}, {{%r4}}, {_S4}",
    f"{_M}m16n8k128.row.col.s32.b1.b1.s32.xor": f"{_S4}, {{%r0, %r1}}, {{%r4}}, {_S4}",
    f"{_M}m16n8k128.row.col.s32.b1.b1.s32": f"{_S4}, {{%r0, %r1}}, {{%r4}}, {_S4}",
    f"{_M}m16n8k32.row.col.s32.s8.s8.s32.and.popc": f"{_S4}, {_R4}, {_R2}, {_S4}",
    # accumulator and element type mixes
    f"{_M}m16n8k16.row.col.f16.bf16.bf16.f16": f"{_H2}, {_R4}, {_R2}, {_H2}",
    f"{_M}m16n8k16.row.col.f32.bf16.bf16.f16": f"{_F32x4}, {_R4}, {_R2}, {_H2}",
    f"{_M}m16n8k8.row.col.f16.tf32.tf32.f16": f"{_H2}, {_R4}, {_R2}, {_H2}",
    f"{_M}m16n8k16.row.col.f32.f16.bf16.f32": f"{_F32x4}, {_R4}, {_R2}, {_C4}",
    f"{_M}m16n8k16.row.col.f32.bf16.f16.f32": f"{_F32x4}, {_R4}, {_R2}, {_C4}",
    f"{_M}m16n8k32.row.col.s32.s8.s4.s32": f"{_S4}, {_R4}, {_R2}, {_S4}",
    f"{_M}m16n8k32.row.col.f32.s8.s8.f32": f"{_F32x4}, {_R4}, {_R2}, {_C4}",
    f"{_M}m16n8k32.row.col.s32.s8.s8.f32": f"{_S4}, {_R4}, {_R2}, {_C4}",
    f"{_M}m8n8k4.row.col.f32.f64.f64.f32": "{%f0, %f1}, {%fd2}, {%fd3}, {%f4, %f5}",
    f"{_M}m16n8k32.row.col.f32.e4m3.f16.f32": f"{_F32x4}, {_R4}, {_R2}, {_C4}",
    f"{_M}m8n8k4.row.col.f32.bf16.bf16.f32": "{%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7}, {%r0, %r1}, "
                                            "{%r2, %r3}, {%f8, %f9, %f10, %f11, %f12, %f13, %f14, %f15}",
    # shapes that do not exist for the type
    f"{_M}m16n8k16.row.col.f32.tf32.tf32.f32": f"{_F32x4}, {_R4}, {_R2}, {_C4}",
    f"{_M}m16n8k4.row.col.f32.f16.f16.f32": f"{_F32x4}, {_R4}, {_R2}, {_C4}",
    f"{_M}m16n8k32.row.col.f32.f16.f16.f32": f"{_F32x4}, {_R4}, {_R2}, {_C4}",
    f"{_M}m8n8k16.row.col.f32.f16.f16.f32": f"{_F32x4}, {_R4}, {_R2}, {_C4}",
    f"{_M}m16n8k8.row.col.s32.s8.s8.s32": f"{_S4}, {_R4}, {_R2}, {_S4}",
    f"{_M}m16n8k16.row.col.s32.s4.s4.s32": f"{_S4}, {_R4}, {_R2}, {_S4}",
    f"{_M}m16n8k64.row.col.s32.b1.b1.s32.and.popc": f"{_S4}, {_R4}, {_R2}, {_S4}",
    f"{_M}m16n8k8.row.col.f32.e4m3.e4m3.f32": f"{_F32x4}, {_R4}, {_R2}, {_C4}",
    f"{_M}m8n8k8.row.col.f64.f64.f64.f64": "{%fd0, %fd1}, {%fd2}, {%fd3}, {%fd4, %fd5}",
    f"{_M}m16n8k32.row.col.f64.f64.f64.f64": "{%fd0, %fd1, %fd2, %fd3}, {%fd4, %fd5}, {%fd6}, "
                                             "{%fd7, %fd8, %fd9, %fd10}",
    # wrong fragment sizes for a valid form
    f"{_M}m16n8k16.row.col.f32.f16.f16.f32 ": f"{_F32x4}, {{%r0, %r1}}, {_R2}, {_C4}",
    # ldmatrix / stmatrix / movmatrix
    "ldmatrix.sync.aligned.m8n8.x3.shared.b16": "{%r0, %r1, %r2}, [%rd1]",
    "ldmatrix.sync.aligned.m8n8.x4.shared.b32": "{%r0, %r1, %r2, %r3}, [%rd1]",
    "ldmatrix.sync.aligned.m8n8.x4.global.b16": "{%r0, %r1, %r2, %r3}, [%rd1]",
    "ldmatrix.sync.aligned.m8n8.x2.shared.b16 ": "{%r0, %r1, %r2, %r3}, [%rd1]",
    "ldmatrix.aligned.m8n8.x1.shared.b16": "{%r0}, [%rd1]",
    "stmatrix.sync.aligned.m8n8.x3.shared.b16": "[%rd1], {%r0, %r1, %r2}",
    "stmatrix.sync.aligned.m8n8.x1.global.b16": "[%rd1], {%r0}",
    "movmatrix.sync.aligned.m8n8.b16": "%r0, %r1",
    "movmatrix.sync.aligned.m8n8.trans.b32": "%r0, %r1",
    "movmatrix.sync.aligned.m16n16.trans.b16": "%r0, %r1",
    # wmma forms outside the conformance candidates
    "wmma.load.a.sync.aligned.row.m8n8k128.global.b1": "{%r0}, [%rd1], 128",
    "wmma.load.b.sync.aligned.col.m8n8k128.global.b1": "{%r0}, [%rd1], 128",
    "wmma.mma.xor.popc.sync.aligned.row.col.m8n8k128.s32.b1.b1.s32": "{%r0, %r1}, {%r2}, {%r3}, {%r4, %r5}",
    "wmma.mma.and.popc.sync.aligned.row.col.m8n8k128.s32.b1.b1.s32": "{%r0, %r1}, {%r2}, {%r3}, {%r4, %r5}",
    "wmma.mma.sync.aligned.row.col.m8n8k128.s32.b1.b1.s32": "{%r0, %r1}, {%r2}, {%r3}, {%r4, %r5}",
    "wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32.satfinite":
        "{%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7}, {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}, "
        "{%r8, %r9, %r10, %r11, %r12, %r13, %r14, %r15}, {%f8, %f9, %f10, %f11, %f12, %f13, %f14, %f15}",
    "wmma.mma.sync.aligned.row.col.m16n16k8.f32.tf32.tf32.f32.satfinite":
        "{%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7}, {%r0, %r1, %r2, %r3}, {%r8, %r9, %r10, %r11}, "
        "{%f8, %f9, %f10, %f11, %f12, %f13, %f14, %f15}",
    "wmma.mma.sync.aligned.row.col.m16n16k16.f16.f16.f16.f16":
        "{%r0, %r1, %r2, %r3}, {%r4, %r5, %r6, %r7, %r8, %r9, %r10, %r11}, "
        "{%r12, %r13, %r14, %r15, %r16, %r17, %r18, %r19}, {%r20, %r21, %r22, %r23}",
    "wmma.mma.sync.aligned.row.col.m16n16k16.f32.bf16.bf16.f16":
        "{%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7}, {%r0, %r1, %r2, %r3}, {%r8, %r9, %r10, %r11}, "
        "{%r20, %r21, %r22, %r23}",
    "wmma.mma.sync.aligned.row.col.m16n16k8.f16.tf32.tf32.f32":
        "{%r0, %r1, %r2, %r3}, {%r4, %r5, %r6, %r7}, {%r8, %r9, %r10, %r11}, "
        "{%f8, %f9, %f10, %f11, %f12, %f13, %f14, %f15}",
    "wmma.load.a.sync.aligned.row.m16n16k8.global.f32": "{%r0, %r1, %r2, %r3}, [%rd1], 16",
    "wmma.load.c.sync.aligned.row.m16n16k16.global.bf16": "{%r0, %r1, %r2, %r3}, [%rd1], 16",
    "wmma.load.a.sync.aligned.row.m16n8k16.global.f16": "{%r0, %r1, %r2, %r3}, [%rd1], 16",
    "wmma.store.d.sync.aligned.row.m16n16k16.global.s8": "[%rd1], {%r0, %r1}, 16",
    # sparse mma: forms and near misses (ptxas decides)
    **{f"mma.sp::ordered_metadata.sync.aligned.{shape}.row.col{sat}.{types}": f"{ops}, %r30, 0x0"
       for shape, sat, types, ops in (
           ("m16n8k16", "", "f32.f16.f16.f32", f"{_F32x4}, {{%r0, %r1}}, {{%r2, %r3}}, {_C4}"),
           ("m16n8k16", "", "f16.f16.f16.f16", "{%r0, %r1}, {%r2, %r3}, {%r4, %r5}, {%r6, %r7}"),
           ("m16n8k16", "", "f32.f16.f16.f16", f"{_F32x4}, {{%r2, %r3}}, {{%r4, %r5}}, {{%r6, %r7}}"),
           ("m16n8k32", "", "f32.f16.f16.f32", f"{_F32x4}, {_R4}, {_R4}, {_C4}"),
           ("m16n8k32", "", "f32.bf16.bf16.f32", f"{_F32x4}, {_R4}, {_R4}, {_C4}"),
           ("m16n8k16", "", "f32.bf16.bf16.f32", f"{_F32x4}, {{%r0, %r1}}, {{%r2, %r3}}, {_C4}"),
           ("m16n8k8", "", "f32.tf32.tf32.f32", f"{_F32x4}, {{%r0, %r1}}, {{%r2, %r3}}, {_C4}"),
           ("m16n8k16", "", "f32.tf32.tf32.f32", f"{_F32x4}, {_R4}, {_R4}, {_C4}"),
           ("m16n8k32", "", "s32.s8.u8.s32", f"{_S4}, {{%r0, %r1}}, {{%r2, %r3}}, {_S4}"),
           ("m16n8k64", ".satfinite", "s32.u8.s8.s32", f"{_S4}, {_R4}, {_R4}, {_S4}"),
           ("m16n8k64", "", "s32.s4.u4.s32", f"{_S4}, {{%r0, %r1}}, {{%r2, %r3}}, {_S4}"),
           ("m16n8k128", ".satfinite", "s32.s4.s4.s32", f"{_S4}, {_R4}, {_R4}, {_S4}"),
           ("m16n8k64", "", "f32.e4m3.e5m2.f32", f"{_F32x4}, {_R4}, {_R4}, {_C4}"),
           ("m16n8k64", "", "f16.e4m3.e4m3.f16", "{%r0, %r1}, {%r2, %r3, %r4, %r5}, {%r6, %r7, %r8, %r9}, "
                                                 "{%r10, %r11}"),
           ("m16n8k16", "", "s32.s8.s8.s32", f"{_S4}, {{%r0}}, {{%r2}}, {_S4}"),
           ("m16n8k32", ".satfinite", "f32.f16.f16.f32", f"{_F32x4}, {_R4}, {_R4}, {_C4}"),
           ("m16n8k32", "", "f32.f16.f16.f32 ", f"{_F32x4}, {{%r0, %r1}}, {_R4}, {_C4}"),
           ("m8n8k4", "", "f32.f16.f16.f32", "{%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7}, {%r0}, {%r2, %r3}, "
                                             "{%f8, %f9, %f10, %f11, %f12, %f13, %f14, %f15}"),
       )},
    "mma.sp.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32": f"{_F32x4}, {_R4}, {_R4}, {_C4}, %r8, 0x0",
    "mma.sp::ordered_metadata.sync.aligned.m16n8k32.col.row.f32.f16.f16.f32":
        f"{_F32x4}, {_R4}, {_R4}, {_C4}, %r8, 0x0",
    "mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.bf16.bf16.f32 ":
        f"{_F32x4}, {_R4}, {_R4}, {_C4}, %r8, %r9",
}
"""Spelling (a trailing space: a second probe of the same spelling) -> its operands."""


def probes() -> dict[str, str]:
    """Spelling -> the probe line, for every candidate and near miss."""
    out = {spelling: probe_line(spelling) for spelling, _ in candidates()}
    out.update({spelling: f"{spelling.strip()} {ops};" for spelling, ops in NEAR_MISSES.items()})
    return out


@functools.cache
def verdicts() -> dict[str, dict[str, str]]:
    """Spelling -> {"line": probe line, arch: ptxas's error line, "" when it accepts}."""
    data: dict[str, dict[str, str]] = json.loads(CACHE.read_text(encoding="utf-8"))
    return data


def refresh(ptxas: str) -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {}
    for spelling, line in probes().items():
        entry = {"line": line}
        for arch in ARCHS:
            ok, why = ptxas_accepts(line, arch, ptxas)
            entry[arch] = "" if ok else (why or "rejected")
        out[spelling] = entry
    return out


def main() -> int:
    data = refresh(ptxas := ptxas_path())
    write_cache(CACHE, data)
    accepted = sum(1 for v in data.values() for a in ARCHS if v[a] == "")
    print(f"{CACHE}: {len(data)} spellings x {len(ARCHS)} targets, {accepted} accepted by {ptxas}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
