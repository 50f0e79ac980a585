; Weak definitions (a function and a global) used by a kernel; weak_b.ll overrides both with
; strong definitions, which must win in a link of both.
@wval = weak addrspace(1) global i32 10

define weak i32 @pick_value(i32 %x) noinline {
  %r = add i32 %x, 1
  ret i32 %r
}

define amdgpu_kernel void @weak_user(ptr addrspace(1) %out) {
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %v = call i32 @pick_value(i32 %tid)
  %w = load i32, ptr addrspace(1) @wval
  %s = add i32 %v, %w
  %o = getelementptr i32, ptr addrspace(1) %out, i32 %tid
  store i32 %s, ptr addrspace(1) %o
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
