"""Every modelled form again, with the emulator's approximate instructions adversarial: each
v_rcp/v_sqrt/v_rsq/v_exp/v_log/v_sin/v_cos answers a seeded pseudo-random value within its
documented bound (``ptx2gcn.runtime.emulator.approx``) instead of the correctly rounded one.

Forms whose PTX contract is exact (``.rn`` arithmetic, ``div.rn``, ``sqrt.rn``, ``rcp.rn``, integer
ops, ``cvt``, ...) must still match the model bit for bit, and ``.approx``/``.full`` forms must stay
within the manual's bounds (the model's intervals): code that is only right when the hardware
rounds correctly fails here. The default suite runs a deterministic sample of the kernel groups;
``-m slow`` runs every form under two seeds.
"""

from __future__ import annotations

import pytest

from ptx2gcn.conformance.run import run_all
from ptx2gcn.conformance.table import FormTable
from ptx2gcn.fuzz.known import FRONTEND_INVALID, KNOWN_FAILURES
from ptx2gcn.runtime.emulator.approx import ENV_MODE, ENV_SEED

LANES = 64
SAMPLE_EVERY = 3
"""The default suite runs the forms of every third kernel group."""


def _adversarial(table: FormTable, seed: int, every: int) -> dict[str, list[str]]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(ENV_MODE, "adversarial")
        patch.setenv(ENV_SEED, str(seed))
        results = run_all(table, LANES, 20260 + seed, every)
    return {spelling: failures for spelling, failures in results.items()
            if failures and spelling not in KNOWN_FAILURES and spelling not in FRONTEND_INVALID}


def test_sample_exact_under_adversarial_approximations(form_table: FormTable) -> None:
    failures = _adversarial(form_table, 1, SAMPLE_EVERY)
    assert not failures, "\n".join(line for lines in failures.values() for line in lines[:3])


@pytest.mark.slow
@pytest.mark.parametrize("seed", [2, 3])
def test_every_form_under_adversarial_approximations(form_table: FormTable, seed: int) -> None:
    failures = _adversarial(form_table, seed, 1)
    assert not failures, "\n".join(line for lines in failures.values() for line in lines[:3])
