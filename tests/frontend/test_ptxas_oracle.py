"""ptxas as an independent oracle (slow; only where a CUDA toolkit is installed).

The canonical printer must not change what PTX means: for every corpus file that ptxas accepts,
ptxas must accept the printed text too and, for files without line information (whose cubins embed
PTX line numbers), produce a byte-identical cubin.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from ptx2gcn.frontend import parse_file
from ptx2gcn.frontend.printer import print_module

REPO_ROOT = Path(__file__).resolve().parents[2]
PTXAS = shutil.which("ptxas") or ("/usr/local/cuda/bin/ptxas" if Path("/usr/local/cuda/bin/ptxas").exists() else None)
FILES = sorted((REPO_ROOT / "corpora" / "nvcc").glob("**/*.ptx")) + sorted(
    (Path(__file__).resolve().parent / "data").glob("*.ptx"))


def _ptxas(path: Path, out: Path, arch: str) -> subprocess.CompletedProcess[str]:
    assert PTXAS is not None
    return subprocess.run([PTXAS, f"-arch={arch}", str(path), "-o", str(out)], capture_output=True, text=True)


@pytest.mark.slow
@pytest.mark.skipif(PTXAS is None, reason="ptxas (CUDA toolkit) not installed")
@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(REPO_ROOT)))
def test_printed_ptx_means_the_same_to_ptxas(path: Path, tmp_path: Path) -> None:
    text = path.read_text()
    target = re.search(r"\.target\s+(sm_\w+)", text)
    assert target is not None
    arch = target.group(1) if int(re.sub(r"\D", "", target.group(1))) >= 50 else "sm_75"
    original = _ptxas(path, tmp_path / "original.cubin", arch)
    if original.returncode != 0:
        pytest.skip(f"ptxas rejects the original: {original.stderr.strip()[:200]}")
    printed = tmp_path / "printed.ptx"
    printed.write_text(print_module(parse_file(path)))
    again = _ptxas(printed, tmp_path / "printed.cubin", arch)
    assert again.returncode == 0, again.stderr
    if ".loc" not in text:
        assert (tmp_path / "original.cubin").read_bytes() == (tmp_path / "printed.cubin").read_bytes()


# --- Instruction forms: ptx2gcn accepts exactly what ptxas accepts (ptxas as the witness) ----------

_SNIPPET_REGS = (".reg .pred %p<4>; .reg .b16 %h<4>; .reg .b32 %r<12>; .reg .f32 %f<12>; .reg .b64 %rd<4>; "
                 ".reg .f64 %fd<4>; .shared .align 8 .b8 smem[64];")

# (instruction, target, PTX version, accepted by ptxas 13.0); each verdict was read off ptxas and is
# re-checked below wherever ptxas is installed.
FORMS: list[tuple[str, str, str, bool]] = [
    *((f"{op}.{t} %r1, %r2, %r3;", "sm_90", "8.0", op != "sub") for op in ("add", "sub", "min", "max")
      for t in ("u16x2", "s16x2")),
    ("add.s16x2 %r1, %r2, %r3;", "sm_80", "8.0", False),
    ("min.u16x2 %r1, %r2, %r3;", "sm_90", "7.8", False),
    ("min.relu.s32 %r1, %r2, %r3;", "sm_80", "8.0", False),
    ("min.xorsign.abs.f32 %f1, %f2, %f3;", "sm_80", "8.0", False),
    ("min.xorsign.abs.f32 %f1, %f2, %f3;", "sm_86", "7.2", True),
    ("min.NaN.f32 %f1, %f2, %f3;", "sm_75", "8.0", False),
    ("min.relu.s16x2 %r1, %r2, %r3;", "sm_90", "8.0", True),
    ("max.relu.s16x2 %r1, %r2, %r3;", "sm_90", "8.0", True),
    ("min.relu.u16x2 %r1, %r2, %r3;", "sm_90", "8.0", False),
    ("max.xorsign.abs.bf16x2 %r1, %r2, %r3;", "sm_90", "8.0", True),
    ("min.NaN.xorsign.abs.f32 %f1, %f2, %f3;", "sm_90", "8.0", True),
    ("min.abs.f32 %f1, %f2, %f3;", "sm_90", "8.0", False),
    ("redux.sync.min.abs.NaN.f32 %f1, %f2, 0xffffffff;", "sm_100a", "8.6", True),
    ("redux.sync.and.u32 %r1, %r2, 0xffffffff;", "sm_90", "8.0", False),
    ("add.f32 %f1, %fd1, %f2;", "sm_80", "8.0", False),
    ("add.f32 %f1, %r1, %f2;", "sm_80", "8.0", True),
    ("and.b16 %h1, %r1, %h2;", "sm_80", "8.0", False),
    ("shl.b64 %rd1, %rd2, %rd3;", "sm_80", "8.0", False),
    ("ld.global.u32 %rd1, [%rd2];", "sm_80", "8.0", True),
    ("cvt.f32.f64 %f1, %fd1;", "sm_80", "8.0", False),
    ("cvt.f64.f32 %fd1, %f1;", "sm_80", "8.0", True),
    ("cvt.rn.f64.f32 %fd1, %f1;", "sm_80", "8.0", False),
    ("cvt.s32.f32 %r1, %f1;", "sm_80", "8.0", False),
    ("cvt.rni.f32.f32 %f1, %f2;", "sm_80", "8.0", True),
    ("cvt.rna.tf32.f32 %r1, %f1;", "sm_90", "8.0", True),
    ("mul.s32 %r1, %r2, %r3;", "sm_80", "8.0", False),
    ("mul.wide.u64 %rd1, %rd2, %rd3;", "sm_80", "8.0", False),
    ("mul.lo.f32 %f1, %f2, %f3;", "sm_80", "8.0", False),
    ("shfl.bfly.b32 %r1, %r2, 1, 31;", "sm_80", "8.0", False),
    ("vote.any.pred %p1, %p2;", "sm_75", "6.4", False),
    ("shfl.bfly.b32 %r1, %r2, 1, 31;", "sm_75", "6.3", True),
    ("ld.global.v8.f32 {%f1,%f2,%f3,%f4,%f5,%f6,%f7,%f8}, [%rd1];", "sm_80", "8.0", False),
    ("ld.global.v8.f32 {%f1,%f2,%f3,%f4,%f5,%f6,%f7,%f8}, [%rd1];", "sm_100", "8.8", True),
    ("mov.b32 %r1, 1.5;", "sm_80", "8.0", False),
    ("mov.b64 %rd1, 1.5;", "sm_80", "8.0", True),
    ("mov.b32 %r1, 0f3FC00000;", "sm_80", "8.0", True),
    ("add.f32 %f1, %f2, 1;", "sm_80", "8.0", False),
    ("cvt.pack.sat.u8.s32.b32 %r1, %r2, %r3, %r4;", "sm_80", "8.0", True),
    ("cvt.pack.sat.u16.s32.b32 %r1, %r2, %r3, %r4;", "sm_80", "8.0", False),
    ("barrier.cluster.arrive.relaxed.aligned;", "sm_90", "8.0", True),
    ("mapa.shared::cluster.u32 %r1, %r2, 1;", "sm_90", "8.0", True),
    ("fence.proxy.async.shared::cta;", "sm_90", "8.0", True),
    # relaxed type checking: .b registers go with every type, .f and .u/.s registers do not mix
    ("mov.u32 %r1, %f1;", "sm_80", "8.0", False),
    ("mov.b32 %r1, %f1;", "sm_80", "8.0", True),
    ("and.b32 %r1, %f1, %r2;", "sm_80", "8.0", True),
    ("shr.u32 %r1, %f2, 1;", "sm_80", "8.0", False),
    ("setp.eq.u32 %p1, %f1, %r1;", "sm_80", "8.0", False),
    ("ld.global.u32 %f1, [%rd1];", "sm_80", "8.0", False),
    ("ld.global.b32 %f1, [%rd1];", "sm_80", "8.0", True),
]


def _snippet(instruction: str, target: str, version: str) -> str:
    return (f".version {version}\n.target {target}\n.address_size 64\n.visible .entry k(.param .u64 p)\n{{\n"
            f"{_SNIPPET_REGS}\n{instruction}\nret;\n}}\n")


def _ours_accepts(text: str) -> bool:
    from ptx2gcn.diagnostics import Ptx2GcnError, UnsupportedError
    from ptx2gcn.translate.load import module_from_ptx

    try:
        module_from_ptx(text, "form.ptx")
    except UnsupportedError as error:
        raise AssertionError(f"a located error or acceptance was expected, not:\n{error.render()}") from None
    except Ptx2GcnError as error:
        assert error.span is not None and error.span.line == 7, error.render()
        return False
    return True


@pytest.mark.parametrize(("instruction", "target", "version", "accepted"), FORMS,
                         ids=[f"{f[0].split()[0]}-{f[1]}-{f[2]}" for f in FORMS])
def test_form_verdict_matches_ptxas(instruction: str, target: str, version: str, accepted: bool,
                                    tmp_path: Path) -> None:
    text = _snippet(instruction, target, version)
    assert _ours_accepts(text) == accepted, f"ptx2gcn {'rejects' if accepted else 'accepts'} {instruction}"
    if PTXAS is None:
        return  # the recorded verdict still checks ptx2gcn; ptxas re-checks it where installed
    path = tmp_path / "form.ptx"
    path.write_text(text)
    arch = target if int(re.sub(r"\D", "", target)) >= 75 else "sm_75"
    verdict = _ptxas(path, tmp_path / "form.cubin", arch).returncode == 0
    assert verdict == accepted, "recorded verdict is stale"
