"""PTX → IR translation: the typed AST of ``ptx2gcn.frontend`` becomes verified ``ptx2gcn.ir``.

Invariant: this is the only package that knows both PTX (``ptx2gcn.frontend.ast``) and the IR; the
IR it produces passes ``ptx2gcn.ir.verify.verify``, and every PTX instruction either becomes IR ops
whose meaning matches the PTX ISA or is rejected with a located ``unsupported:`` diagnostic.

Layout: ``builder`` (module, functions, labels, guards) over ``emitter`` (operands, coercions) and
``ssa`` (on-the-fly SSA construction); ``modifiers`` (instruction modifiers → attributes);
``lowering`` gathers the per-family tables ``alu``, ``memory``, ``control``, ``cluster``,
``async_proxy``, ``matrix``, ``texture`` (helpers ``arith_forms``, ``cvt_rules``, ``cvt_pack``,
``target_gates``); ``load`` reads a PTX or IR file into verified IR.
"""
