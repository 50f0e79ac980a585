; Many kernels in one module (enough exported symbols for a multi-bucket GNU hash table),
; sharing a zero-initialised global, so the writable segment holds only .bss.
@hits = addrspace(1) global [16 x i32] zeroinitializer
define amdgpu_kernel void @scale(ptr addrspace(1) %p, i32 %x) {
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %q = getelementptr i32, ptr addrspace(1) %p, i32 %tid
  %v = load i32, ptr addrspace(1) %q
  %w = add i32 %v, 1
  %y = mul i32 %w, %x
  store i32 %y, ptr addrspace(1) %q
  %h = getelementptr [16 x i32], ptr addrspace(1) @hits, i32 0, i32 0
  %old = atomicrmw add ptr addrspace(1) %h, i32 1 monotonic
  ret void
}

define amdgpu_kernel void @shift(ptr addrspace(1) %p, i32 %x) {
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %q = getelementptr i32, ptr addrspace(1) %p, i32 %tid
  %v = load i32, ptr addrspace(1) %q
  %w = add i32 %v, 8
  %y = mul i32 %w, %x
  store i32 %y, ptr addrspace(1) %q
  %h = getelementptr [16 x i32], ptr addrspace(1) @hits, i32 0, i32 1
  %old = atomicrmw add ptr addrspace(1) %h, i32 1 monotonic
  ret void
}

define amdgpu_kernel void @clamp_lo(ptr addrspace(1) %p, i32 %x) {
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %q = getelementptr i32, ptr addrspace(1) %p, i32 %tid
  %v = load i32, ptr addrspace(1) %q
  %w = add i32 %v, 15
  %y = mul i32 %w, %x
  store i32 %y, ptr addrspace(1) %q
  %h = getelementptr [16 x i32], ptr addrspace(1) @hits, i32 0, i32 2
  %old = atomicrmw add ptr addrspace(1) %h, i32 1 monotonic
  ret void
}

define amdgpu_kernel void @clamp_hi(ptr addrspace(1) %p, i32 %x) {
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %q = getelementptr i32, ptr addrspace(1) %p, i32 %tid
  %v = load i32, ptr addrspace(1) %q
  %w = add i32 %v, 22
  %y = mul i32 %w, %x
  store i32 %y, ptr addrspace(1) %q
  %h = getelementptr [16 x i32], ptr addrspace(1) @hits, i32 0, i32 3
  %old = atomicrmw add ptr addrspace(1) %h, i32 1 monotonic
  ret void
}

define amdgpu_kernel void @negate(ptr addrspace(1) %p, i32 %x) {
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %q = getelementptr i32, ptr addrspace(1) %p, i32 %tid
  %v = load i32, ptr addrspace(1) %q
  %w = add i32 %v, 29
  %y = mul i32 %w, %x
  store i32 %y, ptr addrspace(1) %q
  %h = getelementptr [16 x i32], ptr addrspace(1) @hits, i32 0, i32 4
  %old = atomicrmw add ptr addrspace(1) %h, i32 1 monotonic
  ret void
}

define amdgpu_kernel void @square(ptr addrspace(1) %p, i32 %x) {
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %q = getelementptr i32, ptr addrspace(1) %p, i32 %tid
  %v = load i32, ptr addrspace(1) %q
  %w = add i32 %v, 36
  %y = mul i32 %w, %x
  store i32 %y, ptr addrspace(1) %q
  %h = getelementptr [16 x i32], ptr addrspace(1) @hits, i32 0, i32 5
  %old = atomicrmw add ptr addrspace(1) %h, i32 1 monotonic
  ret void
}

define amdgpu_kernel void @halve(ptr addrspace(1) %p, i32 %x) {
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %q = getelementptr i32, ptr addrspace(1) %p, i32 %tid
  %v = load i32, ptr addrspace(1) %q
  %w = add i32 %v, 43
  %y = mul i32 %w, %x
  store i32 %y, ptr addrspace(1) %q
  %h = getelementptr [16 x i32], ptr addrspace(1) @hits, i32 0, i32 6
  %old = atomicrmw add ptr addrspace(1) %h, i32 1 monotonic
  ret void
}

define amdgpu_kernel void @bump(ptr addrspace(1) %p, i32 %x) {
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %q = getelementptr i32, ptr addrspace(1) %p, i32 %tid
  %v = load i32, ptr addrspace(1) %q
  %w = add i32 %v, 50
  %y = mul i32 %w, %x
  store i32 %y, ptr addrspace(1) %q
  %h = getelementptr [16 x i32], ptr addrspace(1) @hits, i32 0, i32 7
  %old = atomicrmw add ptr addrspace(1) %h, i32 1 monotonic
  ret void
}

define amdgpu_kernel void @mix_a(ptr addrspace(1) %p, i32 %x) {
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %q = getelementptr i32, ptr addrspace(1) %p, i32 %tid
  %v = load i32, ptr addrspace(1) %q
  %w = add i32 %v, 57
  %y = mul i32 %w, %x
  store i32 %y, ptr addrspace(1) %q
  %h = getelementptr [16 x i32], ptr addrspace(1) @hits, i32 0, i32 8
  %old = atomicrmw add ptr addrspace(1) %h, i32 1 monotonic
  ret void
}

define amdgpu_kernel void @mix_b(ptr addrspace(1) %p, i32 %x) {
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %q = getelementptr i32, ptr addrspace(1) %p, i32 %tid
  %v = load i32, ptr addrspace(1) %q
  %w = add i32 %v, 64
  %y = mul i32 %w, %x
  store i32 %y, ptr addrspace(1) %q
  %h = getelementptr [16 x i32], ptr addrspace(1) @hits, i32 0, i32 9
  %old = atomicrmw add ptr addrspace(1) %h, i32 1 monotonic
  ret void
}

define amdgpu_kernel void @zero_fill(ptr addrspace(1) %p, i32 %x) {
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %q = getelementptr i32, ptr addrspace(1) %p, i32 %tid
  %v = load i32, ptr addrspace(1) %q
  %w = add i32 %v, 71
  %y = mul i32 %w, %x
  store i32 %y, ptr addrspace(1) %q
  %h = getelementptr [16 x i32], ptr addrspace(1) @hits, i32 0, i32 10
  %old = atomicrmw add ptr addrspace(1) %h, i32 1 monotonic
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
