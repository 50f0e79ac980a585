"""``ptx2gcn.compile_gc.paused_gc`` and its use by ``ptx2gcn.compiler``: no automatic cyclic
collection while a compilation runs, the caller's collector setting restored afterwards."""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from ptx2gcn import compiler
from ptx2gcn.compile_gc import paused_gc
from ptx2gcn.diagnostics import Ptx2GcnError

PTX = """\
.version 8.0
.target sm_90
.address_size 64

.visible .entry add_one(.param .u64 p)
{
    .reg .b32 %r<3>;
    .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [p];
    cvta.to.global.u64 %rd2, %rd1;
    ld.global.u32 %r1, [%rd2];
    add.s32 %r2, %r1, 1;
    st.global.u32 [%rd2], %r2;
    ret;
}
"""


@pytest.fixture
def collector_enabled() -> Iterator[None]:
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


@pytest.fixture
def collections() -> Iterator[list[int]]:
    """Generations of the automatic collections started while the test runs (threshold 1: a
    collection after nearly every allocation when the collector is on)."""
    seen: list[int] = []

    def callback(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            seen.append(info["generation"])

    old = gc.get_threshold()
    gc.set_threshold(1, 1, 1)
    gc.callbacks.append(callback)
    yield seen
    gc.callbacks.remove(callback)
    gc.set_threshold(*old)


def test_paused_gc_disables_and_restores(collector_enabled: None) -> None:
    with paused_gc():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_nested_pause_keeps_the_outer_one(collector_enabled: None) -> None:
    with paused_gc():
        with paused_gc():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()


def test_collector_disabled_by_the_caller_stays_disabled(collector_enabled: None) -> None:
    gc.disable()
    with paused_gc():
        pass
    assert not gc.isenabled()


def test_an_exception_restores_the_collector(collector_enabled: None) -> None:
    with pytest.raises(ZeroDivisionError), paused_gc():
        _ = 1 / 0
    assert gc.isenabled()


def test_threshold_one_collects_without_a_pause(collector_enabled: None, collections: list[int]) -> None:
    """The fixture's detector works: with the collector on, allocations start collections."""
    _ = [[i] for i in range(100)]
    assert collections


def _mark_around(monkeypatch: pytest.MonkeyPatch, first: str, last: str, collections: list[int]) -> list[int]:
    """Record how many collections had started when ``ptx2gcn.compiler.<first>`` (the compile's
    first step) and ``<last>`` (its last step) are called."""
    marks: list[int] = []
    for name in (first, last):
        original = getattr(compiler, name)

        def marked(*args: Any, original: Callable[..., Any] = original, **kwargs: Any) -> Any:
            marks.append(len(collections))
            return original(*args, **kwargs)

        monkeypatch.setattr(compiler, name, marked)
    return marks


def test_compile_runs_without_automatic_collections(collector_enabled: None, collections: list[int],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    marks = _mark_around(monkeypatch, "_source", "read_code_object", collections)
    code = compiler.compile(PTX)
    assert len(marks) == 2 and marks[0] == marks[1]
    assert gc.isenabled()
    assert "add_one" in code.kernels


def test_compile_llvm_runs_without_automatic_collections(collector_enabled: None, collections: list[int],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    marks = _mark_around(monkeypatch, "_source", "optimise", collections)
    text = compiler.compile_llvm(PTX)
    assert len(marks) == 2 and marks[0] == marks[1]
    assert gc.isenabled()
    assert "amdgpu_kernel" in text


def test_without_the_pause_the_marks_see_collections(collector_enabled: None, collections: list[int],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The marks can tell: the undecorated compile, run with the collector on, collects."""
    marks = _mark_around(monkeypatch, "_source", "read_code_object", collections)
    compiler.compile.__wrapped__(PTX)
    assert len(marks) == 2 and marks[1] > marks[0]


def test_a_rejected_input_restores_the_collector(collector_enabled: None) -> None:
    with pytest.raises(Ptx2GcnError):
        compiler.compile(PTX.replace("add.s32", "add.bogus32"))
    assert gc.isenabled()
