; addrspace(1) globals with initialisers, zero-initialised (.bss), pointers to other globals
; (data relocations, including an interior pointer with an addend), hidden and protected
; visibility, an addrspace(4) constant table and an LDS array.
@counter = addrspace(1) global i32 0
@zeros = addrspace(1) global [32 x i32] zeroinitializer
@values = addrspace(1) global [4 x float] [float 1.0, float 2.0, float 3.0, float 4.0]
@hidden_val = hidden addrspace(1) global i64 42
@prot_val = protected addrspace(1) global i32 7
@local_val = internal addrspace(1) global i32 9
@ptrs = addrspace(1) global [4 x ptr addrspace(1)] [
  ptr addrspace(1) @counter,
  ptr addrspace(1) getelementptr (i8, ptr addrspace(1) @values, i64 8),
  ptr addrspace(1) @hidden_val,
  ptr addrspace(1) @local_val]
@cptrs = addrspace(4) constant [2 x ptr addrspace(1)] [ptr addrspace(1) @prot_val, ptr addrspace(1) @zeros]
@table = addrspace(4) constant [8 x i32] [i32 3, i32 1, i32 4, i32 1, i32 5, i32 9, i32 2, i32 6]
@tile = internal addrspace(3) global [256 x float] poison

define amdgpu_kernel void @globals(ptr addrspace(1) %out, i32 %k) {
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %ti = getelementptr [8 x i32], ptr addrspace(4) @table, i32 0, i32 %k
  %t = load i32, ptr addrspace(4) %ti
  %pi = getelementptr [4 x ptr addrspace(1)], ptr addrspace(1) @ptrs, i32 0, i32 %k
  %p = load ptr addrspace(1), ptr addrspace(1) %pi
  %v = load i32, ptr addrspace(1) %p
  %ci = getelementptr [2 x ptr addrspace(1)], ptr addrspace(4) @cptrs, i32 0, i32 %k
  %cp = load ptr addrspace(1), ptr addrspace(4) %ci
  %cv = load i32, ptr addrspace(1) %cp
  %h = load i64, ptr addrspace(1) @hidden_val
  %h32 = trunc i64 %h to i32
  %lv = load i32, ptr addrspace(1) @local_val
  %s1 = add i32 %t, %v
  %s2 = add i32 %s1, %cv
  %s3 = add i32 %s2, %h32
  %s4 = add i32 %s3, %lv
  %f = sitofp i32 %s4 to float
  %li = getelementptr [256 x float], ptr addrspace(3) @tile, i32 0, i32 %tid
  store float %f, ptr addrspace(3) %li
  call void @llvm.amdgcn.s.barrier()
  %x = xor i32 %tid, 1
  %lj = getelementptr [256 x float], ptr addrspace(3) @tile, i32 0, i32 %x
  %g = load float, ptr addrspace(3) %lj
  %zi = getelementptr [32 x i32], ptr addrspace(1) @zeros, i32 0, i32 %tid
  %gi = fptosi float %g to i32
  store i32 %gi, ptr addrspace(1) %zi
  %old = atomicrmw add ptr addrspace(1) @counter, i32 1 monotonic
  %o = getelementptr i32, ptr addrspace(1) %out, i32 %tid
  store i32 %old, ptr addrspace(1) %o
  %pv = load i32, ptr addrspace(1) @prot_val
  store i32 %pv, ptr addrspace(1) %out
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
declare void @llvm.amdgcn.s.barrier()
