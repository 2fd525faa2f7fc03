// Scattered float atomics (RED) on the H100: how many cycles an SM spends sending a warp's RED against the
// lines and sectors its lanes touch, whether loads behind the REDs wait for them, and where one address
// serialises.  REDs do not return data, so a warp issues them back to back; what slows it is the SM's path to
// L2 (its L1 stage, its crossbar port, its in-flight lines) or the slice's atomic unit.
//
// Every lane of warp w adds to a[w * 8 * win + lane * stride + window * win] (win = 32 * stride words),
// windows k*step+0..3 mod 8 on trip k (step = 1, a launch argument).  stride (words) sets the request's shape:
// 0: every lane of every warp on one word; 1: one line, 4 sectors, 32 words; 2: 2 lines, 8 sectors;
// 8: 8 lines, 32 sectors; 33: 32 lines in 32 banks.  red_scatter_ld adds, before its two REDs per trip, a load
// from a 256-word table (L1-resident after the first trip) whose value the REDs add: the trip waits for the
// load, so a load queued behind the REDs shows in the loop's cycles.  The SM cycles of the loop come from
// clock64() around it, between two __syncthreads().

__device__ __forceinline__ void red_f32(float *p, float v)
{
    asm volatile("red.global.add.f32 [%0], %1;" :: "l"(p), "f"(v) : "memory");
}

extern "C" __global__ void __launch_bounds__(1024) red_scatter(int reps, int stride, float *a, const float *lut,
                                                               long long *clk, int step)
{
    const int lane = threadIdx.x & 31;
    const int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const int win = 32 * stride;
    float *p = a + (long long)warp * 8 * win + lane * stride;
    __syncthreads();
    long long t0 = clock64();
    for (int k = 0; k < reps; k++) {
        const int w = k * step;
        const float v = (float)k;
        red_f32(p + (w & 7) * win, v);
        red_f32(p + ((w + 1) & 7) * win, v);
        red_f32(p + ((w + 2) & 7) * win, v);
        red_f32(p + ((w + 3) & 7) * win, v);
    }
    __syncthreads();
    long long t1 = clock64();
    if (threadIdx.x == 0)
        clk[blockIdx.x] = t1 - t0;
}

extern "C" __global__ void __launch_bounds__(1024) red_scatter_ld(int reps, int stride, float *a, const float *lut,
                                                                  long long *clk, int step)
{
    const int lane = threadIdx.x & 31;
    const int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const int win = 32 * stride;
    float *p = a + (long long)warp * 8 * win + lane * stride;
    float v = 0.f;
    __syncthreads();
    long long t0 = clock64();
    for (int k = 0; k < reps; k++) {
        const int w = k * step;
        v = __ldg(lut + ((lane + k + (int)v) & 255));   // the next trip's address depends on this load
        red_f32(p + (w & 7) * win, v);
        red_f32(p + ((w + 1) & 7) * win, v);
    }
    __syncthreads();
    long long t1 = clock64();
    if (threadIdx.x == 0)
        clk[blockIdx.x] = t1 - t0;
}
