// out[i] = 2 * in[i], one thread per element, several blocks.
//
// The fixed twin of race_global_crossblock_waw.cu: the store uses the global index.
extern "C" __global__ void race_global_crossblock_waw_fixed(const int* in, int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = 2 * in[i];  // FIX: each element written by one thread
}
