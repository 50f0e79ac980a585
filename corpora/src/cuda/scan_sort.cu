// SPDX-License-Identifier: Apache-2.0
// corpus: block scans (Hillis-Steele, Blelloch work-efficient) with shared memory; bitonic sort in shared memory;
//         radix-sort digit histogram with ballot-based ranking; stream compaction.

extern "C" __global__ void scan_hillis_steele(const int *in, int *out, int n) {
    extern __shared__ int temp[];  // 2 * blockDim.x ints (double buffer)
    int t = threadIdx.x, pout = 0, pin = 1;
    temp[t] = (t > 0 && t < n) ? in[t - 1] : 0;  // exclusive scan
    __syncthreads();
    for (int off = 1; off < n; off *= 2) {
        pout = 1 - pout;
        pin = 1 - pout;
        temp[pout * n + t] = temp[pin * n + t] + (t >= off ? temp[pin * n + t - off] : 0);
        __syncthreads();
    }
    if (t < n) out[t] = temp[pout * n + t];
}

extern "C" __global__ void scan_blelloch(float *data, int n) {
    extern __shared__ float tmp[];
    int t = threadIdx.x, off = 1;
    tmp[2 * t] = data[2 * t];
    tmp[2 * t + 1] = data[2 * t + 1];
    for (int d = n >> 1; d > 0; d >>= 1) {
        __syncthreads();
        if (t < d) {
            int ai = off * (2 * t + 1) - 1, bi = off * (2 * t + 2) - 1;
            tmp[bi] += tmp[ai];
        }
        off *= 2;
    }
    if (t == 0) tmp[n - 1] = 0;
    for (int d = 1; d < n; d *= 2) {
        off >>= 1;
        __syncthreads();
        if (t < d) {
            int ai = off * (2 * t + 1) - 1, bi = off * (2 * t + 2) - 1;
            float x = tmp[ai];
            tmp[ai] = tmp[bi];
            tmp[bi] += x;
        }
    }
    __syncthreads();
    data[2 * t] = tmp[2 * t];
    data[2 * t + 1] = tmp[2 * t + 1];
}

extern "C" __global__ void bitonic_sort_shared(unsigned *keys) {
    __shared__ unsigned s[1024];
    unsigned t = threadIdx.x;
    s[t] = keys[blockIdx.x * 1024 + t];
    __syncthreads();
    for (unsigned k = 2; k <= 1024; k <<= 1) {
        for (unsigned j = k >> 1; j > 0; j >>= 1) {
            unsigned ixj = t ^ j;
            if (ixj > t) {
                bool up = (t & k) == 0;
                unsigned a = s[t], b = s[ixj];
                if ((a > b) == up) {
                    s[t] = b;
                    s[ixj] = a;
                }
            }
            __syncthreads();
        }
    }
    keys[blockIdx.x * 1024 + t] = s[t];
}

extern "C" __global__ void radix_rank(const unsigned *keys, unsigned *ranks, unsigned *hist, int shift) {
    __shared__ unsigned counts[16];
    if (threadIdx.x < 16) counts[threadIdx.x] = 0;
    __syncthreads();
    unsigned key = keys[blockIdx.x * blockDim.x + threadIdx.x];
    unsigned digit = (key >> shift) & 15;
    unsigned lane_lt;
    asm("mov.u32 %0, %%lanemask_lt;" : "=r"(lane_lt));
    unsigned peers = 0xffffffffu;
    for (int b = 0; b < 4; ++b) {
        unsigned bal = __ballot_sync(0xffffffffu, (digit >> b) & 1);
        peers &= ((digit >> b) & 1) ? bal : ~bal;
    }
    unsigned rank = __popc(peers & lane_lt);
    unsigned leader = __ffs(peers) - 1;
    unsigned base = 0;
    if ((threadIdx.x & 31) == leader) base = atomicAdd(&counts[digit], __popc(peers));
    base = __shfl_sync(0xffffffffu, base, leader);
    ranks[blockIdx.x * blockDim.x + threadIdx.x] = base + rank;
    __syncthreads();
    if (threadIdx.x < 16) hist[blockIdx.x * 16 + threadIdx.x] = counts[threadIdx.x];
}

extern "C" __global__ void compact_positive(const float *in, float *out, unsigned *count, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    bool keep = i < n && in[i] > 0.0f;
    unsigned mask = __ballot_sync(0xffffffffu, keep);
    unsigned lane = threadIdx.x & 31;
    unsigned base = 0;
    if (lane == 0 && mask) base = atomicAdd(count, __popc(mask));
    base = __shfl_sync(0xffffffffu, base, 0);
    if (keep) out[base + __popc(mask & ((1u << lane) - 1))] = in[i];
}
