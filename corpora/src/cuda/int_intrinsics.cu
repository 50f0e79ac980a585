// SPDX-License-Identifier: Apache-2.0
// corpus: integer intrinsics: __popc/__popcll, __clz/__clzll, __ffs, __brev/__brevll, __byte_perm,
//         __funnelshift_l/r (wrap and clamp), __dp4a/__dp2a, __mul24/__umul24, __mulhi/__umul64hi, __sad,
//         __hadd/__rhadd, SIMD video intrinsics (__vadd4, __vabsdiffu4), bfe/bfi/prmt via inline asm,
//         64-bit multiply, division and remainder by variables and constants, saturating conversions.

extern "C" __global__ void bit_ops(const unsigned *a, const unsigned long long *b, int *out) {
    int i = threadIdx.x;
    unsigned x = a[i];
    unsigned long long y = b[i];
    int *o = out + i * 12;
    o[0] = __popc(x);
    o[1] = __popcll(y);
    o[2] = __clz((int)x);
    o[3] = __clzll((long long)y);
    o[4] = __ffs((int)x);
    o[5] = __ffsll((long long)y);
    o[6] = (int)__brev(x);
    o[7] = (int)(__brevll(y) >> 17);
    o[8] = (int)__byte_perm(x, (unsigned)y, 0x5140);
    o[9] = (int)__funnelshift_l(x, (unsigned)(y >> 32), i);
    o[10] = (int)__funnelshift_rc(x, (unsigned)y, i * 3);
    o[11] = (int)__byte_perm(x, 0, 0x0123);  // byte swap
}

extern "C" __global__ void int_arith(const int *a, const int *b, int *out, long long *wide) {
    int i = threadIdx.x;
    int x = a[i], y = b[i];
    int *o = out + i * 12;
    o[0] = __dp4a(x, y, 7);
    o[1] = (int)__dp4a((unsigned)x, (unsigned)y, 7u);
    o[2] = __dp2a_lo(x, y, 1);
    o[3] = __dp2a_hi(x, y, 1);
    o[4] = __mul24(x, y);
    o[5] = (int)__umul24((unsigned)x, (unsigned)y);
    o[6] = __mulhi(x, y);
    o[7] = (int)__sad(x, y, 3u);
    o[8] = __hadd(x, y);
    o[9] = __rhadd(x, y);
    o[10] = (int)__vadd4((unsigned)x, (unsigned)y);
    o[11] = (int)__vabsdiffu4((unsigned)x, (unsigned)y);
    wide[i * 6 + 0] = (long long)x * y;
    wide[i * 6 + 1] = (long long)__umul64hi((unsigned long long)x << 20, (unsigned long long)y << 30);
    wide[i * 6 + 2] = __mul64hi((long long)x << 20, (long long)y << 30);
    wide[i * 6 + 3] = ((long long)x << 32 | (unsigned)y) / (y | 1);
    wide[i * 6 + 4] = ((long long)x << 32 | (unsigned)y) % 1000000007ll;
    wide[i * 6 + 5] = (unsigned long long)((unsigned)x) / 7u + (x / 3) + (y % 5) + (x >> (y & 31)) + ((unsigned)x >> 3);
}

extern "C" __global__ void ptx_bitfield(const unsigned *a, unsigned *out) {
    int i = threadIdx.x;
    unsigned x = a[i], r0, r1, r2, r3, r4;
    int s0;
    asm("bfe.u32 %0, %1, 4, 8;" : "=r"(r0) : "r"(x));
    asm("bfe.s32 %0, %1, %2, 5;" : "=r"(s0) : "r"(x), "r"(i & 15));
    asm("bfi.b32 %0, %1, %2, 8, 12;" : "=r"(r1) : "r"(x >> 16), "r"(x));
    asm("prmt.b32 %0, %1, %2, 0x3210;" : "=r"(r2) : "r"(x), "r"(~x));
    asm("prmt.b32.f4e %0, %1, %2, %3;" : "=r"(r3) : "r"(x), "r"(~x), "r"(i));
    asm("lop3.b32 %0, %1, %2, %3, 0x96;" : "=r"(r4) : "r"(x), "r"(x << 3), "r"(x >> 5));
    unsigned *o = out + i * 6;
    o[0] = r0; o[1] = (unsigned)s0; o[2] = r1; o[3] = r2; o[4] = r3; o[5] = r4;
}

extern "C" __global__ void saturating(const float *f, const int *k, signed char *s8, unsigned char *u8, short *s16,
                                     unsigned *u32) {
    int i = threadIdx.x;
    int v;
    asm("cvt.rni.sat.s8.f32 %0, %1;" : "=r"(v) : "f"(f[i]));
    s8[i] = (signed char)v;
    asm("cvt.sat.u8.s32 %0, %1;" : "=r"(v) : "r"(k[i]));
    u8[i] = (unsigned char)v;
    short h;
    asm("cvt.sat.s16.s32 %0, %1;" : "=h"(h) : "r"(k[i]));
    s16[i] = h;
    unsigned s;
    asm("add.sat.s32 %0, %1, %2;" : "=r"(s) : "r"(k[i]), "r"(0x7ffffff0));
    u32[i * 3] = s;
    asm("sub.sat.s32 %0, %1, %2;" : "=r"(s) : "r"(k[i]), "r"(0x7ffffff0));
    u32[i * 3 + 1] = s;
    asm("mad.hi.sat.s32 %0, %1, %2, %3;" : "=r"(s) : "r"(k[i]), "r"(k[i]), "r"(0x7fffffff));
    u32[i * 3 + 2] = s;
}
