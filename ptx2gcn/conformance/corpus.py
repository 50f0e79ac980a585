"""The instruction spellings of the PTX corpus (``corpora/``) against the conformance table: every
spelling the corpus uses must be a conformance form, or be listed in ``NOT_MODELLED`` with the
reason it is not a one-instruction value computation the reference model could judge.

Spellings are read with the real frontend (``frontend.parse``), ``opcode.modifiers`` as written;
``ld``/``st``-style memory and control instructions are matched by opcode, the rest by spelling.

Invariant: ``scan`` visits each distinct file once (by content) and never raises for a file the
frontend rejects (``corpora/invalid`` is skipped; any other parse failure is reported with the file,
so a broken corpus file is visible rather than silently shrinking the spelling set).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ptx2gcn.diagnostics import Ptx2GcnError

SKIPPED_DIRECTORIES = frozenset({"invalid", "regressions", "golden"})
"""``invalid``: negative tests; ``regressions``/``golden``: fuzz programs (generated from the form table)."""

NOT_MODELLED: dict[str, str] = {
    **dict.fromkeys(
        ("ld", "ldu", "st", "cvta", "mov", "prefetch", "prefetchu", "isspacep", "mapa", "getctarank"),
        "data movement and addressing: checked by the corpus cases, the fuzzer's loads/stores and the "
        "emulator tests, not a value computation",
    ),
    **dict.fromkeys(
        ("bra", "brx", "call", "ret", "exit", "trap", "brkpt", "nanosleep", "pmevent"),
        "control flow: checked by the corpus cases and the fuzzer's branches, loops and calls",
    ),
    **dict.fromkeys(
        ("bar", "barrier", "membar", "fence", "mbarrier", "griddepcontrol", "setmaxnreg", "elect", "cp",
         "red.async", "st.async", "tensormap", "multimem"),
        "synchronisation, ordering or asynchronous copies: no single-thread value to compare",
    ),
    **dict.fromkeys(
        ("wmma", "mma", "wgmma", "ldmatrix", "stmatrix", "movmatrix", "tcgen05"),
        "warp-wide matrix instructions: checked by corpus cases (the model covers per-thread values only)",
    ),
    **dict.fromkeys(
        ("tex", "tld4", "txq", "suld", "sust", "sured", "suq", "istypep", "alloca", "stacksave",
         "stackrestore", "clusterlaunchcontrol", "discard", "applypriority", "createpolicy"),
        "resources, stack and cache policy: no value semantics the model could judge",
    ),
    "zluda": "ZLUDA's own pseudo-instructions in its pass-test fixtures (corpora/zluda/*pass__test*): not PTX",
    "shfl": "non-.sync shfl (removed in PTX 6.4 for sm_70+): the model covers only shfl.sync",
    "vote": "non-.sync vote: the model covers only vote.sync",
}
"""Opcode (or ``opcode.modifier`` prefix) -> why the reference model does not judge it."""


@dataclass
class Usage:
    """Where a spelling occurs: how many times, and the first place (``file:line``)."""

    count: int = 0
    first: str = ""


@dataclass
class CorpusScan:
    spellings: dict[str, Usage] = field(default_factory=dict)
    files: int = 0
    unreadable: dict[str, str] = field(default_factory=dict)
    """file -> the frontend's first error line (corpus files outside ``invalid/`` must parse)."""


def corpus_files(root: Path) -> Iterator[Path]:
    for path in sorted(root.rglob("*.ptx")):
        if not SKIPPED_DIRECTORIES & set(path.relative_to(root).parts[:-1]):
            yield path


def scan(paths: Iterable[Path]) -> CorpusScan:
    from ptx2gcn.frontend import ast
    from ptx2gcn.frontend.parse import parse_bytes

    result = CorpusScan()
    seen: set[str] = set()
    for path in paths:
        data = path.read_bytes()
        digest = hashlib.sha256(data).hexdigest()
        if digest in seen:
            continue
        seen.add(digest)
        result.files += 1
        try:
            module = parse_bytes(data, str(path))
        except Ptx2GcnError as error:
            result.unreadable[str(path)] = str(error).splitlines()[0]
            continue
        for node in _instructions(module, ast):
            spelling = ".".join((node.opcode, *(m.lstrip(".") for m in node.modifiers)))
            usage = result.spellings.setdefault(spelling, Usage())
            usage.count += 1
            if not usage.first:
                usage.first = f"{path}:{node.span.line}"
    return result


def _instructions(node: object, ast: object) -> Iterator[object]:
    """Every ``ast.Instruction`` below ``node`` (bodies nest in blocks)."""
    instruction = ast.Instruction
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, instruction):
            yield item
            continue
        if isinstance(item, (list, tuple)):
            stack.extend(reversed(item))
            continue
        for name in getattr(item, "__dataclass_fields__", ()):
            if name != "span":
                value = getattr(item, name)
                if isinstance(value, (list, tuple)) or hasattr(value, "__dataclass_fields__"):
                    stack.append(value)


ATOMIC_QUALIFIERS = frozenset(
    {"global", "shared", "shared::cta", "shared::cluster", "relaxed", "acquire", "release", "acq_rel", "cta",
     "cluster", "gpu", "sys"}
)
"""State space, memory order and scope of ``atom``/``red``: they do not change one operation's values
(``reference.atomics``), so the conformance form is the spelling without them."""
VECTOR_ATOMIC = "vector atomics (.v2/.v4/.v8, sm_90): not modelled; checked by corpus cases"


def not_modelled_reason(spelling: str) -> str | None:
    parts = spelling.split(".")
    if parts[0] in ("atom", "red") and {"v2", "v4", "v8"} & set(parts):
        return VECTOR_ATOMIC
    for length in (2, 1):
        reason = NOT_MODELLED.get(".".join(parts[:length]))
        if reason is not None:
            return reason
    return None


def form_key(spelling: str) -> tuple[str, tuple[str, ...], frozenset[str]]:
    """What identifies a form: the opcode, the types in order, the other modifiers in any order
    (``div.ftz.rn.f32`` is ``div.rn.ftz.f32``); ``atom``/``red`` qualifiers dropped."""
    from ptx2gcn.reference.ptxtypes import TYPES

    opcode, *mods = spelling.split(".")
    if opcode in ("atom", "red"):
        mods = [m for m in mods if m not in ATOMIC_QUALIFIERS]
    return opcode, tuple(m for m in mods if m in TYPES), frozenset(m for m in mods if m not in TYPES)


@dataclass
class Verdicts:
    """Each corpus spelling sorted by what covers it."""

    covered: dict[str, str] = field(default_factory=dict)
    """spelling -> the conformance form that covers it."""
    not_modelled: dict[str, str] = field(default_factory=dict)
    """spelling -> reason."""
    missing: dict[str, Usage] = field(default_factory=dict)
    """spellings neither covered nor explained (must stay empty)."""


def judge_spellings(spellings: dict[str, Usage], forms: Iterable[str]) -> Verdicts:
    by_key = {form_key(f): f for f in forms}
    verdicts = Verdicts()
    for spelling, usage in sorted(spellings.items()):
        form = by_key.get(form_key(spelling))
        if form is not None:
            verdicts.covered[spelling] = form
        elif (reason := not_modelled_reason(spelling)) is not None:
            verdicts.not_modelled[spelling] = reason
        else:
            verdicts.missing[spelling] = usage
    return verdicts
