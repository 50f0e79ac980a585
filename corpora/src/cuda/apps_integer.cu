// SPDX-License-Identifier: Apache-2.0
// corpus: small integer applications: SHA-256 compression of one block per thread (rotates, a __constant__
//         round table), CRC-32 with a table staged in shared memory, a BFS frontier step with atomics, a
//         256-bin histogram with per-warp sub-histograms, RGBA to grey on uchar4, and a bitset intersection
//         count with 64-bit popcount.

#include <cstdint>

__constant__ uint32_t c_k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
    0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
    0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
    0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
    0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
    0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
    0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
    0xc67178f2};

__device__ __forceinline__ uint32_t rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

extern "C" __global__ void sha256_block(const uint32_t *blocks, uint32_t *digests, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    uint32_t w[64];
    for (int i = 0; i < 16; ++i) w[i] = __byte_perm(blocks[t * 16 + i], 0, 0x0123);  // big-endian words
    for (int i = 16; i < 64; ++i) {
        uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
    for (int i = 0; i < 64; ++i) {
        uint32_t t1 = hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + c_k[i] + w[i];
        uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        hh = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
    }
    uint32_t out[8] = {a, b, c, d, e, f, g, hh};
    for (int i = 0; i < 8; ++i) digests[t * 8 + i] = h[i] + out[i];
}

extern "C" __global__ void crc32(const uint8_t *data, const int *offsets, uint32_t *crcs, int n_messages) {
    __shared__ uint32_t table[256];
    for (int i = threadIdx.x; i < 256; i += blockDim.x) {
        uint32_t c = i;
        for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
        table[i] = c;
    }
    __syncthreads();
    int m = blockIdx.x * blockDim.x + threadIdx.x;
    if (m >= n_messages) return;
    uint32_t crc = 0xffffffffu;
    for (int i = offsets[m]; i < offsets[m + 1]; ++i) crc = table[(crc ^ data[i]) & 0xff] ^ (crc >> 8);
    crcs[m] = ~crc;
}

extern "C" __global__ void bfs_step(const int *row_ptr, const int *adj, int *dist, const int *frontier,
                                    int frontier_size, int *next, int *next_size, int level) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= frontier_size) return;
    int v = frontier[i];
    for (int e = row_ptr[v]; e < row_ptr[v + 1]; ++e) {
        int u = adj[e];
        if (atomicCAS(&dist[u], -1, level + 1) == -1) next[atomicAdd(next_size, 1)] = u;
    }
}

extern "C" __global__ void histogram256_warp_private(const uint8_t *data, unsigned *hist, int n) {
    extern __shared__ unsigned sub[];  // (blockDim.x / 32) x 256 counters
    unsigned *mine = sub + (threadIdx.x / 32) * 256;
    for (int i = threadIdx.x; i < (int)(blockDim.x / 32) * 256; i += blockDim.x) sub[i] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) atomicAdd(&mine[data[i]], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < 256; b += blockDim.x) {
        unsigned total = 0;
        for (int w = 0; w < (int)blockDim.x / 32; ++w) total += sub[w * 256 + b];
        atomicAdd(&hist[b], total);
    }
}

extern "C" __global__ void rgba_to_grey(const uchar4 *rgba, unsigned char *grey, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    uchar4 p = rgba[y * w + x];
    grey[y * w + x] = (unsigned char)__float2uint_rn(0.299f * p.x + 0.587f * p.y + 0.114f * p.z);
}

extern "C" __global__ void bitset_intersections(const unsigned long long *a, const unsigned long long *b,
                                                unsigned *counts, int words, int sets) {
    int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= sets) return;
    unsigned c = 0;
    for (int i = 0; i < words; ++i) c += __popcll(a[s * words + i] & b[i]);
    counts[s] = c;
}
