// SPDX-License-Identifier: Apache-2.0
// corpus: calls: __noinline__ device functions (.func with .param), recursion, function pointers (indirect
//         calls with a prototype), local arrays with dynamic indexing (.local), structs passed and returned by
//         value, kernel parameters that are structs and arrays, __device__ globals and __constant__ tables.
// corpus-variants: debug=-G

#include <cstdint>

struct Vec3 {
    float x, y, z;
};

struct Particle {
    Vec3 pos;
    Vec3 vel;
    float mass;
    int id;
};

struct Params {
    float dt;
    float damping;
    int steps;
    double g[3];
    char tag[6];
};

__constant__ float c_table[64];
__constant__ Params c_params = {0.01f, 0.99f, 4, {0.0, -9.81, 0.0}, "grav"};
__device__ int g_counter = 42;
__device__ float g_buffer[128];

__device__ __noinline__ Vec3 add(Vec3 a, Vec3 b) { return Vec3{a.x + b.x, a.y + b.y, a.z + b.z}; }
__device__ __noinline__ Vec3 scale(Vec3 a, float s) { return Vec3{a.x * s, a.y * s, a.z * s}; }
__device__ __noinline__ float dot(const Vec3 &a, const Vec3 &b) { return a.x * b.x + a.y * b.y + a.z * b.z; }

__device__ __noinline__ Particle step(Particle p, Params prm) {
    Vec3 g{(float)prm.g[0], (float)prm.g[1], (float)prm.g[2]};
    for (int s = 0; s < prm.steps; ++s) {
        p.vel = scale(add(p.vel, scale(g, prm.dt)), prm.damping);
        p.pos = add(p.pos, scale(p.vel, prm.dt));
    }
    return p;
}

extern "C" __global__ void integrate(Particle *ps, int n, Params prm) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) ps[i] = step(ps[i], prm);
}

extern "C" __global__ void integrate_const(Particle *ps, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        ps[i] = step(ps[i], c_params);
        ps[i].mass *= c_table[i & 63] + dot(ps[i].pos, ps[i].vel);
    }
}

// Recursion: nvcc keeps these as real calls with a stack (.local depot, %SP).
__device__ __noinline__ unsigned fib(unsigned n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

__device__ __noinline__ unsigned long long ackermann(unsigned long long m, unsigned long long n) {
    if (m == 0) return n + 1;
    if (n == 0) return ackermann(m - 1, 1);
    return ackermann(m - 1, ackermann(m, n - 1));
}

__device__ __noinline__ int quicksort_partition(int *a, int lo, int hi) {
    int pivot = a[hi], i = lo;
    for (int j = lo; j < hi; ++j)
        if (a[j] < pivot) {
            int t = a[i]; a[i] = a[j]; a[j] = t;
            ++i;
        }
    int t = a[i]; a[i] = a[hi]; a[hi] = t;
    return i;
}

__device__ __noinline__ void quicksort(int *a, int lo, int hi) {
    if (lo >= hi) return;
    int p = quicksort_partition(a, lo, hi);
    quicksort(a, lo, p - 1);
    quicksort(a, p + 1, hi);
}

extern "C" __global__ void recursion(const unsigned *in, unsigned *fibs, unsigned long long *ack, int *sorted) {
    unsigned t = threadIdx.x;
    fibs[t] = fib(in[t] % 20);
    ack[t] = ackermann(in[t] % 3, t % 4);
    int local[16];  // local array sorted through a pointer: .local memory, generic addressing
    for (int k = 0; k < 16; ++k) local[k] = (int)((in[t] * 2654435761u) >> (k + 8)) & 1023;
    quicksort(local, 0, 15);
    for (int k = 0; k < 16; ++k) sorted[t * 16 + k] = local[k];
}

// Function pointers: indirect calls (call.uni through a register with a prototype).
typedef float (*unary_fn)(float);
__device__ __noinline__ float f_square(float x) { return x * x; }
__device__ __noinline__ float f_negate(float x) { return -x; }
__device__ __noinline__ float f_half(float x) { return 0.5f * x; }
__device__ unary_fn d_fns[3] = {f_square, f_negate, f_half};

extern "C" __global__ void indirect_calls(const float *in, float *out, const int *which) {
    int i = threadIdx.x;
    unary_fn f = d_fns[which[i] % 3];
    out[i] = f(in[i]);
}

// Dynamically indexed local array that cannot be promoted to registers.
extern "C" __global__ void local_array(const int *idx, float *out, int n) {
    float buf[32];
    for (int k = 0; k < 32; ++k) buf[k] = (float)(k * k) + (float)threadIdx.x;
    float acc = 0.0f;
    for (int k = 0; k < n; ++k) acc += buf[idx[k] & 31];
    buf[idx[0] & 31] = acc;
    out[threadIdx.x] = buf[idx[1] & 31] + g_buffer[threadIdx.x & 127];
    if (threadIdx.x == 0) atomicAdd(&g_counter, 1);
}

// Kernel taking large structs by value plus an array in a struct.
struct Matrix4 {
    float m[4][4];
};

__device__ __noinline__ Matrix4 mul(Matrix4 a, Matrix4 b) {
    Matrix4 r;
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) {
            float s = 0;
            for (int k = 0; k < 4; ++k) s += a.m[i][k] * b.m[k][j];
            r.m[i][j] = s;
        }
    return r;
}

extern "C" __global__ void transform(Matrix4 a, Matrix4 b, float4 *points, int n, uint8_t flags, int16_t shift) {
    Matrix4 t = mul(a, b);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 p = points[i];
    float4 q;
    q.x = t.m[0][0] * p.x + t.m[0][1] * p.y + t.m[0][2] * p.z + t.m[0][3] * p.w;
    q.y = t.m[1][0] * p.x + t.m[1][1] * p.y + t.m[1][2] * p.z + t.m[1][3] * p.w;
    q.z = t.m[2][0] * p.x + t.m[2][1] * p.y + t.m[2][2] * p.z + t.m[2][3] * p.w;
    q.w = (flags & 1) ? p.w : (float)shift;
    points[i] = q;
}

// Variadic-free C-style device function returning through a pointer, with a bool parameter.
__device__ __noinline__ bool clamp_to(float *v, float lo, float hi, bool report) {
    bool changed = *v < lo || *v > hi;
    *v = fminf(fmaxf(*v, lo), hi);
    return report && changed;
}

extern "C" __global__ void clamp_kernel(float *v, int *clamped, float lo, float hi) {
    float x = v[threadIdx.x];
    if (clamp_to(&x, lo, hi, true)) atomicAdd(clamped, 1);
    v[threadIdx.x] = x;
}
