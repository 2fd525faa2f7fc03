// Latency of the H100's XU (MUFU/conversion) instructions and of an integer division, one thread: a loop of
// 64 dependent steps per trip, clock64 read around 16 trips (after one warm-up trip).  Each kernel writes
// the SM cycles per step to out[0].  The PTX inside asm() is what the step is (ptxas keeps it).
//   lat_i2f_f2i: u -> cvt.rp.f32.u32 -> cvt.rzi.u32.f32 -> +1 -> u   (I2F, F2I, IADD: ptxas folds a bare pair)
//   lat_rcp:     f -> rcp.approx.ftz.f32 -> +1 -> f              (MUFU.RCP, FADD: a bare pair folds too)
//   lat_fadd:    f -> +1 -> f                                    (FADD, to subtract)
//   lat_iadd:    u -> +k -> ^seed -> u                           (IADD3 + LOP3, to compare)
//   lat_imad:    u -> mad.lo.u32 u, u, k, 1                      (IMAD)
//   lat_imadhi:  u -> mul.hi.u32 u, u, k; add 1                  (IMAD.HI + IADD)
//   lat_udiv:    u -> u / d + d (d a kernel argument: the full division sequence)
//   lat_urem:    u -> u % d + k

#define STEPS 64
#define TRIPS 16

#define TIMED(body)                                                        \
    long long t0 = 0;                                                      \
    for (int trip = 0; trip <= TRIPS; ++trip) {                            \
        if (trip == 1) t0 = clock64();                                     \
        _Pragma("unroll")                                                  \
        for (int s = 0; s < STEPS; ++s) { body; }                          \
    }                                                                      \
    long long t1 = clock64();

extern "C" __global__ void lat_i2f_f2i(unsigned seed, unsigned k, unsigned *sink, float *out)
{
    unsigned u = seed;
    float f;
    TIMED(asm volatile("cvt.rp.f32.u32 %0, %1;" : "=f"(f) : "r"(u)); asm volatile("cvt.rzi.u32.f32 %0, %1;" : "=r"(u) : "f"(f)); asm volatile("add.u32 %0, %0, 1;" : "+r"(u)))
    sink[0] = u;
    out[0] = (float)(t1 - t0) / (TRIPS * STEPS);
}

extern "C" __global__ void lat_rcp(unsigned seed, unsigned k, unsigned *sink, float *out)
{
    float f = (float)seed + 1.5f;
    TIMED(asm volatile("rcp.approx.ftz.f32 %0, %0;" : "+f"(f)); asm volatile("add.f32 %0, %0, 0f3F800000;" : "+f"(f)))
    sink[0] = __float_as_uint(f);
    out[0] = (float)(t1 - t0) / (TRIPS * STEPS);
}

extern "C" __global__ void lat_fadd(unsigned seed, unsigned k, unsigned *sink, float *out)
{
    float f = (float)seed;
    TIMED(asm volatile("add.f32 %0, %0, 0f3F800000;" : "+f"(f)))
    sink[0] = __float_as_uint(f);
    out[0] = (float)(t1 - t0) / (TRIPS * STEPS);
}

extern "C" __global__ void lat_iadd(unsigned seed, unsigned k, unsigned *sink, float *out)
{
    unsigned u = seed;
    TIMED(asm volatile("add.u32 %0, %0, %1;" : "+r"(u) : "r"(k)); asm volatile("xor.b32 %0, %0, %1;" : "+r"(u) : "r"(seed)))
    sink[0] = u;
    out[0] = (float)(t1 - t0) / (TRIPS * STEPS);
}

extern "C" __global__ void lat_imad(unsigned seed, unsigned k, unsigned *sink, float *out)
{
    unsigned u = seed;
    TIMED(asm volatile("mad.lo.u32 %0, %0, %1, 1;" : "+r"(u) : "r"(k)))
    sink[0] = u;
    out[0] = (float)(t1 - t0) / (TRIPS * STEPS);
}

extern "C" __global__ void lat_imadhi(unsigned seed, unsigned k, unsigned *sink, float *out)
{
    unsigned u = seed;
    TIMED(asm volatile("mul.hi.u32 %0, %0, %1;" : "+r"(u) : "r"(k)); u += 1)
    sink[0] = u;
    out[0] = (float)(t1 - t0) / (TRIPS * STEPS);
}

extern "C" __global__ void lat_udiv(unsigned seed, unsigned d, unsigned *sink, float *out)
{
    unsigned u = seed;
    TIMED(u = u / d + d)
    sink[0] = u;
    out[0] = (float)(t1 - t0) / (TRIPS * STEPS);
}

extern "C" __global__ void lat_urem(unsigned seed, unsigned d, unsigned *sink, float *out)
{
    unsigned u = seed;
    TIMED(u = u % d + 0x9e3779b9u)
    sink[0] = u;
    out[0] = (float)(t1 - t0) / (TRIPS * STEPS);
}

// Predicates (added 2026-11-23, after the division tail's integer steps measured ~7 cycles each):
//   lat_setp_selp: u -> setp.lt.u32 p, u, k -> selp u, k, seed, p   (ISETP, SEL: the new u depends on p only)
//   lat_setp_padd: u -> setp.lt.u32 p, u, k -> @p add u, u, 1        (ISETP, a predicated IADD3)
extern "C" __global__ void lat_setp_selp(unsigned seed, unsigned k, unsigned *sink, float *out)
{
    unsigned u = seed;
    TIMED(asm volatile("{ .reg .pred p; setp.lt.u32 p, %0, %1; selp.b32 %0, %1, %2, p; }" : "+r"(u) : "r"(k), "r"(seed)))
    sink[0] = u;
    out[0] = (float)(t1 - t0) / (TRIPS * STEPS);
}

extern "C" __global__ void lat_setp_padd(unsigned seed, unsigned k, unsigned *sink, float *out)
{
    unsigned u = seed;
    TIMED(asm volatile("{ .reg .pred p; setp.lt.u32 p, %0, %1; @p add.u32 %0, %0, 1; }" : "+r"(u) : "r"(k)))
    sink[0] = u;
    out[0] = (float)(t1 - t0) / (TRIPS * STEPS);
}
