// Per block, the largest index i with data[i] < 0 (-1 if there is none).
//
// Planted bug (racecheck, shared WAW): every thread with a negative element stores its index into the one
// shared word s_idx; which store lands last is up to the schedule, so the result is any of the indices.
// The fixed twin race_waw_last_writer_fixed.cu uses atomicMax.
extern "C" __global__ void race_waw_last_writer(const int* data, int* last_neg, int n)
{
    __shared__ int s_idx;
    if (threadIdx.x == 0)
        s_idx = -1;
    __syncthreads();

    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && data[i] < 0)
        s_idx = i;  // BUG: several threads write the one shared word with no order between them
    __syncthreads();

    if (threadIdx.x == 0)
        last_neg[blockIdx.x] = s_idx;
}
