; Second of two modules: device functions and globals used by multi_main.ll, plus a local
; function-pointer table, a kernel of its own and a device function touching LDS.
@lib_scale = addrspace(1) global i32 3
@lib_hidden = hidden addrspace(1) global i32 11
@lib_ptr = addrspace(1) global ptr @lib_fn
@scratch_lds = internal addrspace(3) global [64 x i32] poison

define i32 @lib_fn(i32 %x) noinline {
  %r = mul i32 %x, 5
  ret i32 %r
}

define hidden i32 @lib_hidden_fn(i32 %x) noinline {
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %p = getelementptr [64 x i32], ptr addrspace(3) @scratch_lds, i32 0, i32 %tid
  store i32 %x, ptr addrspace(3) %p
  %v = load i32, ptr addrspace(3) %p
  %r = add i32 %v, 2
  ret i32 %r
}

define amdgpu_kernel void @lib_kernel(ptr addrspace(1) %out) {
  %f = load ptr, ptr addrspace(1) @lib_ptr
  %v = call i32 %f(i32 4)
  %w = call i32 @lib_hidden_fn(i32 %v)
  store i32 %w, ptr addrspace(1) %out
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
