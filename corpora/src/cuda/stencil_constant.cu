// SPDX-License-Identifier: Apache-2.0
// corpus: stencils: 1D with a __constant__ weight table and shared halo, 2D 5-point Jacobi, 3D 7-point with a
//         register queue along z; const __restrict__ loads (ld.global.nc).

#define RADIUS 4
#define BLOCK 256

__constant__ float c_weights[2 * RADIUS + 1];

extern "C" __global__ void stencil_1d(const float *__restrict__ in, float *__restrict__ out, int n) {
    __shared__ float s[BLOCK + 2 * RADIUS];
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int l = threadIdx.x + RADIUS;
    s[l] = g < n ? in[g] : 0.0f;
    if (threadIdx.x < RADIUS) {
        s[l - RADIUS] = g >= RADIUS ? in[g - RADIUS] : 0.0f;
        s[l + BLOCK] = g + BLOCK < n ? in[g + BLOCK] : 0.0f;
    }
    __syncthreads();
    float r = 0.0f;
#pragma unroll
    for (int k = -RADIUS; k <= RADIUS; ++k) r += c_weights[k + RADIUS] * s[l + k];
    if (g < n) out[g] = r;
}

extern "C" __global__ void jacobi_2d(const float *__restrict__ u, float *__restrict__ v, int nx, int ny) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < 1 || y < 1 || x >= nx - 1 || y >= ny - 1) return;
    int i = y * nx + x;
    v[i] = 0.25f * (u[i - 1] + u[i + 1] + u[i - nx] + u[i + nx]);
}

extern "C" __global__ void stencil_3d(const double *__restrict__ in, double *__restrict__ out, int nx, int ny,
                                      int nz, double c0, double c1) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < 1 || y < 1 || x >= nx - 1 || y >= ny - 1) return;
    size_t plane = (size_t)nx * ny;
    size_t i = plane + (size_t)y * nx + x;
    double below = in[i - plane], cur = in[i];
    for (int z = 1; z < nz - 1; ++z, i += plane) {
        double above = in[i + plane];
        out[i] = c0 * cur + c1 * (below + above + in[i - 1] + in[i + 1] + in[i - nx] + in[i + nx]);
        below = cur;
        cur = above;
    }
}
