// SHOC "Scan" (level 1), the last of its three kernels: the exclusive prefix sum of each block's share of the
// input, seeded with the block's entry of the scanned block sums.  Written for gpusim from SHOC's published
// algorithm: the block walks its region in windows of 4 * BLOCK_SIZE elements; each thread loads a float4,
// scans it serially, the block scans the per-thread totals in shared memory (a Kogge-Stone scan with two
// buffers and a barrier per step), and every thread writes its four outputs plus the running seed, which
// then advances by the window's total.
#define BLOCK_SIZE 256

__device__ float block_exclusive_scan(float val, float *s_data)
{
    // Kogge-Stone inclusive scan over BLOCK_SIZE values, ping-ponging between two halves of s_data
    int idx = threadIdx.x;
    int pout = 0, pin = 1;
    s_data[idx] = val;
    __syncthreads();
    for (int offset = 1; offset < BLOCK_SIZE; offset <<= 1) {
        pout = 1 - pout;
        pin = 1 - pin;
        float t = s_data[pin * BLOCK_SIZE + idx];
        if (idx >= offset) {
            t += s_data[pin * BLOCK_SIZE + idx - offset];
        }
        s_data[pout * BLOCK_SIZE + idx] = t;
        __syncthreads();
    }
    return s_data[pout * BLOCK_SIZE + idx] - val;   // exclusive
}

extern "C" __global__ void scan_bottom(const float *in, float *out, const float *isums, const int n)
{
    __shared__ float s_data[2 * BLOCK_SIZE];
    __shared__ float s_seed;

    int n4 = n / 4;
    int per_block = n4 / gridDim.x;
    int begin = blockIdx.x * per_block;
    int end = (blockIdx.x == gridDim.x - 1) ? n4 : begin + per_block;
    const float4 *in4 = reinterpret_cast<const float4 *>(in);
    float4 *out4 = reinterpret_cast<float4 *>(out);

    float seed = isums[blockIdx.x];
    for (int window = begin; window < end; window += BLOCK_SIZE) {
        int i = window + threadIdx.x;
        float4 v = (i < end) ? in4[i] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);

        // serial inclusive scan of the thread's four values
        v.y += v.x;
        v.z += v.y;
        v.w += v.z;

        float offset = block_exclusive_scan(v.w, s_data) + seed;
        if (i < end) {
            float4 o;
            o.x = offset;
            o.y = offset + v.x;
            o.z = offset + v.y;
            o.w = offset + v.z;
            out4[i] = o;
        }
        if (threadIdx.x == BLOCK_SIZE - 1) {
            s_seed = offset + v.w;
        }
        __syncthreads();
        seed = s_seed;
        __syncthreads();
    }
}
