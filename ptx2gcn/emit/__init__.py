"""Code generation: SSA IR → LLVM IR (llvmlite) → relocatable object → HSACO (own linker)."""
