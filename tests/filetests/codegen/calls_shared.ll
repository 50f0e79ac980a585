; ModuleID = '<string>'
source_filename = "<string>"
target datalayout = "e-m:e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-p7:160:256:256:32-p8:128:128:128:48-p9:192:256:256:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7:8:9"
target triple = "amdgcn-amd-amdhsa"

@dyn = external addrspace(3) global [0 x i8], align 16
@k.tile = internal addrspace(3) global [256 x i32] undef, align 4

; Function Attrs: convergent
define internal i32 @scale(ptr addrspace(5) %p0, i32 %p1) #0 {
allocas:
  br label %entry

entry:                                            ; preds = %allocas
  %.5 = load i32, ptr addrspace(5) %p0, align 4
  %.6 = mul i32 %.5, %p1
  ret i32 %.6
}

; Function Attrs: convergent
define amdgpu_kernel void @k(i64 %p0, i32 %p1) #1 {
allocas:
  %.7 = alloca [4 x i8], align 4, addrspace(5)
  br label %entry

entry:                                            ; preds = %allocas
  %.8 = call i32 @llvm.amdgcn.workitem.id.x()
  br label %LOOP

LOOP:                                             ; preds = %LOOP, %entry
  %.5 = phi i32 [ 0, %entry ], [ %.10, %LOOP ]
  %.6 = phi i32 [ %p1, %entry ], [ %.11, %LOOP ]
  %.10 = add i32 %.5, %.8
  %.11 = sub i32 %.6, 1
  %.12 = icmp ne i32 %.11, 0
  br i1 %.12, label %LOOP, label %bb

bb:                                               ; preds = %LOOP
  store i32 %.10, ptr addrspace(5) %.7, align 4
  %.15 = call i32 @scale(ptr addrspace(5) %.7, i32 3) #0
  %.16 = shl i32 %.8, 2
  store i32 %.15, ptr addrspace(3) @k.tile, align 4
  store i32 %.16, ptr addrspace(3) @dyn, align 4
  fence syncscope("workgroup") release
  call void @llvm.amdgcn.s.barrier()
  fence syncscope("workgroup") acquire
  %.22 = load i32, ptr addrspace(3) @dyn, align 4
  %.23 = inttoptr i64 %p0 to ptr addrspace(1)
  %.24 = atomicrmw add ptr addrspace(1) %.23, i32 %.22 syncscope("workgroup") monotonic, align 4
  ret void
}

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 1024) i32 @llvm.amdgcn.workitem.id.x() #2

; Function Attrs: convergent nocallback nofree nounwind willreturn
declare void @llvm.amdgcn.s.barrier() #3

attributes #0 = { convergent }
attributes #1 = { convergent "amdgpu-flat-work-group-size"="1,256" "uniform-work-group-size"="true" }
attributes #2 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #3 = { convergent nocallback nofree nounwind willreturn }

!llvm.module.flags = !{!0}

!0 = !{i32 1, !"amdhsa_code_object_version", i32 500}
