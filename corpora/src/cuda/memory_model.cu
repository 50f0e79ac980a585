// SPDX-License-Identifier: Apache-2.0
// corpus: the PTX memory model as CUDA C++ reaches it: cuda::atomic_ref (libcu++) with every memory order and
//         thread scope (ld.acquire/st.release/atom.acq_rel/fence.sc), the __nv_atomic_* builtins, a message
//         passing flag protocol, atomic_thread_fence, volatile, and sm_90 vector float atomics (float2/float4).

#include <cuda/atomic>

extern "C" __global__ void atomic_ref_orders(int *data, unsigned long long *wide, int *out) {
    cuda::atomic_ref<int, cuda::thread_scope_device> dev(data[0]);
    cuda::atomic_ref<int, cuda::thread_scope_block> blk(data[1]);
    cuda::atomic_ref<int, cuda::thread_scope_system> sys(data[2]);
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> w(*wide);
    int a = dev.load(cuda::memory_order_acquire);
    int b = blk.load(cuda::memory_order_relaxed);
    int c = sys.load(cuda::memory_order_seq_cst);
    dev.store(a + 1, cuda::memory_order_release);
    blk.fetch_add(1, cuda::memory_order_acq_rel);
    sys.fetch_or(4, cuda::memory_order_relaxed);
    int expected = 0;
    bool swapped = dev.compare_exchange_strong(expected, 5, cuda::memory_order_acq_rel, cuda::memory_order_acquire);
    unsigned long long old = w.exchange(7ull, cuda::memory_order_seq_cst);
    w.fetch_max(old + 1, cuda::memory_order_relaxed);
    out[threadIdx.x] = a + b + c + swapped + (int)old;
}

// Message passing: a producer writes data then releases a flag; consumers acquire it.
extern "C" __global__ void message_passing(int *payload, int *flag, int *seen) {
    cuda::atomic_ref<int, cuda::thread_scope_device> f(*flag);
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        payload[0] = 42;
        payload[1] = 43;
        f.store(1, cuda::memory_order_release);
    } else if (threadIdx.x == 0) {
        while (f.load(cuda::memory_order_acquire) == 0) {
        }
        seen[blockIdx.x] = payload[0] + payload[1];
    }
}

extern "C" __global__ void fences(int *a, volatile int *v) {
    a[threadIdx.x] = threadIdx.x;
    cuda::atomic_thread_fence(cuda::memory_order_release, cuda::thread_scope_block);
    v[threadIdx.x] = 1;
    cuda::atomic_thread_fence(cuda::memory_order_seq_cst, cuda::thread_scope_device);
    cuda::atomic_thread_fence(cuda::memory_order_acquire, cuda::thread_scope_system);
    a[threadIdx.x + blockDim.x] = v[(threadIdx.x + 1) % blockDim.x];
}

extern "C" __global__ void nv_atomic_builtins(int *p, unsigned *u, int *out) {
    int x = __nv_atomic_fetch_add(&p[0], 1, __NV_ATOMIC_ACQUIRE, __NV_THREAD_SCOPE_DEVICE);
    __nv_atomic_fetch_max(&p[1], (int)threadIdx.x, __NV_ATOMIC_RELAXED, __NV_THREAD_SCOPE_BLOCK);
    int y = __nv_atomic_load_n(&p[2], __NV_ATOMIC_ACQUIRE, __NV_THREAD_SCOPE_SYSTEM);
    __nv_atomic_store_n(&p[3], x + y, __NV_ATOMIC_RELEASE, __NV_THREAD_SCOPE_DEVICE);
    unsigned prev = __nv_atomic_exchange_n(&u[0], threadIdx.x, __NV_ATOMIC_ACQ_REL, __NV_THREAD_SCOPE_DEVICE);
    unsigned expected = 0;
    bool ok = __nv_atomic_compare_exchange_n(&u[1], &expected, 1u, false, __NV_ATOMIC_SEQ_CST, __NV_ATOMIC_RELAXED,
                                             __NV_THREAD_SCOPE_DEVICE);
    __nv_atomic_thread_fence(__NV_ATOMIC_SEQ_CST, __NV_THREAD_SCOPE_DEVICE);
    out[threadIdx.x] = (int)prev + ok;
}

#if __CUDA_ARCH__ >= 900
extern "C" __global__ void vector_float_atomics(float2 *f2, float4 *f4, const float *v) {
    float x = v[threadIdx.x];
    atomicAdd(f2, make_float2(x, -x));
    float4 old = atomicAdd(f4, make_float4(x, 2 * x, 3 * x, 4 * x));
    f2[1 + threadIdx.x].x = old.w;
}
#endif
