; ModuleID = "vadd.ptx"
target triple = "amdgcn-amd-amdhsa"
target datalayout = ""

define amdgpu_kernel void @"vadd"(ptr addrspace(4) byref([8 x i8]) align 8 %"p0", ptr addrspace(4) byref([8 x i8]) align 8 %"p1", ptr addrspace(4) byref([8 x i8]) align 8 %"p2", ptr addrspace(4) byref([4 x i8]) align 4 %"p3") convergent "uniform-work-group-size"="true"
{
allocas:
  br label %"entry"
entry:
  %".7" = load i64, ptr addrspace(4) %"p0", align 8, !invariant.load !0
  %".8" = load i64, ptr addrspace(4) %"p1", align 8, !invariant.load !0
  %".9" = load i64, ptr addrspace(4) %"p2", align 8, !invariant.load !0
  %".10" = load i32, ptr addrspace(4) %"p3", align 4, !invariant.load !0
  %".11" = call i32 @"llvm.amdgcn.workgroup.id.x"()
  %".12" = call ptr addrspace(4) @"llvm.amdgcn.implicitarg.ptr"()
  %".13" = getelementptr inbounds i8, ptr addrspace(4) %".12", i64 12
  %".14" = load i16, ptr addrspace(4) %".13", align 2, !invariant.load !0
  %".15" = zext i16 %".14" to i32
  %".16" = call i32 @"llvm.amdgcn.workitem.id.x"()
  %".17" = mul i32 %".11", %".15"
  %".18" = add i32 %".17", %".16"
  %".19" = icmp sge i32 %".18", %".10"
  br i1 %".19", label %"DONE", label %"bb"
bb:
  %".21" = sext i32 %".18" to i64
  %".22" = sext i32 4 to i64
  %".23" = mul i64 %".21", %".22"
  %".24" = add i64 %".7", %".23"
  %".25" = add i64 %".8", %".23"
  %".26" = inttoptr i64 %".24" to ptr addrspace(1)
  %".27" = load float, ptr addrspace(1) %".26", align 4
  %".28" = inttoptr i64 %".25" to ptr addrspace(1)
  %".29" = load float, ptr addrspace(1) %".28", align 4
  %".30" = fadd float %".27", %".29"
  %".31" = add i64 %".9", %".23"
  %".32" = inttoptr i64 %".31" to ptr addrspace(1)
  store float %".30", ptr addrspace(1) %".32", align 4
  br label %"DONE"
DONE:
  ret void
}

declare i32 @"llvm.amdgcn.workgroup.id.x"()

declare ptr addrspace(4) @"llvm.amdgcn.implicitarg.ptr"()

declare i32 @"llvm.amdgcn.workitem.id.x"()

!0 = !{  }