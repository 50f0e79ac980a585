"""Code quality against native: ptx2gcn's gfx942 code vs clang-22's own HIP compile of the same CUDA source.

Usage: ``.venv/bin/python benchmarks/codequality.py [SOURCE...] [--build-dir DIR] [--json FILE]``

For every kernel of ``corpora/src/cuda/<SOURCE>.cu`` (all sources by default) that has a corpus launch
case, both code objects run on the emulator with the case's inputs (``benchmarks/native/baseline.py``)
and both outputs must pass the case's expectations. The table gives, per kernel, executed
wave-instructions (dyn), VGPRs, SGPRs, scratch bytes per lane and the kernel function's code bytes
(static; non-inlined callees not counted on either side) of each side and
the ptx2gcn/native ratios; then the geometric means of the ratios over all compared kernels and over
those without warp-level PTX (``shfl``/``vote``/``match``/``redux``: Mode P runs a CUDA warp as half a
wave64, which clang's port does with ``ds_bpermute`` within 32-lane segments), the kernels above the
×1.15 dynamic target, those using scratch where native uses none, and every kernel left out and why
(a source clang cannot compile through ``hip_compat.h``, e.g. inline PTX ``asm``; an emulator gap).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.native.baseline import Comparison, geomean, kernel_cases, measure  # noqa: E402

DYN_TARGET = 1.15


def _row(c: Comparison) -> str:
    p, n = c.ptx2gcn, c.native
    dyn, size = c.ratio("wave_instructions"), c.ratio("code_bytes")
    return (f"| {c.source}/{c.kernel}{' (warp)' if c.warp else ''} | {p.wave_instructions} | {n.wave_instructions} | "
            f"{dyn:.2f} | {p.vgprs}/{n.vgprs} | {p.sgprs}/{n.sgprs} | {p.scratch_bytes}/{n.scratch_bytes} | "
            f"{p.code_bytes} | {n.code_bytes} | {size:.2f} | {'=' if c.identical else '≈'} |")


def report(results: list[Comparison]) -> str:
    done = [c for c in results if c.ok]
    lines = [
        "| kernel | dyn ptx2gcn | dyn native | dyn × | VGPR p/n | SGPR p/n | scratch p/n | bytes ptx2gcn "
        "| bytes native | static × | out |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
        *(_row(c) for c in done),
        "",
        "`out`: `=` both outputs bit-identical, `≈` both within the case's tolerance.",
    ]
    for label, subset in (("all", done), ("without warp-level PTX", [c for c in done if not c.warp])):
        dyn = geomean(c.ratio("wave_instructions") or 0 for c in subset)
        size = geomean(c.ratio("code_bytes") or 0 for c in subset)
        if dyn is not None and size is not None:
            lines.append(f"geomean over {len(subset)} kernels ({label}): dynamic ×{dyn:.3f}, static ×{size:.3f}")
    slow = [c for c in done if (c.ratio("wave_instructions") or 0) > DYN_TARGET]
    lines.append(f"above ×{DYN_TARGET} dynamic: " + (", ".join(
        f"{c.source}/{c.kernel} ×{c.ratio('wave_instructions'):.2f}" for c in slow) or "none"))
    scratch = [c for c in done if c.ptx2gcn.scratch_bytes and not c.native.scratch_bytes]
    lines.append("scratch where native has none: " + (", ".join(
        f"{c.source}/{c.kernel} ({c.ptx2gcn.scratch_bytes} B)" for c in scratch) or "none"))
    left = [c for c in results if not c.ok]
    if left:
        lines.append(f"left out ({len(left)}):")
        for c in left:
            why = [f"ptx2gcn {c.ptx2gcn.error}"] if c.ptx2gcn.error else []
            why += [f"native {c.native.error}"] if c.native.error else []
            lines.append(f"  {c.source}/{c.kernel}: {' | '.join(why)}")
    return "\n".join(lines)


def _json(results: list[Comparison]) -> list[dict[str, object]]:
    def side(s: object) -> dict[str, object]:
        return {k: getattr(s, k) for k in ("error", "wave_instructions", "vgprs", "sgprs", "scratch_bytes",
                                            "lds_bytes", "code_bytes")}
    return [{"source": c.source, "kernel": c.kernel, "warp": c.warp, "identical": c.ok and c.identical,
             "ptx2gcn": side(c.ptx2gcn), "native": side(c.native)} for c in results]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sources", nargs="*", help="corpora/src/cuda/<SOURCE>.cu stems (default: all)")
    parser.add_argument("--build-dir", type=Path, help="keep clang's code objects here (reused if unchanged)")
    parser.add_argument("--json", type=Path, help="also write the figures as JSON")
    args = parser.parse_args(argv)
    results = []
    for comparison in measure(kernel_cases(args.sources or None), args.build_dir):
        results.append(comparison)
        print(f"  {comparison.source}/{comparison.kernel}: {'ok' if comparison.ok else 'left out'}",
              file=sys.stderr, flush=True)
    print(report(results))
    if args.json:
        args.json.write_text(json.dumps(_json(results), indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
