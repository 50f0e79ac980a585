// Texture and surface test kernels for tests/driver/test_textures.py (textures.ptx is
// `nvcc -ptx -arch=sm_80 textures.cu`). Each sampling kernel reads the coordinates from memory so
// that one kernel covers every addressing and filtering case the test sets up on the host.
#include <cuda_runtime.h>

extern "C" __global__ void sample_1d(cudaTextureObject_t t, const float *x, float4 *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex1D<float4>(t, x[i]);
}

extern "C" __global__ void sample_2d(cudaTextureObject_t t, const float2 *c, float4 *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex2D<float4>(t, c[i].x, c[i].y);
}

extern "C" __global__ void sample_3d(cudaTextureObject_t t, const float4 *c, float4 *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex3D<float4>(t, c[i].x, c[i].y, c[i].z);
}

extern "C" __global__ void sample_layered(cudaTextureObject_t t, const float4 *c, float4 *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex2DLayered<float4>(t, c[i].x, c[i].y, (int)c[i].z);
}

extern "C" __global__ void gather_2d(cudaTextureObject_t t, const float2 *c, float4 *out, int n, int comp) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    if (comp == 0) out[i] = tex2Dgather<float4>(t, c[i].x, c[i].y, 0);
    else out[i] = tex2Dgather<float4>(t, c[i].x, c[i].y, 1);
}

extern "C" __global__ void fetch_int(cudaTextureObject_t t, const int *x, int4 *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex1Dfetch<int4>(t, x[i]);
}

extern "C" __global__ void sample_2d_int(cudaTextureObject_t t, const float2 *c, int4 *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex2D<int4>(t, c[i].x, c[i].y);
}

extern "C" __global__ void surface_invert(cudaSurfaceObject_t src, cudaSurfaceObject_t dst, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    uchar4 p = surf2Dread<uchar4>(src, x * 4, y);
    surf2Dwrite(make_uchar4(255 - p.x, p.y, p.z, p.w), dst, x * 4, y);
}

extern "C" __global__ void surface_bounds(cudaSurfaceObject_t s, const int *x, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[2 * i] = surf1Dread<float>(s, x[i] * 4, cudaBoundaryModeZero);
    out[2 * i + 1] = surf1Dread<float>(s, x[i] * 4, cudaBoundaryModeClamp);
    surf1Dwrite(-1.0f, s, (x[i] + 100) * 4, cudaBoundaryModeZero);
}

extern "C" __global__ void query(cudaTextureObject_t t, int *out) {
    int w, h, d;
    asm("txq.width.b32 %0, [%1];" : "=r"(w) : "l"(t));
    asm("txq.height.b32 %0, [%1];" : "=r"(h) : "l"(t));
    asm("txq.depth.b32 %0, [%1];" : "=r"(d) : "l"(t));
    out[0] = w;
    out[1] = h;
    out[2] = d;
}

extern "C" __global__ void surface_layers(cudaSurfaceObject_t layered, cudaSurfaceObject_t volume,
                                          cudaSurfaceObject_t lines, int w, int h, int d) {
    int x = threadIdx.x, y = threadIdx.y, z = threadIdx.z;
    if (x >= w || y >= h || z >= d) return;
    float v = (float)(100 * z + 10 * y + x);
    surf2DLayeredwrite(v, layered, x * 4, y, z);
    surf3Dwrite(surf2DLayeredread<float>(layered, x * 4, y, z) * 2.0f, volume, x * 4, y, z);
    if (y == 0) surf1DLayeredwrite(-v, lines, x * 4, z);
}
