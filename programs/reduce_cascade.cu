// Block sum reduction with algorithm cascading (seed 001, "Algorithm Cascading"; Harris kernel 7;
// PMPP 8.5).
//
// Sequential then parallel: each thread first sums many elements in a register with a grid-stride loop
// (every thread has real work; the grid can be much smaller than the data), then the block combines its
// threads' sums: warp shuffles inside each warp (no __syncthreads() in the last steps, the seeds' "avoid
// sync in the last iterations"), one shared slot per warp, and a final warp-level pass.
// out[blockIdx.x] receives the block's partial sum; blockDim.x must be a multiple of 32.
#define FULL_MASK 0xffffffff
#define WARP_SIZE 32

extern "C" __global__ void reduce_cascade(const float* in, float* out, unsigned int n)
{
    __shared__ float warp_sums[WARP_SIZE];
    unsigned int t = threadIdx.x;
    unsigned int lane = t % WARP_SIZE;
    unsigned int warp = t / WARP_SIZE;

    float sum = 0.0f;
    for (unsigned int i = blockIdx.x * blockDim.x + t; i < n; i += gridDim.x * blockDim.x)
        sum += in[i];

    for (int offset = 16; offset > 0; offset /= 2)
        sum += __shfl_down_sync(FULL_MASK, sum, offset);
    if (lane == 0)
        warp_sums[warp] = sum;
    __syncthreads();

    if (warp == 0) {
        sum = (lane < blockDim.x / WARP_SIZE) ? warp_sums[lane] : 0.0f;
        for (int offset = 16; offset > 0; offset /= 2)
            sum += __shfl_down_sync(FULL_MASK, sum, offset);
        if (lane == 0)
            out[blockIdx.x] = sum;
    }
}
