"""Device attributes of an AMD Instinct MI300X (gfx942) that ``DeviceProperties`` has no field for.

Values are the hardware's (AMD CDNA 3 white paper, MI300X data sheet; the numbers ROCm's
``hipDeviceProp_t`` reports): an 8192-bit HBM3 interface (8 stacks x 1024 bits) at 1300 MHz, 4 MiB of
L2 per accelerator complex die (what a kernel's work-group sees), L1 caches for global and local
memory, a 64-bit address space shared with the host (unified addressing), concurrent kernels.
Attributes for driver features a backend does not implement (virtual memory management) stay 0 on
purpose: a client must not take a path the driver cannot serve. The emulator adds the
one-address-space attributes (``emulator.ONE_ADDRESS_SPACE``: mapped, registered and managed memory)
and cooperative launch; the hip backend adds them as HIP reports them (``HipBackend._host_attributes``).

Invariant: data only; the emulator and HIP backends report these for their MI300X.
"""

from __future__ import annotations

from ptx2gcn.runtime.driver.enums import CUdevice_attribute as A
from ptx2gcn.runtime.driver.texture_limits import TEXTURE_ATTRIBUTES

MI300X_ATTRIBUTES: dict[int, int] = {
    A.CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING: 1,
    A.CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS: 1,
    A.CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH: 8192,
    A.CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE: 1_300_000,
    A.CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: 4 << 20,
    A.CU_DEVICE_ATTRIBUTE_GLOBAL_L1_CACHE_SUPPORTED: 1,
    A.CU_DEVICE_ATTRIBUTE_LOCAL_L1_CACHE_SUPPORTED: 1,
    **TEXTURE_ATTRIBUTES,  # ptx2gcn's software textures: a documented stand-in (texture_limits.py)
}
