// One block walks n elements in chunks of BLOCK; in each chunk thread t adds the element mirrored in the
// chunk (chunk[BLOCK - 1 - t], 0 past n) to its sum: out[t] = sum over chunks c of in[c*BLOCK + BLOCK-1-t].
//
// Planted bug (barrier in a loop with a thread-dependent trip count): the loop runs for j = t, t + BLOCK,
// ... < n, so when n is not a multiple of BLOCK the first n % BLOCK threads make one more trip than the
// others, and reach the two __syncthreads() in it once more than the rest of the block.  The fixed twin
// sync_loop_tripcount_fixed.cu loops over whole chunks, the same number of times for every thread.
#define BLOCK 64

extern "C" __global__ void sync_loop_tripcount(const int* in, int* out, int n)
{
    __shared__ int chunk[BLOCK];
    int t = threadIdx.x;
    int acc = 0;
    for (int j = t; j < n; j += BLOCK) {
        chunk[t] = in[j];
        __syncthreads();  // BUG: the last trip is made by part of the block only
        int m = j - t + BLOCK - 1 - t;
        acc += (m < n) ? chunk[BLOCK - 1 - t] : 0;
        __syncthreads();  // BUG: the last trip is made by part of the block only
    }
    out[t] = acc;
}
