// SPDX-License-Identifier: Apache-2.0
// corpus: small numerical applications as people write them: all-pairs n-body with float4 shared tiles and
//         rsqrtf, Black-Scholes (expf/logf/sqrtf, normal CDF), Mandelbrot (divergent trip counts), CSR sparse
//         matrix-vector product (indirect loads), 2D convolution with a __constant__ filter, a radix-2 FFT
//         stage on float2 with sincospif, and k-means assignment.

#define SOFTENING 1e-9f

extern "C" __global__ void nbody_step(float4 *pos, float4 *vel, int n, float dt) {
    extern __shared__ float4 tile[];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float4 p = i < n ? pos[i] : make_float4(0, 0, 0, 0);
    float3 acc = make_float3(0, 0, 0);
    for (int base = 0; base < n; base += blockDim.x) {
        int j = base + threadIdx.x;
        tile[threadIdx.x] = j < n ? pos[j] : make_float4(0, 0, 0, 0);
        __syncthreads();
#pragma unroll 4
        for (int k = 0; k < blockDim.x; ++k) {
            float4 q = tile[k];
            float dx = q.x - p.x, dy = q.y - p.y, dz = q.z - p.z;
            float inv = rsqrtf(dx * dx + dy * dy + dz * dz + SOFTENING);
            float s = q.w * inv * inv * inv;
            acc.x += dx * s;
            acc.y += dy * s;
            acc.z += dz * s;
        }
        __syncthreads();
    }
    if (i < n) {
        float4 v = vel[i];
        v.x += acc.x * dt;
        v.y += acc.y * dt;
        v.z += acc.z * dt;
        vel[i] = v;
        pos[i] = make_float4(p.x + v.x * dt, p.y + v.y * dt, p.z + v.z * dt, p.w);
    }
}

__device__ __forceinline__ float cnd(float d) {
    const float a1 = 0.31938153f, a2 = -0.356563782f, a3 = 1.781477937f, a4 = -1.821255978f, a5 = 1.330274429f;
    float k = 1.0f / (1.0f + 0.2316419f * fabsf(d));
    float c = 0.39894228040143267794f * __expf(-0.5f * d * d) * (k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5)))));
    return d > 0 ? 1.0f - c : c;
}

extern "C" __global__ void black_scholes(float *call, float *put, const float *price, const float *strike,
                                         const float *years, float r, float v, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        float s = price[i], x = strike[i], t = years[i];
        float sq = sqrtf(t);
        float d1 = (logf(s / x) + (r + 0.5f * v * v) * t) / (v * sq);
        float d2 = d1 - v * sq;
        float e = expf(-r * t);
        call[i] = s * cnd(d1) - x * e * cnd(d2);
        put[i] = x * e * (1.0f - cnd(d2)) - s * (1.0f - cnd(d1));
    }
}

extern "C" __global__ void mandelbrot(unsigned char *image, int w, int h, float x0, float y0, float scale,
                                      int max_iter) {
    int px = blockIdx.x * blockDim.x + threadIdx.x, py = blockIdx.y * blockDim.y + threadIdx.y;
    if (px >= w || py >= h) return;
    float cr = x0 + px * scale, ci = y0 + py * scale, zr = 0, zi = 0;
    int it = 0;
    while (zr * zr + zi * zi < 4.0f && it < max_iter) {
        float t = zr * zr - zi * zi + cr;
        zi = 2.0f * zr * zi + ci;
        zr = t;
        ++it;
    }
    image[py * w + px] = (unsigned char)(it * 255 / max_iter);
}

extern "C" __global__ void spmv_csr(const int *row_ptr, const int *cols, const double *vals, const double *x,
                                    double *y, int rows) {
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x & 31;
    if (warp >= rows) return;
    double sum = 0.0;
    for (int k = row_ptr[warp] + lane; k < row_ptr[warp + 1]; k += 32) sum += vals[k] * __ldg(&x[cols[k]]);
    for (int off = 16; off; off >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, off);
    if (lane == 0) y[warp] = sum;
}

#define FILTER_RADIUS 2
__constant__ float c_filter[(2 * FILTER_RADIUS + 1) * (2 * FILTER_RADIUS + 1)];

extern "C" __global__ void conv2d(const float *in, float *out, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float acc = 0.0f;
    for (int dy = -FILTER_RADIUS; dy <= FILTER_RADIUS; ++dy)
        for (int dx = -FILTER_RADIUS; dx <= FILTER_RADIUS; ++dx) {
            int sx = min(max(x + dx, 0), w - 1), sy = min(max(y + dy, 0), h - 1);
            acc += c_filter[(dy + FILTER_RADIUS) * (2 * FILTER_RADIUS + 1) + dx + FILTER_RADIUS] * in[sy * w + sx];
        }
    out[y * w + x] = acc;
}

extern "C" __global__ void fft_radix2_stage(float2 *data, int n, int half_span) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n / 2) return;
    int group = t / half_span, k = t % half_span;
    int i = group * 2 * half_span + k, j = i + half_span;
    float s, c;
    sincospif(-(float)k / half_span, &s, &c);
    float2 a = data[i], b = data[j];
    float2 tw = make_float2(b.x * c - b.y * s, b.x * s + b.y * c);
    data[i] = make_float2(a.x + tw.x, a.y + tw.y);
    data[j] = make_float2(a.x - tw.x, a.y - tw.y);
}

extern "C" __global__ void kmeans_assign(const float *points, const float *centroids, int *labels, int n, int k,
                                         int dims) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int best = 0;
    float best_d = INFINITY;
    for (int c = 0; c < k; ++c) {
        float d = 0.0f;
        for (int j = 0; j < dims; ++j) {
            float diff = points[i * dims + j] - centroids[c * dims + j];
            d = fmaf(diff, diff, d);
        }
        if (d < best_d) {
            best_d = d;
            best = c;
        }
    }
    labels[i] = best;
}
