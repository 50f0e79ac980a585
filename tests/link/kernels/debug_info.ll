; A kernel and a device function with DWARF line tables (as ptx2gcn's emitter attaches !dbg
; locations): non-allocated .debug_* sections carry ABS32/ABS64 relocations against sections, and
; a private string constant lands in a mergeable string section (one string only: ld.lld orders
; the strings of such sections by hash, which we do not reproduce; see strings.ll).
@msg = private unnamed_addr addrspace(4) constant [6 x i8] c"hello\00", align 1
@pick = addrspace(1) global [2 x ptr addrspace(4)] [ptr addrspace(4) @msg, ptr addrspace(4) getelementptr (i8, ptr addrspace(4) @msg, i64 3)]

define internal i32 @helper(i32 %x) noinline !dbg !8 {
  %r = mul i32 %x, 3, !dbg !12
  ret i32 %r, !dbg !12
}

define amdgpu_kernel void @debug_kernel(ptr addrspace(1) %out, i32 %k) !dbg !13 {
  %tid = call i32 @llvm.amdgcn.workitem.id.x(), !dbg !14
  %h = call i32 @helper(i32 %tid), !dbg !14
  %pp = getelementptr [2 x ptr addrspace(4)], ptr addrspace(1) @pick, i32 0, i32 %k, !dbg !15
  %p = load ptr addrspace(4), ptr addrspace(1) %pp, !dbg !15
  %q = getelementptr i8, ptr addrspace(4) %p, i32 %tid, !dbg !15
  %c = load i8, ptr addrspace(4) %q, !dbg !15
  %cz = zext i8 %c to i32, !dbg !15
  %s = add i32 %h, %cz, !dbg !15
  %o = getelementptr i32, ptr addrspace(1) %out, i32 %tid, !dbg !16
  store i32 %s, ptr addrspace(1) %o, !dbg !16
  ret void, !dbg !16
}

declare i32 @llvm.amdgcn.workitem.id.x()

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!3, !4, !9999}
!9999 = !{i32 1, !"amdhsa_code_object_version", i32 500}

!0 = distinct !DICompileUnit(language: DW_LANG_C99, file: !1, producer: "ptx2gcn test", isOptimized: true, runtimeVersion: 0, emissionKind: LineTablesOnly)
!1 = !DIFile(filename: "kernel.ptx", directory: "/tmp")
!3 = !{i32 2, !"Debug Info Version", i32 3}
!4 = !{i32 7, !"Dwarf Version", i32 5}
!5 = !DISubroutineType(types: !6)
!6 = !{}
!8 = distinct !DISubprogram(name: "helper", scope: !1, file: !1, line: 3, type: !5, scopeLine: 3, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!12 = !DILocation(line: 4, column: 3, scope: !8)
!13 = distinct !DISubprogram(name: "debug_kernel", scope: !1, file: !1, line: 10, type: !5, scopeLine: 10, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!14 = !DILocation(line: 11, column: 5, scope: !13)
!15 = !DILocation(line: 12, column: 5, scope: !13)
!16 = !DILocation(line: 13, column: 5, scope: !13)
