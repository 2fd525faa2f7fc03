// Scale each block's elements by the reciprocal of the block's first element: out[i] = in[i] / in[first].
//
// The fixed twin of race_raw_broadcast.cu: a __syncthreads() between thread 0's store and the loads.
extern "C" __global__ void race_raw_broadcast_fixed(const float* in, float* out, int n)
{
    __shared__ float s_scale;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x == 0)
        s_scale = 1.0f / in[blockIdx.x * blockDim.x];
    __syncthreads();  // FIX: the factor is written before anyone reads it
    if (i < n)
        out[i] = in[i] * s_scale;
}
