// Random accesses over a table from L2-sized to 1 GB, the whole chip at full occupancy, on the H100: how many
// random 4-byte loads, RED.ADDs, ATOM.ADDs, stores, and 8-byte atomicXors (HPCC RandomAccess's update) the
// memory system retires per second once the table no longer fits in L2.
//
// Every thread makes `iters` accesses to t[mix32(seed + thread * iters + i) & mask] (mask + 1 words, a power
// of two), the index computed (no index array is read), so every access is independent of the others: a
// warp's request touches 32 random sectors, and the loop is bounded by how many the memory system retires.
// 256-thread blocks, 8 per SM (2048 threads, full occupancy), the grid several waves.
typedef unsigned long long u64;

// A 32-bit mix (murmur3 finaliser), as benchmarks/micro/micro.cu's gather.
__device__ __forceinline__ unsigned mix32(unsigned x)
{
    x ^= x >> 16; x *= 0x85ebca6bu; x ^= x >> 13; x *= 0xc2b2ae35u; x ^= x >> 16; return x;
}

extern "C" __global__ void __launch_bounds__(256) dr_load(const unsigned *t, unsigned mask, int iters, unsigned seed,
                                                          unsigned *sink)
{
    const unsigned first = seed + (blockIdx.x * blockDim.x + threadIdx.x) * (unsigned)iters;
    unsigned acc = 0;
#pragma unroll 4
    for (int i = 0; i < iters; i++)
        acc += t[mix32(first + i) & mask];
    if (acc == 0x9e3779b9u)             // keeps the loads; never true on the zero-filled table
        sink[0] = acc;
}

extern "C" __global__ void __launch_bounds__(256) dr_red(unsigned *t, unsigned mask, int iters, unsigned seed,
                                                         unsigned *sink)
{
    const unsigned first = seed + (blockIdx.x * blockDim.x + threadIdx.x) * (unsigned)iters;
#pragma unroll 4
    for (int i = 0; i < iters; i++)
        atomicAdd(&t[mix32(first + i) & mask], 1u);        // result unused: RED.E.ADD
}

extern "C" __global__ void __launch_bounds__(256) dr_atom(unsigned *t, unsigned mask, int iters, unsigned seed,
                                                          unsigned *sink)
{
    const unsigned first = seed + (blockIdx.x * blockDim.x + threadIdx.x) * (unsigned)iters;
    unsigned acc = 0;
#pragma unroll 4
    for (int i = 0; i < iters; i++)
        acc += atomicAdd(&t[mix32(first + i) & mask], 1u); // result used: ATOM.E.ADD
    if (acc == 0x9e3779b9u)
        sink[0] = acc;
}

extern "C" __global__ void __launch_bounds__(256) dr_store(unsigned *t, unsigned mask, int iters, unsigned seed,
                                                           unsigned *sink)
{
    const unsigned first = seed + (blockIdx.x * blockDim.x + threadIdx.x) * (unsigned)iters;
#pragma unroll 4
    for (int i = 0; i < iters; i++)
        t[mix32(first + i) & mask] = first + i;
}

// mask counts 8-byte words here: the table is (mask + 1) * 8 bytes
extern "C" __global__ void __launch_bounds__(256) dr_xor64(u64 *t, unsigned mask, int iters, unsigned seed,
                                                           unsigned *sink)
{
    const unsigned first = seed + (blockIdx.x * blockDim.x + threadIdx.x) * (unsigned)iters;
#pragma unroll 4
    for (int i = 0; i < iters; i++) {
        const unsigned h = mix32(first + i);
        atomicXor(&t[h & mask], (u64)h * 0x9e3779b97f4a7c15ull);
    }
}
