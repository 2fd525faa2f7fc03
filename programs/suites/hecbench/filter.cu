// HeCBench "filter": stream compaction by a predicate with warp-aggregated atomics.
//
// Follows HeCBench's filter (after the NVIDIA "optimized filtering with warp-aggregated atomics" post):
// every thread tests one element; the threads of a warp that keep theirs elect a leader, which reserves
// room for all of them with a single atomicAdd on the global counter, broadcasts the base with a shuffle,
// and each thread writes at base + its rank among the warp's active lanes.  One atomic per warp instead of
// one per kept element, all on one address.
// Launch: grid ceil(n / 256), block 256.

__device__ __forceinline__ int atomicAggInc(int *ctr)
{
    const unsigned int active = __activemask();
    const int leader = __ffs(active) - 1;
    const int lane = threadIdx.x % 32;
    const unsigned int rank = __popc(active & ((1u << lane) - 1));
    int base = 0;
    if (lane == leader)
        base = atomicAdd(ctr, __popc(active));
    base = __shfl_sync(active, base, leader);
    return base + rank;
}

extern "C" __global__ void hecbench_filter(int *dst, int *nres, const int *src, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && src[i] > 0)
        dst[atomicAggInc(nres)] = src[i];
}
