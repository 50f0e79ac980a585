"""gfx942 wave64 emulator (``ptx2gcn.runtime.emulator``): runs AMDGPU code objects without AMD hardware."""
