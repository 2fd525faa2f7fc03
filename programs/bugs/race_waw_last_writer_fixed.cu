// Per block, the largest index i with data[i] < 0 (-1 if there is none).
//
// The fixed twin of race_waw_last_writer.cu: the competing stores become one atomicMax.
extern "C" __global__ void race_waw_last_writer_fixed(const int* data, int* last_neg, int n)
{
    __shared__ int s_idx;
    if (threadIdx.x == 0)
        s_idx = -1;
    __syncthreads();

    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && data[i] < 0)
        atomicMax(&s_idx, i);  // FIX: ordered by the atomic, and the largest index wins
    __syncthreads();

    if (threadIdx.x == 0)
        last_neg[blockIdx.x] = s_idx;
}
