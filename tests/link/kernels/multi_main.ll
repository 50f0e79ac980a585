; First of two modules: a kernel that calls a device function and reads a global, both defined
; in multi_lib.ll (external symbols resolved across objects).
@lib_scale = external addrspace(1) global i32
@lib_hidden = external hidden addrspace(1) global i32

declare i32 @lib_fn(i32)
declare hidden i32 @lib_hidden_fn(i32)

define amdgpu_kernel void @multi(ptr addrspace(1) %out) {
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %s = load i32, ptr addrspace(1) @lib_scale
  %h = load i32, ptr addrspace(1) @lib_hidden
  %a = call i32 @lib_fn(i32 %tid)
  %b = call i32 @lib_hidden_fn(i32 %a)
  %c = mul i32 %b, %s
  %d = add i32 %c, %h
  %o = getelementptr i32, ptr addrspace(1) %out, i32 %tid
  store i32 %d, ptr addrspace(1) %o
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
