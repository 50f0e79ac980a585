"""Differential fuzzing (``ptx2gcn fuzz``): random PTX programs, run, judged by a model or by CUDA.

Invariant: a generated program is well defined and its expected outputs come from the reference
model only (``eval``) or from CUDA (``oracle``); a mismatch is shrunk and saved as a launch case,
and forms with known bugs are listed in ``known`` with their failing inputs. Nothing here is
imported by the compile path.

Layout: ``program`` (structured programs) → ``gen`` (random ones from a seed, instructions from
``pool``) → ``text`` (their PTX); ``eval`` (expected outputs), ``oracle`` (judging one program),
``device`` (the emulator launch shared with ``ptx2gcn.conformance``), ``case`` (programs as case
files), ``runner`` (the command's loop), ``shrink`` (delta debugging), ``known``; the warp-matrix
family: ``matrix`` (forms, generation, text), ``matrix_eval`` (its model, with bound-checked results).
"""
