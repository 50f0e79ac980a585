"""Launching conformance and fuzz kernels on the gfx942 emulator, the one device path they share.

Invariant: a launch gets fresh device memory holding exactly the given buffers (each at least 4
bytes, so empty columns still have an address), passes their addresses then the ``u32`` scalars
as the kernel arguments, and returns every buffer's final bytes; emulator faults propagate as the
emulator's own errors (``ptx2gcn.runtime.emulator.errors``).
"""

from __future__ import annotations

import struct
from collections.abc import Sequence

from ptx2gcn.runtime.emulator.launch import launch
from ptx2gcn.runtime.emulator.loader import load
from ptx2gcn.runtime.emulator.memory import DeviceMemory

BLOCK = 64


def launch_buffers(
    code: bytes, name: str, buffers: Sequence[bytes], scalars: Sequence[int], grid: int, block: int
) -> list[bytes]:
    """Run kernel ``name(buf0, buf1, ..., u32 scalars...)`` on a ``grid`` x ``block`` launch."""
    program = load(code, "fuzz.hsaco")
    memory = DeviceMemory()
    addresses = []
    for blob in buffers:
        address = memory.alloc(max(len(blob), 4))
        memory.write(address, blob)
        addresses.append(address)
    kernarg = struct.pack(f"<{len(addresses)}Q{len(scalars)}I", *addresses, *scalars)
    launch(program, name, grid=(grid, 1, 1), block=(block, 1, 1), kernarg=kernarg, memory=memory)
    return [memory.read(address, len(blob)) for address, blob in zip(addresses, buffers)]


def run_kernel(code: bytes, name: str, inputs: bytes, out_size: int, n: int) -> bytes:
    """The conformance harness ``k(in, out, n)``: one thread per lane, returns ``out``."""
    grid = (n + BLOCK - 1) // BLOCK
    _, out = launch_buffers(code, name, [inputs, bytes(out_size)], [n], grid, BLOCK)
    return out
