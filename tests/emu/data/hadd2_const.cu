// Issue #13: nvcc folds __float2half2_rn(0.5f) into a constant half2 operand of add.f16x2, which
// LLVM turns into `v_pk_add_f16 v, v, 0.5 op_sel_hi:[1,0]` (an inline constant, not a load).
#include <cuda_fp16.h>

extern "C" __global__ void hadd2_const(const __half2* x, __half2* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        __half2 a = x[i];
        y[i] = __hadd2(__hmul2(a, a), __float2half2_rn(0.5f));
    }
}
