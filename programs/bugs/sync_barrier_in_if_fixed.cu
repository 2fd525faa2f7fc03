// Each block of 64 threads folds its 64 values into 16: out[16 * b + t] = s[t] + s[t + 16] + s[t + 32] +
// s[t + 48] for t < 16.
//
// The fixed twin of sync_barrier_in_if.cu: the whole block waits before the branch.
#define BLOCK 64

extern "C" __global__ void sync_barrier_in_if_fixed(const int* in, int* out)
{
    __shared__ int s[BLOCK];
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * BLOCK + t];
    __syncthreads();  // FIX: every thread of the block reaches the barrier
    if (t < 16)
        out[blockIdx.x * 16 + t] = s[t] + s[t + 16] + s[t + 32] + s[t + 48];
}
