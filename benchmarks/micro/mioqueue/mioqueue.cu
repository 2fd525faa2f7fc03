// How many memory instructions a warp can issue before it stalls on the pipe (mio_throttle, lg_throttle) rather
// than on its registers (short_scoreboard, long_scoreboard): the depth of the queues in front of the shared
// memory pipe and the L1's global path, per warp, per sub-partition and per SM.
//
// Each warp issues 16 independent loads back to back and reads the SM clock (%clock) after each; then it adds
// the 16 values and reads the clock once more.  A load whose bank conflicts (stride 32: all 32 lanes in one
// bank, 32 wavefronts) or lines (stride 32 words: 32 lines, L1 hits) keep the pipe busy lets the issue go on
// while a queue has room: the clock after load j then grows by a few cycles per load; once the queue is full it
// grows by the pipe's cycles per load.  ts[warp * 18 + j] holds the clock after load j (j = 0..15), [16] after
// the sum, [17] before the first load.
// q_lds: ld.shared.f32 at s[lane * stride + j]; q_ldg: ld.global.f32 at a[lane * stride + j], after a first
// untimed pass over the same addresses (L1-resident).

#define CLK(t) asm volatile("mov.u32 %0, %%clock;" : "=r"(t) :: "memory")

extern "C" __global__ void __launch_bounds__(1024) q_lds(int stride, float *out, unsigned *ts)
{
    __shared__ float s[32 * 32 + 16];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (int i = threadIdx.x; i < 32 * 32 + 16; i += blockDim.x)
        s[i] = (float)i;
    __syncthreads();
    const unsigned base = (unsigned)__cvta_generic_to_shared(&s[lane * stride]);
    float v[16];
    unsigned t[18];
    CLK(t[17]);
#pragma unroll
    for (int j = 0; j < 16; j++) {
        asm volatile("ld.shared.f32 %0, [%1];" : "=f"(v[j]) : "r"(base + 4 * j) : "memory");
        CLK(t[j]);
    }
    float sum = 0.f;
#pragma unroll
    for (int j = 0; j < 16; j++)
        sum += v[j];
    asm volatile("mov.u32 %0, %%clock;" : "=r"(t[16]) : "f"(sum) : "memory");
    if (lane == 0) {
#pragma unroll
        for (int j = 0; j < 18; j++)
            ts[warp * 18 + j] = t[j];
    }
    out[threadIdx.x] = sum;
}

extern "C" __global__ void __launch_bounds__(1024) q_ldg(int stride, const float *a, float *out, unsigned *ts)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const float *p = a + lane * stride;
    float v[16];
    unsigned t[18];
    float warm = 0.f;
#pragma unroll
    for (int j = 0; j < 16; j++)
        warm += p[j];
    __syncthreads();
    CLK(t[17]);
#pragma unroll
    for (int j = 0; j < 16; j++) {
        asm volatile("ld.global.f32 %0, [%1];" : "=f"(v[j]) : "l"(p + j) : "memory");
        CLK(t[j]);
    }
    float sum = warm;
#pragma unroll
    for (int j = 0; j < 16; j++)
        sum += v[j];
    asm volatile("mov.u32 %0, %%clock;" : "=r"(t[16]) : "f"(sum) : "memory");
    if (lane == 0) {
#pragma unroll
        for (int j = 0; j < 18; j++)
            ts[warp * 18 + j] = t[j];
    }
    out[threadIdx.x] = sum;
}
