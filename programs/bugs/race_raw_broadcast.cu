// Scale each block's elements by the reciprocal of the block's first element: out[i] = in[i] / in[first].
//
// Thread 0 computes the factor once and shares it through s_scale.  Planted bug (racecheck, shared RAW):
// there is no __syncthreads() between thread 0's store and the other threads' loads, so they may read
// s_scale before it is written.  The fixed twin race_raw_broadcast_fixed.cu has the barrier.
extern "C" __global__ void race_raw_broadcast(const float* in, float* out, int n)
{
    __shared__ float s_scale;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x == 0)
        s_scale = 1.0f / in[blockIdx.x * blockDim.x];  // BUG: write, not separated from the reads below
    if (i < n)
        out[i] = in[i] * s_scale;  // BUG: read of the factor thread 0 may not have written yet
}
