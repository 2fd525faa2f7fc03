// When the H100's L2 writes dirty data back to DRAM: a whole-chip kernel stores (or copies) a buffer of 2 to
// 64 MB with coalesced full-line writes, and ncu counts the DRAM bytes written during the kernel (its caches
// flushed before each launch, so nothing is dirty when it starts).  A write-back L2 that writes back only on
// eviction writes nothing for a buffer that fits; the model's L2 is such a one.
//
// wb_store: a[i] = i for i < n (grid-stride, one float per thread per trip).
// wb_copy:  b[i] = a[i] for i < n.
// wb_rmw:   a[i] += 1 for i < n (every line read, then dirtied).

extern "C" __global__ void wb_store(long long n, float *a, const float *unused)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
        a[i] = (float)i;
}

extern "C" __global__ void wb_copy(long long n, float *b, const float *a)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
        b[i] = a[i];
}

extern "C" __global__ void wb_rmw(long long n, float *a, const float *unused)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
        a[i] += 1.f;
}
