// Block sum reduction, interleaved addressing with a divergent branch (seed 001, "Simple reduction
// algorithm"; Harris, "Optimizing parallel reduction in CUDA", kernel 1).
//
// Each block loads blockDim.x elements into shared memory and sums them with a tree: in the step with
// stride s, thread t adds sdata[t + s] into sdata[t] if t % (2*s) == 0.  The active threads are t = 0, 2,
// 4, ... then 0, 4, 8, ...: every warp stays busy with a shrinking share of active lanes, so most of the
// block's warps diverge at every step (and `%` is slow).  Thread 0 writes the block's partial sum to
// out[blockIdx.x]; the host (or a second launch) adds the partial sums.
// sdata is dynamic shared memory: launch with blockDim.x * sizeof(float) bytes; blockDim.x a power of 2.
extern "C" __global__ void reduce_interleaved(const float* in, float* out, unsigned int n)
{
    extern __shared__ float sdata[];
    unsigned int t = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[t] = (i < n) ? in[i] : 0.0f;
    __syncthreads();

    for (unsigned int stride = 1; stride < blockDim.x; stride *= 2) {
        if (t % (2 * stride) == 0)
            sdata[t] += sdata[t + stride];
        __syncthreads();
    }
    if (t == 0)
        out[blockIdx.x] = sdata[0];
}
