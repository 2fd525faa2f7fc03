// bar.sync on the H100: what a block barrier costs once the last warp arrives, with 1 to 32 warps, alone and
// between shared-memory stores and loads.  One block on one SM; the SM cycles of the loop come from clock64()
// around it, between two barriers.
//
// bar_loop:  reps barriers back to back (nothing between them).
// bar_lds:   per trip, every thread stores its value to shared memory, bar.sync, loads the value of the thread
//            32 further on (another warp's), adds one, bar.sync: two barriers, a shared store and a dependent
//            shared load.
// bar_tree:  per trip, a tree over the block's shared values, as a block reduction does: in step s (from half
//            the block down to one warp) the threads below s add the value s above them, then bar.sync; warps
//            past s only wait.

extern "C" __global__ void __launch_bounds__(1024) bar_loop(int reps, float *out, long long *clk)
{
    __syncthreads();
    long long t0 = clock64();
    for (int k = 0; k < reps; k++)
        asm volatile("bar.sync 0;" ::: "memory");
    __syncthreads();
    long long t1 = clock64();
    if (threadIdx.x == 0)
        clk[blockIdx.x] = t1 - t0;
}

extern "C" __global__ void __launch_bounds__(1024) bar_lds(int reps, float *out, long long *clk)
{
    __shared__ float s[1024];
    const int tid = threadIdx.x;
    float v = (float)tid;
    __syncthreads();
    long long t0 = clock64();
    for (int k = 0; k < reps; k++) {
        s[tid] = v;
        __syncthreads();
        v = s[(tid + 32) & (blockDim.x - 1)] + 1.f;
        __syncthreads();
    }
    long long t1 = clock64();
    if (tid == 0)
        clk[blockIdx.x] = t1 - t0;
    if (v == -1.f)
        out[tid] = v;
}

extern "C" __global__ void __launch_bounds__(1024) bar_tree(int reps, float *out, long long *clk)
{
    __shared__ float s[1024];
    const int tid = threadIdx.x;
    float v = (float)tid;
    __syncthreads();
    long long t0 = clock64();
    for (int k = 0; k < reps; k++) {
        s[tid] = v;
        __syncthreads();
        for (int half = blockDim.x >> 1; half >= 32; half >>= 1) {
            if (tid < half)
                s[tid] += s[tid + half];
            __syncthreads();
        }
        v = s[tid & 31] * 0.5f;
    }
    long long t1 = clock64();
    if (tid == 0)
        clk[blockIdx.x] = t1 - t0;
    if (v == -1.f)
        out[tid] = v;
}
