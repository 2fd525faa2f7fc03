// DRAM bandwidth by the order lines are touched: warp w of the launch reads (or writes) one 128 B line,
// line (w % k) * stride + w / k with k = lines / stride, so consecutive warps are `stride` lines apart and
// every line of the buffer is touched once whatever the stride.  A DRAM mapping that takes the channel from
// low line bits alone puts a power-of-two stride on a few channels; a hashed one spreads it.

__device__ __forceinline__ long long line_of(long long w, long long lines, long long stride)
{
    long long k = lines / stride;
    return (w % k) * stride + w / k;
}

extern "C" __global__ void stride_read(const float *a, long long lines, long long stride, float *out)
{
    long long w = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    if (w >= lines)
        return;
    float v = a[line_of(w, lines, stride) * 32 + (threadIdx.x & 31)];
    if (v == -1.f)
        out[0] = v;
}

extern "C" __global__ void stride_write(float *a, long long lines, long long stride, float *out)
{
    long long w = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    if (w >= lines)
        return;
    a[line_of(w, lines, stride) * 32 + (threadIdx.x & 31)] = 1.f;
}
