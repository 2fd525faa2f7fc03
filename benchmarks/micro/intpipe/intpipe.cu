// Issue throughput of the integer and FP32 pipes of one H100 SM sub-partition (intpipe.py runs it).
//
// One block of 1024 threads (8 warps per sub-partition) on one SM; every thread runs 8 independent chains,
// 64 instructions per trip (inline PTX, so the instruction mix is the PTX one and ptxas picks the SASS),
// TRIPS trips.  Thread 0 reads clock64 between two __syncthreads around the loop; intpipe.py turns that into
// warp instructions issued per cycle per sub-partition.  The chains end in a store so that nothing is dead.
//
// Kernels: lop (xor.b32: LOP3 on the ALU pipe), iadd (add.s32: IADD3 or IMAD.IADD, ptxas's choice),
// imad (mad.lo.s32 of registers: IMAD), ffma (fma.rn.f32), and 32 + 32 alternating mixes of them.
#define TRIPS 256

// Each step updates one of 8 registers from its neighbour (x0 ^= x1, x1 ^= x2, ..., x7 ^= x0): a ring, so no
// step can be folded into another and 7 of every 8 are independent of the step before.
#define OP_LOP(x, y)  asm volatile("xor.b32 %0, %0, %1;" : "+r"(x) : "r"(y))
#define OP_IADD(x, y) asm volatile("add.s32 %0, %0, %1;" : "+r"(x) : "r"(y))
#define OP_IMAD(x, y) asm volatile("mad.lo.s32 %0, %0, %1, %2;" : "+r"(x) : "r"(y), "r"(k))
#define OP_ADDI(x, y) asm volatile("add.s32 %0, %0, 0x1234;" : "+r"(x))
#define OP_FFMA(x, y) asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(x) : "f"(y), "f"(g))

#define EIGHT(OP, v) OP(v##0, v##1); OP(v##1, v##2); OP(v##2, v##3); OP(v##3, v##4); \
                     OP(v##4, v##5); OP(v##5, v##6); OP(v##6, v##7); OP(v##7, v##0)

#define KERNEL(name, BODY)                                                                          \
extern "C" __global__ void name(unsigned a, float g, unsigned *sink, long long *cycles) {           \
    unsigned x0 = threadIdx.x, x1 = x0 ^ a, x2 = x0 + a, x3 = x0 * a, x4 = x0 | a, x5 = x0 - a,     \
             x6 = x0 & a, x7 = x0 ^ 7u;                                                           \
    float f0 = x0, f1 = x1, f2 = x2, f3 = x3, f4 = x4, f5 = x5, f6 = x6, f7 = x7;                  \
    unsigned k = a;                                                                                 \
    __syncthreads();                                                                                \
    long long t0 = clock64();                                                                       \
    _Pragma("unroll 1") for (int t = 0; t < TRIPS; ++t) {                                                         \
        BODY                                                                                        \
    }                                                                                               \
    __syncthreads();                                                                                \
    long long t1 = clock64();                                                                       \
    if (threadIdx.x == 0) cycles[0] = t1 - t0;                                                      \
    sink[blockIdx.x * blockDim.x + threadIdx.x] = x0 ^ x1 ^ x2 ^ x3 ^ x4 ^ x5 ^ x6 ^ x7 ^          \
        __float_as_uint(f0 + f1 + f2 + f3 + f4 + f5 + f6 + f7);                                     \
}

#define REP8(S) S S S S S S S S
#define REP4(S) S S S S

KERNEL(tp_lop,  REP8(EIGHT(OP_LOP, x);))
KERNEL(tp_iadd, REP8(EIGHT(OP_IADD, x);))
KERNEL(tp_imad, REP8(EIGHT(OP_IMAD, x);))
KERNEL(tp_ffma, REP8(EIGHT(OP_FFMA, f);))
KERNEL(tp_lop_imad,  REP4(EIGHT(OP_LOP, x); EIGHT(OP_IMAD, x);))
KERNEL(tp_lop_iadd,  REP4(EIGHT(OP_LOP, x); EIGHT(OP_IADD, x);))
KERNEL(tp_ffma_imad, REP4(EIGHT(OP_FFMA, f); EIGHT(OP_IMAD, x);))
KERNEL(tp_ffma_lop,  REP4(EIGHT(OP_FFMA, f); EIGHT(OP_LOP, x);))
KERNEL(tp_ffma_iadd, REP4(EIGHT(OP_FFMA, f); EIGHT(OP_IADD, x);))
KERNEL(tp_lop_addi,  REP4(EIGHT(OP_LOP, x); EIGHT(OP_ADDI, x);))
KERNEL(tp_ffma_addi, REP4(EIGHT(OP_FFMA, f); EIGHT(OP_ADDI, x);))
