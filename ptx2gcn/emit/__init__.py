"""Code generation: SSA IR → LLVM IR (llvmlite) → relocatable object (linking is ``ptx2gcn.link``)."""
