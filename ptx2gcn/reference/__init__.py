"""Executable reference model of PTX instruction semantics, written from the PTX ISA manual.

Invariant: nothing here imports the compiler (frontend, IR, passes, emit) or the emulator; it is the
independent oracle that their results are compared with.
"""
