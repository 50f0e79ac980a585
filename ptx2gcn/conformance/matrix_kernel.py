"""Kernels, data and verdicts of the warp-matrix conformance forms (``matrix_forms``).

Every kernel runs two warps (one 64-lane wave): warp 0 gets small-integer data (the model demands
bit-exact results: this proves the fragment layouts), warp 1 random data (judged within the model's
error bound; integers, ``.b1``, f64 and data movement stay bit exact). Expected values come from
``ptx2gcn.reference.mma`` only: ``mma_disagreements`` for mma, ``ldmatrix``/``stmatrix``/
``movmatrix`` for data movement, ``matrix_expected`` (matrices in memory) for a wmma pipeline.

Invariant: a kernel's verdict lists every element the model does not accept; an empty list means
every lane of both warps was compared and accepted.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import numpy.typing as npt

from ptx2gcn.conformance.matrix_forms import PTX_VERSION, WmmaPipe, wmma_fragment_regs
from ptx2gcn.reference.floatformat import E4M3, E5M2
from ptx2gcn.reference.mma import (
    WARP,
    element_format,
    from_matrix,
    ldmatrix,
    matrix_expected,
    mma_disagreements,
    mma_form,
    movmatrix,
    stmatrix,
)
from ptx2gcn.reference.mma_layouts import Fragment
from ptx2gcn.reference.rounding import round_fraction

WARPS = 2
THREADS = WARPS * WARP
_HEAD = f""".version {PTX_VERSION}
.target sm_90
.address_size 64
.visible .entry k(.param .u64 pout, .param .u64 pin)
{{
.reg .b32 %tx, %lane, %w, %j, %v; .reg .pred %p; .reg .b64 %out, %in, %q, %x, %y, %z, %sb;
mov.u32 %tx, %tid.x; and.b32 %lane, %tx, 31; shr.u32 %w, %tx, 5;
ld.param.u64 %out, [pout]; ld.param.u64 %in, [pin];
cvta.to.global.u64 %out, %out; cvta.to.global.u64 %in, %in;
"""
_BITS = {"f16": 16, "bf16": 16, "tf32": 32, "f32": 32, "s32": 32, "f64": 64, "s8": 8, "u8": 8, "s4": 4, "u4": 4,
         "b1": 1, "e4m3": 8, "e5m2": 8}


# ---- data ---------------------------------------------------------------------------------------

def element_bits(ptx_type: str, values: npt.NDArray[np.float64], rng: np.random.Generator) -> npt.NDArray[np.int64]:
    """Raw bits of ``values`` as ``ptx_type`` elements (tf32 gets random ignored low bits)."""
    if ptx_type == "f16":
        return values.astype(np.float16).view(np.uint16).astype(np.int64)
    if ptx_type == "bf16":
        return (values.astype(np.float32).view(np.uint32) >> 16).astype(np.int64)
    if ptx_type == "tf32":
        return (values.astype(np.float32).view(np.uint32) | rng.integers(0, 0x2000, values.shape)).astype(np.int64)
    if ptx_type == "f32":
        return values.astype(np.float32).view(np.uint32).astype(np.int64)
    if ptx_type == "f64":
        return values.astype(np.float64).view(np.int64)
    if ptx_type in ("e4m3", "e5m2"):
        fmt = E4M3 if ptx_type == "e4m3" else E5M2
        flat = [round_fraction(fmt, Fraction(float(v)), "rn") for v in values.reshape(-1)]
        return np.array(flat, dtype=np.int64).reshape(values.shape)
    return values.astype(np.int64) & ((1 << _BITS[ptx_type]) - 1)


def matrix_data(ptx_type: str, shape: tuple[int, int], small: bool, rng: np.random.Generator,
                accumulator: bool = False) -> npt.NDArray[np.int64]:
    """A matrix of ``ptx_type`` elements: small integers, or random (normal floats, full-range
    integers and bits, s32 accumulators near the saturation limits)."""
    if ptx_type in ("s8", "u8", "s4", "u4", "b1"):
        values = rng.integers(0, 1 << _BITS[ptx_type], shape)
    elif ptx_type == "s32":
        values = rng.integers(-1000, 1000, shape) if small else rng.choice([-(2**31) + 5, 2**31 - 7, 12345, -3], shape)
    elif small:
        values = rng.integers(-64 if accumulator else -8, 65 if accumulator else 9, shape).astype(np.float64)
    else:
        values = rng.standard_normal(shape) * (4.0 if accumulator else 1.0)
        if ptx_type == "f16":  # normal: keep clear of f16's subnormal range (|x| < 2^-14)
            values = np.where(np.abs(values) < 2.0**-13, np.copysign(2.0**-13, values), values)
    return element_bits(ptx_type, np.asarray(values), rng)


def fragment_words(frag: Fragment) -> int:
    return frag.regs * frag.reg_bits // 32


def split_words(regs: list[list[int]], frag: Fragment) -> list[list[int]]:
    if frag.reg_bits == 32:
        return regs
    return [[w for r in lane for w in (r & 0xFFFFFFFF, r >> 32)] for lane in regs]


def join_words(words: npt.NDArray[np.uint32], frag: Fragment) -> list[list[int]]:
    if frag.reg_bits == 32:
        return [[int(w) for w in lane] for lane in words]
    return [[int(lane[2 * r]) | int(lane[2 * r + 1]) << 32 for r in range(frag.regs)] for lane in words]


def compile_kernel(ptx: str) -> bytes:
    """The code object (raises the compiler's located error, e.g. ``unsupported``, before any data
    is made)."""
    from ptx2gcn.compiler import compile as compile_ptx

    return compile_ptx(ptx).data


def _launch(code: bytes, inputs: bytes, out_bytes: int) -> bytes:
    from ptx2gcn.fuzz.device import launch_buffers

    out, _ = launch_buffers(code, "k", [bytes(out_bytes), inputs], [], 1, THREADS)
    return out


def _kernel(decls: list[str], body: list[str], n_in: int, n_out: int) -> str:
    lines = [_HEAD, *decls, f".reg .b32 %i<{n_in}>;", f".reg .b32 %o<{max(n_out, 1)}>;",
             f"mul.wide.u32 %q, %tx, {4 * n_in};", "add.u64 %x, %in, %q;"]
    lines += [f"ld.global.u32 %i{i}, [%x+{4 * i}];" for i in range(n_in)]
    lines += body
    lines += [f"mul.wide.u32 %q, %tx, {4 * n_out};", "add.u64 %x, %out, %q;"]
    lines += [f"st.global.u32 [%x+{4 * i}], %o{i};" for i in range(n_out)]
    return "\n".join([*lines, "ret;", "}"]) + "\n"


# ---- mma ----------------------------------------------------------------------------------------

REG_DECL = {"f32": ".f32", "s32": ".s32", "f64": ".f64"}


def fragment_operand(name: str, frag: Fragment, ptx_type: str, first: int, decls: list[str], moves: list[str]) -> str:
    decl = REG_DECL.get(ptx_type)
    if decl is None:
        return "{" + ", ".join(f"%i{first + r}" for r in range(frag.regs)) + "}"
    decls.append(f".reg {decl} %{name}<{frag.regs}>;")
    for r in range(frag.regs):
        if frag.reg_bits == 64:
            moves.append(f"mov.b64 %{name}{r}, {{%i{first + 2 * r}, %i{first + 2 * r + 1}}};")
        else:
            moves.append(f"mov.b32 %{name}{r}, %i{first + r};")
    return "{" + ", ".join(f"%{name}{r}" for r in range(frag.regs)) + "}"


def mma_body(spelling: str) -> tuple[list[str], list[str], int, int]:
    """Declarations and body of one mma reading its fragments from ``%i0..`` (A, B, C words in
    order) and leaving D's words in ``%o0..``; with the input and output word counts."""
    form = mma_form(spelling)
    decls: list[str] = []
    moves: list[str] = []
    wa, wb, wc = fragment_words(form.shape.a), fragment_words(form.shape.b), fragment_words(form.c_frag)
    a = fragment_operand("ra", form.shape.a, form.atype, 0, decls, moves)
    b = fragment_operand("rb", form.shape.b, form.btype, wa, decls, moves)
    c = fragment_operand("rc", form.c_frag, form.ctype, wa + wb, decls, moves)
    d_frag = form.d_frag
    decls.append(f".reg {REG_DECL.get(form.dtype, '.b32')} %rd<{d_frag.regs}>;")
    d = "{" + ", ".join(f"%rd{r}" for r in range(d_frag.regs)) + "}"
    stores = [f"mov.b64 {{%o{2 * r}, %o{2 * r + 1}}}, %rd{r};" if d_frag.reg_bits == 64 else f"mov.b32 %o{r}, %rd{r};"
              for r in range(d_frag.regs)]
    return decls, [*moves, f"{spelling} {d}, {a}, {b}, {c};", *stores], wa + wb + wc, fragment_words(d_frag)


def mma_kernel(spelling: str) -> str:
    return _kernel(*mma_body(spelling))


def run_mma(spelling: str, seed: int) -> list[str]:
    form = mma_form(spelling)
    code = compile_kernel(mma_kernel(spelling))
    rng = np.random.default_rng(seed)
    s, fc = form.shape, form.c_frag
    operands = []
    for w in range(WARPS):
        small = w == 0
        a = from_matrix(s.a, matrix_data(form.atype, (s.a.rows, s.a.cols), small, rng).tolist())
        b = from_matrix(s.b, matrix_data(form.btype, (s.b.rows, s.b.cols), small, rng).tolist())
        c = from_matrix(fc, matrix_data(form.ctype, (fc.rows, fc.cols), small, rng, accumulator=True).tolist())
        operands.append((a, b, c))
    words = [x + y + z for a, b, c in operands
             for x, y, z in zip(split_words(a, s.a), split_words(b, s.b), split_words(c, fc))]
    n_out = fragment_words(form.d_frag)
    raw = _launch(code, np.asarray(words, dtype=np.uint32).tobytes(), 4 * n_out * THREADS)
    out = np.frombuffer(raw, dtype=np.uint32).reshape(THREADS, n_out)
    failures = []
    for w, (a, b, c) in enumerate(operands):
        wrong = mma_disagreements(spelling, a, b, c, join_words(out[w * WARP:(w + 1) * WARP], form.d_frag))
        failures += [f"warp {w} ({'small integers' if w == 0 else 'random'}): {x}" for x in wrong[:3]]
    return failures


# ---- ldmatrix / stmatrix / movmatrix ------------------------------------------------------------

ROW_BYTES = 16
REGION = WARP * ROW_BYTES


def ldst_kernel(spelling: str) -> str:
    """Inputs per lane: 4 fill words (row ``%laneid`` of the warp's region), the row permutation
    (multiplier, offset), 4 words to store; outputs: the loaded registers or the region's row."""
    words = spelling.split(".")
    decls = [f".shared .align 16 .b8 region[{WARPS * REGION}];"]
    body = ["mov.u64 %sb, region;", f"mul.wide.u32 %q, %w, {REGION};", "add.u64 %sb, %sb, %q;"]
    if words[0] == "movmatrix":
        return _kernel([], [f"{spelling} %o0, %i0;"], 10, 1)
    num = int(words[4][1])
    body += ["mul.wide.u32 %q, %lane, 16;", "add.u64 %y, %sb, %q;",
             "st.shared.v4.b32 [%y], {%i0, %i1, %i2, %i3};", "bar.warp.sync -1;",
             "mad.lo.u32 %j, %lane, %i4, %i5;", "and.b32 %j, %j, 31;", "mul.wide.u32 %q, %j, 16;",
             "add.u64 %x, %sb, %q;"]
    if ".shared" not in spelling:
        body.append("cvta.shared.u64 %x, %x;")
    regs = "{" + ", ".join(f"%{'o' if words[0] == 'ldmatrix' else 'i'}{i if words[0] == 'ldmatrix' else 6 + i}"
                           for i in range(num)) + "}"
    if words[0] == "ldmatrix":
        body += [f"{spelling} {regs}, [%x];"]
        return _kernel(decls, body, 10, num)
    body += [f"{spelling} [%x], {regs};", "bar.warp.sync -1;", "ld.shared.v4.b32 {%o0, %o1, %o2, %o3}, [%y];"]
    return _kernel(decls, body, 10, 4)


def run_ldst(spelling: str, seed: int) -> list[str]:
    code = compile_kernel(ldst_kernel(spelling))
    rng = np.random.default_rng(seed)
    words = spelling.split(".")
    inputs = rng.integers(0, 2**32, (THREADS, 10), dtype=np.uint64)
    perms = [(1, 0), (int(rng.integers(0, 16)) * 2 + 1, int(rng.integers(0, 32)))]
    for w, (mul, add) in enumerate(perms):
        inputs[w * WARP:(w + 1) * WARP, 4] = mul
        inputs[w * WARP:(w + 1) * WARP, 5] = add
    n_out = 1 if words[0] == "movmatrix" else (int(words[4][1]) if words[0] == "ldmatrix" else 4)
    raw = _launch(code, inputs.astype(np.uint32).tobytes(), 4 * n_out * THREADS)
    out = np.frombuffer(raw, dtype=np.uint32).reshape(THREADS, n_out)
    failures = []
    for w, (mul, add) in enumerate(perms):
        lanes = inputs[w * WARP:(w + 1) * WARP].astype(np.int64)
        want = _ldst_expected(words, lanes, mul, add)
        got = out[w * WARP:(w + 1) * WARP].astype(np.int64)
        for lane, reg in zip(*np.nonzero(got != want)):
            failures.append(f"warp {w} lane {lane} r{reg}: got {int(got[lane, reg]):#x}, "
                            f"expected {int(want[lane, reg]):#x}")
    return failures[:5]


def _ldst_expected(words: list[str], lanes: npt.NDArray[np.int64], mul: int, add: int) -> npt.NDArray[np.int64]:
    if words[0] == "movmatrix":
        return np.array(movmatrix([int(x) for x in lanes[:, 0]]), dtype=np.int64).reshape(WARP, 1)
    halves = np.zeros(WARP * 8, dtype=np.int64)
    for lane in range(WARP):
        for j in range(4):
            halves[8 * lane + 2 * j] = lanes[lane, j] & 0xFFFF
            halves[8 * lane + 2 * j + 1] = lanes[lane, j] >> 16 & 0xFFFF
    addresses = [ROW_BYTES * ((lane * mul + add) % WARP) for lane in range(WARP)]
    num, trans = int(words[4][1]), ".trans" in ".".join(words)
    if words[0] == "ldmatrix":
        return np.array(ldmatrix(num, trans, addresses, lambda a: int(halves[a // 2])), dtype=np.int64)

    def write16(address: int, value: int) -> None:
        halves[address // 2] = value

    stmatrix(num, trans, addresses, [[int(x) for x in lanes[lane, 6:6 + num]] for lane in range(WARP)], write16)
    return np.array([[halves[8 * lane + 2 * j] | halves[8 * lane + 2 * j + 1] << 16 for j in range(4)]
                     for lane in range(WARP)], dtype=np.int64)


# ---- wmma pipelines -----------------------------------------------------------------------------

def _mnk(shape: str) -> tuple[int, int, int]:
    m, rest = shape[1:].split("n")
    n, k = rest.split("k")
    return int(m), int(n), int(k)


def _dims(pipe: WmmaPipe) -> dict[str, tuple[int, int]]:
    m, n, k = _mnk(pipe.types.shape)
    return {"a": (m, k), "b": (k, n), "c": (m, n), "d": (m, n)}


def _types(pipe: WmmaPipe) -> dict[str, str]:
    t = pipe.types
    return {"a": t.ab, "b": t.ab, "c": t.c, "d": t.d}


def _bytes(pipe: WmmaPipe, which: str) -> int:
    rows, cols = _dims(pipe)[which]
    return rows * cols * _BITS[_types(pipe)[which]] // 8


def _layout_index(layout: str, r: int, c: int, rows: int, cols: int) -> int:
    return r * cols + c if layout == "row" else c * rows + r


def wmma_kernel(pipe: WmmaPipe) -> str:
    """Warp ``w``'s A, B, C at ``in + w * per_warp`` (each in its layout, natural stride); D to
    ``out + w * D bytes``. Non-global spaces copy through the warp's shared region."""
    spellings = pipe.spellings()
    sizes = {x: _bytes(pipe, x) for x in "abcd"}
    offsets = {"a": 0, "b": sizes["a"], "c": sizes["a"] + sizes["b"]}
    per_warp = sum(sizes[x] for x in "abc")
    shared = pipe.space != "global"
    region = per_warp + sizes["d"]
    decls = [f".shared .align 16 .b8 region[{WARPS * region}];"] if shared else []
    types = _types(pipe)
    names: dict[str, str] = {}
    for x in "abcd":
        count = wmma_fragment_regs(pipe.types.shape, x, types[x])
        decl = {"f32": ".f32", "f64": ".f64", "s32": ".s32"}.get(types[x], ".b32") if x in "cd" else (
            ".f64" if types[x] == "f64" else ".b32")
        decls.append(f".reg {decl} %{x}<{count}>;")
        names[x] = "{" + ", ".join(f"%{x}{i}" for i in range(count)) + "}"
    body = [f"mul.wide.u32 %q, %w, {per_warp};", "add.u64 %x, %in, %q;"]  # %x: the warp's input
    if shared:
        body += ["mov.u64 %sb, region;", f"mul.wide.u32 %q, %w, {region};", "add.u64 %sb, %sb, %q;"]
        body += _copy("%x", "%sb", per_warp // 4, "ld.global", "st.shared", "CI")
        body += ["bar.warp.sync -1;", "mov.u64 %x, %sb;"]
        if pipe.space == "":
            body.append("cvta.shared.u64 %x, %x;")

    def stride(x: str) -> int:
        rows, cols = _dims(pipe)[x]
        return cols if pipe.layouts["abcd".index(x)] == "row" else rows

    for x in "abc":
        body.append(f"{spellings[x]} {names[x]}, [%x+{offsets[x]}], {stride(x)};")
    body.append(f"{spellings['mma']} {names['d']}, {names['a']}, {names['b']}, {names['c']};")
    if shared:
        body += [f"add.u64 %y, %x, {per_warp};", f"{spellings['d']} [%y], {names['d']}, {stride('d')};",
                 "bar.warp.sync -1;", f"mul.wide.u32 %q, %w, {sizes['d']};", "add.u64 %y, %out, %q;",
                 f"add.u64 %x, %sb, {per_warp};"]
        body += _copy("%x", "%y", sizes["d"] // 4, "ld.shared", "st.global", "CO")
    else:
        body += [f"mul.wide.u32 %q, %w, {sizes['d']};", "add.u64 %y, %out, %q;",
                 f"{spellings['d']} [%y], {names['d']}, {stride('d')};"]
    lines = [_HEAD, *decls, *body, "ret;", "}"]
    return "\n".join(lines) + "\n"


def _copy(src: str, dst: str, words: int, load: str, store: str, label: str) -> list[str]:
    """Lanes copy ``words`` words (a multiple of 32) from ``src`` to ``dst``, lane-strided."""
    return ["mov.u32 %j, %lane;", f"{label}:", "mul.wide.u32 %q, %j, 4;", f"add.u64 %z, {src}, %q;",
            f"{load}.u32 %v, [%z];", f"add.u64 %z, {dst}, %q;", f"{store}.u32 [%z], %v;", "add.u32 %j, %j, 32;",
            f"setp.lt.u32 %p, %j, {words};", f"@%p bra {label};"]


def run_wmma(pipe: WmmaPipe, seed: int) -> list[str]:
    code = compile_kernel(wmma_kernel(pipe))
    rng = np.random.default_rng(seed)
    dims, types = _dims(pipe), _types(pipe)
    blobs: list[bytes] = []
    mats = []
    for w in range(WARPS):
        warp_mats = {}
        for x in "abc":
            mat = matrix_data(types[x], dims[x], w == 0, rng, accumulator=x == "c")
            warp_mats[x] = mat
            blobs.append(_to_memory(mat, pipe.layouts["abcd".index(x)], types[x]))
        mats.append(warp_mats)
    d_bytes = _bytes(pipe, "d")
    raw = _launch(code, b"".join(blobs), WARPS * d_bytes)
    failures = []
    fmt = element_format(types["d"])
    rows, cols = dims["d"]
    for w in range(WARPS):
        got = _from_memory(raw[w * d_bytes:(w + 1) * d_bytes], pipe.layouts[3], types["d"], rows, cols)
        m = mats[w]
        expected = matrix_expected(pipe.types.base_mma, m["a"].tolist(), m["b"].tolist(), m["c"].tolist())
        for r in range(rows):
            for c in range(cols):
                if not expected[r][c].accepts(fmt, got[r][c]):
                    failures.append(f"warp {w} D[{r}][{c}] = {got[r][c]:#x}, expected {expected[r][c]}")
    return failures[:5]


def _to_memory(mat: npt.NDArray[np.int64], layout: str, ptx_type: str) -> bytes:
    bits = _BITS[ptx_type]
    flat = (mat if layout == "row" else mat.T).reshape(-1)
    if bits == 4:  # two elements a byte, the first in the low nibble
        pairs = flat.reshape(-1, 2) & 0xF
        return (pairs[:, 0] | pairs[:, 1] << 4).astype(np.uint8).tobytes()
    dtype = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}[bits]
    return (flat.astype(np.uint64) & np.uint64((1 << bits) - 1 if bits < 64 else 2**64 - 1)).astype(dtype).tobytes()


def _from_memory(raw: bytes, layout: str, ptx_type: str, rows: int, cols: int) -> list[list[int]]:
    bits = _BITS[ptx_type]
    dtype = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}[bits]
    flat = np.frombuffer(raw, dtype=dtype)
    return [[int(flat[_layout_index(layout, r, c, rows, cols)]) for c in range(cols)] for r in range(rows)]

