"""The kernarg layout reproduces CUDA's parameter buffer for random parameter lists.

CUDA's rule (the independent model here): each parameter starts at the next multiple of its
alignment after the previous one ends; a scalar's alignment is its size, an ``.align N .b8 x[M]``
array's is N.
"""

from __future__ import annotations

import random

from ptx2gcn.compiler import compile

SCALARS = {"u8": 1, "u16": 2, "u32": 4, "u64": 8, "f32": 4, "f64": 8, "s16": 2, "b32": 4}


def _case(rng: random.Random) -> tuple[str, list[tuple[int, int]]]:
    decls: list[str] = []
    expected: list[tuple[int, int]] = []
    offset = 0
    loads: list[str] = []
    for index in range(rng.randint(1, 9)):
        if rng.random() < 0.35:
            align = rng.choice([1, 2, 4, 8, 16])
            size = rng.randint(1, 40)
            decls.append(f".param .align {align} .b8 p{index}[{size}]")
            loads.append(f"ld.param.u8 %h, [p{index}+{size - 1}];")
        else:
            name = rng.choice(sorted(SCALARS))
            size = align = SCALARS[name]
            decls.append(f".param .{name} p{index}")
            loads.append(f"ld.param.u8 %h, [p{index}];")
        offset = (offset + align - 1) // align * align
        expected.append((offset, size))
        offset += size
    body = "\n  ".join(loads)
    ptx = (".version 8.0\n.target sm_80\n.address_size 64\n"
           f".visible .entry k({', '.join(decls)})\n{{\n  .reg .b16 %h;\n  {body}\n  ret;\n}}\n")
    return ptx, expected


def test_random_parameter_lists() -> None:
    rng = random.Random(20261130)
    for _ in range(12):
        ptx, expected = _case(rng)
        assert compile(ptx).kernels["k"].params == tuple(expected), ptx
