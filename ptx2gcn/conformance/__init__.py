"""Instruction conformance: every PTX spelling the reference model defines, compiled and run.

Invariant: expected values come only from ``ptx2gcn.reference`` (or from CUDA's recorded outputs,
``golden``); a form counts as conforming only when its kernel ran and every lane matched. Nothing
here is imported by the compile path.

Layout: ``forms`` (the spellings, from the model) → ``kernel`` (group kernels, many instances per
PTX kernel) → ``run`` (compile, launch on the emulator, judge each lane) → ``table`` (the
compiler's verdict per form) and ``sweep`` (the slow exhaustive narrow sweep); ``corpus`` (the
corpus's spellings against the table), ``golden`` (CUDA outputs recorded on an NVIDIA GPU); the
warp-matrix forms (mma, ldmatrix, stmatrix, movmatrix, wmma): ``matrix_forms`` (spellings, ptxas's
cached verdicts in ``matrix_ptxas.json``) → ``matrix_kernel`` (kernels, data, model verdicts) →
``matrix_table`` (units and per-form verdicts).
"""
