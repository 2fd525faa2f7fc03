// Forward difference of squares through a global scratch buffer, one block:
// out[i] = in[i + 1]^2 - in[i]^2 for i < n, where in[n]^2 counts as 0.
//
// scratch has n + 1 elements and the host does not initialise it (bugs.toml: host.uninitialised).
// Planted bug (uninitialised global memory): the threads store scratch[0..n-1], but thread n - 1 loads
// scratch[n], which nothing wrote.  The fixed twin uninit_global_tail_read_fixed.cu uses 0 past the end.
extern "C" __global__ void uninit_global_tail_read(const int* in, int* scratch, int* out, int n)
{
    int i = threadIdx.x;
    if (i < n)
        scratch[i] = in[i] * in[i];
    __syncthreads();
    if (i < n)
        out[i] = scratch[i + 1] - scratch[i];  // BUG: scratch[n] is read but never written
}
