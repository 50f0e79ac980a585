; LDS used from a device function called by two kernels (LLVM's module-LDS lowering: per-kernel
; LDS structs, a dynamic-LDS offset table in .data.rel.ro) and an external dynamic LDS array.
@shared = internal addrspace(3) global [64 x i32] poison
@other = internal addrspace(3) global [32 x float] poison
@dyn = external addrspace(3) global [0 x i32]

define void @touch(i32 %i, i32 %v) noinline {
  %p = getelementptr [64 x i32], ptr addrspace(3) @shared, i32 0, i32 %i
  store i32 %v, ptr addrspace(3) %p
  %d = getelementptr [0 x i32], ptr addrspace(3) @dyn, i32 0, i32 %i
  store i32 %v, ptr addrspace(3) %d
  ret void
}

define amdgpu_kernel void @k1(ptr addrspace(1) %out) {
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  call void @touch(i32 %tid, i32 5)
  %p = getelementptr [64 x i32], ptr addrspace(3) @shared, i32 0, i32 %tid
  %v = load i32, ptr addrspace(3) %p
  store i32 %v, ptr addrspace(1) %out
  ret void
}

define amdgpu_kernel void @k2(ptr addrspace(1) %out) {
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %q = getelementptr [32 x float], ptr addrspace(3) @other, i32 0, i32 %tid
  store float 1.0, ptr addrspace(3) %q
  call void @touch(i32 %tid, i32 7)
  %f = load float, ptr addrspace(3) %q
  store float %f, ptr addrspace(1) %out
  ret void
}
declare i32 @llvm.amdgcn.workitem.id.x()
