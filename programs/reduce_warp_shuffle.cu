// Block sum reduction with warp shuffles (seed 001, "Warp level primitives": __shfl_down_sync).
//
// Each warp sums its 32 values in registers: at offset 16, 8, 4, 2, 1 every lane adds the value held by the
// lane `offset` above it, so after 5 steps lane 0 holds the warp's sum.  No shared memory and no
// __syncthreads() inside a warp.  Lane 0 of each warp parks its sum in warp_sums[], the block synchronises
// once, and the first warp reduces those (up to 32) partial sums the same way.
// blockDim.x must be a multiple of 32 (at most 1024).
#define FULL_MASK 0xffffffff
#define WARP_SIZE 32

__device__ __forceinline__ float warp_reduce_sum(float val)
{
    for (int offset = 16; offset > 0; offset /= 2)
        val += __shfl_down_sync(FULL_MASK, val, offset);
    return val;
}

extern "C" __global__ void reduce_warp_shuffle(const float* in, float* out, unsigned int n)
{
    __shared__ float warp_sums[WARP_SIZE];
    unsigned int t = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int lane = t % WARP_SIZE;
    unsigned int warp = t / WARP_SIZE;

    float val = (i < n) ? in[i] : 0.0f;
    val = warp_reduce_sum(val);
    if (lane == 0)
        warp_sums[warp] = val;
    __syncthreads();

    if (warp == 0) {
        // The whole first warp takes part (shuffles need every lane of FULL_MASK); lanes past the number of
        // warps contribute 0.
        val = (lane < blockDim.x / WARP_SIZE) ? warp_sums[lane] : 0.0f;
        val = warp_reduce_sum(val);
        if (lane == 0)
            out[blockIdx.x] = val;
    }
}
