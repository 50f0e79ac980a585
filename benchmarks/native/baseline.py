"""Native baseline: each corpus CUDA kernel compiled two ways and run on the emulator with the same data.

Side "ptx2gcn": the committed nvcc 13 ``sm_80`` PTX of ``corpora/src/cuda/<file>.cu`` compiled by
``ptx2gcn.compile`` (``-O3``, that kernel and its callees). Side "native": the same ``.cu`` compiled by
``clang-22 -x hip --offload-arch=gfx942 -O3`` with ``hip_compat.h`` (CUDA spellings → clang's AMDGPU
builtins, no ROCm needed), code object v5. Both code objects are launched through the corpus launch
case of that kernel (``corpora/cases/<file>/<kernel>/case.toml``: same grid, block, inputs) on the
emulator; both outputs must pass the case's own expectations (its independent numpy model).

Invariant: ``measure_kernel`` returns a ``Comparison`` for every kernel it is given, never raises for a
kernel that fails to build or run on one side: that side's ``Side.error`` says why (clang's message,
ptx2gcn's diagnostic, a wrong output), so the table names every kernel that is left out and why.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import ptx2gcn
from ptx2gcn.diagnostics import Ptx2GcnError
from ptx2gcn.link.codeobject import read_code_object
from ptx2gcn.runtime.cases.case import Case, load_case
from ptx2gcn.runtime.cases.run import run_case

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
CASES = REPO / "corpora" / "cases"
SOURCES = REPO / "corpora" / "src" / "cuda"
COMPAT_HEADER = HERE / "hip_compat.h"
STUB_INCLUDES = HERE / "include"

CLANG_FLAGS = (
    "-x", "hip", "--offload-arch=gfx942", "--offload-device-only", "--no-gpu-bundle-output",
    "-nogpulib", "-nogpuinc", "-O3", "-mcode-object-version=5", "-std=c++17", "-fno-slp-vectorize",
)
"""clang's native HIP compile: device code only, one gfx942 code object v5, no ROCm libraries.

``-fno-slp-vectorize``: clang's SLP vectoriser pairs independent f32 multiplies into one
``v_pk_mul_f32`` before fma contraction, which HIP's default (``-ffp-contract=fast-honor-pragmas``)
does only in instruction selection; so in ``dot`` (x·x' + y·y' + z·z') z·z' was rounded on its own
where nvcc's PTX has ``mul`` y·y', ``fma`` x·x', ``fma`` z·z' (nvcc has no packed f32 arithmetic to
pair them into), and ``integrate_const``'s native output missed the case's model in 25 of 840
elements. Without SLP every compared kernel agrees, and native is faster overall (measured: 7
kernels fewer wave-instructions, e.g. ``matmul_tiled_32`` 17344 → 15424, 3 more, e.g. ``mandelbrot``
16960 → 17942). ``-ffp-contract=on`` instead fixes ``dot`` but fuses ``zr*zr - zi*zi`` in
``mandelbrot``, where nvcc shares the squares with the loop test and does not."""

VARIANT_SUFFIXES = ("_sm75", "_sm90", "_lineinfo", "_debug", "_split")
"""Case folders that rerun a kernel from another nvcc build of the same source: not separate kernels."""

_WARP_PTX = re.compile(r"\b(shfl|vote|match|redux|activemask|bar\.warp|elect)\.")


class ClangMissing(RuntimeError):
    """clang-22 is not installed (Debian package clang-22)."""


def find_clang() -> str | None:
    for candidate in ("clang-22", "/usr/lib/llvm-22/bin/clang"):
        found = shutil.which(candidate)
        if found:
            return found
    return None


@dataclass(frozen=True, slots=True)
class Side:
    """One compile of one kernel and its run on the emulator."""

    error: str | None = None
    wave_instructions: int = 0
    vgprs: int = 0
    sgprs: int = 0
    scratch_bytes: int = 0
    lds_bytes: int = 0
    code_bytes: int = 0
    outputs: dict[str, np.ndarray] = dataclasses.field(default_factory=dict, repr=False)


@dataclass(frozen=True, slots=True)
class Comparison:
    source: str
    kernel: str
    warp: bool
    ptx2gcn: Side
    native: Side

    @property
    def ok(self) -> bool:
        return self.ptx2gcn.error is None and self.native.error is None

    @property
    def identical(self) -> bool:
        """Both sides wrote bit-identical outputs (both also passed the case's own check)."""
        a, b = self.ptx2gcn.outputs, self.native.outputs
        return a.keys() == b.keys() and all(a[k].tobytes() == b[k].tobytes() for k in a)

    def ratio(self, field: str) -> float | None:
        mine, theirs = getattr(self.ptx2gcn, field), getattr(self.native, field)
        return mine / theirs if self.ok and theirs else None


@dataclass(frozen=True, slots=True)
class KernelCase:
    source: str
    kernel: str
    case_path: Path


def kernel_cases(sources: Iterable[str] | None = None) -> Iterator[KernelCase]:
    """The base launch case of every kernel of ``corpora/src/cuda/<source>.cu`` (all sources by default)."""
    wanted = set(sources) if sources is not None else None
    for cu in sorted(SOURCES.glob("*.cu")):
        if wanted is not None and cu.stem not in wanted:
            continue
        folder = CASES / cu.stem
        if not folder.is_dir():
            continue
        for case_dir in sorted(p for p in folder.iterdir() if (p / "case.toml").is_file()):
            if case_dir.name.endswith(VARIANT_SUFFIXES):
                continue
            yield KernelCase(cu.stem, case_dir.name, case_dir / "case.toml")


def _kernel_ptx(ptx: str, kernel: str) -> str:
    start = re.search(rf"\.entry\s+{re.escape(kernel)}\s*\(", ptx)
    if start is None:
        return ""
    end = ptx.find(".entry", start.end())
    return ptx[start.start(): end if end >= 0 else len(ptx)]


def compile_native(source: str, out_dir: Path, clang: str) -> tuple[Path | None, str | None]:
    """``corpora/src/cuda/<source>.cu`` → ``out_dir/<source>.hsaco`` by clang; (path, None) or (None, why)."""
    inputs = [SOURCES / f"{source}.cu", COMPAT_HEADER, *sorted(STUB_INCLUDES.glob("*"))]
    digest = hashlib.sha256(" ".join(CLANG_FLAGS).encode())
    for path in inputs:
        digest.update(path.read_bytes())
    out = out_dir / f"{source}-{digest.hexdigest()[:16]}.hsaco"
    failed = out.with_suffix(".error")
    if out.is_file():
        return out, None
    if failed.is_file():
        return None, failed.read_text(encoding="utf-8")
    command = [clang, *CLANG_FLAGS, "-include", str(COMPAT_HEADER), "-I", str(STUB_INCLUDES),
               str(SOURCES / f"{source}.cu"), "-o", str(out)]
    result = subprocess.run(command, capture_output=True, text=True, timeout=600)
    if result.returncode != 0:
        first = next((line for line in result.stderr.splitlines() if "error" in line), result.stderr.strip())
        failed.write_text(f"clang: {first.replace(str(REPO) + '/', '')}", encoding="utf-8")
        return None, failed.read_text(encoding="utf-8")
    return out, None


def _static(data: bytes, kernel: str) -> tuple[int, int, int, int, int]:
    """(VGPRs, SGPRs, scratch bytes per lane, LDS bytes, code bytes) of ``kernel`` in a code object.
    Code bytes: the kernel's own function only. Non-inlined callees are left out on both sides: the
    native code object holds every device function of its source, the ptx2gcn one only this
    kernel's callees, so their sizes do not compare."""
    code = read_code_object(data, kernel)
    meta = code.kernels[kernel].meta
    size = next((s.size for s in code.elf.symtab if s.name == kernel and s.type == 2 and s.defined), 0)
    return meta.vgpr_count, meta.sgpr_count, meta.private_segment_fixed_size, meta.group_segment_fixed_size, size


def run_side(case: Case, hsaco: Path) -> Side:
    """Launch ``case`` with the code object ``hsaco`` on the emulator; the outputs must pass the case."""
    data = hsaco.read_bytes()
    try:
        vgprs, sgprs, scratch, lds, size = _static(data, case.kernel)
        run = run_case(dataclasses.replace(case, source_kind="hsaco", source=hsaco), "emulator")
    except (Ptx2GcnError, KeyError) as error:
        return Side(error=f"run: {str(error).splitlines()[0] if str(error) else type(error).__name__}")
    report = run.check()
    if not report.ok:
        return Side(error="wrong output: " + report.render().splitlines()[0])
    return Side(None, run.launch.wave_instructions or 0, vgprs, sgprs, scratch, lds, size, run.outputs)


def compile_ptx2gcn(case: Case, out_dir: Path) -> tuple[Path | None, str | None]:
    out = out_dir / f"{case.source.stem}.{case.kernel}.ptx2gcn.hsaco"
    try:
        code = ptx2gcn.compile(case.source, arch="gfx942", opt=3, kernels=[case.kernel])
    except Ptx2GcnError as error:
        return None, "ptx2gcn: " + str(error).splitlines()[0]
    out.write_bytes(code.data)
    return out, None


def measure_kernel(item: KernelCase, out_dir: Path, clang: str) -> Comparison:
    case = load_case(item.case_path)
    warp = bool(_WARP_PTX.search(_kernel_ptx(case.source.read_text(encoding="utf-8"), case.kernel)))
    native, error = compile_native(item.source, out_dir, clang)
    if native is None:  # nothing to compare with: ptx2gcn's side is not run
        return Comparison(item.source, item.kernel, warp, Side(error="not run"), Side(error=error))
    mine, mine_error = compile_ptx2gcn(case, out_dir)
    return Comparison(item.source, item.kernel, warp,
                      Side(error=mine_error) if mine is None else run_side(case, mine), run_side(case, native))


def measure(items: Iterable[KernelCase], out_dir: Path | None = None) -> Iterator[Comparison]:
    """Compare every kernel of ``items``; clang's code objects are built once per source in ``out_dir``."""
    clang = find_clang()
    if clang is None:
        raise ClangMissing("clang-22 not found (Debian package clang-22)")
    with tempfile.TemporaryDirectory(prefix="ptx2gcn-native-") as scratch:
        where = out_dir or Path(scratch)
        where.mkdir(parents=True, exist_ok=True)
        for item in items:
            yield measure_kernel(item, where, clang)


def geomean(values: Iterable[float]) -> float | None:
    logs = [math.log(v) for v in values if v > 0]
    return math.exp(sum(logs) / len(logs)) if logs else None
