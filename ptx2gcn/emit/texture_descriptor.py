"""The texture/surface descriptor: what a bindless texture or surface handle points to on gfx942.

ptx2gcn has no image hardware path (the emulator executes no MIMG instruction, and a texture
object must work wherever a 64-bit handle can travel). A ``cudaTextureObject_t`` or
``cudaSurfaceObject_t`` made by ptx2gcn's driver is therefore the device address of one
``SIZE``-byte descriptor in global memory, written once by the driver at object creation and only
read by kernels; ``lower_texture`` reads it and does the addressing, filtering and format
conversion in software (buffer loads + arithmetic).

Invariant: this module is the single definition of the layout; the driver (``runtime/driver/
textures.py``) writes descriptors with ``pack`` and the compiler reads the ``OFFSET`` fields, so the
two cannot disagree. Sizes are in elements (``width``) and rows/slices (``height``, ``depth``), each
at least 1; ``depth`` counts layers for a layered resource. Address modes are ``CUaddress_mode``'s
values; the driver stores clamp for wrap/mirror with unnormalised coordinates (CUDA: those two modes
need normalised coordinates and otherwise behave as clamp).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

SIZE = 96
"""Bytes of one descriptor."""

KIND_UNSIGNED, KIND_SIGNED, KIND_FLOAT = 0, 1, 2
"""``kind``: how a channel's bits are read."""

WRAP, CLAMP, MIRROR, BORDER = 0, 1, 2, 3
"""``CUaddress_mode`` values."""

POINT, LINEAR = 0, 1
"""``CUfilter_mode`` values."""

_FORMAT = "<QIIIIQIIIIIIIIIIffffII"
OFFSET = {
    "base": 0, "width": 8, "height": 12, "depth": 16, "pitch": 20, "slice": 24, "kind": 32,
    "channel_bytes": 36, "channels": 40, "element_bytes": 44, "mode0": 48, "mode1": 52, "mode2": 56,
    "filter": 60, "normalized_read": 64, "normalized_coords": 68, "border": 72, "layered": 88, "dims": 92,
}
"""Byte offset of each field (``border`` is four f32, the rest u32 except the u64 ``base``/``slice``)."""


@dataclass(frozen=True)
class Descriptor:
    """One texture or surface descriptor's fields (see the module docstring)."""

    base: int
    width: int
    height: int
    depth: int
    pitch: int
    slice: int
    kind: int
    channel_bytes: int
    channels: int
    modes: tuple[int, int, int] = (CLAMP, CLAMP, CLAMP)
    filter: int = POINT
    normalized_read: bool = False
    normalized_coords: bool = False
    border: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)
    layered: bool = False
    dims: int = 1

    def pack(self) -> bytes:
        data = struct.pack(_FORMAT, self.base, self.width, self.height, self.depth, self.pitch, self.slice,
                           self.kind, self.channel_bytes, self.channels, self.channel_bytes * self.channels,
                           *self.modes, self.filter, int(self.normalized_read), int(self.normalized_coords),
                           *self.border, int(self.layered), self.dims)
        assert len(data) == SIZE
        return data


def unpack(data: bytes) -> Descriptor:
    """The descriptor ``pack`` wrote (for the driver's ``cuTexObjectGet*`` answers and tests)."""
    f = struct.unpack(_FORMAT, data[:SIZE])
    return Descriptor(base=f[0], width=f[1], height=f[2], depth=f[3], pitch=f[4], slice=f[5], kind=f[6],
                      channel_bytes=f[7], channels=f[8], modes=(f[10], f[11], f[12]), filter=f[13],
                      normalized_read=bool(f[14]), normalized_coords=bool(f[15]),
                      border=(f[16], f[17], f[18], f[19]), layered=bool(f[20]), dims=f[21])
