"""CUDA arrays, texture and surface objects through ``ptx2gcn.cuda``, with real kernels
(data/textures.cu, nvcc's PTX in data/textures.ptx) on the emulator. Sampled values are checked
against ``reference``: a numpy transcription of the CUDA Programming Guide's "Texture Fetching"
appendix (addressing, point and linear filtering with 8-bit fraction weights), written independently
of the lowering; integer, surface and query results against plain numpy indexing."""

from __future__ import annotations

import ctypes
from collections.abc import Sequence

import numpy as np
import pytest

from ptx2gcn import cuda
from tests.driver.conftest import DATA, fails, ok

R = cuda.CUresult
F = cuda.CUarray_format
A = cuda.CUaddress_mode
WRAP, CLAMP, MIRROR, BORDER = (A.CU_TR_ADDRESS_MODE_WRAP, A.CU_TR_ADDRESS_MODE_CLAMP, A.CU_TR_ADDRESS_MODE_MIRROR,
                               A.CU_TR_ADDRESS_MODE_BORDER)
POINT, LINEAR = cuda.CUfilter_mode.CU_TR_FILTER_MODE_POINT, cuda.CUfilter_mode.CU_TR_FILTER_MODE_LINEAR
BORDER_COLOUR = (0.25, -2.0, 8.0, 0.5)


# -- the reference --------------------------------------------------------------------------------
def _index(i: int, n: int, mode: int) -> int | None:
    if mode == WRAP:
        return i % n
    if mode == MIRROR:
        m = i % (2 * n)
        return m if m < n else 2 * n - 1 - m
    if mode == BORDER:
        return i if 0 <= i < n else None
    return min(max(i, 0), n - 1)


def _footprint(u: float, n: int, mode: int, linear: bool, normalized: bool) -> tuple[int, np.float32]:
    """(first texel, weight of the second) on one axis."""
    if normalized:
        if mode == WRAP:
            u = u - np.floor(u)
        elif mode == MIRROR:
            f = np.floor(u)
            u = (u - f) if f % 2 == 0 else 1 - (u - f)
        x = np.float32(u) * np.float32(n)
    else:
        x = np.float32(u)
    if not linear:
        return int(np.floor(x)), np.float32(0.0)
    xb = np.float32(x - np.float32(0.5))
    i = int(np.floor(xb))
    return i, np.float32(np.round((xb - i) * 256) / 256)


def reference(texels: np.ndarray, coords: Sequence[float], modes: Sequence[int], linear: bool, normalized: bool,
              border: Sequence[float] = BORDER_COLOUR) -> np.ndarray:
    """One fetch: ``texels`` indexed [z][y][x][channel] (as many leading axes as coordinates)."""
    axes = [_footprint(u, texels.shape[len(coords) - 1 - axis], modes[axis], linear, normalized)
            for axis, u in enumerate(coords)]

    def texel(offsets: tuple[int, ...]) -> np.ndarray:
        index = []
        for axis, ((i, _), step) in enumerate(zip(axes, offsets, strict=True)):
            found = _index(i + step, texels.shape[len(coords) - 1 - axis], modes[axis])
            if found is None:
                return np.array(border, dtype=np.float32)
            index.append(found)
        return texels[tuple(reversed(index))].astype(np.float32)

    def blend(axis: int, offsets: tuple[int, ...]) -> np.ndarray:
        if axis < 0:
            return texel(offsets)
        weight = axes[axis][1]
        low = blend(axis - 1, (0, *offsets))
        if weight == 0:
            return low
        return (1 - weight) * low + weight * blend(axis - 1, (1, *offsets))

    return blend(len(axes) - 1, ())


# -- helpers --------------------------------------------------------------------------------------
@pytest.fixture
def kernels(context: cuda.CUcontext) -> cuda.CUmodule:
    return ok(cuda.cuModuleLoad(str(DATA / "textures.ptx")))


def _device(data: np.ndarray) -> cuda.CUdeviceptr:
    pointer = ok(cuda.cuMemAlloc(max(data.nbytes, 1)))
    ok(cuda.cuMemcpyHtoD(pointer, data, data.nbytes))
    return pointer


OUT = object()
"""Where ``_run`` puts the output buffer among a kernel's arguments."""


def _array(texels: np.ndarray, fmt: F, channels: int, dims: int, flags: int = 0) -> cuda.CUarray:
    shape = texels.shape[:dims][::-1]  # width, height, depth
    desc = cuda.CUDA_ARRAY3D_DESCRIPTOR(Width=shape[0], Height=shape[1] if dims > 1 else 0,
                                        Depth=shape[2] if dims > 2 else 0, Format=fmt, NumChannels=channels,
                                        Flags=flags)
    handle = ok(cuda.cuArray3DCreate(desc))
    ok(cuda.cuMemcpyHtoA(handle, 0, np.ascontiguousarray(texels), texels.nbytes))
    return handle


def _texture(resource: cuda.CUDA_RESOURCE_DESC, modes: Sequence[int], filt: int, flags: int) -> cuda.CUtexObject:
    tex = cuda.CUDA_TEXTURE_DESC(filterMode=filt, flags=flags)
    for i, mode in enumerate(modes):
        tex.addressMode[i] = mode
    for i, value in enumerate(BORDER_COLOUR):
        tex.borderColor[i] = value
    return ok(cuda.cuTexObjectCreate(resource, tex, None))


def _of_array(handle: cuda.CUarray) -> cuda.CUDA_RESOURCE_DESC:
    resource = cuda.CUDA_RESOURCE_DESC(resType=cuda.CUresourcetype.CU_RESOURCE_TYPE_ARRAY)
    resource.res.array.hArray = int(handle)
    return resource


def _run(module: cuda.CUmodule, name: bytes, args: Sequence[object], n: int, out: np.ndarray) -> np.ndarray:
    """Launch ``name`` on ``n`` threads with ``args`` (handles and pointers 8 bytes, ints ``int``) and
    return the buffer it wrote, read into ``out``."""
    function = ok(cuda.cuModuleGetFunction(module, name))
    output = ok(cuda.cuMemAlloc(out.nbytes))
    values = [output if a is OUT else a for a in args]
    types = [ctypes.c_int if isinstance(v, int) else None for v in values]
    ok(cuda.cuLaunchKernel(function, (n + 63) // 64, 1, 1, 64, 1, 1, 0, 0, (tuple(values), tuple(types)), 0))
    ok(cuda.cuMemcpyDtoH(out, output, out.nbytes))
    return out


def _sample(module: cuda.CUmodule, name: bytes, tex: cuda.CUtexObject, coords: np.ndarray) -> np.ndarray:
    out = np.zeros((len(coords), 4), dtype=np.float32)
    return _run(module, name, [tex, _device(coords), OUT, len(coords)], len(coords), out)


COORDS = [-0.6, -0.1, 0.0, 0.13, 0.37, 0.5, 0.74, 0.99, 1.0, 1.21, 1.62, 2.4]


# -- sampling -------------------------------------------------------------------------------------
@pytest.mark.parametrize("mode", [WRAP, CLAMP, MIRROR, BORDER])
@pytest.mark.parametrize("filt", [POINT, LINEAR])
def test_2d_float4_normalised_coordinates(kernels: cuda.CUmodule, mode: int, filt: int) -> None:
    texels = np.random.default_rng(1).uniform(-4, 4, (4, 5, 4)).astype(np.float32)  # 4 rows of 5 texels
    tex = _texture(_of_array(_array(texels, F.CU_AD_FORMAT_FLOAT, 4, 2)), [mode, mode, mode], filt,
                   cuda.CU_TRSF_NORMALIZED_COORDINATES)
    coords = np.array([(u, v) for u in COORDS for v in COORDS[::3]], dtype=np.float32)
    got = _sample(kernels, b"sample_2d", tex, coords)
    expected = [reference(texels, c, [mode, mode], filt == LINEAR, True) for c in coords]
    np.testing.assert_allclose(got, np.array(expected), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("mode", [CLAMP, BORDER, WRAP])
def test_2d_unnormalised_coordinates_linear(kernels: cuda.CUmodule, mode: int) -> None:
    texels = np.arange(3 * 4 * 4, dtype=np.float32).reshape(3, 4, 4) ** 1.5
    tex = _texture(_of_array(_array(texels, F.CU_AD_FORMAT_FLOAT, 4, 2)), [mode] * 3, LINEAR, 0)
    coords = np.array([(u, v) for u in (-1.0, 0.0, 0.5, 0.8, 1.3, 3.9, 4.2, 6.0) for v in (-0.3, 0.5, 1.7, 3.1)],
                      dtype=np.float32)
    got = _sample(kernels, b"sample_2d", tex, coords)
    stored = CLAMP if mode == WRAP else mode  # wrap needs normalised coordinates; CUDA clamps otherwise
    expected = [reference(texels, c, [stored, stored], True, False) for c in coords]
    np.testing.assert_allclose(got, np.array(expected), rtol=1e-5, atol=1e-5)


def test_1d_one_channel_reads_missing_channels_as_0_0_1(kernels: cuda.CUmodule) -> None:
    texels = np.array([[1.0], [3.0], [-2.0], [10.0]], dtype=np.float32)
    array = ok(cuda.cuArrayCreate(cuda.CUDA_ARRAY_DESCRIPTOR(Width=4, Height=0, Format=F.CU_AD_FORMAT_FLOAT,
                                                             NumChannels=1)))
    ok(cuda.cuMemcpyHtoA(array, 0, texels, texels.nbytes))
    tex = _texture(_of_array(array), [CLAMP] * 3, LINEAR, 0)
    x = np.array([0.0, 0.5, 1.0, 1.25, 2.9, 5.0], dtype=np.float32)
    got = _sample(kernels, b"sample_1d", tex, x)
    expected = [reference(texels, (u,), [CLAMP], True, False)[0] for u in x]
    np.testing.assert_allclose(got[:, 0], expected, rtol=1e-6)
    assert (got[:, 1:] == [0.0, 0.0, 1.0]).all()
    assert ok(cuda.cuArrayGetDescriptor(array)).Width == 4


def test_3d_linear_and_layered_2d(kernels: cuda.CUmodule) -> None:
    texels = np.random.default_rng(2).uniform(0, 1, (3, 4, 5, 4)).astype(np.float32)  # depth 3, 4 x 5
    tex = _texture(_of_array(_array(texels, F.CU_AD_FORMAT_FLOAT, 4, 3)), [CLAMP, WRAP, MIRROR], LINEAR,
                   cuda.CU_TRSF_NORMALIZED_COORDINATES)
    coords = np.array([(u, v, w, 0) for u in (0.1, 0.55, 1.3) for v in (-0.2, 0.45) for w in (0.0, 0.4, 0.95)],
                      dtype=np.float32)
    got = _sample(kernels, b"sample_3d", tex, coords)
    expected = [reference(texels, c[:3], [CLAMP, WRAP, MIRROR], True, True) for c in coords]
    np.testing.assert_allclose(got, np.array(expected), rtol=1e-5, atol=1e-6)

    layered = _array(texels, F.CU_AD_FORMAT_FLOAT, 4, 3, cuda.CUDA_ARRAY3D_LAYERED)
    desc = ok(cuda.cuArray3DGetDescriptor(layered))
    assert (desc.Width, desc.Height, desc.Depth, desc.Flags) == (5, 4, 3, cuda.CUDA_ARRAY3D_LAYERED)
    tex = _texture(_of_array(layered), [BORDER] * 3, POINT, 0)
    coords = np.array([(u, v, layer, 0) for u in (-1.0, 0.5, 4.7) for v in (1.2, 3.5) for layer in (0, 2, 7)],
                      dtype=np.float32)
    got = _sample(kernels, b"sample_layered", tex, coords)
    expected = [reference(texels[min(int(c[2]), 2)], c[:2], [BORDER] * 2, False, False) for c in coords]
    np.testing.assert_allclose(got, np.array(expected), rtol=1e-6)


@pytest.mark.parametrize(("fmt", "dtype", "scale"), [
    (F.CU_AD_FORMAT_UNSIGNED_INT8, np.uint8, 255.0), (F.CU_AD_FORMAT_SIGNED_INT16, np.int16, 32767.0),
    (F.CU_AD_FORMAT_UNSIGNED_INT16, np.uint16, 65535.0), (F.CU_AD_FORMAT_HALF, np.float16, 1.0),
])  # fmt: skip
def test_formats_read_as_normalised_float(kernels: cuda.CUmodule, fmt: F, dtype: type, scale: float) -> None:
    info = np.iinfo(dtype) if np.issubdtype(dtype, np.integer) else None
    rng = np.random.default_rng(3)
    raw = (rng.integers(info.min, info.max, (3, 4, 2), endpoint=True) if info else rng.uniform(-9, 9, (3, 4, 2)))
    texels = raw.astype(dtype)
    if info is not None and info.min < 0:
        texels[0, 0, 0] = info.min  # reads as -1, not below
    tex = _texture(_of_array(_array(texels, fmt, 2, 2)), [CLAMP] * 3, POINT, 0)
    coords = np.array([(x + 0.5, y + 0.5) for y in range(3) for x in range(4)], dtype=np.float32)
    got = _sample(kernels, b"sample_2d", tex, coords)
    expected = (texels.astype(np.float64) / scale).reshape(-1, 2)
    if info is not None:
        expected = np.maximum(expected, -1.0)
    np.testing.assert_allclose(got[:, :2], expected, rtol=1e-6)
    assert (got[:, 2:] == [0.0, 1.0]).all()


def test_integer_reads_linear_memory_and_gather(kernels: cuda.CUmodule) -> None:
    values = np.arange(-20, 20, dtype=np.int32).reshape(10, 4)
    resource = cuda.CUDA_RESOURCE_DESC(resType=cuda.CUresourcetype.CU_RESOURCE_TYPE_LINEAR)
    resource.res.linear.devPtr = _device(values)
    resource.res.linear.format = F.CU_AD_FORMAT_SIGNED_INT32
    resource.res.linear.numChannels = 4
    resource.res.linear.sizeInBytes = values.nbytes
    tex = _texture(resource, [CLAMP] * 3, POINT, cuda.CU_TRSF_READ_AS_INTEGER)
    x = np.array([-3, 0, 4, 9, 10, 55], dtype=np.int32)
    got = _run(kernels, b"fetch_int", [tex, _device(x), OUT, len(x)], len(x), np.zeros((len(x), 4), dtype=np.int32))
    expected = [values[i] if 0 <= i < 10 else [0, 0, 0, 0] for i in x]  # tex1Dfetch: 0 outside
    assert (got == np.array(expected)).all()

    texels = np.random.default_rng(4).integers(0, 255, (3, 4, 4)).astype(np.uint8)
    array = _array(texels, F.CU_AD_FORMAT_UNSIGNED_INT8, 4, 2, cuda.CUDA_ARRAY3D_SURFACE_LDST)
    as_int = _texture(_of_array(array), [WRAP] * 3, POINT, cuda.CU_TRSF_READ_AS_INTEGER)
    coords = np.array([(-0.5, 0.2), (3.9, 2.5), (4.0, 1.0), (2.2, 9.0)], dtype=np.float32)
    got = _run(kernels, b"sample_2d_int", [as_int, _device(coords), OUT, len(coords)], len(coords),
               np.zeros((len(coords), 4), dtype=np.int32))
    expected = [texels[min(max(int(np.floor(v)), 0), 2), min(max(int(np.floor(u)), 0), 3)] for u, v in coords]
    assert (got == np.array(expected)).all()  # unnormalised coordinates: wrap acts as clamp

    normalized = _texture(_of_array(array), [CLAMP] * 3, POINT, cuda.CU_TRSF_NORMALIZED_COORDINATES)
    coords = np.array([(0.1, 0.1), (0.5, 0.5), (0.9, 0.95), (0.3, 0.7)], dtype=np.float32)
    for comp in (0, 1):
        got = _run(kernels, b"gather_2d", [normalized, _device(coords), OUT, len(coords), comp], len(coords),
                   np.zeros((len(coords), 4), dtype=np.float32))
        for row, (u, v) in zip(got, coords, strict=True):
            i, j = int(np.floor(u * 4 - 0.5)), int(np.floor(v * 3 - 0.5))
            order = [(i, j + 1), (i + 1, j + 1), (i + 1, j), (i, j)]
            want = [texels[min(max(y, 0), 2), min(max(x, 0), 3), comp] / 255.0 for x, y in order]
            np.testing.assert_allclose(row, want, rtol=1e-6)


# -- surfaces and queries -------------------------------------------------------------------------
def test_surfaces_read_write_and_bounds(kernels: cuda.CUmodule) -> None:
    pixels = np.random.default_rng(5).integers(0, 255, (3, 7, 4)).astype(np.uint8)
    flags = cuda.CUDA_ARRAY3D_SURFACE_LDST
    src, dst = (_array(p, F.CU_AD_FORMAT_UNSIGNED_INT8, 4, 2, flags) for p in (pixels, pixels * 0))
    surfaces = [ok(cuda.cuSurfObjectCreate(_of_array(a))) for a in (src, dst)]
    function = ok(cuda.cuModuleGetFunction(kernels, b"surface_invert"))
    ok(cuda.cuLaunchKernel(function, 1, 1, 1, 8, 4, 1, 0, 0, ((*surfaces, 7, 3), (None, None, ctypes.c_int,
                                                                                    ctypes.c_int)), 0))
    out = np.zeros_like(pixels)
    ok(cuda.cuMemcpyAtoH(out, dst, 0, out.nbytes))
    expected = pixels.copy()
    expected[..., 0] = 255 - pixels[..., 0]
    assert (out == expected).all()

    line = np.arange(6, dtype=np.float32) + 0.5
    row = ok(cuda.cuArray3DCreate(cuda.CUDA_ARRAY3D_DESCRIPTOR(Width=6, Format=F.CU_AD_FORMAT_FLOAT, NumChannels=1,
                                                               Flags=flags)))
    ok(cuda.cuMemcpyHtoA(row, 0, line, line.nbytes))
    surface = ok(cuda.cuSurfObjectCreate(_of_array(row)))
    x = np.array([-2, 0, 3, 5, 6, 40], dtype=np.int32)
    function = ok(cuda.cuModuleGetFunction(kernels, b"surface_bounds"))
    got = np.zeros((len(x), 2), dtype=np.float32)
    output = int(ok(cuda.cuMemAlloc(got.nbytes)))
    args = ((surface, _device(x), output, len(x)), (None, None, ctypes.c_void_p, ctypes.c_int))
    ok(cuda.cuLaunchKernel(function, 1, 1, 1, len(x), 1, 1, 0, 0, args, 0))
    ok(cuda.cuMemcpyDtoH(got, output, got.nbytes))
    inside = [(0 <= i < 6) for i in x]
    assert (got[:, 0] == [line[i] if ok_ else 0.0 for i, ok_ in zip(x, inside, strict=True)]).all()
    assert (got[:, 1] == [line[min(max(i, 0), 5)] for i in x]).all()
    after = np.zeros_like(line)
    ok(cuda.cuMemcpyAtoH(after, row, 0, after.nbytes))
    assert (after == line).all()  # every store was out of range: .zero dropped them


def test_query_and_descriptions(kernels: cuda.CUmodule) -> None:
    texels = np.zeros((2, 3, 5, 1), dtype=np.float32)
    array = _array(texels, F.CU_AD_FORMAT_FLOAT, 1, 3)
    tex = _texture(_of_array(array), [MIRROR, CLAMP, BORDER], LINEAR, cuda.CU_TRSF_NORMALIZED_COORDINATES)
    got = _run(kernels, b"query", [tex, OUT], 1, np.zeros(3, dtype=np.int32))
    assert list(got) == [5, 3, 2]
    resource = ok(cuda.cuTexObjectGetResourceDesc(tex))
    assert resource.resType == cuda.CUresourcetype.CU_RESOURCE_TYPE_ARRAY and resource.res.array.hArray == int(array)
    texture = ok(cuda.cuTexObjectGetTextureDesc(tex))
    assert list(texture.addressMode) == [MIRROR, CLAMP, BORDER] and texture.filterMode == LINEAR
    assert list(texture.borderColor) == list(BORDER_COLOUR)
    fails(cuda.cuTexObjectGetResourceViewDesc(tex), R.CUDA_ERROR_INVALID_VALUE, "no resource view")
    ok(cuda.cuTexObjectDestroy(tex))
    fails(cuda.cuTexObjectDestroy(tex), R.CUDA_ERROR_INVALID_HANDLE, "not a texture object")
    surface_array = _array(texels[0], F.CU_AD_FORMAT_FLOAT, 1, 2, cuda.CUDA_ARRAY3D_SURFACE_LDST)
    surface = ok(cuda.cuSurfObjectCreate(_of_array(surface_array)))
    assert ok(cuda.cuSurfObjectGetResourceDesc(surface)).res.array.hArray == int(surface_array)
    fails(cuda.cuTexObjectDestroy(surface), R.CUDA_ERROR_INVALID_HANDLE)  # a surface is not a texture
    ok(cuda.cuSurfObjectDestroy(surface))


def test_array_copies_and_refusals(context: cuda.CUcontext) -> None:
    data = np.arange(4 * 6, dtype=np.uint16).reshape(4, 6)
    array = ok(cuda.cuArrayCreate(cuda.CUDA_ARRAY_DESCRIPTOR(Width=6, Height=4, Format=F.CU_AD_FORMAT_UNSIGNED_INT16,
                                                             NumChannels=1)))
    M = cuda.CUmemorytype
    up = cuda.CUDA_MEMCPY2D(srcMemoryType=M.CU_MEMORYTYPE_HOST, srcHost=data.ctypes.data, srcPitch=12,
                            dstMemoryType=M.CU_MEMORYTYPE_ARRAY, dstArray=int(array), dstXInBytes=2, dstY=1,
                            WidthInBytes=8, Height=3)
    zeros = np.zeros_like(data)
    ok(cuda.cuMemcpyHtoA(array, 0, zeros, zeros.nbytes))
    ok(cuda.cuMemcpy2D(up))
    expected = zeros.copy()
    expected[1:4, 1:5] = data[0:3, 0:4]
    device = int(ok(cuda.cuMemAlloc(data.nbytes)))
    ok(cuda.cuMemcpyAtoD(device, array, 0, data.nbytes))
    back = np.zeros_like(data)
    ok(cuda.cuMemcpyDtoH(back, device, back.nbytes))
    assert (back == expected).all()
    # offsets are bytes of the row-major array (12-byte rows): device rows 0-1 to rows 2-3 (DtoA), then
    # those to rows 0-1 (AtoA), async forms around them
    other = ok(cuda.cuArrayCreate(cuda.CUDA_ARRAY_DESCRIPTOR(Width=6, Height=4, Format=F.CU_AD_FORMAT_UNSIGNED_INT16,
                                                             NumChannels=1)))
    stream = ok(cuda.cuStreamCreate(0))
    ok(cuda.cuMemcpyHtoAAsync(other, 0, zeros, zeros.nbytes, stream))
    ok(cuda.cuMemcpyDtoA(other, 24, device, 24))
    ok(cuda.cuMemcpyAtoA(other, 0, other, 24, 24))
    ok(cuda.cuMemcpyAtoHAsync(back, other, 0, back.nbytes, stream))
    assert (back == np.concatenate([expected[:2], expected[:2]])).all()
    up.dstY = 2  # three rows from row 2 pass the array's fourth row
    fails(cuda.cuMemcpy2D(up), R.CUDA_ERROR_INVALID_VALUE, "does not fit dstArray")
    fails(cuda.cuMemcpyHtoA(array, 40, zeros, 16), R.CUDA_ERROR_INVALID_VALUE, "past the end")
    fails(cuda.cuArrayGetDescriptor(cuda.CUarray(12345)), R.CUDA_ERROR_INVALID_HANDLE)
    fails(cuda.cuSurfObjectCreate(_of_array(array)), R.CUDA_ERROR_INVALID_VALUE, "SURFACE_LDST")
    cube = cuda.CUDA_ARRAY3D_DESCRIPTOR(Width=4, Height=4, Depth=6, Format=F.CU_AD_FORMAT_FLOAT, NumChannels=1,
                                        Flags=0x04)
    fails(cuda.cuArray3DCreate(cube), R.CUDA_ERROR_NOT_SUPPORTED, "cube map")
    fails(cuda.cuMipmappedArrayCreate(cube, 2), R.CUDA_ERROR_NOT_SUPPORTED, "mipmapped")
    attribute = cuda.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_WIDTH
    widest = ok(cuda.cuDeviceGetAttribute(attribute, ok(cuda.cuCtxGetDevice())))
    assert widest == 131072  # the stand-in (CUDA's compute capability 8.0 limit), enforced:
    wide = cuda.CUDA_ARRAY_DESCRIPTOR(Width=widest + 1, Height=1, Format=F.CU_AD_FORMAT_FLOAT, NumChannels=1)
    fails(cuda.cuArrayCreate(wide), R.CUDA_ERROR_INVALID_VALUE, "at most 131072 x 65536")
    bad = cuda.CUDA_ARRAY_DESCRIPTOR(Width=4, Height=4, Format=F.CU_AD_FORMAT_FLOAT, NumChannels=3)
    fails(cuda.cuArrayCreate(bad), R.CUDA_ERROR_INVALID_VALUE, "NumChannels")
    ok(cuda.cuArrayDestroy(array))
    fails(cuda.cuArrayDestroy(array), R.CUDA_ERROR_INVALID_HANDLE)


def test_cuda_python_shaped_descriptions(kernels: cuda.CUmodule) -> None:
    # cuda-python passes objects with cuda.h's field names whose members are enums, handle objects
    # and lists (not ctypes): the same texture through such objects samples the same values.
    from types import SimpleNamespace as S

    texels = np.random.default_rng(6).uniform(-1, 1, (3, 5, 4)).astype(np.float32)
    array = _array(texels, F.CU_AD_FORMAT_FLOAT, 4, 2)
    resource = S(resType=cuda.CUresourcetype.CU_RESOURCE_TYPE_ARRAY, res=S(array=S(hArray=array)), flags=0)
    texture = S(addressMode=[MIRROR, BORDER, CLAMP], filterMode=LINEAR, flags=cuda.CU_TRSF_NORMALIZED_COORDINATES,
                borderColor=list(BORDER_COLOUR), maxAnisotropy=0, mipmapFilterMode=POINT, mipmapLevelBias=0.0,
                minMipmapLevelClamp=0.0, maxMipmapLevelClamp=0.0)
    tex = ok(cuda.cuTexObjectCreate(resource, texture, None))
    coords = np.array([(u, v) for u in COORDS[::2] for v in COORDS[1::3]], dtype=np.float32)
    got = _sample(kernels, b"sample_2d", tex, coords)
    expected = [reference(texels, c, [MIRROR, BORDER], True, True) for c in coords]
    np.testing.assert_allclose(got, np.array(expected), rtol=1e-5, atol=1e-5)
    assert list(ok(cuda.cuTexObjectGetTextureDesc(tex)).addressMode) == [MIRROR, BORDER, CLAMP]


# -- texture and surface references ---------------------------------------------------------------
def test_texture_and_surface_references(context: cuda.CUcontext) -> None:
    module = ok(cuda.cuModuleLoad(str(DATA / "texrefs.ptx")))
    tex = ok(cuda.cuModuleGetTexRef(module, b"tex"))
    assert ok(cuda.cuModuleGetTexRef(module, b"tex")) == tex
    texels = np.random.default_rng(7).uniform(0, 5, (3, 4, 4)).astype(np.float32)
    ok(cuda.cuTexRefSetArray(tex, _array(texels, F.CU_AD_FORMAT_FLOAT, 4, 2), cuda.CU_TRSA_OVERRIDE_FORMAT))
    ok(cuda.cuTexRefSetAddressMode(tex, 0, WRAP))
    ok(cuda.cuTexRefSetAddressMode(tex, 1, BORDER))
    ok(cuda.cuTexRefSetFilterMode(tex, LINEAR))
    ok(cuda.cuTexRefSetFlags(tex, cuda.CU_TRSF_NORMALIZED_COORDINATES))
    ok(cuda.cuTexRefSetBorderColor(tex, list(BORDER_COLOUR)))
    assert ok(cuda.cuTexRefGetAddressMode(tex, 1)) == BORDER and ok(cuda.cuTexRefGetFilterMode(tex)) == LINEAR
    assert ok(cuda.cuTexRefGetFlags(tex)) == cuda.CU_TRSF_NORMALIZED_COORDINATES
    assert ok(cuda.cuTexRefGetFormat(tex)) == (F.CU_AD_FORMAT_FLOAT, 4)
    coords = np.array([(u, v) for u in COORDS[::2] for v in COORDS[::4]], dtype=np.float32)
    got = np.zeros((len(coords), 4), dtype=np.float32)
    function = ok(cuda.cuModuleGetFunction(module, b"sample_ref"))
    output = ok(cuda.cuMemAlloc(got.nbytes))
    args = ((_device(coords), output, len(coords)), (None, None, ctypes.c_uint))
    ok(cuda.cuLaunchKernel(function, 1, 1, 1, 64, 1, 1, 0, 0, args, 0))
    ok(cuda.cuMemcpyDtoH(got, output, got.nbytes))
    expected = [reference(texels, c, [WRAP, BORDER], True, True) for c in coords]
    np.testing.assert_allclose(got, np.array(expected), rtol=1e-5, atol=1e-5)
    query = _run(module, b"query_ref", [OUT], 1, np.zeros(2, dtype=np.int32))
    assert list(query) == [4, 3]

    # rebound to linear memory read as integers: 0 outside, as tex1Dfetch
    values = np.arange(24, dtype=np.int32).reshape(6, 4) - 5
    ok(cuda.cuTexRefSetFormat(tex, F.CU_AD_FORMAT_SIGNED_INT32, 4))
    ok(cuda.cuTexRefSetFlags(tex, cuda.CU_TRSF_READ_AS_INTEGER))
    assert ok(cuda.cuTexRefSetAddress(tex, _device(values), values.nbytes)) == 0
    fetched = _run(module, b"fetch_ref", [OUT], 64, np.zeros((64, 4), dtype=np.int32))  # thread i reads i - 2
    expected_rows = [values[i - 2] if 0 <= i - 2 < 6 else [0, 0, 0, 0] for i in range(64)]
    assert (fetched == np.array(expected_rows)).all()
    fails(cuda.cuTexRefGetArray(tex), R.CUDA_ERROR_INVALID_VALUE, "no CUDA array")

    # rebound to pitched 2D memory (rows of 32 bytes, 3 float texels used), point sampling
    pitched = np.zeros((4, 8), dtype=np.float32)
    pitched[:, :3] = np.arange(12, dtype=np.float32).reshape(4, 3) * 1.5
    ok(cuda.cuTexRefSetFlags(tex, 0))
    ok(cuda.cuTexRefSetFilterMode(tex, POINT))
    ok(cuda.cuTexRefSetAddressMode(tex, 1, CLAMP))
    layout = cuda.CUDA_ARRAY_DESCRIPTOR(Width=3, Height=4, Format=F.CU_AD_FORMAT_FLOAT, NumChannels=1)
    ok(cuda.cuTexRefSetAddress2D(tex, layout, _device(pitched), 32))
    coords = np.array([(x + 0.5, y + 0.5) for y in range(-1, 5) for x in range(-1, 4)], dtype=np.float32)
    got = _run(module, b"sample_ref", [_device(coords), OUT, len(coords)], len(coords),
               np.zeros((len(coords), 4), dtype=np.float32))
    clamped = [pitched[min(max(int(v), 0), 3), min(max(int(u), 0), 2)] for u, v in coords]
    assert (got[:, 0] == clamped).all() and (got[:, 1:] == [0, 0, 1]).all()

    surf = ok(cuda.cuModuleGetSurfRef(module, b"surf"))
    target = ok(cuda.cuArrayCreate(cuda.CUDA_ARRAY_DESCRIPTOR(Width=5, Height=3, Format=F.CU_AD_FORMAT_SIGNED_INT32,
                                                              NumChannels=1)))
    fails(cuda.cuSurfRefSetArray(surf, target, 0), R.CUDA_ERROR_INVALID_VALUE, "SURFACE_LDST")
    target = ok(cuda.cuArray3DCreate(cuda.CUDA_ARRAY3D_DESCRIPTOR(
        Width=5, Height=3, Format=F.CU_AD_FORMAT_SIGNED_INT32, NumChannels=1, Flags=cuda.CUDA_ARRAY3D_SURFACE_LDST)))
    ok(cuda.cuSurfRefSetArray(surf, target, 0))
    function = ok(cuda.cuModuleGetFunction(module, b"write_ref"))
    ok(cuda.cuLaunchKernel(function, 1, 1, 1, 5, 3, 1, 0, 0, ((5,), (ctypes.c_uint,)), 0))
    written = np.zeros((3, 5), dtype=np.int32)
    ok(cuda.cuMemcpyAtoH(written, target, 0, written.nbytes))
    assert (written == np.arange(15).reshape(3, 5)).all()
    fails(cuda.cuModuleGetTexRef(module, b"nothing"), R.CUDA_ERROR_NOT_FOUND)
    fails(cuda.cuTexRefSetArray(surf, target, 1), R.CUDA_ERROR_INVALID_HANDLE)  # a surface reference


def test_layered_and_3d_surfaces(kernels: cuda.CUmodule) -> None:
    w, h, d = 4, 3, 2
    flags, layered = cuda.CUDA_ARRAY3D_SURFACE_LDST, cuda.CUDA_ARRAY3D_LAYERED
    shapes = [(w, h, d, flags | layered), (w, h, d, flags), (w, 0, d, flags | layered)]  # 2D layers, 3D, 1D layers
    descriptors = [cuda.CUDA_ARRAY3D_DESCRIPTOR(Width=x, Height=y, Depth=z, Format=F.CU_AD_FORMAT_FLOAT, NumChannels=1,
                                                Flags=f) for x, y, z, f in shapes]
    arrays = [ok(cuda.cuArray3DCreate(desc)) for desc in descriptors]
    surfaces = [ok(cuda.cuSurfObjectCreate(_of_array(a))) for a in arrays]
    function = ok(cuda.cuModuleGetFunction(kernels, b"surface_layers"))
    args = ((*surfaces, w, h, d), (None, None, None, ctypes.c_int, ctypes.c_int, ctypes.c_int))
    ok(cuda.cuLaunchKernel(function, 1, 1, 1, w, h, d, 0, 0, args, 0))
    z, y, x = np.meshgrid(np.arange(d), np.arange(h), np.arange(w), indexing="ij")
    values = (100 * z + 10 * y + x).astype(np.float32)
    read = [np.zeros((d, h, w), dtype=np.float32), np.zeros((d, h, w), dtype=np.float32),
            np.zeros((d, w), dtype=np.float32)]
    for out, a in zip(read, arrays, strict=True):
        ok(cuda.cuMemcpyAtoH(out, a, 0, out.nbytes))
    assert (read[0] == values).all() and (read[1] == 2 * values).all() and (read[2] == -values[:, 0, :]).all()
