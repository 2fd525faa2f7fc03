// out = 2 * in, element-wise.
//
// Planted bug (use of a freed device pointer): the kernel is ordinary; the host frees `in` before the
// launch (bugs.toml: host.freed), so every load of in[i] reads freed memory.  The fixed twin
// use_after_free_fixed.cu is the same kernel, launched while `in` is still allocated (the fix is on the
// host side).
extern "C" __global__ void use_after_free(const float* in, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = 2.0f * in[i];  // BUG: `in` was freed by the host before the launch
}
