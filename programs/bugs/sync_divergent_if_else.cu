// Pairs of neighbours exchange values through shared memory: for even t, out[i] = in[i + 1] + 1;
// for odd t, out[i] = 2 * in[i - 1] (i = blockIdx.x * BLOCK + t).
//
// Planted bug (barriers in divergent code): the even and the odd threads of every warp wait at two
// different __syncthreads(), one in each branch of an if/else.  The fixed twin
// sync_divergent_if_else_fixed.cu has one barrier after the branch.
#define BLOCK 64

extern "C" __global__ void sync_divergent_if_else(const int* in, int* out)
{
    __shared__ int s[BLOCK];
    int t = threadIdx.x;
    int i = blockIdx.x * BLOCK + t;
    if (t % 2 == 0) {
        s[t] = 2 * in[i];
        __syncthreads();  // BUG: the even lanes wait here ...
        out[i] = s[t + 1];
    } else {
        s[t] = in[i] + 1;
        __syncthreads();  // BUG: ... and the odd lanes of the same warps here
        out[i] = s[t - 1];
    }
}
