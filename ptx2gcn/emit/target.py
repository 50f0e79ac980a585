"""LLVM's AMDGPU back end through llvmlite: optimise LLVM IR and emit objects or assembly.

Invariant: every emit starts from LLVM IR *text* re-parsed for that emit (LLVM's code generator
mutates the module it is given; emitting twice from one module object aborts in instruction
selection), and every module is verified by LLVM before code generation. Code object version 5 is
requested by a module flag that ``ensure_cov5`` adds when absent.
"""

from __future__ import annotations

import threading
from functools import cache

import llvmlite.binding as llvm

from ptx2gcn.options import SUPPORTED_ARCHS, CompileOptions

TRIPLE = "amdgcn-amd-amdhsa"
COV5_FLAG = '!{i32 1, !"amdhsa_code_object_version", i32 500}'

_init_lock = threading.Lock()
_initialised = False


CODEGEN_OPTIONS: tuple[str, ...] = ("-amdgpu-scalar-ir-passes=false", "-bonus-inst-threshold=4")
"""LLVM command-line options set once per process before the first target machine is made
(llvmlite's LLVM is one per process: another LLVM user in it, numba say, sees them too; neither
changes what any code computes). Chosen by measurement: docs/codegen-pipeline.md.

``-bonus-inst-threshold=4`` (SimplifyCFG; LLVM's default 1): nvcc writes a short-circuit condition
such as ``a || (b && c)`` choosing between two values as two conditional branches to one block that
does the moves; SimplifyCFG folds such branches to a common destination into one condition (and then
a ``select``) only when it may speculate at most this many instructions of the second test. clang's
own IR for the same source has the shape SimplifyCFG folds at the default. With 1, the divergent
branches stay (``s_and_saveexec``/``s_cbranch_execz`` pairs, ``reduction/argmin`` ×1.47 of native);
with 2, 4 or 8 they become ``v_cndmask`` (×0.96), the only kernel of ``benchmarks/codequality.py``
that changes, and the nvcc corpus shrinks by 0.3 % (4 files smaller, none larger; 4 a little more than
2, 8 the same as 4 on the benchmark).

``-amdgpu-scalar-ir-passes=false``: the AMDGPU code generator re-runs straight-line strength
reduction, N-ary reassociation and GVN on IR that ``optimise`` has already put through the full
-O pipeline. On the 104k-line corpus kernel, straight-line strength reduction alone took 94 % of
code generation (88 s of 94 s, ``llc -time-passes``; 5.7 s without it) and produced a byte-identical
object; on the other corpus kernels the instruction counts are equal (one kernel: 801 vs 799).
"""


def _initialise() -> None:
    global _initialised
    with _init_lock:
        if not _initialised:
            llvm.initialize_all_targets()
            llvm.initialize_all_asmprinters()
            for option in CODEGEN_OPTIONS:
                llvm.set_option("ptx2gcn", option)
            _initialised = True


TARGET_FEATURES = "-fma-mix-insts,-mad-mix-insts"
"""Subtarget features turned off for every target machine.

The mixed-precision instructions ``v_fma_mix*``/``v_mad_mix*`` are off: LLVM's AMDGPU patterns
(VOP3PInstructions.td, ``MadFmaMixFP16Pats``/``MadFmaMixFP32Pats``) select
``fptrunc(fmul f32 a, b)`` as ``v_fma_mixlo_f16 a, b, 0`` (one rounding to f16 where PTX's
``mul.f32`` + ``cvt.rn.f16.f32`` round twice, and a −0 product becomes +0 through the +0 addend),
``fptrunc(fma(fpext ...))`` likewise, and ``fmul(fpext h, x)`` as ``v_fma_mix_f32 h, x, 0`` (the
pattern's own FIXME: "only valid with nsz"). These patterns also match multiplications that LLVM
creates itself (the f32 sin/cos range reduction, ``fdiv`` by a power of two), so a barrier around
our own conversions would not be enough; the price is one ``v_cvt_f32_f16``/``v_cvt_f16_f32`` where
a mix instruction would have absorbed the conversion.
"""


class UnknownArchError(ValueError):
    def __init__(self, arch: str) -> None:
        super().__init__(f"unknown or unsupported --arch {arch!r}; supported: {', '.join(SUPPORTED_ARCHS)}")


@cache
def target_machine(arch: str, opt: int) -> llvm.TargetMachine:
    if arch not in SUPPORTED_ARCHS:
        raise UnknownArchError(arch)
    if opt not in (0, 1, 2, 3):
        raise ValueError(f"optimisation level must be 0..3, got {opt}")
    _initialise()
    target = llvm.Target.from_triple(TRIPLE)
    return target.create_target_machine(cpu=arch, features=TARGET_FEATURES, opt=opt, reloc="pic",
                                        codemodel="default")


def ensure_cov5(ir_text: str) -> str:
    """Add the code-object-v5 module flag to LLVM IR text that has no module flags."""
    if "amdhsa_code_object_version" in ir_text:
        return ir_text
    if "!llvm.module.flags" in ir_text:
        raise ValueError("module already has !llvm.module.flags; add amdhsa_code_object_version there")
    return f"{ir_text}\n!llvm.module.flags = !{{!9999}}\n!9999 = {COV5_FLAG}\n"


def parse_verified(ir_text: str, options: CompileOptions) -> llvm.ModuleRef:
    """Parse LLVM IR text, set the AMDGPU triple/data layout, and run LLVM's verifier."""
    _initialise()
    module = llvm.parse_assembly(ir_text)
    module.triple = TRIPLE
    module.data_layout = str(target_machine(options.arch, options.opt).target_data)
    module.verify()
    return module


PIPELINE_TUNING: dict[str, bool] = {"loop_vectorization": False}
"""Pipeline tuning options that differ from llvmlite's defaults for ``default<O{opt}>``, chosen by
measurement (docs/codegen-pipeline.md has the table). The loop vectorizer is off: on gfx942 each lane
is already a SIMD lane, and on PTX (already unrolled by nvcc where it wanted) it only duplicated
loops, making the two kernels it changed in ``benchmarks/codequality.py`` larger (×2.0, ×1.35) and
slower (×1.10, ×1.03); off, both geomeans improve (dynamic ×0.9445 → ×0.9424, static ×1.1731 →
×1.1524) and no kernel gets worse."""


def optimise(ir_text: str, options: CompileOptions) -> str:
    """Run LLVM's new-pass-manager pipeline at ``options.opt`` (``PIPELINE_TUNING``); returns the
    optimised IR text."""
    module = parse_verified(ensure_cov5(ir_text), options)
    if options.opt > 0:
        machine = target_machine(options.arch, options.opt)
        tuning = llvm.create_pipeline_tuning_options(speed_level=options.opt)
        for name, value in PIPELINE_TUNING.items():
            setattr(tuning, name, value)
        builder = llvm.create_pass_builder(machine, tuning)
        builder.getModulePassManager().run(module, builder)
    module.verify()
    return str(module)


def emit_object(ir_text: str, options: CompileOptions) -> bytes:
    """Relocatable ELF object for already-optimised IR text (re-parsed here)."""
    module = parse_verified(ensure_cov5(ir_text), options)
    return bytes(target_machine(options.arch, options.opt).emit_object(module))


def emit_assembly(ir_text: str, options: CompileOptions) -> str:
    """LLVM's AMDGPU assembly for already-optimised IR text (re-parsed here)."""
    module = parse_verified(ensure_cov5(ir_text), options)
    return str(target_machine(options.arch, options.opt).emit_assembly(module))
