"""PTX targets and ISA versions: which ``.version`` each ``.target`` needs, and the SM number and
PTX version a module is written for (the facts feature gates depend on).

Invariant: ``MIN_VERSION`` holds, for every ``sm_XX`` target ptx2gcn knows, the oldest PTX ISA
version that supports it, as ptxas 13.0 enforces ("PTX .version 6.0 does not support .target
sm_80"; checked target by target, see tests/frontend/test_targets.py); ``compute_XX`` names the same
architecture as ``sm_XX``. Targets not in the table are not judged (a newer PTX may add them).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# https://docs.nvidia.com/cuda/parallel-thread-execution/#release-notes (PTX ISA version per target)
MIN_VERSION: dict[str, tuple[int, int]] = {
    "sm_10": (1, 0), "sm_11": (1, 0), "sm_12": (1, 2), "sm_13": (1, 2), "sm_20": (2, 0), "sm_21": (2, 0),
    "sm_30": (3, 0), "sm_32": (4, 0), "sm_35": (3, 1), "sm_37": (4, 1), "sm_50": (4, 0), "sm_52": (4, 1),
    "sm_53": (4, 2), "sm_60": (5, 0), "sm_61": (5, 0), "sm_62": (5, 0), "sm_70": (6, 0), "sm_72": (6, 1),
    "sm_75": (6, 3), "sm_80": (7, 0), "sm_86": (7, 1), "sm_87": (7, 4), "sm_88": (9, 0), "sm_89": (7, 8),
    "sm_90": (7, 8), "sm_90a": (8, 0), "sm_100": (8, 6), "sm_100a": (8, 6), "sm_100f": (8, 8),
    "sm_101": (8, 6), "sm_101a": (8, 6), "sm_103": (8, 8), "sm_103a": (8, 8), "sm_103f": (8, 8),
    "sm_110": (9, 0), "sm_110a": (9, 0), "sm_110f": (9, 0), "sm_120": (8, 7), "sm_120a": (8, 7),
    "sm_120f": (8, 8), "sm_121": (8, 8), "sm_121a": (8, 8), "sm_121f": (8, 8),
}

_SM = re.compile(r"(?:sm|compute)_(\d+)([af]?)")


def canonical(target: str) -> str:
    """``compute_90a`` -> ``sm_90a``; other names unchanged."""
    return "sm_" + target[len("compute_"):] if target.startswith("compute_") else target


def version_problem(major: int, minor: int, target: str) -> str:
    """'' when PTX ``major.minor`` supports ``target``, else ptxas's sentence."""
    need = MIN_VERSION.get(canonical(target))
    if need is None or (major, minor) >= need:
        return ""
    return (f"PTX .version {major}.{minor} does not support .target {target} "
            f"(it needs .version {need[0]}.{need[1]} or later)")


@dataclass(frozen=True, slots=True)
class Target:
    """What a module is written for: PTX ISA version and SM number (0 when no sm_XX target)."""

    version: tuple[int, int]
    sm: int

    @staticmethod
    def of(version: str, targets: str) -> Target:
        """From IR module fields: ``version`` "8.0", ``targets`` "sm_90a,debug"."""
        major, _, minor = version.partition(".")
        numbers = [int(m.group(1)) for t in targets.split(",") if (m := _SM.fullmatch(t.strip()))]
        pair = (int(major), int(minor)) if major.isdigit() and minor.isdigit() else (0, 0)
        return Target(pair, max(numbers, default=0))
