// Sum of neighbours through a shared tile: out[i] = in[i] + in[i + 1], with in[n] counting as 0.
//
// The fixed twin of oob_shared_tail.cu: the last thread of a block loads its right neighbour from global
// memory (0 past n).
#define BLOCK 64

extern "C" __global__ void oob_shared_tail_fixed(const int* in, int* out, int n)
{
    __shared__ int s[BLOCK];
    int t = threadIdx.x;
    int i = blockIdx.x * BLOCK + t;
    s[t] = (i < n) ? in[i] : 0;
    __syncthreads();
    if (i < n) {
        int right = (t + 1 < BLOCK) ? s[t + 1] : (i + 1 < n ? in[i + 1] : 0);  // FIX: stay inside s
        out[i] = s[t] + right;
    }
}
