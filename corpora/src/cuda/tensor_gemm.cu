// SPDX-License-Identifier: Apache-2.0
// corpus: tensor-core GEMMs with K loops: a multi-warp wmma f16 -> f32 GEMM staged through shared memory,
//         inline-asm mma.sync m16n8k16 (f16 and bf16) fed by ldmatrix.x4 / .x2.trans, a double-buffered
//         cp.async GEMM on cuda::pipeline<thread_scope_block> + cuda::memcpy_async, and cuda::barrier
//         (arrive_and_wait, arrive/wait tokens, memcpy_async completing on the barrier). All sm_80+.
// corpus-min-arch: 80

#include <cooperative_groups.h>
#include <cuda/barrier>
#include <cuda/pipeline>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>

#include <type_traits>
#include <utility>

using namespace nvcuda;
namespace cg = cooperative_groups;

// C (M x N, row-major) = alpha * A (M x K, row-major) * B (K x N, row-major). 128 threads = 4 warps per
// block; the block computes a 32 x 32 tile of C, warp w the 16 x 16 sub-tile (w / 2, w % 2). Each K step
// of 16 stages A's 32 x 16 and B's 16 x 32 slices in padded shared-memory tiles. M, N multiples of 32, K
// of 16.
extern "C" __global__ void __launch_bounds__(128)
    wmma_gemm_f16_f32(const half *A, const half *B, float *C, int M, int N, int K, float alpha) {
    __shared__ __align__(32) half As[32][16 + 8];
    __shared__ __align__(32) half Bs[16][32 + 8];
    int warp = threadIdx.x / 32, wm = warp / 2, wn = warp % 2;
    int bm = blockIdx.y * 32, bn = blockIdx.x * 32;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    for (int k0 = 0; k0 < K; k0 += 16) {
        for (int i = threadIdx.x; i < 32 * 16; i += blockDim.x) {
            As[i / 16][i % 16] = A[(bm + i / 16) * K + k0 + i % 16];
            Bs[i / 32][i % 32] = B[(k0 + i / 32) * N + bn + i % 32];
        }
        __syncthreads();
        wmma::load_matrix_sync(fa, &As[wm * 16][0], 16 + 8);
        wmma::load_matrix_sync(fb, &Bs[0][wn * 16], 32 + 8);
        wmma::mma_sync(acc, fa, fb, acc);
        __syncthreads();
    }
    for (int t = 0; t < acc.num_elements; ++t) acc.x[t] *= alpha;
    wmma::store_matrix_sync(C + (bm + wm * 16) * N + bn + wn * 16, acc, N, wmma::mem_row_major);
}

// C (M x N, f32, row-major) = A (M x K) * B (K x N), both row-major 16-bit (half or bf16). 64 threads = 2
// warps per block; the block computes a 16 x 16 tile of C, warp w its columns 8w .. 8w + 7. Per K step of
// 16: A's 16 x 16 and B's 16 x 16 slices go to shared memory, A's fragment comes from ldmatrix.x4, B's
// (column-major for mma's .col) from ldmatrix.x2.trans of B's rows, then one mma.sync m16n8k16.
template <typename T>
__device__ void mma_gemm(const T *A, const T *B, float *C, int M, int N, int K) {
    __shared__ __align__(16) T As[16 * 16];
    __shared__ __align__(16) T Bs[16 * 16];
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    int bm = blockIdx.y * 16, bn = blockIdx.x * 16;
    float d0 = 0.0f, d1 = 0.0f, d2 = 0.0f, d3 = 0.0f;
    unsigned a_addr = (unsigned)__cvta_generic_to_shared(&As[(lane % 16) * 16 + (lane / 16) * 8]);
    unsigned b_addr = (unsigned)__cvta_generic_to_shared(&Bs[(lane % 16) * 16 + warp * 8]);
    for (int k0 = 0; k0 < K; k0 += 16) {
        for (int i = threadIdx.x; i < 256; i += blockDim.x) {
            As[i] = A[(bm + i / 16) * K + k0 + i % 16];
            Bs[i] = B[(k0 + i / 16) * N + bn + i % 16];
        }
        __syncthreads();
        unsigned a0, a1, a2, a3, b0, b1;
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                     : "=r"(a0), "=r"(a1), "=r"(a2), "=r"(a3)
                     : "r"(a_addr));
        asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];"
                     : "=r"(b0), "=r"(b1)
                     : "r"(b_addr));
        if constexpr (std::is_same_v<T, half>) {
            asm volatile(
                "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
                "{%0, %1, %2, %3};"
                : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
                : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
        } else {
            asm volatile(
                "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
                "{%0, %1, %2, %3};"
                : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
                : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
        }
        __syncthreads();
    }
    int g = lane / 4, t = lane % 4;
    float *c = C + (bm + g) * N + bn + warp * 8 + 2 * t;
    c[0] = d0;
    c[1] = d1;
    c[8 * N] = d2;
    c[8 * N + 1] = d3;
}

extern "C" __global__ void __launch_bounds__(64)
    mma_ldmatrix_gemm_f16(const half *A, const half *B, float *C, int M, int N, int K) {
    mma_gemm(A, B, C, M, N, K);
}

extern "C" __global__ void __launch_bounds__(64)
    mma_ldmatrix_gemm_bf16(const __nv_bfloat16 *A, const __nv_bfloat16 *B, float *C, int M, int N, int K) {
    mma_gemm(A, B, C, M, N, K);
}

// C = A * B (f32, row-major; M, N, K multiples of 16) with a two-stage cuda::pipeline shared by the block:
// 256 threads (16 x 16) per 16 x 16 tile of C; each thread copies one element of A's and one of B's
// 16 x 16 slice per stage with cuda::memcpy_async (cp.async), the next slice is in flight while the
// current one is multiplied.
extern "C" __global__ void pipeline_gemm_f32(const float *A, const float *B, float *C, int M, int N, int K) {
    constexpr int T = 16, STAGES = 2;
    __shared__ __align__(16) float As[STAGES][T][T];
    __shared__ __align__(16) float Bs[STAGES][T][T];
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, STAGES> state;
    auto block = cg::this_thread_block();
    cuda::pipeline<cuda::thread_scope_block> pipe = cuda::make_pipeline(block, &state);
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    int tiles = K / T;
    float acc = 0.0f;
    int fetch = 0;
    for (int tile = 0; tile < tiles; ++tile) {
        for (; fetch < tiles && fetch < tile + STAGES; ++fetch) {
            int s = fetch % STAGES;
            pipe.producer_acquire();
            cuda::memcpy_async(&As[s][ty][tx], &A[row * K + fetch * T + tx], cuda::aligned_size_t<4>(sizeof(float)),
                               pipe);
            cuda::memcpy_async(&Bs[s][ty][tx], &B[(fetch * T + ty) * N + col], cuda::aligned_size_t<4>(sizeof(float)),
                               pipe);
            pipe.producer_commit();
        }
        pipe.consumer_wait();
        __syncthreads();  // every thread's copies of this stage have landed
        int s = tile % STAGES;
        for (int k = 0; k < T; ++k) acc += As[s][ty][k] * Bs[s][k][tx];
        __syncthreads();
        pipe.consumer_release();
    }
    C[row * N + col] = acc;
}

// cuda::barrier<thread_scope_block> (mbarrier): per tile, each of the 256 threads copies one float into
// shared memory with cuda::memcpy_async completing on the barrier (cp.async + cp.async.mbarrier.arrive;
// the block-wide cooperative form becomes a TMA bulk copy on sm_90), waits with arrive_and_wait,
// accumulates tile[(5 * t) % 256] * (tile index + 1), and a second phase (arrive token + wait) keeps the
// next copy from overwriting values still being read.
extern "C" __global__ void barrier_tiles(const float *in, float *out, int n_tiles) {
    __shared__ __align__(16) float tile[256];
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    auto block = cg::this_thread_block();
    if (block.thread_rank() == 0) init(&bar, block.size());
    block.sync();
    unsigned t = block.thread_rank();
    float acc = 0.0f;
    for (int i = 0; i < n_tiles; ++i) {
        cuda::memcpy_async(&tile[t], &in[i * 256 + t], cuda::aligned_size_t<4>(sizeof(float)), bar);
        bar.arrive_and_wait();
        acc += tile[(5 * t) % 256] * (float)(i + 1);
        auto token = bar.arrive();
        bar.wait(std::move(token));
    }
    out[blockIdx.x * blockDim.x + t] = acc;
}
