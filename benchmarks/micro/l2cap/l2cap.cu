// How much of the H100's 50 MB L2 a kernel can read back: 1056 blocks of 256 threads read a buffer of 8-64 MB
// in a grid-stride pass, then read it again, each block the part block (b + shift) % grid read in the first
// pass (shift 0: the same SM reads its own data again; shift 1 and grid / 2: another SM, possibly in the other
// L2 partition).  ncu (caches flushed before the launch) counts the DRAM bytes read: the buffer once, plus
// what the second pass misses.

extern "C" __global__ void cap_reread(long long n, const float *a, float *out, int shift)
{
    long long stride = (long long)gridDim.x * blockDim.x;
    float s = 0.f;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += stride)
        s += a[i];
    long long b2 = (blockIdx.x + shift) % gridDim.x;
    for (long long i = b2 * blockDim.x + threadIdx.x; i < n; i += stride)
        s += a[i];
    if (s == -1.f)
        out[0] = s;
}
