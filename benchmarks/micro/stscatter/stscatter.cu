// Scattered stores under load on the H100: how many cycles an SM spends on a warp's store against the lines
// (and sectors) it touches.  Stores are write-through and do not allocate in L1, so every line goes to L2.
//
// Every lane of warp w writes a[w * 8 * win + lane * stride + window * win] (win = 32 * stride words), windows
// k*step+0..3 mod 8 on trip k (step = 1, a launch argument), four independent stores per trip.  stride
// (words) sets the request's shape: 1: one line, 4 sectors; 8: 8 lines, 32 sectors (4 B each); 32: 32 lines,
// one sector each, every lane in bank 0; 33: 32 lines in 32 banks (the diagonal of PolyBench's covariance
// symmat[j1 * m + j2], m + 1 words apart).  st_scatter4 writes a float4 per lane at lane * stride4 (float4s).
// The SM cycles of the loop come from clock64() around it, between two __syncthreads().

__device__ __forceinline__ void st_f32(float *p, float v)
{
    asm volatile("st.global.f32 [%0], %1;" :: "l"(p), "f"(v) : "memory");
}

__device__ __forceinline__ void st_f32x4(float4 *p, float4 v)
{
    asm volatile("st.global.v4.f32 [%0], {%1, %2, %3, %4};" :: "l"(p), "f"(v.x), "f"(v.y), "f"(v.z), "f"(v.w)
                 : "memory");
}

extern "C" __global__ void __launch_bounds__(1024) st_scatter(int reps, int stride, float *a, long long *clk, int step)
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
        st_f32(p + (w & 7) * win, v);
        st_f32(p + ((w + 1) & 7) * win, v);
        st_f32(p + ((w + 2) & 7) * win, v);
        st_f32(p + ((w + 3) & 7) * win, v);
    }
    __syncthreads();
    long long t1 = clock64();
    if (threadIdx.x == 0)
        clk[blockIdx.x] = t1 - t0;
}

extern "C" __global__ void __launch_bounds__(1024) st_scatter4(int reps, int stride, float4 *a, long long *clk, int step)
{
    const int lane = threadIdx.x & 31;
    const int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const int win = 32 * stride;
    float4 *p = a + (long long)warp * 8 * win + lane * stride;
    __syncthreads();
    long long t0 = clock64();
    for (int k = 0; k < reps; k++) {
        const int w = k * step;
        const float4 v = make_float4((float)k, 1.f, 2.f, 3.f);
        st_f32x4(p + (w & 7) * win, v);
        st_f32x4(p + ((w + 1) & 7) * win, v);
        st_f32x4(p + ((w + 2) & 7) * win, v);
        st_f32x4(p + ((w + 3) & 7) * win, v);
    }
    __syncthreads();
    long long t1 = clock64();
    if (threadIdx.x == 0)
        clk[blockIdx.x] = t1 - t0;
}
