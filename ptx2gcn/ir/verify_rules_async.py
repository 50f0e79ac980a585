"""Verifier rules for the cluster, asynchronous-proxy and packing ops (``barrier_cluster``, ``mapa``,
``getctarank``, ``cp_async_bulk``, ``wgmma``, ``wgmma_mma``, ``cvt_pack``) that the opcode table's
kind columns cannot express.

Invariant: as for ``ptx2gcn.ir.verify_rules``: each rule returns '' for a well-formed op, else one
sentence saying what is wrong, and never raises.
"""

from __future__ import annotations

from collections.abc import Callable

from ptx2gcn.ir.core import Op
from ptx2gcn.ir.types import I16, I32, I64, PRED, PtrType, Type

_NARROW_PACK = frozenset({"u2", "s2", "u4", "s4", "u8", "s8"})


def _check_barrier_cluster(_: object, op: Op) -> str:
    mode, sem = op.attrs.get("mode"), op.attrs.get("sem")
    allowed = ("release", "relaxed") if mode == "arrive" else ("acquire",)
    return "" if sem in allowed else f"mode {mode} takes sem {' or '.join(allowed)}, not {sem}"


def _check_cluster_address(_: object, op: Op) -> str:
    if op.attrs.get("space") == "shared_cluster" and op.attrs.get("type") != "u32":
        return ".shared::cluster window addresses are u32"
    return ""


def _check_cvt_pack(_: object, op: Op) -> str:
    want = 3 if op.attrs.get("dtype") in _NARROW_PACK else 2
    return "" if len(op.operands) == want else f"dtype {op.attrs.get('dtype')} takes {want} operands"


def _check_bulk(_: object, op: Op) -> str:
    types = [v.type for v in op.operand_values]
    want: list[type[Type] | Type] = [PtrType, PtrType, I32]
    if op.attrs.get("completion") == "mbarrier":
        want.append(PtrType)
    if op.attrs.get("multicast"):
        want.append(I16)
    ok = len(types) == len(want) and all(
        isinstance(t, w) if isinstance(w, type) else t == w for t, w in zip(types, want))
    return "" if ok else f"takes (dst, src, size{', mbarrier' if len(want) > 3 else ''}" \
                         f"{', cta mask' if op.attrs.get('multicast') else ''}) for its attributes"


def _check_wgmma(_: object, op: Op) -> str:
    has_n = "n" in op.attrs
    return "" if has_n == (op.attrs.get("mode") == "wait_group") else "only wait_group takes n"


def _check_wgmma_mma(_: object, op: Op) -> str:
    d, a = op.attrs.get("d"), op.attrs.get("a")
    if not isinstance(d, int) or not isinstance(a, int):
        return "needs d and a counts"
    values = op.operand_values
    if len(values) != d + a + 2 or len(op.results) != d:
        return f"takes {d} + {a} + 2 operands and gives {d} results"
    if [r.type for r in op.results] != [v.type for v in values[:d]]:
        return "the d registers keep their types"
    if op.attrs.get("adesc") and (a != 1 or values[d].type != I64):
        return "an a descriptor is one i64"
    if values[d + a].type != I64 or values[d + a + 1].type != PRED:
        return "the b descriptor is i64 and scale-d a predicate"
    return ""


RULES: dict[str, Callable[[object, Op], str]] = {
    "barrier_cluster": _check_barrier_cluster, "mapa": _check_cluster_address,
    "getctarank": _check_cluster_address, "cvt_pack": _check_cvt_pack, "cp_async_bulk": _check_bulk,
    "wgmma": _check_wgmma, "wgmma_mma": _check_wgmma_mma,
}
