// out = a, element-wise, into an output buffer that the host allocated and did not initialise.
//
// Planted bug (uninitialised global memory): the kernel accumulates (out[i] += a[i]) into a buffer whose
// contents nothing wrote since cudaMalloc, so it reads garbage.  The host side of this case (see
// bugs.toml: host.uninitialised) leaves `out` uninitialised for both twins.  The fixed twin
// uninit_global_accumulate_fixed.cu assigns instead of accumulating.
extern "C" __global__ void uninit_global_accumulate(const float* a, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] += a[i];  // BUG: reads out[i], which nothing wrote since the allocation
}
