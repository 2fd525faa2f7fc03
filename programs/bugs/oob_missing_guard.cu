// c = a + b, element-wise, one thread per element; n is not a multiple of the block size.
//
// Planted bug (out of bounds, global): there is no if (i < n) guard, so the threads of the last block past
// n read a[i] and b[i] and write c[i] beyond the arrays.  The fixed twin oob_missing_guard_fixed.cu
// guards.
extern "C" __global__ void oob_missing_guard(const float* a, const float* b, float* c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    c[i] = a[i] + b[i];  // BUG: no bounds check: i runs past n in the last block
}
