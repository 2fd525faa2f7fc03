// Control divergence: the same two code paths selected per lane or per warp (seed 001, "Branch Divergence";
// seed 000, "Control divergence").
//
// divergence_lane branches on threadIdx.x % 2: every warp has 16 lanes on each side, so the SIMT hardware
// runs both paths one after the other with half the lanes masked off (2 passes per warp).
// divergence_warp branches on (threadIdx.x / WARP_SIZE) % 2: the condition is uniform inside each warp, so
// every warp runs one path only (1 pass), with the same total work per block.
// The paths are integer loops of `iters` iterations (a kernel parameter, so the compiler can neither unroll
// nor fold them), which makes their cost visible and their results exact (uint32 arithmetic wraps).
#define WARP_SIZE 32

__device__ __forceinline__ unsigned int path_a(unsigned int v, int iters)
{
    for (int k = 0; k < iters; ++k)
        v = v * (v | 1u) + (unsigned int)k;
    return v;
}

__device__ __forceinline__ unsigned int path_b(unsigned int v, int iters)
{
    for (int k = 0; k < iters; ++k)
        v = (v ^ (v >> 3)) + 7u;
    return v;
}

extern "C" __global__ void divergence_lane(const unsigned int* in, unsigned int* out, int n, int iters)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned int v = in[i];
        if (threadIdx.x % 2 == 0)
            v = path_a(v, iters);
        else
            v = path_b(v, iters);
        out[i] = v;
    }
}

extern "C" __global__ void divergence_warp(const unsigned int* in, unsigned int* out, int n, int iters)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned int v = in[i];
        if ((threadIdx.x / WARP_SIZE) % 2 == 0)
            v = path_a(v, iters);
        else
            v = path_b(v, iters);
        out[i] = v;
    }
}
