// Block sum reduction with sequential addressing (seed 001, "Reduce memory bank conflict"; Harris kernel 3).
//
// The stride starts at blockDim.x / 2 and halves: thread t < s adds sdata[t + s] into sdata[t].  Active
// threads are contiguous (no divergence until fewer than 32 remain) and a warp reads 32 consecutive words
// (no bank conflicts).  Half the threads are idle from the first step, the waste the seeds' "on-the-fly"
// variant removes.
// sdata is dynamic shared memory: launch with blockDim.x * sizeof(float) bytes; blockDim.x a power of 2.
extern "C" __global__ void reduce_sequential(const float* in, float* out, unsigned int n)
{
    extern __shared__ float sdata[];
    unsigned int t = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[t] = (i < n) ? in[i] : 0.0f;
    __syncthreads();

    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s)
            sdata[t] += sdata[t + s];
        __syncthreads();
    }
    if (t == 0)
        out[blockIdx.x] = sdata[0];
}
