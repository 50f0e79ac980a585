// SPDX-License-Identifier: Apache-2.0
// corpus: matrix transpose: naive, shared-memory tiled with padding, 2D blocks with a row loop.

#define TILE_DIM 32
#define BLOCK_ROWS 8

extern "C" __global__ void transpose_naive(float *odata, const float *idata, int width, int height) {
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < width && y + j < height) odata[x * height + (y + j)] = idata[(y + j) * width + x];
}

extern "C" __global__ void transpose_shared(float *odata, const float *idata, int width, int height) {
    __shared__ float tile[TILE_DIM][TILE_DIM + 1];
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < width && y + j < height) tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * width + x];
    __syncthreads();
    x = blockIdx.y * TILE_DIM + threadIdx.x;
    y = blockIdx.x * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < height && y + j < width) odata[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}

// In-place transpose of square matrices of 16-bit elements (unsigned short loads/stores).
extern "C" __global__ void transpose_inplace_u16(unsigned short *m, int n) {
    __shared__ unsigned short t1[TILE_DIM][TILE_DIM + 1], t2[TILE_DIM][TILE_DIM + 1];
    int bx = blockIdx.x, by = blockIdx.y;
    if (bx > by) return;
    int tx = threadIdx.x;
    for (int ty = threadIdx.y; ty < TILE_DIM; ty += BLOCK_ROWS) {
        t1[ty][tx] = m[(by * TILE_DIM + ty) * n + bx * TILE_DIM + tx];
        t2[ty][tx] = m[(bx * TILE_DIM + ty) * n + by * TILE_DIM + tx];
    }
    __syncthreads();
    for (int ty = threadIdx.y; ty < TILE_DIM; ty += BLOCK_ROWS) {
        m[(bx * TILE_DIM + ty) * n + by * TILE_DIM + tx] = t1[tx][ty];
        m[(by * TILE_DIM + ty) * n + bx * TILE_DIM + tx] = t2[tx][ty];
    }
}
