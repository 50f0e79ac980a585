; ModuleID = "vadd.ptx"
target triple = "amdgcn-amd-amdhsa"
target datalayout = ""

define amdgpu_kernel void @"vadd"(i64 %"p0", i64 %"p1", i64 %"p2", i32 %"p3") convergent "uniform-work-group-size"="true"
{
allocas:
  br label %"entry"
entry:
  %".7" = call i32 @"llvm.amdgcn.workgroup.id.x"()
  %".8" = call ptr addrspace(4) @"llvm.amdgcn.implicitarg.ptr"()
  %".9" = getelementptr inbounds i8, ptr addrspace(4) %".8", i64 12
  %".10" = load i16, ptr addrspace(4) %".9", align 2, !invariant.load !0
  %".11" = zext i16 %".10" to i32
  %".12" = call i32 @"llvm.amdgcn.workitem.id.x"()
  %".13" = mul i32 %".7", %".11"
  %".14" = add i32 %".13", %".12"
  %".15" = icmp sge i32 %".14", %"p3"
  br i1 %".15", label %"DONE", label %"bb"
bb:
  %".17" = sext i32 %".14" to i64
  %".18" = sext i32 4 to i64
  %".19" = mul i64 %".17", %".18"
  %".20" = add i64 %"p0", %".19"
  %".21" = add i64 %"p1", %".19"
  %".22" = inttoptr i64 %".20" to ptr addrspace(1)
  %".23" = load float, ptr addrspace(1) %".22", align 4
  %".24" = inttoptr i64 %".21" to ptr addrspace(1)
  %".25" = load float, ptr addrspace(1) %".24", align 4
  %".26" = fadd float %".23", %".25"
  %".27" = add i64 %"p2", %".19"
  %".28" = inttoptr i64 %".27" to ptr addrspace(1)
  store float %".26", ptr addrspace(1) %".28", align 4
  br label %"DONE"
DONE:
  ret void
}

declare i32 @"llvm.amdgcn.workgroup.id.x"()

declare ptr addrspace(4) @"llvm.amdgcn.implicitarg.ptr"()

declare i32 @"llvm.amdgcn.workitem.id.x"()

!0 = !{  }