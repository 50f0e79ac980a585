"""All knobs of a compilation in one frozen value, passed down explicitly (conventions C15).

Invariant: no stage reads environment variables or global state for its behaviour; everything a
stage may vary on is a field here, so an ``Options`` value (with the input) is a complete cache
key and reproducer. Command-line front ends build it; ``from_env`` is the one place that reads
``PTX2GCN_*`` variables, and only when a front end asks for it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field

SUPPORTED_ARCHS: tuple[str, ...] = ("gfx942", "gfx90a", "gfx950")
"""AMDGPU targets ptx2gcn compiles for (gfx942 first); defined here so the CLI needs no LLVM to list them."""


@dataclass(frozen=True)
class Options:
    passes: tuple[str, ...] | None = None
    """IR passes to run, in order; None means the default pipeline (``ptx2gcn.pipeline.PIPELINE``)."""
    verify_each: bool = False
    """Run the IR verifier after every pass (tests and CI always do)."""
    print_after: frozenset[str] = field(default_factory=frozenset)
    """Pass names after which to print the IR (``all`` prints after every pass)."""
    print_locs: bool = False
    """Print ``loc(line:col)`` on each op in IR dumps."""
    dump_dir: str | None = None
    """Directory where every stage's artifact is written, or None."""

    @staticmethod
    def from_env(env: Mapping[str, str] | None = None, **overrides: object) -> Options:
        """Options from ``PTX2GCN_PRINT_AFTER``/``PTX2GCN_DUMP``/``PTX2GCN_VERIFY_EACH``, then overrides."""
        env = os.environ if env is None else env
        values: dict[str, object] = {}
        if env.get("PTX2GCN_PRINT_AFTER"):
            values["print_after"] = frozenset(n for n in env["PTX2GCN_PRINT_AFTER"].split(",") if n)
        if env.get("PTX2GCN_DUMP"):
            values["dump_dir"] = env["PTX2GCN_DUMP"]
        if env.get("PTX2GCN_VERIFY_EACH"):
            values["verify_each"] = env["PTX2GCN_VERIFY_EACH"] not in ("", "0")
        values.update(overrides)
        return Options(**values)  # type: ignore[arg-type]
