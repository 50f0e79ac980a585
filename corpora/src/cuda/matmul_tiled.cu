// SPDX-License-Identifier: Apache-2.0
// corpus: shared-memory tiled matrix multiply (float, double, templated tile size), naive baseline.
// corpus-variants: lineinfo=-lineinfo

template <int TILE>
__global__ void __launch_bounds__(TILE *TILE) matmul_tiled(const float *A, const float *B, float *C, int M, int N,
                                                            int K) {
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE + 1];  // padded against bank conflicts
    int row = blockIdx.y * TILE + threadIdx.y;
    int col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;
    for (int t = 0; t < (K + TILE - 1) / TILE; ++t) {
        int ka = t * TILE + threadIdx.x;
        int kb = t * TILE + threadIdx.y;
        As[threadIdx.y][threadIdx.x] = (row < M && ka < K) ? A[row * K + ka] : 0.0f;
        Bs[threadIdx.y][threadIdx.x] = (kb < K && col < N) ? B[kb * N + col] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }
    if (row < M && col < N) C[row * N + col] = acc;
}
template __global__ void matmul_tiled<16>(const float *, const float *, float *, int, int, int);
template __global__ void matmul_tiled<32>(const float *, const float *, float *, int, int, int);

extern "C" __global__ void matmul_naive(const float *A, const float *B, float *C, int M, int N, int K) {
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= M || col >= N) return;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc;
}

// Double precision with a 2x2 register micro-tile per thread.
extern "C" __global__ void dgemm_2x2(const double *A, const double *B, double *C, int n, double alpha, double beta) {
    __shared__ double As[32][16];
    __shared__ double Bs[16][32];
    int tx = threadIdx.x, ty = threadIdx.y;  // 16 x 16 threads, 32 x 32 outputs per block
    int row = blockIdx.y * 32 + ty * 2, col = blockIdx.x * 32 + tx * 2;
    double c00 = 0, c01 = 0, c10 = 0, c11 = 0;
    for (int t = 0; t < n; t += 16) {
        As[ty * 2][tx] = A[(row)*n + t + tx];
        As[ty * 2 + 1][tx] = A[(row + 1) * n + t + tx];
        Bs[ty][tx * 2] = B[(t + ty) * n + col];
        Bs[ty][tx * 2 + 1] = B[(t + ty) * n + col + 1];
        __syncthreads();
        for (int k = 0; k < 16; ++k) {
            double a0 = As[ty * 2][k], a1 = As[ty * 2 + 1][k];
            double b0 = Bs[k][tx * 2], b1 = Bs[k][tx * 2 + 1];
            c00 = fma(a0, b0, c00);
            c01 = fma(a0, b1, c01);
            c10 = fma(a1, b0, c10);
            c11 = fma(a1, b1, c11);
        }
        __syncthreads();
    }
    C[row * n + col] = alpha * c00 + beta * C[row * n + col];
    C[row * n + col + 1] = alpha * c01 + beta * C[row * n + col + 1];
    C[(row + 1) * n + col] = alpha * c10 + beta * C[(row + 1) * n + col];
    C[(row + 1) * n + col + 1] = alpha * c11 + beta * C[(row + 1) * n + col + 1];
}
