; Strong definitions overriding the weak ones of weak_a.ll.
@wval = addrspace(1) global i32 20

define i32 @pick_value(i32 %x) noinline {
  %r = mul i32 %x, 3
  ret i32 %r
}
