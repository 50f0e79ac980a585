"""The translator reads the ``CompileOptions`` value it is given (``build_module(tree, options)``).

``options.kernels`` decides which kernel bodies are translated: a kernel nobody asked for stays a
declaration, so an instruction ptx2gcn cannot translate there no longer stops the compile of the
kernels that were asked for, while every ``.func`` (which kept code may call) is still built.
"""

from __future__ import annotations

import pytest

import ptx2gcn
from ptx2gcn.diagnostics import UnsupportedError
from ptx2gcn.frontend import parse_ptx
from ptx2gcn.options import CompileOptions
from ptx2gcn.translate.builder import build_module

PTX = """.version 8.0
.target sm_90
.address_size 64

.func (.reg .b32 r) twice(.reg .b32 x)
{
	add.u32 r, x, x;
	ret;
}

.visible .entry good(.param .u64 out)
{
	.reg .b32 %r<4>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	call (%r2), twice, (%r1);
	st.global.u32 [%rd1], %r2;
	ret;
}

.visible .entry bad(.param .u64 out)
{
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [out];
	discard.global.L2 [%rd1], 128;
	ret;
}
"""


def test_every_kernel_is_translated_by_default() -> None:
    with pytest.raises(UnsupportedError) as caught:
        build_module(parse_ptx(PTX, "two.ptx"))
    assert caught.value.render().startswith("two.ptx:26:2: error: unsupported: discard"), caught.value.render()


def test_only_the_chosen_kernels_get_a_body() -> None:
    module = build_module(parse_ptx(PTX, "two.ptx"), CompileOptions(kernels=("good",)))
    bodies = {fn.name: not fn.is_declaration for fn in module.functions}
    assert bodies == {"twice": True, "good": True, "bad": False}


def test_compile_of_one_kernel_skips_what_the_others_use() -> None:
    code = ptx2gcn.compile(PTX, kernels=("good",), name="two.ptx")
    assert set(code.kernels) == {"good"}
    with pytest.raises(UnsupportedError):
        ptx2gcn.compile(PTX, kernels=("bad",), name="two.ptx")
