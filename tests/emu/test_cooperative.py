"""Cooperative launches on the emulator: CUDA's grid-wide barrier (``cg::this_grid().sync()``), as
nvcc compiles it, needs every block of the grid resident at once and the grid-sync workspace
address in ``%envreg1``/``%envreg2`` (ptx2gcn: ``hidden_multigrid_sync_arg``).

``data/grid_sync.cu`` (committed with its PTX, ``nvcc -arch=compute_80 -ptx``) runs three phases
that each read what other blocks wrote before the last barrier; the expected output is computed
here from the program's definition."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest

import ptx2gcn
from ptx2gcn.runtime.emulator.errors import KernelTrap
from ptx2gcn.runtime.emulator.launch import launch
from ptx2gcn.runtime.emulator.loader import load
from ptx2gcn.runtime.emulator.memory import DeviceMemory

DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture(scope="module")
def program():  # type: ignore[no-untyped-def]
    code = ptx2gcn.compile((DATA / "grid_sync.ptx").read_text(), arch="gfx942")
    return load(code.data, "grid_sync")


def _run(program, blocks: int, threads: int, workspace: bool) -> np.ndarray:  # type: ignore[no-untyped-def]
    n = blocks * threads
    memory = DeviceMemory()
    data, out = memory.alloc(4 * n, 256), memory.alloc(4 * n, 256)
    sync = memory.alloc(16, 64) if workspace else 0
    if sync:
        memory.write(sync, bytes(16))
    launch(program, "three_phases", grid=(blocks, 1, 1), block=(threads, 1, 1),
           kernarg=struct.pack("<QQi", data, out, n), memory=memory, grid_sync=sync)  # fmt: skip
    return np.frombuffer(memory.read(out, 4 * n), dtype=np.int32)


@pytest.mark.parametrize(("blocks", "threads"), [(4, 96), (3, 64)])
def test_grid_barriers_order_every_block(program, blocks: int, threads: int) -> None:  # type: ignore[no-untyped-def]
    n = blocks * threads
    i = np.arange(n)
    expected = 3 * ((n - 1 - i + 37) % n) + 1
    np.testing.assert_array_equal(_run(program, blocks, threads, workspace=True), expected)


def test_grid_sync_without_cooperative_launch_traps_as_in_cuda(program) -> None:  # type: ignore[no-untyped-def]
    # nvcc's grid.sync() traps when the workspace address is null (a non-cooperative launch).
    with pytest.raises(KernelTrap):
        _run(program, 2, 64, workspace=False)
