// SPDX-License-Identifier: Apache-2.0
// corpus: element-wise kernels: vector add (int/float/double), saxpy, grid-stride loops, __restrict__/__ldg.
// corpus-variants: lineinfo=-lineinfo

#include <cstdint>

extern "C" __global__ void vector_add_f32(const float *a, const float *b, float *c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

extern "C" __global__ void vector_add_i32(const int *a, const int *b, int *c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

extern "C" __global__ void vector_add_f64(const double *a, const double *b, double *c, long long n) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

extern "C" __global__ void saxpy(int n, float a, const float *__restrict__ x, float *__restrict__ y) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        y[i] = a * x[i] + y[i];
}

extern "C" __global__ void daxpy(int n, double a, const double *__restrict__ x, double *__restrict__ y) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        y[i] = fma(a, x[i], y[i]);
}

extern "C" __global__ void saxpy_ldg(int n, float a, const float *x, float *y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * __ldg(&x[i]) + y[i];
}

// float4 vector loads and stores (ld.global.v4.f32).
extern "C" __global__ void vector_add_f32x4(const float4 *a, const float4 *b, float4 *c, int n4) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4) {
        float4 x = a[i], y = b[i];
        c[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
    }
}

// Mixed-width integer arithmetic, 2D/3D indexing and unsigned 64-bit sizes.
extern "C" __global__ void add_3d(const uint8_t *a, const uint16_t *b, uint32_t *c, size_t pitch, unsigned nx,
                                  unsigned ny, unsigned nz) {
    unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
    unsigned z = blockIdx.z * blockDim.z + threadIdx.z;
    if (x < nx && y < ny && z < nz) {
        size_t i = ((size_t)z * ny + y) * pitch + x;
        c[i] = (uint32_t)a[i] * 3u + b[i];
    }
}

// C++ template instantiations get mangled names.
template <typename T> __global__ void scale(T *p, T s, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] *= s;
}
template __global__ void scale<float>(float *, float, int);
template __global__ void scale<double>(double *, double, int);
template __global__ void scale<int>(int *, int, int);
template __global__ void scale<short>(short *, short, int);
template __global__ void scale<unsigned long long>(unsigned long long *, unsigned long long, int);
