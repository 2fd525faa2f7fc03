// Pairs of lanes swap values through shared memory in a block of 48 threads: out[i] = in[i ^ 1]
// (partners lie in the same warp; i = blockIdx.x * 48 + t).
//
// Planted bug (__syncwarp mask naming absent lanes): __syncwarp() with the default full mask, but the
// second warp of a 48-thread block has lanes 0..15 only; lanes 16..31 of the mask do not exist.  The fixed
// twin syncwarp_absent_lanes_fixed.cu passes the mask of the lanes the warp has.
#define BLOCK 48

extern "C" __global__ void syncwarp_absent_lanes(const int* in, int* out)
{
    __shared__ int s[BLOCK];
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * BLOCK + t];
    __syncwarp();  // BUG: full mask, but the block's second warp has only 16 lanes
    out[blockIdx.x * BLOCK + t] = s[t ^ 1];
}
