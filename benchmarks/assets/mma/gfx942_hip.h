// The few HIP definitions gemm_mfma.hip needs, so that it builds with -nogpuinc (no ROCm install).
#pragma once
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
typedef _Float16 half4_t __attribute__((ext_vector_type(4)));
typedef float float4_t __attribute__((ext_vector_type(4)));
static __device__ inline unsigned thread_x() { return __builtin_amdgcn_workitem_id_x(); }
static __device__ inline unsigned block_x() { return __builtin_amdgcn_workgroup_id_x(); }
