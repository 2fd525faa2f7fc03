// Block sum reduction, interleaved addressing with a strided index (seed 001, "Reduce branch divergence";
// Harris kernel 2).
//
// Same tree as reduce_interleaved, but thread t works on index = 2 * stride * t, so the active threads are
// contiguous (0..blockDim/(2*stride)-1): whole warps drop out and only the last 5 steps diverge.  The price
// is shared-memory bank conflicts: within a warp, the addresses are 2*stride words apart, so at stride s
// the lanes hit only 32 / gcd(2s, 32) banks (2-way conflicts at s = 1, 4-way at s = 2, ...).
// sdata is dynamic shared memory: launch with blockDim.x * sizeof(float) bytes; blockDim.x a power of 2.
extern "C" __global__ void reduce_strided_index(const float* in, float* out, unsigned int n)
{
    extern __shared__ float sdata[];
    unsigned int t = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[t] = (i < n) ? in[i] : 0.0f;
    __syncthreads();

    for (unsigned int stride = 1; stride < blockDim.x; stride *= 2) {
        unsigned int index = 2 * stride * t;
        if (index < blockDim.x)
            sdata[index] += sdata[index + stride];
        __syncthreads();
    }
    if (t == 0)
        out[blockIdx.x] = sdata[0];
}
