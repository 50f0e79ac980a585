"""Every modelled instruction form through PTX → code object → emulator, compared with the reference
model on edge-biased lanes (``ptx2gcn.reference.sampling``).

One test per form. A form the compiler rejects (``unsupported: ...``) is skipped with the compiler's
sentence, so rejections stay visible; a form the frontend calls invalid PTX although the model
defines it fails. ``ptx2gcn.fuzz.known.KNOWN_FAILURES`` holds the forms whose bugs are not fixed
yet (strict xfail: a fix turns them into failures until the entry is removed); ``FRONTEND_INVALID``
those the frontend or IR verifier wrongly refuse.
"""

from __future__ import annotations

import pytest

from ptx2gcn.conformance.forms import model_forms
from ptx2gcn.conformance.run import verdict
from ptx2gcn.conformance.table import FormTable
from ptx2gcn.fuzz.known import FRONTEND_INVALID, KNOWN_FAILURES


def _params() -> list[object]:
    params: list[object] = []
    for form in model_forms():
        reason = KNOWN_FAILURES.get(form.spelling) or FRONTEND_INVALID.get(form.spelling)
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        params.append(pytest.param(form.spelling, id=form.spelling, marks=marks))
    return params


@pytest.mark.parametrize("spelling", _params())
def test_form(
    spelling: str, form_table: FormTable, default_results: dict[str, list[str]], covered: dict[str, str]
) -> None:
    if spelling in form_table.rejected:
        pytest.skip(form_table.rejected[spelling].splitlines()[0])
    if spelling in form_table.invalid:
        pytest.fail(
            f"the model defines {spelling} but the compiler calls it invalid:\n{form_table.invalid[spelling]}"
        )
    assert spelling in default_results, f"{spelling}: supported but not run by the harness"
    failures = default_results[spelling]
    covered[spelling] = verdict(spelling, failures, KNOWN_FAILURES)
    assert not failures, "\n".join(failures)
