// One block walks n elements in chunks of BLOCK; in each chunk thread t adds the element mirrored in the
// chunk (chunk[BLOCK - 1 - t], 0 past n) to its sum: out[t] = sum over chunks c of in[c*BLOCK + BLOCK-1-t].
//
// The fixed twin of sync_loop_tripcount.cu: the loop counts chunks, so every thread makes the same
// number of trips and reaches each barrier; the load past n is guarded instead.
#define BLOCK 64

extern "C" __global__ void sync_loop_tripcount_fixed(const int* in, int* out, int n)
{
    __shared__ int chunk[BLOCK];
    int t = threadIdx.x;
    int acc = 0;
    for (int base = 0; base < n; base += BLOCK) {  // FIX: a trip count the same for the whole block
        int j = base + t;
        chunk[t] = (j < n) ? in[j] : 0;
        __syncthreads();
        int m = base + BLOCK - 1 - t;
        acc += (m < n) ? chunk[BLOCK - 1 - t] : 0;
        __syncthreads();
    }
    out[t] = acc;
}
