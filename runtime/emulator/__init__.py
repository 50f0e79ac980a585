"""gfx942 wave64 emulator (``ptx2gcn.runtime.emulator``): runs AMDGPU code objects without AMD hardware.

Public API (see ``launch.py`` for the contract): ``load(hsaco) -> Program``, ``DeviceMemory`` (alloc,
free, read, write), and ``ptx2gcn.runtime.emulator.launch.launch(program, kernel, grid, block,
kernarg, dynamic_lds=0, memory=..., trace=False, step_budget=...) -> LaunchStats`` (imported from its
module: the package attribute ``launch`` is that module); every failure is an ``EmulatorError`` with
a located message (kernel, work-group, wave, lane, PC, instruction, address). Importing this package
is cheap: the names resolve lazily.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "load": "loader", "Program": "loader",
    "LaunchStats": "launch",
    "DeviceMemory": "memory",
    "EmulatorError": "errors", "LaunchError": "errors", "AccessFault": "errors", "WaveFault": "errors",
    "HazardFault": "errors",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
