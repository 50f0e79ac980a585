; Private string constants (as printf format strings become) in a mergeable string section
; (.rodata.str1.1), one of them twice, referenced from a pointer table in global memory.
@s_hello = private unnamed_addr addrspace(4) constant [7 x i8] c"hello\0A\00", align 1
@s_world = private unnamed_addr addrspace(4) constant [7 x i8] c"world\0A\00", align 1
@s_value = private unnamed_addr addrspace(4) constant [10 x i8] c"value %d\0A\00", align 1
@s_hello_again = private unnamed_addr addrspace(4) constant [7 x i8] c"hello\0A\00", align 1
@formats = addrspace(1) global [5 x ptr addrspace(4)] [
  ptr addrspace(4) @s_hello, ptr addrspace(4) @s_world, ptr addrspace(4) @s_value,
  ptr addrspace(4) @s_hello_again, ptr addrspace(4) getelementptr (i8, ptr addrspace(4) @s_value, i64 6)]

define amdgpu_kernel void @strings(ptr addrspace(1) %out, i32 %k) {
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %pp = getelementptr [5 x ptr addrspace(4)], ptr addrspace(1) @formats, i32 0, i32 %k
  %p = load ptr addrspace(4), ptr addrspace(1) %pp
  %q = getelementptr i8, ptr addrspace(4) %p, i32 %tid
  %c = load i8, ptr addrspace(4) %q
  %o = getelementptr i8, ptr addrspace(1) %out, i32 %tid
  store i8 %c, ptr addrspace(1) %o
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
