// Forward difference of squares through a global scratch buffer, one block:
// out[i] = in[i + 1]^2 - in[i]^2 for i < n, where in[n]^2 counts as 0.
//
// The fixed twin of uninit_global_tail_read.cu: the last thread uses 0 instead of loading scratch[n].
extern "C" __global__ void uninit_global_tail_read_fixed(const int* in, int* scratch, int* out, int n)
{
    int i = threadIdx.x;
    if (i < n)
        scratch[i] = in[i] * in[i];
    __syncthreads();
    if (i < n)
        out[i] = (i + 1 < n ? scratch[i + 1] : 0) - scratch[i];  // FIX: nothing past the written part
}
