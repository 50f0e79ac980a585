// 128x128x128 f16 GEMM with f32 accumulation through the CUDA wmma API (benchmarks/mma.py).
// C[m][n] = sum_k A[m][k] * B[k][n]; A, B, C row-major, n x n. One warp computes one 16x16 tile of C;
// a block of 128 threads (4 warps, i.e. 2 wave64s on gfx942) covers 4 tiles of one tile row.
// Regenerate the PTX: nvcc -arch=sm_80 --ptx -o gemm_wmma.ptx gemm_wmma.cu
#include <mma.h>
using namespace nvcuda;

extern "C" __global__ void gemm_wmma(const __half* a, const __half* b, float* c, int n) {
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int tiles = n / 16;
    int tm = warp / tiles, tn = warp % tiles;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    for (int k = 0; k < n; k += 16) {
        wmma::load_matrix_sync(fa, a + tm * 16 * n + k, n);
        wmma::load_matrix_sync(fb, b + k * n + tn * 16, n);
        wmma::mma_sync(acc, fa, fb, acc);
    }
    wmma::store_matrix_sync(c + tm * 16 * n + tn * 16, acc, n, wmma::mem_row_major);
}
