// SPDX-License-Identifier: Apache-2.0
// corpus: control flow shapes: dense and sparse switches (NVVM lowers both to compare-and-branch trees; it
//         does not emit jump tables), an explicit jump table through inline brx.idx/.branchtargets, nested
//         loops with break/continue, divergent early returns, an irreducible loop made with goto (two entries),
//         __builtin_expect/__builtin_unreachable/__builtin_assume, do-while with a data-dependent exit, and a
//         state machine driven by input.

extern "C" __global__ void dense_switch(const int *op, const float *a, const float *b, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = a[i], y = b[i], r;
    switch (op[i] & 15) {
    case 0: r = x + y; break;
    case 1: r = x - y; break;
    case 2: r = x * y; break;
    case 3: r = x / y; break;
    case 4: r = fminf(x, y); break;
    case 5: r = fmaxf(x, y); break;
    case 6: r = sqrtf(fabsf(x)); break;
    case 7: r = -x; break;
    case 8: r = x * x + y; break;
    case 9: r = floorf(x); break;
    case 10: r = ceilf(y); break;
    case 11: r = x * 0.5f; break;
    case 12: r = y * 2.0f; break;
    case 13: r = x > y ? x : 0.0f; break;
    case 14: r = (float)(int)x; break;
    default: r = 0.0f; break;
    }
    out[i] = r;
}

// brx.idx with a .branchtargets list, written by hand because NVVM never emits it. Labels inside a `{ }` block
// are local to it, so the asm may be inlined more than once.
__device__ __noinline__ int jump_table(unsigned idx) {
    int v;
    asm volatile(
        "{\n\t"
        "ts: .branchtargets Lcase0, Lcase1, Lcase2, Lcase3;\n\t"
        "brx.idx %1, ts;\n"
        "Lcase0:\n\tmov.u32 %0, 10;\n\tbra.uni Ldone;\n"
        "Lcase1:\n\tmov.u32 %0, 21;\n\tbra.uni Ldone;\n"
        "Lcase2:\n\tmov.u32 %0, 32;\n\tbra.uni Ldone;\n"
        "Lcase3:\n\tmov.u32 %0, 43;\n"
        "Ldone:\n\t}"
        : "=r"(v)
        : "r"(idx & 3));
    return v;
}

extern "C" __global__ void indirect_branch(const unsigned *idx, int *out) {
    out[threadIdx.x] = jump_table(idx[threadIdx.x]) + jump_table(idx[threadIdx.x] >> 2);
}

extern "C" __global__ void sparse_switch(const unsigned *key, int *out) {
    unsigned k = key[threadIdx.x];
    int v;
    switch (k) {
    case 7: v = 1; break;
    case 100: v = 2; break;
    case 1000: v = 3; break;
    case 65536: v = 4; break;
    case 0xdeadbeef: v = 5; break;
    default: v = -1;
    }
    out[threadIdx.x] = v;
}

extern "C" __global__ void nested_loops(const int *grid, int *counts, int w, int h, int stop) {
    int t = threadIdx.x, found = 0;
    for (int y = 0; y < h; ++y) {
        if (grid[y * w] == stop) break;
        for (int x = t; x < w; x += blockDim.x) {
            int v = grid[y * w + x];
            if (v < 0) continue;
            if (v == stop) goto done;  // leaves both loops
            found += v & 1;
        }
    }
done:
    counts[t] = found;
}

extern "C" __global__ void divergent_returns(const float *in, float *out) {
    int i = threadIdx.x;
    float v = in[i];
    if (v != v) {  // NaN: half the warp may leave here
        out[i] = 0.0f;
        return;
    }
    if (v < 0.0f) {
        out[i] = -v;
        return;
    }
    __syncwarp(__activemask());
    out[i] = v * 2.0f;
}

// Two entries into the same loop: the loop header does not dominate its body, so the CFG is irreducible.
extern "C" __global__ void irreducible(const int *in, int *out) {
    int x = in[threadIdx.x], n = 0;
    if (x & 1) goto odd;
even:
    x = x / 2;
    ++n;
    if (x <= 1) goto end;
    if (x & 1) goto odd;
    goto even;
odd:
    x = 3 * x + 1;
    ++n;
    if (n > 1000) goto end;
    goto even;
end:
    out[threadIdx.x] = n;
}

extern "C" __global__ void builtins(const int *in, int *out, int n) {
    int i = threadIdx.x;
    __builtin_assume(n > 0);
    int v = in[i % n];
    if (__builtin_expect(v == 0x7fffffff, 0)) {
        out[i] = -1;
        return;
    }
    switch (v & 3) {
    case 0: out[i] = v; break;
    case 1: out[i] = v * 3; break;
    case 2: out[i] = v - 7; break;
    case 3: out[i] = ~v; break;
    default: __builtin_unreachable();
    }
}

extern "C" __global__ void newton_until_converged(const double *a, double *root, int *iters) {
    int i = threadIdx.x;
    double target = a[i], x = target > 1.0 ? target : 1.0, prev;
    int it = 0;
    do {
        prev = x;
        x = 0.5 * (x + target / x);
        ++it;
    } while (fabs(x - prev) > 1e-12 * x && it < 100);
    root[i] = x;
    iters[i] = it;
}

// A byte-code interpreter: a loop around a switch whose trip count and path depend on the data.
extern "C" __global__ void interpreter(const unsigned char *code, int code_len, const int *args, int *results) {
    int stack[16];
    int sp = 0, pc = 0, acc = args[threadIdx.x];
    while (pc < code_len) {
        unsigned char insn = code[pc++];
        switch (insn >> 4) {
        case 0x0: acc += insn & 15; break;
        case 0x1: acc *= (insn & 15) + 1; break;
        case 0x2: if (sp < 16) stack[sp++] = acc; break;
        case 0x3: if (sp > 0) acc += stack[--sp]; break;
        case 0x4: if (acc & 1) pc += insn & 15; break;
        case 0x5: pc -= insn & 15; if (pc < 0) pc = code_len; break;
        case 0xf: pc = code_len; break;
        default: acc ^= insn; break;
        }
    }
    results[threadIdx.x] = acc + sp;
}
