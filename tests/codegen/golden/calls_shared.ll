; ModuleID = "calls_shared.ptx"
target triple = "amdgcn-amd-amdhsa"
target datalayout = ""

@"dyn" = external addrspace(3) global [0 x i8], align 16
@"k.tile" = internal addrspace(3) global [256 x i32] undef, align 4
define internal i32 @"scale"(ptr addrspace(5) %"p0", i32 %"p1") convergent
{
allocas:
  br label %"entry"
entry:
  %".5" = load i32, ptr addrspace(5) %"p0", align 4
  %".6" = mul i32 %".5", %"p1"
  ret i32 %".6"
}

define amdgpu_kernel void @"k"(ptr addrspace(4) byref([8 x i8]) align 8 %"p0", ptr addrspace(4) byref([4 x i8]) align 4 %"p1") convergent "uniform-work-group-size"="true" "amdgpu-flat-work-group-size"="1,256"
{
allocas:
  %".7" = alloca [4 x i8], align 4, addrspace(5)
  br label %"entry"
entry:
  %".8" = load i64, ptr addrspace(4) %"p0", align 8, !invariant.load !0
  %".9" = load i32, ptr addrspace(4) %"p1", align 4, !invariant.load !0
  %".10" = call i32 @"llvm.amdgcn.workitem.id.x"()
  br label %"LOOP"
LOOP:
  %".5" = phi  i32 [0, %"entry"], [%".12", %"LOOP"]
  %".6" = phi  i32 [%".9", %"entry"], [%".13", %"LOOP"]
  %".12" = add i32 %".5", %".10"
  %".13" = sub i32 %".6", 1
  %".14" = icmp ne i32 %".13", 0
  br i1 %".14", label %"LOOP", label %"bb"
bb:
  store i32 %".12", ptr addrspace(5) %".7", align 4
  %".17" = call i32 @"scale"(ptr addrspace(5) %".7", i32 3) convergent
  %".18" = shl i32 %".10", 2
  store i32 %".17", ptr addrspace(3) @"k.tile", align 4
  store i32 %".18", ptr addrspace(3) @"dyn", align 4
  fence syncscope("workgroup") release
  call void @"llvm.amdgcn.s.barrier"()
  fence syncscope("workgroup") acquire
  %".24" = load i32, ptr addrspace(3) @"dyn", align 4
  %".25" = inttoptr i64 %".8" to ptr addrspace(1)
  %".26" = atomicrmw add ptr addrspace(1) %".25", i32 %".24" syncscope("workgroup") monotonic
  ret void
}

declare i32 @"llvm.amdgcn.workitem.id.x"()

declare void @"llvm.amdgcn.s.barrier"() convergent

!0 = !{  }