// Block sum reduction with the first add during the load (seed 001, "On-the fly computation"; Harris
// kernel 4).
//
// In reduce_sequential half the threads go idle right after loading. Here each thread loads two elements,
// one blockDim.x apart, adds them in a register and stores the sum to shared memory: a block of blockDim.x
// threads reduces 2 * blockDim.x elements, so half as many blocks do the same work and no thread is idle in
// the first step. The tree below is the sequential-addressing one (contiguous active threads, no bank
// conflicts).
// sdata is dynamic shared memory: launch with blockDim.x * sizeof(float) bytes; blockDim.x a power of 2.
extern "C" __global__ void reduce_first_add(const float* in, float* out, unsigned int n)
{
    extern __shared__ float sdata[];
    unsigned int t = threadIdx.x;
    unsigned int i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
    float sum = (i < n) ? in[i] : 0.0f;
    if (i + blockDim.x < n)
        sum += in[i + blockDim.x];
    sdata[t] = sum;
    __syncthreads();

    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s)
            sdata[t] += sdata[t + s];
        __syncthreads();
    }
    if (t == 0)
        out[blockIdx.x] = sdata[0];
}
