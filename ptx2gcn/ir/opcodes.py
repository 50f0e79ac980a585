"""The one opcode table of ptx2gcn's IR: one row per op, read by builder, verifier, printer and passes.

Invariant: every op name that can appear in IR is a key of ``OPS``; nothing else defines what an
op's operands, results, attributes and effects are. Column legend of ``OpDef``:

- ``operands`` / ``results``: type kinds, resolved against the op (``resolve_kind``):
  ``T`` the IR type of the PTX ``type`` attribute, ``W`` the double-width integer of ``T``,
  ``M`` ``W`` when ``mode=wide`` else ``T``, ``D``/``S`` the types of the ``dtype``/``stype``
  attributes, ``R`` the type of result 0, ``pred``/``i32``/``i64`` exact types, ``int``/``float``/
  ``ptr``/``any`` classes; a trailing ``*`` kind is variadic (any count, any type).
- ``attrs``: allowed attribute names → the values allowed (a frozenset of words, ``INT``, ``FLAG``
  or ``SYM``); names in ``required`` must be present.
- ``flags``: ``side_effects`` (never removed or merged), ``reads_memory`` (removable when unused
  and not volatile, never merged), ``convergent`` (warp- or block-collective: never merged,
  duplicated or moved across control flow), ``commutative``, ``terminator``, ``volatile``
  (a fresh value on each execution, e.g. clocks: never merged).
- ``url``: the PTX ISA section the op stands for.

PTX instructions that the builder knows but ptx2gcn does not translate are listed in
``UNSUPPORTED`` with the reason the ``unsupported: <instruction>: <why>`` message gives.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Final

from ptx2gcn.ir.types import (
    I32,
    I64,
    PACKED_INT_TYPES,
    PRED,
    PTX_TYPES,
    FloatType,
    IntType,
    PackedType,
    PtrType,
    Type,
    VectorType,
)

ISA: Final = "https://docs.nvidia.com/cuda/parallel-thread-execution/index.html"

INT: Final = "int"
FLAG: Final = "flag"
SYM: Final = "sym"
AttrKind = frozenset[str] | str


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


INT_TYPES = _words("b8 b16 b32 b64 u8 u16 u32 u64 s8 s16 s32 s64")
FLOAT_TYPES = _words("f16 bf16 f32 f64 f16x2 bf16x2")
PACKED_INT = _words("u16x2 s16x2")  # add/sub/min/max only: two 16-bit halves of an i32
ALL_TYPES = INT_TYPES | FLOAT_TYPES | _words("pred b128 tf32 e4m3x2 e5m2x2 e4m3 e5m2")
ROUNDING = _words("rn rz rm rp rna rs rni rzi rmi rpi approx full")
CMP = _words("eq ne lt le gt ge lo ls hi hs equ neu ltu leu gtu geu num nan")
SPACES = _words("generic global shared local const param kparam")
SCOPES = _words("cta cluster gpu sys")
SEMS = _words("weak relaxed acquire release acq_rel sc volatile")
CACHE = _words("ca cg cs lu cv wb wt nc")
ATOM_OPS = _words("add min max inc dec and or xor exch cas")

ARITH: dict[str, AttrKind] = {"type": ALL_TYPES, "rnd": ROUNDING, "ftz": FLAG, "sat": FLAG}
MEMORY: dict[str, AttrKind] = {"type": ALL_TYPES, "vec": INT, "cache": CACHE, "sem": SEMS, "scope": SCOPES,
          "volatile": FLAG, "hint": SYM}


@dataclass(frozen=True, slots=True)
class OpDef:
    """One row of the table (see the module docstring for the column legend)."""

    name: str
    operands: tuple[str, ...]
    results: tuple[str, ...]
    attrs: dict[str, AttrKind]
    required: frozenset[str]
    flags: frozenset[str]
    url: str
    successors: int = 0
    """Number of branch targets (-1: one or more, for ``switch``)."""

    def has(self, flag: str) -> bool:
        return flag in self.flags


OPS: dict[str, OpDef] = {}


def _op(name: str, operands: str, results: str, attrs: dict[str, AttrKind] | None = None,
        required: str = "", flags: str = "", url: str = "", successors: int = 0) -> None:
    OPS[name] = OpDef(name, tuple(operands.split()), tuple(results.split()), dict(attrs or {}),
                      _words(required), _words(flags), f"{ISA}#{url}" if url else ISA, successors)


_INT_ARITH = "integer-arithmetic-instructions"
_FLOAT = "floating-point-instructions"
_LOGIC = "logic-and-shift-instructions"
_MOVE = "data-movement-and-conversion-instructions"

# Arithmetic: one op per PTX family, modifiers as attributes.
_ADD: dict[str, AttrKind] = ARITH | {"type": ALL_TYPES | PACKED_INT}
_op("add", "T T", "T", _ADD, "type", "commutative", f"{_INT_ARITH}-add")
_op("sub", "T T", "T", _ADD, "type", "", f"{_INT_ARITH}-sub")
_op("addc", "T T pred", "T pred", {"type": INT_TYPES}, "type", "", f"{_INT_ARITH}-addc")
_op("subc", "T T pred", "T pred", {"type": INT_TYPES}, "type", "", f"{_INT_ARITH}-subc")
_op("mul", "T T", "M", ARITH | {"mode": _words("lo hi wide")}, "type", "commutative",
    f"{_INT_ARITH}-mul")
_op("mad", "T T M", "M", ARITH | {"mode": _words("lo hi wide")}, "type", "", f"{_INT_ARITH}-mad")
_op("madc", "T T T pred", "T pred", {"type": INT_TYPES, "mode": _words("lo hi")}, "type mode", "",
    f"{_INT_ARITH}-madc")
_op("mul24", "T T", "T", {"type": INT_TYPES, "mode": _words("lo hi")}, "type mode", "commutative",
    f"{_INT_ARITH}-mul24")
_op("mad24", "T T T", "T", {"type": INT_TYPES, "mode": _words("lo hi"), "sat": FLAG}, "type mode", "",
    f"{_INT_ARITH}-mad24")
_op("sad", "T T T", "T", {"type": INT_TYPES}, "type", "", f"{_INT_ARITH}-sad")
_op("fma", "T T T", "T", ARITH | {"relu": FLAG}, "type rnd", "", f"{_FLOAT}-fma")
_op("div", "T T", "T", ARITH, "type", "", f"{_INT_ARITH}-div")
_op("rem", "T T", "T", {"type": INT_TYPES}, "type", "", f"{_INT_ARITH}-rem")
_op("abs", "T", "T", {"type": ALL_TYPES, "ftz": FLAG}, "type", "", f"{_INT_ARITH}-abs")
_op("neg", "T", "T", {"type": ALL_TYPES, "ftz": FLAG}, "type", "", f"{_INT_ARITH}-neg")
_MINMAX: dict[str, AttrKind] = {"type": ALL_TYPES | PACKED_INT, "ftz": FLAG, "nan": FLAG, "relu": FLAG,
                                "xorsign": FLAG}
_op("min", "T T", "T", _MINMAX, "type", "commutative", f"{_INT_ARITH}-min")
_op("max", "T T", "T", _MINMAX, "type", "commutative", f"{_INT_ARITH}-max")
_op("copysign", "T T", "T", {"type": FLOAT_TYPES}, "type", "", f"{_FLOAT}-copysign")
for _name in ("rcp", "sqrt", "rsqrt", "sin", "cos", "lg2", "ex2", "tanh"):
    _op(_name, "T", "T", {"type": FLOAT_TYPES, "rnd": ROUNDING, "ftz": FLAG}, "type", "",
        f"{_FLOAT}-{_name}")
_op("testp", "T", "pred", {"type": FLOAT_TYPES, "op": _words(
    "finite infinite number notanumber normal subnormal")}, "type op", "", f"{_FLOAT}-testp")
_op("popc", "T", "i32", {"type": INT_TYPES}, "type", "", f"{_INT_ARITH}-popc")
_op("clz", "T", "i32", {"type": INT_TYPES}, "type", "", f"{_INT_ARITH}-clz")
_op("bfind", "T", "i32", {"type": INT_TYPES, "shiftamt": FLAG}, "type", "", f"{_INT_ARITH}-bfind")
_op("brev", "T", "T", {"type": INT_TYPES}, "type", "", f"{_INT_ARITH}-brev")
_op("dp4a", "i32 i32 i32", "i32", {"atype": _words("u32 s32"), "btype": _words("u32 s32")}, "atype btype",
    "", f"{_INT_ARITH}-dp4a")
_op("dp2a", "i32 i32 i32", "i32", {"atype": _words("u32 s32"), "btype": _words("u32 s32"),
                                   "mode": _words("lo hi")}, "atype btype mode", "", f"{_INT_ARITH}-dp2a")
_op("bfe", "T i32 i32", "T", {"type": INT_TYPES}, "type", "", f"{_INT_ARITH}-bfe")
_op("bfi", "T T i32 i32", "T", {"type": INT_TYPES}, "type", "", f"{_INT_ARITH}-bfi")

# Logic and shifts.
_op("and", "T T", "T", {"type": INT_TYPES | {"pred"}}, "type", "commutative", f"{_LOGIC}-and")
_op("or", "T T", "T", {"type": INT_TYPES | {"pred"}}, "type", "commutative", f"{_LOGIC}-or")
_op("xor", "T T", "T", {"type": INT_TYPES | {"pred"}}, "type", "commutative", f"{_LOGIC}-xor")
_op("not", "T", "T", {"type": INT_TYPES | {"pred"}}, "type", "", f"{_LOGIC}-not")
_op("cnot", "T", "T", {"type": INT_TYPES}, "type", "", f"{_LOGIC}-cnot")
_op("lop3", "T T T", "T", {"type": INT_TYPES, "lut": INT}, "type lut", "", f"{_LOGIC}-lop3")
_op("shl", "T i32", "T", {"type": INT_TYPES}, "type", "", f"{_LOGIC}-shl")
_op("shr", "T i32", "T", {"type": INT_TYPES}, "type", "", f"{_LOGIC}-shr")
_op("shf", "i32 i32 i32", "i32", {"dir": _words("l r"), "mode": _words("clamp wrap")}, "dir mode", "",
    f"{_LOGIC}-shf")
_op("bmsk", "i32 i32", "i32", {"mode": _words("clamp wrap")}, "mode", "", f"{_INT_ARITH}-bmsk")
_op("szext", "i32 i32", "i32", {"type": _words("u32 s32"), "mode": _words("clamp wrap")}, "type mode", "",
    f"{_INT_ARITH}-szext")
_op("fns", "i32 i32 i32", "i32", {}, "", "", f"{_INT_ARITH}-fns")
_op("video", "i32 i32 i32", "i32", {"inst": SYM, "types": SYM, "sat": FLAG,
                                    "secondary": _words("add min max"),
                                    "shift": _words("clamp wrap"), "cmp": CMP, "po": FLAG, "dsel": SYM,
                                    "asel": SYM, "bsel": SYM, "scale": _words("shr7 shr15"),
                                    "neg_a": FLAG, "neg_b": FLAG, "neg_c": FLAG},
    "inst types", "", "video-instructions")
_op("prmt", "i32 i32 i32", "i32", {"mode": _words("f4e b4e rc8 ecl ecr rc16")}, "", "",
    f"{_MOVE}-prmt")

# Comparison and selection.
_op("setp", "T T", "pred", {"type": ALL_TYPES, "cmp": CMP, "ftz": FLAG}, "type cmp", "",
    "comparison-and-selection-instructions-setp")
_op("selp", "R R pred", "any", {}, "", "", "comparison-and-selection-instructions-selp")

# Conversions, constants and bit-level reinterpretation (PTX's implicit behaviours made explicit).
_op("cvt", "S", "D", {"dtype": ALL_TYPES, "stype": ALL_TYPES, "rnd": ROUNDING, "ftz": FLAG,
                      "sat": FLAG, "relu": FLAG, "satfinite": FLAG}, "dtype stype", "", f"{_MOVE}-cvt")
_op("cvt_pack", "i32 i32 *", "i32", {"dtype": _words("u2 s2 u4 s4 u8 s8 u16 s16")}, "dtype", "",
    f"{_MOVE}-cvt-pack")
_op("const", "", "any", {"value": INT}, "value", "", f"{_MOVE}-mov")
_op("undef", "", "any", {}, "", "", "")
_op("bitcast", "any", "any", {}, "", "", f"{_MOVE}-mov")
_op("zext", "int", "int", {}, "", "", "operand-size-exceeding-instruction-type-size")
_op("sext", "int", "int", {}, "", "", "operand-size-exceeding-instruction-type-size")
_op("trunc", "int", "int", {}, "", "", "operand-size-exceeding-instruction-type-size")
_op("pack", "any *", "any", {}, "", "", f"{_MOVE}-mov-2")
_op("unpack", "any", "any *", {}, "", "", f"{_MOVE}-mov-2")
_op("special_reg", "", "any", {"reg": SYM}, "reg", "", "special-registers")

# Addresses.
_op("addr_of", "", "ptr", {"sym": SYM}, "sym", "", f"{_MOVE}-mov")
_op("alloca", "", "ptr", {"size": INT, "align": INT}, "size align", "", "state-spaces")
_op("stack_alloc", "int", "ptr", {"align": INT}, "align", "side_effects",
    "stack-manipulation-instructions-alloca")
_op("stacksave", "", "int", {}, "", "side_effects", "stack-manipulation-instructions-stacksave")
_op("stackrestore", "int", "", {}, "", "side_effects", "stack-manipulation-instructions-stackrestore")
_op("ptradd", "ptr int", "R", {}, "", "", "")
_op("ptrtoint", "ptr", "int", {}, "", "", f"{_MOVE}-cvta")
_op("inttoptr", "int", "ptr", {}, "", "", f"{_MOVE}-cvta")
_op("cvta", "int", "int", {"space": SPACES, "to": FLAG}, "space", "", f"{_MOVE}-cvta")
_op("isspacep", "int", "pred", {"space": SPACES}, "space", "", f"{_MOVE}-isspacep")

# Memory.
_op("ld", "ptr", "any", MEMORY, "type", "reads_memory", f"{_MOVE}-ld")
_op("st", "ptr any", "", MEMORY, "type", "side_effects", f"{_MOVE}-st")
_op("atom", "ptr any *", "any", {"op": ATOM_OPS, "type": ALL_TYPES, "sem": SEMS, "scope": SCOPES,
                                "noftz": FLAG, "vec": INT},
    "op type", "side_effects", "parallel-synchronization-and-communication-instructions-atom")
_op("red", "ptr any", "", {"op": ATOM_OPS, "type": ALL_TYPES, "sem": SEMS, "scope": SCOPES,
                           "noftz": FLAG, "vec": INT},
    "op type", "side_effects", "parallel-synchronization-and-communication-instructions-red")
_op("fence", "", "", {"sem": SEMS, "scope": SCOPES}, "sem scope", "side_effects",
    "parallel-synchronization-and-communication-instructions-membar-fence")
_op("cp_async", "ptr ptr i32", "", {"size": INT, "cache": CACHE, "hint": SYM}, "size", "side_effects",
    f"{_MOVE}-cp-async")
_op("prefetch", "ptr", "", {"level": SYM}, "level", "side_effects", f"{_MOVE}-prefetch-prefetchu")

# Warp- and block-collective operations: convergent, never merged or moved.
_SYNC = "parallel-synchronization-and-communication-instructions"
_op("bar", "i32 *", "", {"mode": _words("sync arrive warp"), "aligned": FLAG}, "mode",
    "side_effects convergent", f"{_SYNC}-bar")
_op("bar_red", "i32 pred *", "any", {"op": _words("popc and or"), "aligned": FLAG}, "op",
    "side_effects convergent", f"{_SYNC}-bar")
_op("shfl", "i32 i32 i32 i32", "i32 pred", {"mode": _words("up down bfly idx"), "sync": FLAG}, "mode",
    "convergent", f"{_SYNC}-shfl-sync")
_op("vote", "pred i32", "any", {"mode": _words("all any uni ballot"), "sync": FLAG}, "mode",
    "convergent", f"{_SYNC}-vote-sync")
_op("activemask", "", "i32", {}, "", "convergent volatile", f"{_SYNC}-activemask")
_op("match", "T i32", "i32 *", {"mode": _words("any all"), "type": INT_TYPES}, "mode type",
    "convergent", f"{_SYNC}-match-sync")
_op("redux", "T i32", "T", {"op": _words("add min max and or xor"), "type": INT_TYPES | {"f32"}, "abs": FLAG,
                            "nan": FLAG}, "op type", "convergent", f"{_SYNC}-redux-sync")
_op("elect", "i32", "i32 pred", {}, "", "convergent", f"{_SYNC}-elect-sync")

# Thread-block clusters (sm_90). Addresses in the .shared::cluster window are integers (32-bit); an
# access through one is a generic access at ``cvta_cluster`` of it. ptx2gcn launches every cluster
# as a single CTA: how that makes these ops exact is ptx2gcn/emit/lower_cluster.py's docstring.
_CLUSTER_SPACES = _words("generic shared_cluster")
_op("barrier_cluster", "", "", {"mode": _words("arrive wait"), "sem": _words("release relaxed acquire"),
                                "aligned": FLAG}, "mode sem", "side_effects convergent",
    f"{_SYNC}-barrier-cluster")
_op("mapa", "T i32", "T", {"type": _words("u32 u64"), "space": _CLUSTER_SPACES}, "type space", "",
    f"{_MOVE}-mapa")
_op("getctarank", "T", "i32", {"type": _words("u32 u64"), "space": _CLUSTER_SPACES}, "type space", "",
    f"{_MOVE}-getctarank")
_op("cvta_cluster", "int", "int", {"to": FLAG}, "", "", f"{_MOVE}-cvta")

# Asynchronous proxy: proxy fences, bulk copies (TMA without tensor maps), warpgroup MMA.
_op("fence_proxy", "", "", {"kind": _words("alias async"), "space": _words("global shared shared_cluster")},
    "kind", "side_effects", f"{_SYNC}-membar-fence")
_op("cp_async_bulk", "ptr ptr i32 *", "", {"dst": _words("global shared shared_cluster"),
                                           "src": _words("global shared"),
                                           "completion": _words("mbarrier bulk_group"), "multicast": FLAG,
                                           "hint": SYM},
    "dst src completion", "side_effects", f"{_MOVE}-cp-async-bulk")
_op("cp_async_bulk_group", "", "", {"mode": _words("commit wait"), "n": INT, "read": FLAG}, "mode",
    "side_effects", f"{_MOVE}-cp-async-bulk-wait-group")
_WGMMA_TYPES = _words("f16 bf16 tf32 e4m3 e5m2 s8 u8 b1 f32 s32")
_op("wgmma", "", "", {"mode": _words("fence commit_group wait_group"), "n": INT}, "mode",
    "side_effects convergent", "asynchronous-warpgroup-level-matrix-instructions")
_op("wgmma_mma", "*", "*", {"shape": SYM, "dtype": _WGMMA_TYPES, "atype": _WGMMA_TYPES,
                            "btype": _WGMMA_TYPES, "d": INT, "a": INT, "adesc": FLAG, "satfinite": FLAG,
                            "scale_a": INT, "scale_b": INT, "trans_a": INT, "trans_b": INT},
    "shape dtype atype btype d a", "side_effects convergent reads_memory",
    "asynchronous-warpgroup-level-matrix-instructions-wgmma-mma-async")

# Warp-level matrix operations: fragments are the registers PTX names, as they are (their bits).
_MMA_TYPES = _words("f16 bf16 tf32 f32 f64 s8 u8 s4 u4 b1 s32 e4m3 e5m2")
_SHAPE = _words("m8n8k4 m16n8k8 m16n8k16 m16n8k32 m16n8k4 m8n8k16 m8n8k32 m16n8k64 m8n8k128 m16n8k128 "
                "m16n8k256 m16n16k16 m32n8k16 m8n32k16 m16n16k8 m8n8k64 m8n8k1 m16n16k1")
_op("mma", "*", "*", {"shape": _SHAPE, "alayout": _words("row col"), "blayout": _words("row col"),
                      "dtype": _MMA_TYPES, "atype": _MMA_TYPES, "btype": _MMA_TYPES, "ctype": _MMA_TYPES,
                      "satfinite": FLAG, "a": INT, "b": INT, "c": INT, "wmma": FLAG, "rnd": ROUNDING,
                      "bitop": _words("and xor"), "wave": _words("whole split"), "rawnan": FLAG,
                      "acc": _words("mfma"), "aop": _words("mfma"), "bop": _words("mfma")},
    "shape alayout blayout dtype ctype a b c", "convergent", f"{_SYNC}-mma")
_op("mma_nan", "*", "*", {}, "", "", f"{_SYNC}-mma")
_op("mma_acc", "*", "*", {"to": _words("mfma ptx")}, "to", "convergent", f"{_SYNC}-mma")
_op("ldmatrix", "ptr", "*", {"shape": _words("m8n8 m16n16 m8n16"), "num": _words("x1 x2 x4"),
                             "trans": FLAG, "type": _words("b16 b8"), "layout": _words("mfma_a mfma_b")},
    "shape num type", "convergent reads_memory", f"{_SYNC}-ldmatrix")
_op("stmatrix", "ptr *", "", {"shape": _words("m8n8 m16n8"), "num": _words("x1 x2 x4"), "trans": FLAG,
                              "type": _words("b16 b8")}, "shape num type", "convergent side_effects",
    f"{_SYNC}-stmatrix")
_op("movmatrix", "i32", "i32", {"shape": _words("m8n8"), "trans": FLAG, "type": _words("b16")},
    "shape type", "convergent", f"{_SYNC}-movmatrix")
_op("wmma_load", "ptr *", "*", {"frag": _words("a b c"), "layout": _words("row col"), "shape": _SHAPE,
                                "type": _MMA_TYPES}, "frag layout shape type", "convergent reads_memory",
    f"{_SYNC}-wmma-load")
_op("wmma_store", "ptr *", "", {"layout": _words("row col"), "shape": _SHAPE, "type": _MMA_TYPES,
                                "n": INT}, "layout shape type n", "convergent side_effects",
    f"{_SYNC}-wmma-store")

# Textures and surfaces: the handle is a 64-bit value (a .texref/.surfref variable's address, or
# a bindless handle from a kernel parameter); coordinates are registers at their declared types.
_GEOM = _words("1d 2d 3d a1d a2d cube acube 2dms a2dms")
_op("tex", "i64 *", "*", {"geom": _GEOM, "dtype": ALL_TYPES, "ctype": ALL_TYPES,
                          "mode": _words("base level grad gather"), "sampler": FLAG, "coords": INT,
                          "pred": FLAG, "comp": _words("r g b a")},
    "geom dtype ctype coords", "reads_memory", "texture-instructions-tex")
_op("txq", "i64 *", "int", {"query": SYM, "surface": FLAG}, "query", "", "texture-instructions-txq")
_op("suld", "i64 *", "*", {"geom": _GEOM, "type": ALL_TYPES, "vec": INT, "clamp": _words("trap clamp zero")},
    "geom type clamp", "reads_memory", "surface-instructions-suld")
_op("sust", "i64 *", "", {"geom": _GEOM, "type": ALL_TYPES, "vec": INT, "clamp": _words("trap clamp zero"),
                          "coords": INT}, "geom type clamp coords", "side_effects", "surface-instructions-sust")

# mbarrier objects (64-bit words in shared memory): one op, the PTX operation as an attribute.
_op("mbarrier", "ptr *", "*", {"op": _words("init inval arrive arrive_drop expect_tx complete_tx test_wait "
                                          "try_wait"),
                               "expect_tx": FLAG, "parity": FLAG, "noComplete": FLAG, "sem": SEMS,
                               "scope": SCOPES, "type": _words("b64")},
    "op type", "side_effects convergent", f"{_SYNC}-mbarrier")
# mbarrier.pending_count reads an arrive's state token, not the barrier: a pure op on the i64 token.
_op("mbarrier_pending_count", "i64", "i32", {}, "", "", f"{_SYNC}-mbarrier-pending-count")

# Target ops: what the warp-mapping passes (passes/wave64_*.py) rewrite PTX's warp and CTA
# collectives into. Each maps one-to-one to the LLVM intrinsic or instruction it is named after
# (``amdgcn.X`` -> ``llvm.amdgcn.X``, ``llvm.X`` -> LLVM's ``X``); immediate operands of an intrinsic
# (``immarg``) are attributes. They are wave-level: a ballot is the whole 64-lane wave's.
_AMDGPU = "https://llvm.org/docs/AMDGPUUsage.html"
_op("amdgcn.mbcnt.lo", "i32 i32", "i32")
_op("amdgcn.mbcnt.hi", "i32 i32", "i32")
_op("amdgcn.ballot", "pred", "i64", flags="convergent")
_op("amdgcn.ds.bpermute", "i32 i32", "i32", flags="convergent")
_op("amdgcn.ds.swizzle", "i32", "i32", {"offset": INT}, "offset", "convergent")
_op("amdgcn.readlane", "i32 i32", "i32", flags="convergent")
_op("amdgcn.update.dpp", "i32 i32", "i32", {"dpp_ctrl": INT, "row_mask": INT, "bank_mask": INT, "bound_ctrl": INT},
    "dpp_ctrl row_mask bank_mask bound_ctrl", "convergent")
_op("amdgcn.inverse.ballot", "i64", "pred")
_op("amdgcn.set.inactive", "i32 i32", "i32", flags="convergent")
_op("amdgcn.strict.wwm", "i32", "i32", flags="convergent")
_op("amdgcn.s.barrier", "", "", flags="side_effects convergent")
_op("amdgcn.wave.barrier", "", "", flags="side_effects convergent")
_op("amdgcn.s.sleep", "", "", {"n": INT}, "n", "side_effects")
_op("llvm.cttz", "T", "T", {"type": _words("b32 b64"), "zero_poison": FLAG}, "type")
_op("llvm.fence", "", "", {"ordering": _words("monotonic acquire release acq_rel seq_cst"),
                           "syncscope": _words("wavefront workgroup agent system")}, "ordering syncscope",
    "side_effects")
TARGET_OPS = frozenset(name for name in OPS if name.startswith(("amdgcn.", "llvm.")))
for _name in TARGET_OPS:
    OPS[_name] = replace(OPS[_name], url=_AMDGPU)
"""The target ops above (a module that still holds PTX collectives holds none of these yet)."""

# Calls, effects, control flow.
_op("call", "*", "*", {"callee": SYM, "uni": FLAG}, "callee", "side_effects convergent",
    "control-flow-instructions-call")
_op("call_indirect", "int *", "*", {"proto": SYM, "uni": FLAG}, "proto", "side_effects convergent",
    "control-flow-instructions-call")
_op("trap", "", "", {}, "", "side_effects", "miscellaneous-instructions-trap")
_op("brkpt", "", "", {}, "", "side_effects", "miscellaneous-instructions-brkpt")
_op("nanosleep", "i32", "", {}, "", "side_effects", "miscellaneous-instructions-nanosleep")
_op("pmevent", "", "", {"mask": INT}, "mask", "side_effects", "miscellaneous-instructions-pmevent")
_op("br", "", "", {}, "", "terminator", "control-flow-instructions-bra", successors=1)
_op("switch", "i32", "", {}, "", "terminator", "control-flow-instructions-brx-idx", successors=-1)
_op("cbr", "pred", "", {}, "", "terminator", "control-flow-instructions-bra", successors=2)
_op("ret", "*", "", {}, "", "terminator", "control-flow-instructions-ret")
_op("exit", "", "", {}, "", "terminator", "control-flow-instructions-exit")
_op("unreachable", "", "", {}, "", "terminator", "")

# Special registers: name → bit width (1: a predicate); those whose value changes between reads are
# volatile.
SPECIAL_REGS: dict[str, int] = {
    **{f"{r}.{c}": 32 for r in ("tid", "ntid", "ctaid", "nctaid", "clusterid", "nclusterid",
                                "cluster_ctaid", "cluster_nctaid") for c in "xyz"},
    "laneid": 32, "warpid": 32, "nwarpid": 32, "smid": 32, "nsmid": 32, "gridid": 64,
    "lanemask_eq": 32, "lanemask_le": 32, "lanemask_lt": 32, "lanemask_ge": 32, "lanemask_gt": 32,
    "clock": 32, "clock_hi": 32, "clock64": 64, "globaltimer": 64, "globaltimer_lo": 32,
    "globaltimer_hi": 32, "dynamic_smem_size": 32, "total_smem_size": 32,
    "aggr_smem_size": 32, "WARP_SZ": 32, "cluster_ctarank": 32, "cluster_nctarank": 32,
    "is_explicit_cluster": 1,
    **{f"envreg{i}": 32 for i in range(32)},
    **{f"pm{i}": 32 for i in range(8)}, **{f"pm{i}_64": 64 for i in range(8)},
}
WARP_SPECIAL_REGS = frozenset({"laneid", "warpid", "nwarpid", "lanemask_eq", "lanemask_le", "lanemask_lt",
                               "lanemask_ge", "lanemask_gt"})
"""Special registers whose value depends on how CUDA warps map onto waves (the warp-mapping passes
rewrite them; ``%WARP_SZ`` is 32 in every mapping)."""
VOLATILE_SPECIAL_REGS = frozenset({"clock", "clock_hi", "clock64", "globaltimer", "globaltimer_lo",
                                   "globaltimer_hi", "warpid", "smid",
                                   *(f"pm{i}" for i in range(8)), *(f"pm{i}_64" for i in range(8))})

UNSUPPORTED: dict[str, str] = {
    "sured": "surface reductions are not translated yet",
    "cp.async.bulk": "bulk (TMA) copies have no gfx942 equivalent",
    "multimem": "multimem operations have no gfx942 equivalent",
    "tcgen05": "tensor-core generation 5 operations have no gfx942 equivalent",
    "clusterlaunchcontrol": "thread-block clusters have no gfx942 equivalent",
    "griddepcontrol": "programmatic dependent launch has no gfx942 equivalent",
    "setmaxnreg": "register reallocation has no gfx942 equivalent",
    "tensormap": "tensor maps have no gfx942 equivalent",
    "applypriority": "L2 priorities are not translated",
    "discard": "cache discards are not translated",
    "istypep": "texture/surface handles are not translated",
}


def opdef(name: str) -> OpDef | None:
    return OPS.get(name)


def is_terminator(name: str) -> bool:
    row = OPS.get(name)
    return row is not None and "terminator" in row.flags


def is_convergent(name: str) -> bool:
    row = OPS.get(name)
    return row is not None and "convergent" in row.flags


_ALWAYS_KEPT = frozenset({"side_effects", "terminator", "convergent"})
"""Flags of ops that are kept even when unused (and never merged)."""
_NEVER_MERGED = _ALWAYS_KEPT | {"volatile", "reads_memory"}
"""Flags of ops that CSE must not merge."""


def has_side_effects(name: str, attrs: dict[str, str | int | bool]) -> bool:
    """Whether an op must be kept even when its results are unused."""
    row = OPS[name]
    if not row.flags.isdisjoint(_ALWAYS_KEPT):
        return True
    if "reads_memory" in row.flags:
        # Volatile and acquiring loads order other memory operations: keep them.
        return bool(attrs.get("volatile")) or attrs.get("sem") in ("acquire", "sc", "volatile", "acq_rel")
    return False


def is_mergeable(name: str, attrs: dict[str, str | int | bool]) -> bool:
    """Whether two identical ops with identical operands may be merged into one (CSE)."""
    row = OPS[name]
    if not row.flags.isdisjoint(_NEVER_MERGED):
        return False
    if name in ("alloca", "undef"):
        return False
    if name == "special_reg":
        return attrs.get("reg") not in VOLATILE_SPECIAL_REGS
    return True


def resolve_kind(kind: str, attrs: dict[str, str | int | bool], result0: Type | None) -> Type | None:
    """The exact type a kind denotes for these attributes, or None for a class kind (int, any...)."""
    if kind == "T":
        return _attr_type(attrs.get("type"))
    if kind in ("D", "S"):
        return _attr_type(attrs.get("dtype" if kind == "D" else "stype"))
    if kind == "W" or (kind == "M" and attrs.get("mode") == "wide"):
        base = _attr_type(attrs.get("type"))
        return IntType(base.bits * 2) if isinstance(base, IntType) else None
    if kind == "M":
        return _attr_type(attrs.get("type"))
    if kind == "R":
        return result0
    return {"pred": PRED, "i32": I32, "i64": I64}.get(kind)


def _attr_type(name: str | int | bool | None) -> Type | None:
    if not isinstance(name, str):
        return None
    return PTX_TYPES.get(name) or PACKED_INT_TYPES.get(name)


def kind_matches(kind: str, t: Type) -> bool:
    """Whether ``t`` belongs to a class kind (``int``, ``float``, ``ptr``, ``any``, ``*``)."""
    if kind in ("any", "*"):
        return True
    if kind == "int":
        return isinstance(t, IntType)
    if kind == "float":
        return isinstance(t, (FloatType, PackedType))
    if kind == "ptr":
        return isinstance(t, PtrType)
    return False


def describe_kind(kind: str, attrs: dict[str, str | int | bool], result0: Type | None) -> str:
    exact = resolve_kind(kind, attrs, result0)
    if exact is not None:
        return str(exact)
    return {"int": "an integer", "float": "a float", "ptr": "a pointer", "any": "any type",
            "*": "any type"}.get(kind, kind)


def is_vector(t: Type) -> bool:
    return isinstance(t, VectorType)


# What the ops that are not one PTX instruction mean, and the operand conventions of those that
# differ from PTX's (everything else means exactly what its PTX instruction with the same
# modifiers means; ``type`` is the PTX instruction type).
SEMANTICS: dict[str, str] = {
    "addc": "(a, b, carry_in) -> (a + b + carry_in, carry_out): add.cc/addc/addc.cc; the builder "
            "threads PTX's CC.CF through these values (carry_in 0 for add.cc)",
    "subc": "(a, b, borrow_in) -> (a - b - borrow_in, borrow_out): sub.cc/subc/subc.cc",
    "madc": "(a, b, c, carry_in) -> (mode half of a*b + c + carry_in, carry_out): mad.cc/madc",
    "mul": "mode lo|hi|wide as PTX; wide produces the double-width product",
    "min": "relu (s16x2, s32): negative results become 0; xorsign is PTX's .xorsign.abs (f16, bf16, "
           "f32 and their x2 forms): the operand of smaller magnitude, with its sign replaced by the "
           "XOR of the two input signs; u16x2/s16x2 operate on the two 16-bit halves of an i32",
    "max": "as min, choosing the larger value (the larger magnitude with xorsign)",
    "mad": "mode lo|hi|wide as PTX; for wide, c and the result are double width",
    "const": "value = the bit pattern of the constant (unsigned, < 2**bits); floats are IEEE bits",
    "undef": "an unspecified value (a register read before any write, as ptxas allows)",
    "bitcast": "the same bits as another type of equal width",
    "zext": "zero extension to a wider integer",
    "sext": "sign extension to a wider integer",
    "trunc": "the low bits of a wider integer",
    "pack": "operand i becomes element i: lane i of a vector, or bits [i*w, (i+1)*w) of a scalar",
    "unpack": "the inverse of pack: result i is element i",
    "special_reg": "reg = a PTX special register name without '%' (tid.x, laneid, clock64, WARP_SZ...); "
                   "nothing is assumed about the warp size",
    "addr_of": "sym = a global (typed ptr<its space>) or a function (ptr<generic>)",
    "alloca": "per-invocation memory of size bytes in local (.local variables) or param "
              "(.param call arguments) space, allocated in the entry block",
    "ptradd": "pointer + a signed byte offset (sign-extended or truncated to the pointer width)",
    "ptrtoint": "the address as an integer of the result width",
    "inttoptr": "an integer address in the pointer's space (shared/local/param addresses are 32-bit)",
    "cvta": "space S, no 'to': S address -> generic; with 'to': generic -> S address (PTX cvta)",
    "ld": "loads type (vec elements when vec is set) from the pointer's space",
    "st": "(ptr, value): stores type (vec elements when vec is set)",
    "cp_async": "(dst ptr<shared>, src ptr<global>, src_size): copies the first src_size bytes of "
                "size bytes and zero-fills the rest, complete when the op is done (a synchronous "
                "refinement of cp.async, so commit/wait groups need no ops)",
    "atom": "(ptr, b[, c]) -> old value; c only for cas; with vec, b and the result are vectors "
            "(element-wise atomics, sm_90 .v2/.v4/.v8)",
    "red": "(ptr, b): atom without a result",
    "switch": "(index) -> ^target0, ^target1, ...: brx.idx; an index out of range is undefined",
    "stack_alloc": "(size) -> ptr<local> to size fresh bytes aligned to align (PTX alloca)",
    "stacksave": "-> the current stack position (local address)",
    "stackrestore": "(position from stacksave): frees stack_alloc memory allocated since",
    "bar": "(id[, count]) for mode sync/arrive; (membermask) for mode warp (bar.warp.sync)",
    "bar_red": "(id, pred[, count]) -> popc count (i32) or and/or (pred)",
    "shfl": "(a, b, c, membermask) -> (value, in-range predicate); no 'sync': the legacy form, mask "
            "all ones",
    "vote": "(pred, membermask) -> pred (all/any/uni) or i32 (ballot); no 'sync': legacy form",
    "match": "(a, membermask) -> (mask[, all-equal predicate for mode all])",
    "redux": "(a, membermask) -> reduction over the member lanes; type f32 (min/max only, sm_100a) "
             "takes abs (reduce |a|) and nan (a NaN input makes the result the canonical NaN)",
    "call": "operands: callee.abi_params in order (param-space returns, then parameters): "
            "ptr<param> for .param ones, values for .reg ones; results: the .reg returns",
    "call_indirect": "(function address as an integer, arguments as for call) -> .reg returns; "
                     "proto names the .callprototype",
    "br": "-> ^target(args)",
    "cbr": "(pred) -> ^if_true(args), ^if_false(args); the two targets differ",
    "ret": "the function's .reg return values (param-space returns were stored through their "
           "pointers)",
    "exit": "ends the thread (PTX exit)",
    "mbarrier": "(ptr[, count | token | parity | tx-count]) -> state token (arrive) or ready "
                "predicate (test_wait/try_wait); op names the PTX mbarrier operation",
    "tex": "(handle[, sampler handle], coords..., lod or gradients...) -> the 4 texel components "
           "[, in-range predicate]; coords counts the coordinate operands; mode gather is tld4.comp",
    "suld": "(handle, coords...) -> the loaded components (suld.b: raw bits)",
    "txq": "(handle[, lod]) -> the queried attribute (txq, or suq with surface)",
    "sust": "(handle, coords..., values...): coords counts the coordinate operands",
    "video": "(a, b, c) -> d of the PTX video instruction inst (vadd, vabsdiff4, vshr, ...) with its "
             "types, saturation, secondary operation, byte/half selectors and lane masks as written; "
             "vmad's scale (shr7/shr15) and operand negations neg_a/neg_b/neg_c",
    "mma": "(a fragment..., b fragment..., c fragment...) -> d fragment, counts a/b/c; the registers "
           "PTX names, bits as they are; wmma marks wmma.mma (fragment layout of the wmma API); wave "
           "(pass wave64-mma-uniformity): whole = both warps of the wave execute it together, split = "
           "one warp per wave, absent = unknown; rawnan (pass mma-accumulators): a NaN in D need not be "
           "canonical (the mma_nan where the value leaves the mma chain makes it so); acc = mfma (pass "
           "mma-mfma-layout): C and D in the stacked MFMA layout where the mma takes the MFMA path; aop/bop = "
           "mfma (pass ldmatrix-mfma-layout): A/B registers hold the MFMA operands",
    "mma_acc": "(4 accumulator registers) -> the same accumulator in the stacked MFMA layout (to = mfma) or "
               "in the PTX fragment layout (to = ptx), a copy where the mma takes no MFMA path (pass "
               "mma-mfma-layout)",
    "mma_nan": "(x) -> x with a NaN replaced by NVIDIA's canonical 0x7fffffff: an f32 mma accumulator "
               "leaving its chain of rawnan mmas (pass mma-accumulators)",
    "ldmatrix": "(ptr<shared>) -> the destination registers of ldmatrix; layout mfma_a/mfma_b (pass "
                "ldmatrix-mfma-layout): loaded in the MFMA A/B operand layout where the mma takes the MFMA path",
    "stmatrix": "(ptr<shared>, source registers...)",
    "wmma_load": "(ptr[, stride]) -> fragment registers",
    "wmma_store": "(ptr, n fragment registers[, stride])",
    "unreachable": "control never gets here",
    "amdgcn.mbcnt.lo": "(mask, acc) -> acc + popcount of mask's bits below this lane (lanes 0..31)",
    "amdgcn.mbcnt.hi": "(mask, acc) -> acc + popcount of mask's bits for lanes 32..63 below this lane",
    "amdgcn.ballot": "(pred) -> the wave's 64-bit mask of active lanes where pred holds",
    "amdgcn.ds.bpermute": "(byte address, value) -> value of wave lane (address / 4) mod 64",
    "amdgcn.ds.swizzle": "(value) -> value of the lane the swizzle offset selects (CDNA3 DS_SWIZZLE_B32)",
    "amdgcn.readlane": "(value, lane) -> value of wave lane lane (uniform, 0..63), whatever EXEC is",
    "amdgcn.update.dpp": "(old, value) -> value of the lane dpp_ctrl selects (a DPP move); a lane without a "
                         "source keeps old (bound_ctrl 0) or reads 0 (bound_ctrl 1)",
    "amdgcn.inverse.ballot": "(wave mask) -> bit (this lane) of the 64-bit mask",
    "amdgcn.set.inactive": "(value, inactive) -> value in active lanes, inactive in the others (for WWM)",
    "amdgcn.strict.wwm": "(value) -> value computed in whole-wave mode (every lane, EXEC ignored)",
    "amdgcn.s.barrier": "waits for every wave of the workgroup (s_barrier)",
    "amdgcn.wave.barrier": "a scheduling barrier inside the wave (no instruction)",
    "amdgcn.s.sleep": "s_sleep n",
    "llvm.cttz": "trailing zero bits (the width for 0, undefined for 0 with zero_poison)",
    "llvm.fence": "an LLVM fence with that ordering and AMDGPU sync scope (system: LLVM's default)",
    "cvt_pack": "(a, b[, c]) -> d: a and b (s32) saturated to dtype; b in bits [0, w), a in [w, 2w), "
                "and for w < 16 c's low bits in [2w, 32) (cvt.pack.sat.dtype.s32[.b32])",
    "barrier_cluster": "mode arrive (sem release or relaxed) / wait (sem acquire): barrier.cluster",
    "mapa": "(a, rank) -> the address in CTA rank's shared memory of the variable a points to; space "
            "shared_cluster: a and the result are .shared::cluster window addresses",
    "getctarank": "(a) -> the rank of the CTA whose shared memory a points into",
    "cvta_cluster": "no 'to': a .shared::cluster window address -> generic; with 'to': generic -> "
                    "window address (cvta[.to].shared::cluster)",
    "fence_proxy": "fence.proxy.kind[.space]: orders the generic proxy against the alias/async proxy",
    "cp_async_bulk": "(dst, src, size[, mbarrier][, cta mask]): copies size bytes asynchronously; dst/src "
                     "name the PTX state spaces (a .shared::cluster dst is a generic pointer); completion "
                     "mbarrier (complete_tx on the mbarrier operand) or bulk_group",
    "cp_async_bulk_group": "cp.async.bulk.commit_group / wait_group[.read] n",
    "wgmma": "wgmma.fence / commit_group / wait_group n (.sync.aligned)",
    "wgmma_mma": "(d registers..., a descriptor (i64, adesc) or a registers..., b descriptor (i64), "
                 "scale-d (pred)) -> d registers; d/a count the operands; immediates as attributes",
}
