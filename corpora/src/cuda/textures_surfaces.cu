// SPDX-License-Identifier: Apache-2.0
// corpus: texture and surface objects (bindless): tex1Dfetch, tex2D with float/normalised coords, tex3D,
//         tex2DLayered, tex2DLod, tex2Dgather, surf2Dread/surf2Dwrite, surf1Dwrite, and texture queries.

#include <cuda_runtime.h>

extern "C" __global__ void tex_fetch(cudaTextureObject_t t1, cudaTextureObject_t t2, cudaTextureObject_t t3,
                                     float *out, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float u = (x + 0.5f) / w, v = (y + 0.5f) / h;
    float a = tex1Dfetch<float>(t1, y * w + x);
    float b = tex2D<float>(t2, u, v);
    float4 c = tex3D<float4>(t3, u, v, 0.5f);
    out[y * w + x] = a + b + c.x + c.w;
}

extern "C" __global__ void tex_variants(cudaTextureObject_t t, cudaTextureObject_t layered, int4 *iout,
                                        float4 *fout) {
    int i = threadIdx.x;
    float u = i * 0.25f;
    fout[i * 3 + 0] = tex2DLod<float4>(t, u, 0.5f, 1.0f);
    fout[i * 3 + 1] = tex2DLayered<float4>(layered, u, 0.5f, i & 3);
    fout[i * 3 + 2] = tex2Dgather<float4>(t, u, 0.5f, 1);
    iout[i] = tex1Dfetch<int4>(t, i);
}

extern "C" __global__ void surf_copy(cudaSurfaceObject_t src, cudaSurfaceObject_t dst, cudaSurfaceObject_t line,
                                     int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    uchar4 p = surf2Dread<uchar4>(src, x * sizeof(uchar4), y);
    p.x = 255 - p.x;
    surf2Dwrite(p, dst, x * sizeof(uchar4), y);
    float f = surf2Dread<float>(src, x * 4, y, cudaBoundaryModeClamp);
    if (y == 0) surf1Dwrite(f, line, x * (int)sizeof(float), cudaBoundaryModeZero);
}

extern "C" __global__ void tex_query(cudaTextureObject_t t, int *out) {
    int w, h;
    asm("txq.width.b32 %0, [%1];" : "=r"(w) : "l"(t));
    asm("txq.height.b32 %0, [%1];" : "=r"(h) : "l"(t));
    out[0] = w;
    out[1] = h;
}
