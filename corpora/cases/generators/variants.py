"""Other builds of the same sources (-lineinfo, -G, numba debug/lineinfo) and the sm_75/sm_90 builds of
every nvcc case, with the same models.

Part of ``corpora/cases/make_cases.py`` (see its docstring for the invariant)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import numpy as np
from casegen import CaseSpec

from generators.approximate_math import approximate_math
from generators.apps_integer import apps_integer
from generators.apps_numeric import apps_numeric
from generators.atomics import atomics, bf16_float
from generators.common import CORPUS, F32, NV, Generator, fma
from generators.control_flow import control_flow
from generators.cooperative_groups import cooperative_groups
from generators.device_functions import device_functions, integrate_const_model
from generators.doubles import doubles
from generators.dynamic_shared import dynamic_shared
from generators.half_bf16 import bf16_out2, half_bf16, half_math, to_bf16_bits
from generators.int_intrinsics import int_intrinsics
from generators.math_float import math_float
from generators.matmul_tiled import matmul_tiled
from generators.more_float import more_float_kernels
from generators.numba import NB, entry_name, numba_kernels
from generators.reduction import reduction
from generators.scan_sort import scan_sort
from generators.stencil_constant import stencil_constant
from generators.transpose import transpose
from generators.vector_add import vector_add
from generators.warp_intrinsics import warp_intrinsics
from generators.wide_types import wide_types

# == build variants of the same sources ==============================================================
# The same models against other builds of the same source: -lineinfo (.loc), -G (unoptimised debug
# PTX), and numba's lineinfo / debug builds. Named <kernel>_<variant>.
VARIANTS: list[tuple[Generator, str, str, str]] = [
    (vector_add, NV + "vector_add.ptx", NV + "vector_add.lineinfo.ptx", "lineinfo"),
    (matmul_tiled, NV + "matmul_tiled.ptx", NV + "matmul_tiled.lineinfo.ptx", "lineinfo"),
    (reduction, NV + "reduction.ptx", NV + "reduction.debug.ptx", "debug"),
    (device_functions, NV + "device_functions.ptx", NV + "device_functions.debug.ptx", "debug"),
]


def build_variants() -> Iterator[tuple[str, CaseSpec]]:

    for maker, source, variant, tag in VARIANTS:
        for name, spec in maker():
            if spec.source == source:
                note = f"{spec.note}\nthe {tag} build: {variant}".strip()
                if name == "device_functions/integrate_const":  # -G: no contraction in dot()
                    ps = dict(spec.args)["ps"].data
                    n = int(dict(spec.args)["n"].value)
                    spec = dataclasses.replace(spec, expect={"ps": integrate_const_model(ps, n, fused=False)})
                    note = (
                        f"the {tag} build: {variant}; dot() is three mul.f32 and two add.f32 (no contraction)"
                    )
                yield f"{name}_{tag}", dataclasses.replace(spec, source=variant, note=note)
    for name, spec in numba_kernels():
        for base, variant in (("axpy", "axpy_debug"), ("matmul_shared", "matmul_shared_lineinfo")):
            if name == f"numba/{base}":
                src = NB + variant + ".ptx"
                if variant == "axpy_debug":  # opt=False: mul.f32 then add.f32, no fma contraction
                    args = dict(spec.args)
                    a, x, y = F32(args["a"].value), args["x"].data, args["y"].data
                    with np.errstate(all="ignore"):
                        spec = dataclasses.replace(
                            spec,
                            expect={"r": (a * x + y).astype(np.float32)},
                            note="opt=False: a * x[i] is rounded before + y[i] (no fma)",
                        )
                yield (
                    f"numba/{variant}",
                    dataclasses.replace(
                        spec,
                        source=src,
                        kernel=entry_name(src),
                        note=f"{spec.note}\nthe {variant} build".strip(),
                    ),
                )


# == other targets ===================================================================================
NVCC_GENERATORS: list[Generator] = [
    vector_add,
    reduction,
    matmul_tiled,
    transpose,
    scan_sort,
    stencil_constant,
    atomics,
    device_functions,
    control_flow,
    int_intrinsics,
    dynamic_shared,
    wide_types,
    warp_intrinsics,
    cooperative_groups,
    apps_integer,
    apps_numeric,
    doubles,
    math_float,
    half_bf16,
    more_float_kernels,
    approximate_math,
]


# Not repeated per target: the step-budget hang (minutes each) and the kernels of modules that are
# rejected whole for a reason the sm_80 case already records (their _split cases run the rest).
OTHER_TARGETS_SKIP = (
    {"atomics/spin_lock_two_warps_per_wave"}
    | {
        f"warp_intrinsics/{k}"
        for k in ("shuffles", "votes", "match", "warp_reduce_redux", "warp_scan", "syncwarp_divergent")
    }
    | {f"int_intrinsics/{k}" for k in ("bit_ops", "int_arith", "ptx_bitfield", "saturating")}
)


def bf16_ops_without_bf16_fma(spec: CaseSpec) -> CaseSpec:
    """half_bf16/bf16_ops below sm_80, which takes the #else branches: out2 is __hadd2(__hmul2(p, p), y)
    (two roundings) and out[1], __float2bfloat16(x * y + 0.5f), an f32 fma (contracted to fma.rn.f32)."""
    args = dict(spec.args)
    xa, pb, yb = args["a"].data, args["a2"].data, args["b"].data
    out2 = []
    for i in range(yb.size):
        out2 += bf16_out2(bf16_float(pb[2 * i]), bf16_float(pb[2 * i + 1]), bf16_float(yb[i]), fused=False)
    out = spec.expect["out"].copy()
    for i in range(yb.size):
        prod = fma(F32(bf16_float(xa[i])), F32(bf16_float(yb[i])), F32(0.5), F32)[()]
        out[4 * i + 1] = to_bf16_bits(float(prod))
    return dataclasses.replace(spec, expect={**spec.expect, "out": out, "out2": np.array(out2, np.uint16)})


def other_targets() -> Iterator[tuple[str, CaseSpec]]:
    """Every nvcc case once more against the sm_75 and sm_90 builds of the same source (same models)."""

    for arch in ("sm_75", "sm_90"):
        for maker in [*NVCC_GENERATORS, half_math]:  # half_math is defined below
            for name, spec in maker():
                if not spec.source.startswith(NV) or name in OTHER_TARGETS_SKIP:
                    continue
                variant = spec.source.replace("sm_80", arch)
                if not (CORPUS / variant).is_file():
                    continue
                note = f"{spec.note}\nthe {arch} build: {variant}".strip()
                if name == "half_bf16/bf16_ops" and arch == "sm_75":  # the #else branch: no bf16 fma
                    spec = bf16_ops_without_bf16_fma(spec)
                    note += "\nsm_75 takes the #else branches: __hadd2(__hmul2(p, p), y) and an f32 fma for out[1]"
                yield f"{name}_{arch.replace('_', '')}", dataclasses.replace(spec, source=variant, note=note)
