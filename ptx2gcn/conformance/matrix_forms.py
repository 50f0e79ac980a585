"""The warp-matrix conformance forms: every ``mma``/``ldmatrix``/``stmatrix``/``movmatrix``/``wmma``
spelling ptxas accepts (except ``mma.sp`` and the sm_100+/sm_120 ``.kind::``/block-scaled and 8-bit
``ldmatrix`` forms, out of scope), with ptxas's verdicts cached in ``matrix_ptxas.json``.

Candidates are generated per family (deliberately generous: every shape x type x layout x
modifier combination); ptxas is the acceptance oracle. The cache lets the tests run without CUDA;
regenerate it with ``python -m ptx2gcn.conformance.matrix_forms`` (needs ``ptxas``; path from
``$PTXAS``, default ``/usr/local/cuda/bin/ptxas``).

wmma spellings are not run alone (PTX leaves the fragment layout to the implementation): they are
grouped into *pipelines* (``WmmaPipe``: load A, B, C, mma, store D, one layout and state space),
and a wmma form is covered by every pipeline that spells it.

Invariant: ``matrix_forms()`` is a pure function of this module and the cache: the same spellings
in the same order; a spelling is a form exactly when the cache says ptxas accepts it.
"""

from __future__ import annotations

import functools
import itertools
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

CACHE = Path(__file__).with_name("matrix_ptxas.json")
PTX_VERSION = "8.7"
MMA_PREFIX = "mma.sync.aligned."


def _mma_candidates() -> Iterator[tuple[str, str]]:
    """(spelling, arch) of every mma candidate."""
    floats = ("f16", "f32")
    for shape, (d, c) in itertools.product(("m16n8k16", "m16n8k8"), itertools.product(floats, floats)):
        yield f"{MMA_PREFIX}{shape}.row.col.{d}.f16.f16.{c}", "sm_80"
    for shape in ("m16n8k16", "m16n8k8"):
        yield f"{MMA_PREFIX}{shape}.row.col.f32.bf16.bf16.f32", "sm_80"
    for shape in ("m16n8k8", "m16n8k4"):
        yield f"{MMA_PREFIX}{shape}.row.col.f32.tf32.tf32.f32", "sm_80"
    for shapes, types in ((("m8n8k16", "m16n8k16", "m16n8k32"), ("s8", "u8")),
                          (("m8n8k32", "m16n8k32", "m16n8k64"), ("s4", "u4"))):
        for shape, a, b, sat in itertools.product(shapes, types, types, ("", ".satfinite")):
            yield f"{MMA_PREFIX}{shape}.row.col{sat}.s32.{a}.{b}.s32", "sm_80"
    for shape, op in itertools.product(("m8n8k128", "m16n8k128", "m16n8k256"), ("and", "xor")):
        yield f"{MMA_PREFIX}{shape}.row.col.s32.b1.b1.s32.{op}.popc", "sm_80"
    fp8 = ("e4m3", "e5m2")
    for shape, a, b, (d, c) in itertools.product(("m16n8k32", "m16n8k16"), fp8, fp8, itertools.product(floats, floats)):
        yield f"{MMA_PREFIX}{shape}.row.col.{d}.{a}.{b}.{c}", "sm_89"
    yield f"{MMA_PREFIX}m8n8k4.row.col.f64.f64.f64.f64", "sm_80"
    for shape in ("m16n8k4", "m16n8k8", "m16n8k16"):
        yield f"{MMA_PREFIX}{shape}.row.col.f64.f64.f64.f64", "sm_90"
    layouts = ("row", "col")
    for a, b, d, c in itertools.product(layouts, layouts, floats, floats):
        yield f"{MMA_PREFIX}m8n8k4.{a}.{b}.{d}.f16.f16.{c}", "sm_80"


def _ldst_candidates() -> Iterator[tuple[str, str]]:
    for op, num, trans, space in itertools.product(("ldmatrix", "stmatrix"), (1, 2, 4), ("", ".trans"),
                                                   ("", ".shared", ".shared::cta")):
        yield f"{op}.sync.aligned.m8n8.x{num}{trans}{space}.b16", "sm_80" if op == "ldmatrix" else "sm_90"
    yield "movmatrix.sync.aligned.m8n8.trans.b16", "sm_80"


@dataclass(frozen=True)
class WmmaType:
    """One wmma type combination: shape, A/B type, C and D types, ``.satfinite``."""

    shape: str
    ab: str
    c: str
    d: str
    satfinite: bool = False

    @property
    def mma_types(self) -> str:
        if self.ab == "f16":
            return f"{self.d}.{self.c}"
        return f"{self.d}.{self.ab}.{self.ab}.{self.c}"

    @property
    def base_mma(self) -> str:
        """The mma whose arithmetic (K, accumulation, bound) a fragment-free model uses."""
        k = {"tf32": "m16n8k8", "f64": "m8n8k4", "s4": "m8n8k32", "u4": "m8n8k32"}.get(self.ab, "m16n8k16")
        sat = ".satfinite" if self.satfinite else ""
        return f"{MMA_PREFIX}{k}.row.col{sat}.{self.d}.{self.ab}.{self.ab}.{self.c}"


WMMA_TYPES: tuple[WmmaType, ...] = tuple(
    [WmmaType(s, "f16", c, d) for s in ("m16n16k16", "m32n8k16", "m8n32k16")
     for c, d in itertools.product(("f16", "f32"), ("f16", "f32"))]
    + [WmmaType(s, "bf16", "f32", "f32") for s in ("m16n16k16", "m32n8k16", "m8n32k16")]
    + [WmmaType(s, t, "s32", "s32", sat) for s in ("m16n16k16", "m32n8k16", "m8n32k16") for t in ("s8", "u8")
       for sat in (False, True)]
    + [WmmaType("m16n16k8", "tf32", "f32", "f32"), WmmaType("m8n8k4", "f64", "f64", "f64")]
    + [WmmaType("m8n8k32", t, "s32", "s32", sat) for t in ("s4", "u4") for sat in (False, True)]
)
"""Every wmma type combination but ``.b1`` (whose mma spells ``.xor.popc``/``.and.popc``: not
enumerated yet)."""
WMMA_SPACES = ("global", "shared", "")


@dataclass(frozen=True)
class WmmaPipe:
    """load.a, load.b, load.c, mma, store.d of one type combination, layouts (a, b, c, d) and space."""

    types: WmmaType
    layouts: tuple[str, str, str, str]
    space: str

    def spellings(self) -> dict[str, str]:
        t, (a, b, c, d) = self.types, self.layouts
        sp = f".{self.space}" if self.space else ""
        sat = ".satfinite" if t.satfinite else ""
        return {
            "a": f"wmma.load.a.sync.aligned.{a}.{t.shape}{sp}.{t.ab}",
            "b": f"wmma.load.b.sync.aligned.{b}.{t.shape}{sp}.{t.ab}",
            "c": f"wmma.load.c.sync.aligned.{c}.{t.shape}{sp}.{t.c}",
            "mma": f"wmma.mma.sync.aligned.{a}.{b}.{t.shape}.{t.mma_types}{sat}",
            "d": f"wmma.store.d.sync.aligned.{d}.{t.shape}{sp}.{t.d}",
        }


def wmma_pipes() -> list[WmmaPipe]:
    """Pipelines covering every wmma spelling of ``WMMA_TYPES``: per type and space, all-row and
    all-col (with the mma's ``row.col``/``col.row``) and ``row.col`` A/B with column-major C/D,
    plus ``row.row``/``col.col`` mma in .global."""
    pipes = []
    for t in WMMA_TYPES:
        for space in WMMA_SPACES:
            pipes.append(WmmaPipe(t, ("row", "col", "row", "row"), space))
            pipes.append(WmmaPipe(t, ("col", "row", "col", "col"), space))
            pipes.append(WmmaPipe(t, ("row", "col", "col", "col"), space))  # sub-byte A/B exist only as row/col
        pipes.append(WmmaPipe(t, ("row", "row", "col", "row"), "global"))
        pipes.append(WmmaPipe(t, ("col", "col", "row", "col"), "global"))
    return pipes


_WMMA_AB_REGS = {
    ("bf16", "m16n16k16"): (4, 4), ("bf16", "m8n32k16"): (2, 8), ("bf16", "m32n8k16"): (8, 2),
    ("i8", "m16n16k16"): (2, 2), ("i8", "m8n32k16"): (1, 4), ("i8", "m32n8k16"): (4, 1),
}


def wmma_fragment_regs(shape: str, which: str, ptx_type: str) -> int:
    """Registers PTX declares per wmma fragment (PTX ISA 9.7.14.4)."""
    kind = "i8" if ptx_type in ("s8", "u8") else ptx_type
    if which in "ab" and (kind, shape) in _WMMA_AB_REGS:
        return _WMMA_AB_REGS[(kind, shape)]["ab".index(which)]
    if shape == "m8n8k32":
        return 2 if which in "cd" else 1
    if which in "cd":
        return {"f16": 4, "f32": 8, "s32": 8, "f64": 2}[ptx_type]
    return {"f16": 8, "tf32": 4, "f64": 1}[ptx_type]



def _wmma_candidates() -> Iterator[tuple[str, str]]:
    seen: dict[str, None] = {}
    for pipe in wmma_pipes():
        for spelling in pipe.spellings().values():
            seen.setdefault(spelling)
    arch = "sm_80"
    yield from ((s, arch) for s in seen)


def candidates() -> list[tuple[str, str]]:
    """(spelling, the lowest arch to ask ptxas with) of every candidate."""
    return [*_mma_candidates(), *_ldst_candidates(), *_wmma_candidates()]


@dataclass(frozen=True)
class MatrixForm:
    spelling: str
    arch: str

    @property
    def family(self) -> str:
        return self.spelling.split(".")[0]


@functools.cache
def ptxas_verdicts() -> dict[str, dict[str, object]]:
    data: dict[str, dict[str, object]] = json.loads(CACHE.read_text(encoding="utf-8"))
    return data


def matrix_forms() -> list[MatrixForm]:
    """Every candidate the cached ptxas verdicts accept, in candidate order."""
    verdicts = ptxas_verdicts()
    return [MatrixForm(s, a) for s, a in candidates() if verdicts.get(s, {}).get("accepted")]


# ---- regenerating the cache with ptxas ---------------------------------------------------------

def probe_line(spelling: str) -> str:
    """One instruction of ``spelling`` with plausible operands, for ptxas."""
    words = spelling.split(".")
    if spelling.startswith("mma."):
        from ptx2gcn.reference.errors import ReferenceInputError
        from ptx2gcn.reference.mma import mma_form

        try:
            form = mma_form(spelling)
            counts = (form.d_frag.regs, form.shape.a.regs, form.shape.b.regs, form.c_frag.regs)
            types = (form.dtype, form.atype, form.btype, form.ctype)
        except ReferenceInputError:  # a spelling the model refuses still goes to ptxas
            counts, types = (4, 4, 2, 4), ("f32", "b32", "b32", "f32")
        ops = []
        for k, (n, t) in enumerate(zip(counts, types)):
            name = "%fd" if t == "f64" else ("%f" if t == "f32" and k in (0, 3) else "%r")
            ops.append("{" + ", ".join(f"{name}{10 * k + i}" for i in range(n)) + "}")
        return f"{spelling} {', '.join(ops)};"
    if words[0] == "ldmatrix":
        num = int(words[4][1])
        return f"{spelling} {{{', '.join(f'%r{i}' for i in range(num))}}}, [%rd1];"
    if words[0] == "stmatrix":
        num = int(words[4][1])
        return f"{spelling} [%rd1], {{{', '.join(f'%r{i}' for i in range(num))}}};"
    if words[0] == "movmatrix":
        return f"{spelling} %r0, %r1;"
    return _wmma_probe(spelling)


def _wmma_probe(spelling: str) -> str:
    words = spelling.split(".")
    if words[1] == "mma":
        shape = next(w for w in words if w[0] == "m" and "n" in w and "k" in w)
        types = [w for w in words[words.index(shape) + 1:] if w != "satfinite"]
        if len(types) == 2:
            types = [types[0], "f16", "f16", types[1]]
        d, ab, _, c = types
        regs = [wmma_fragment_regs(shape, x, t) for x, t in (("d", d), ("a", ab), ("b", ab), ("c", c))]
        ops = ["{" + ", ".join(f"{_wmma_reg(t)}{10 * k + i}" for i in range(n)) + "}"
               for k, (n, t) in enumerate(zip(regs, (d, ab, ab, c)))]
        return f"{spelling} {', '.join(ops)};"
    shape = next(w for w in words if w[0] == "m" and "n" in w and "k" in w)
    which, typ = words[2], words[-1]
    n = wmma_fragment_regs(shape, which, typ)
    frag = "{" + ", ".join(f"{_wmma_reg(typ)}{i}" for i in range(n)) + "}"
    if words[1] == "store":
        return f"{spelling} [%rd1], {frag}, 16;"
    return f"{spelling} {frag}, [%rd1], 16;"


def _wmma_reg(ptx_type: str) -> str:
    return {"f32": "%f", "f64": "%fd"}.get(ptx_type, "%r")


PROBE_LINE = 8
"""The line of ``probe_module``'s text that holds the probed instruction."""


def probe_module(line: str, arch: str) -> str:
    """The PTX module a probe line is judged in, by ptxas and by the compiler."""
    return (f".version {PTX_VERSION}\n.target {arch}\n.address_size 64\n.visible .entry k(.param .u64 p)\n{{\n"
            ".reg .b32 %r<64>; .reg .f32 %f<64>; .reg .f64 %fd<64>; .reg .b64 %rd<4>;\n"
            "ld.param.u64 %rd1, [p];\n" + line + "\nret;\n}\n")


def ptxas_accepts(line: str, arch: str, ptxas: str) -> tuple[bool, str]:
    text = probe_module(line, arch)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "probe.ptx"
        path.write_text(text, encoding="utf-8")
        run = subprocess.run([ptxas, f"-arch={arch}", str(path), "-o", os.devnull], capture_output=True, text=True,
                             check=False)
    first = run.stderr.strip().splitlines()[0] if run.returncode and run.stderr.strip() else ""
    return run.returncode == 0, first.split("error   : ")[-1]


def refresh(ptxas: str) -> dict[str, dict[str, object]]:
    """Ask ptxas about every candidate (at its arch, then sm_90 if refused there)."""
    out: dict[str, dict[str, object]] = {}
    for spelling, arch in candidates():
        line = probe_line(spelling)
        ok, why = ptxas_accepts(line, arch, ptxas)
        if not ok and arch != "sm_90":
            ok, why = ptxas_accepts(line, "sm_90", ptxas)
            arch = "sm_90" if ok else arch
        entry: dict[str, object] = {"accepted": ok, "arch": arch}
        if not ok:
            entry["ptxas"] = why
        out[spelling] = entry
    return out


def ptxas_path() -> str:
    """The ptxas the caches are regenerated with (``$PTXAS``, default CUDA's)."""
    return os.environ.get("PTXAS", "/usr/local/cuda/bin/ptxas")


def write_cache(path: Path, data: dict[str, dict[str, object]] | dict[str, dict[str, str]]) -> None:
    path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def main() -> int:
    data = refresh(ptxas := ptxas_path())
    write_cache(CACHE, data)
    print(f"{CACHE}: {len(data)} candidates, {sum(1 for v in data.values() if v['accepted'])} accepted by {ptxas}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
