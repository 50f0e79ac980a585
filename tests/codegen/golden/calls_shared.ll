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

define amdgpu_kernel void @"k"(i64 %"p0", i32 %"p1") convergent "uniform-work-group-size"="true" "amdgpu-flat-work-group-size"="1,256"
{
allocas:
  %".7" = alloca [4 x i8], align 4, addrspace(5)
  br label %"entry"
entry:
  %".8" = call i32 @"llvm.amdgcn.workitem.id.x"()
  br label %"LOOP"
LOOP:
  %".5" = phi  i32 [0, %"entry"], [%".10", %"LOOP"]
  %".6" = phi  i32 [%"p1", %"entry"], [%".11", %"LOOP"]
  %".10" = add i32 %".5", %".8"
  %".11" = sub i32 %".6", 1
  %".12" = icmp ne i32 %".11", 0
  br i1 %".12", label %"LOOP", label %"bb"
bb:
  store i32 %".10", ptr addrspace(5) %".7", align 4
  %".15" = call i32 @"scale"(ptr addrspace(5) %".7", i32 3) convergent
  %".16" = shl i32 %".8", 2
  store i32 %".15", ptr addrspace(3) @"k.tile", align 4
  store i32 %".16", ptr addrspace(3) @"dyn", align 4
  fence syncscope("workgroup") release
  call void @"llvm.amdgcn.s.barrier"()
  fence syncscope("workgroup") acquire
  %".22" = load i32, ptr addrspace(3) @"dyn", align 4
  %".23" = inttoptr i64 %"p0" to ptr addrspace(1)
  %".24" = atomicrmw add ptr addrspace(1) %".23", i32 %".22" syncscope("workgroup") monotonic
  ret void
}

declare i32 @"llvm.amdgcn.workitem.id.x"()

declare void @"llvm.amdgcn.s.barrier"() convergent
