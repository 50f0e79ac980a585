"""ptxas 13 as the acceptance oracle of warp-matrix spellings (``ptx2gcn.conformance.matrix_acceptance``):
for sm_75, sm_80, sm_89 and sm_90, every conformance candidate and near miss that ptxas rejects is a
located error at the instruction's line (never an ``unsupported``: it is not PTX), and every one it
accepts translates (or is a located ``unsupported`` naming why there is no gfx942 lowering).

Default suite: sm_80 and sm_90; ``-m slow``: sm_75 and sm_89 too, the emitter's verdict on every
accepted spelling, and the cache rechecked against ptxas when it is installed.
"""

from __future__ import annotations

import os
import shutil

import pytest

from ptx2gcn.compiler import compile_llvm, to_ir
from ptx2gcn.conformance.matrix_acceptance import ARCHS, PROBE_LINE, probes, verdicts
from ptx2gcn.conformance.matrix_forms import probe_module, ptxas_accepts
from ptx2gcn.diagnostics import Ptx2GcnError, UnsupportedError

_AT = f"<input>:{PROBE_LINE}:"


def _ours(spelling: str, arch: str) -> Ptx2GcnError | None:
    try:
        to_ir(probe_module(verdicts()[spelling]["line"], arch), "<input>")
    except Ptx2GcnError as error:
        return error
    return None


def _disagreements(arch: str) -> list[str]:
    wrong = []
    for spelling, verdict in verdicts().items():
        error = _ours(spelling, arch)
        text = str(error).splitlines()[0] if error else ""
        if verdict[arch]:  # ptxas rejects
            if error is None or isinstance(error, UnsupportedError) or _AT not in text:
                wrong.append(f"{spelling}: ptxas: {verdict[arch]!r}; ours: {text or 'accepted'}")
        elif error is not None and (not isinstance(error, UnsupportedError) or _AT not in text):
            wrong.append(f"{spelling}: ptxas accepts; ours: {text}")
    return wrong


@pytest.mark.parametrize("arch", [pytest.param(a, marks=[] if a in ("sm_80", "sm_90") else [pytest.mark.slow])
                                  for a in ARCHS])
def test_translator_accepts_what_ptxas_accepts(arch: str) -> None:
    wrong = _disagreements(arch)
    assert not wrong, f"{len(wrong)} disagreements with ptxas at {arch}:\n" + "\n".join(wrong[:20])


def test_cache_covers_every_probe() -> None:
    cached = verdicts()
    wanted = probes()
    assert set(cached) == set(wanted), "regenerate: python -m ptx2gcn.conformance.matrix_acceptance"
    assert all(cached[s]["line"] == line for s, line in wanted.items())
    # both directions occur at every target, so neither half of the check is vacuous
    for arch in ARCHS:
        assert any(v[arch] == "" for v in cached.values()) and any(v[arch] for v in cached.values())


def test_the_five_mixed_accumulator_spellings_are_errors() -> None:
    """The spellings the tests once compiled though ptxas refuses them (mixed f16/f32 C and D)."""
    for spelling in ("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f16",
                     "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f32",
                     "mma.sync.aligned.m16n8k16.row.col.f32.e5m2.e5m2.f16",
                     "mma.sync.aligned.m8n8k4.col.col.f16.f16.f16.f32",
                     "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f16"):
        assert verdicts()[spelling]["sm_90"], spelling
        error = _ours(spelling, "sm_90")
        assert error is not None and not isinstance(error, UnsupportedError) and _AT in str(error), spelling


@pytest.mark.slow
def test_every_accepted_spelling_compiles_or_is_unsupported() -> None:
    """Through the emitter: a spelling ptxas accepts at sm_90 gives LLVM IR or a located unsupported."""
    wrong = []
    for spelling, verdict in verdicts().items():
        if verdict["sm_90"]:
            continue
        try:
            compile_llvm(probe_module(verdict["line"], "sm_90"), optimised=False)
        except UnsupportedError as error:
            if _AT not in str(error):
                wrong.append(f"{spelling}: {error}")
        except Ptx2GcnError as error:
            wrong.append(f"{spelling}: {error}")
    assert not wrong, "\n".join(wrong[:20])


@pytest.mark.slow
@pytest.mark.skipif(not shutil.which(os.environ.get("PTXAS", "/usr/local/cuda/bin/ptxas")), reason="no ptxas")
def test_cache_matches_ptxas() -> None:
    ptxas = os.environ.get("PTXAS", "/usr/local/cuda/bin/ptxas")
    stale = []
    for i, (spelling, verdict) in enumerate(sorted(verdicts().items())):
        arch = ARCHS[i % len(ARCHS)]
        ok, _ = ptxas_accepts(verdict["line"], arch, ptxas)
        if ok != (verdict[arch] == ""):
            stale.append(f"{spelling} at {arch}")
    assert not stale, "regenerate: python -m ptx2gcn.conformance.matrix_acceptance\n" + "\n".join(stale[:20])
