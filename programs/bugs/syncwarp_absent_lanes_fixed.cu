// Pairs of lanes swap values through shared memory in a block of 48 threads: out[i] = in[i ^ 1]
// (partners lie in the same warp; i = blockIdx.x * 48 + t).
//
// The fixed twin of syncwarp_absent_lanes.cu: the mask names exactly the lanes this warp has.
#define BLOCK 48

extern "C" __global__ void syncwarp_absent_lanes_fixed(const int* in, int* out)
{
    __shared__ int s[BLOCK];
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * BLOCK + t];
    int lanes = min(32, BLOCK - (t & ~31));                       // lanes in this warp
    unsigned int mask = (lanes == 32) ? 0xffffffffu : ((1u << lanes) - 1u);
    __syncwarp(mask);  // FIX: only lanes that exist
    out[blockIdx.x * BLOCK + t] = s[t ^ 1];
}
