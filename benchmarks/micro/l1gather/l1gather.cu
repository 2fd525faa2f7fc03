// The L1 tag stage under load on the H100: how many cycles an SM's L1 spends on a warp's load that hits,
// against the number of distinct 128-byte lines (and 32-byte sectors) it touches.
//
// Every lane of every warp reads a[lane * stride + window * 32 * stride], windows k*step+0..3 mod 8 on trip k
// (step = 1), four independent loads per trip: the 8 windows (stride KB in all) stay in L1 after the first trip, so every
// load is an L1 hit and the loop's time is the L1's throughput.  stride (words) sets the request's shape:
//   1: one line, 4 sectors      2: two lines, 8 sectors      8: 8 lines, 32 sectors
//   32: 32 lines, one sector each (a column walk)            64: the same, 256 B apart (syr2k's b[j*nj+k])
// gather4 reads a float4 per lane (512 B: 4 lines, 16 sectors).  chain: one dependent load at a time (the
// address waits for the last value, a zero), the unloaded latency of a request of that shape.
// The SM cycles of the loop come from clock64() around it, between two __syncthreads().


// loads through asm volatile, and the window of each trip from step (1, a launch argument): with addresses
// known to repeat and no store in the loop, ptxas would keep the loaded values in registers instead
__device__ __forceinline__ float ld_f32(const float *p)
{
    float v;
    asm volatile("ld.global.f32 %0, [%1];" : "=f"(v) : "l"(p));
    return v;
}

__device__ __forceinline__ float4 ld_f32x4(const float4 *p)
{
    float4 v;
    asm volatile("ld.global.v4.f32 {%0, %1, %2, %3}, [%4];" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p));
    return v;
}

__device__ __forceinline__ int ld_s32(const int *p)
{
    int v;
    asm volatile("ld.global.s32 %0, [%1];" : "=r"(v) : "l"(p));
    return v;
}

extern "C" __global__ void __launch_bounds__(1024) l1_gather(int reps, int stride, const float *a, float *out, long long *clk, int step)
{
    const int lane = threadIdx.x & 31;
    const float *p = a + lane * stride;
    const int win = 32 * stride;
    float s0 = 0.f, s1 = 0.f, s2 = 0.f, s3 = 0.f;
    for (int w = 0; w < 8; w++)
        s0 += ld_f32(p + w * win);                                  // warm L1
    __syncthreads();
    long long t0 = clock64();
    for (int k = 0; k < reps; k++) {
        const int w = k * step;
        s0 += ld_f32(p + (w & 7) * win);
        s1 += ld_f32(p + ((w + 1) & 7) * win);
        s2 += ld_f32(p + ((w + 2) & 7) * win);
        s3 += ld_f32(p + ((w + 3) & 7) * win);
    }
    __syncthreads();
    long long t1 = clock64();
    if (threadIdx.x == 0)
        clk[blockIdx.x] = t1 - t0;
    out[blockIdx.x * blockDim.x + threadIdx.x] = s0 + s1 + s2 + s3;
}

extern "C" __global__ void __launch_bounds__(1024) l1_gather4(int reps, int stride, const float4 *a, float *out, long long *clk, int step)
{
    const int lane = threadIdx.x & 31;
    const float4 *p = a + lane;
    const int win = 32 * stride;                           // stride 1: windows 512 B apart
    float4 s = make_float4(0.f, 0.f, 0.f, 0.f), t = s, u = s, v = s;
    for (int w = 0; w < 8; w++) {
        float4 x = ld_f32x4(p + w * win);
        s.x += x.x; s.y += x.y; s.z += x.z; s.w += x.w;
    }
    __syncthreads();
    long long t0 = clock64();
    for (int k = 0; k < reps; k++) {
        const int w = k * step;
        float4 x0 = ld_f32x4(p + (w & 7) * win), x1 = ld_f32x4(p + ((w + 1) & 7) * win);
        float4 x2 = ld_f32x4(p + ((w + 2) & 7) * win), x3 = ld_f32x4(p + ((w + 3) & 7) * win);
        s.x += x0.x; s.y += x0.y; s.z += x0.z; s.w += x0.w;
        t.x += x1.x; t.y += x1.y; t.z += x1.z; t.w += x1.w;
        u.x += x2.x; u.y += x2.y; u.z += x2.z; u.w += x2.w;
        v.x += x3.x; v.y += x3.y; v.z += x3.z; v.w += x3.w;
    }
    __syncthreads();
    long long t1 = clock64();
    if (threadIdx.x == 0)
        clk[blockIdx.x] = t1 - t0;
    out[blockIdx.x * blockDim.x + threadIdx.x] = s.x + s.y + s.z + s.w + t.x + t.y + t.z + t.w +
                                                 u.x + u.y + u.z + u.w + v.x + v.y + v.z + v.w;
}

// a[] holds zeros at the addresses read, so each address is the last one plus a value known only at run time
extern "C" __global__ void __launch_bounds__(1024) l1_chain(int reps, int stride, const int *a, float *out, long long *clk)
{
    const int lane = threadIdx.x & 31;
    const int win = 32 * stride;
    int off = lane * stride;
    for (int w = 0; w < 8; w++)
        off += ld_s32(a + lane * stride + w * win);                 // warm L1 (adds zeros)
    __syncthreads();
    long long t0 = clock64();
    for (int k = 0; k < reps; k++)
        off = lane * stride + (k & 7) * win + ld_s32(a + off);
    __syncthreads();
    long long t1 = clock64();
    if (threadIdx.x == 0)
        clk[blockIdx.x] = t1 - t0;
    out[blockIdx.x * blockDim.x + threadIdx.x] = (float)off;
}
