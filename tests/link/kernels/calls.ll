; Device function calls: a plain call, recursion, indirect calls through function-pointer tables
; in global and constant memory, and a private array (stack). Well defined, so it also runs:
; out[tid] = twice(fconst[sel](ftab[sel](fact(tid)))) with i32 wrap-around.
@ftab = addrspace(1) global [2 x ptr] [ptr @twice, ptr @plus_one]
@fconst = addrspace(4) constant [2 x ptr] [ptr @plus_one, ptr @twice]

define i32 @twice(i32 %x) noinline {
  %r = shl i32 %x, 1
  ret i32 %r
}

define hidden i32 @plus_one(i32 %x) noinline {
  %r = add i32 %x, 1
  ret i32 %r
}

define internal i32 @fact(i32 %n) noinline {
entry:
  %c = icmp ule i32 %n, 1
  br i1 %c, label %base, label %rec
base:
  ret i32 1
rec:
  %m = sub i32 %n, 1
  %f = call i32 @fact(i32 %m)
  %r = mul i32 %n, %f
  ret i32 %r
}

define amdgpu_kernel void @calls(ptr addrspace(1) %out, i32 %sel, i32 %idx) {
  %buf = alloca [16 x i32], align 4, addrspace(5)
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %slot = getelementptr [16 x i32], ptr addrspace(5) %buf, i32 0, i32 %idx
  store volatile i32 %tid, ptr addrspace(5) %slot
  %v = load volatile i32, ptr addrspace(5) %slot
  %a = call i32 @fact(i32 %v)
  %fp = getelementptr [2 x ptr], ptr addrspace(1) @ftab, i32 0, i32 %sel
  %f = load ptr, ptr addrspace(1) %fp
  %b = call i32 %f(i32 %a)
  %gp = getelementptr [2 x ptr], ptr addrspace(4) @fconst, i32 0, i32 %sel
  %g = load ptr, ptr addrspace(4) %gp
  %c = call i32 %g(i32 %b)
  %d = call i32 @twice(i32 %c)
  %o = getelementptr i32, ptr addrspace(1) %out, i32 %tid
  store i32 %d, ptr addrspace(1) %o
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
