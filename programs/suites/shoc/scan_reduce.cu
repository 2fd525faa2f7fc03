// SHOC "Scan" (level 1), first of its three kernels: the sum of each block's contiguous share of the input,
// for the top-level scan of the block sums.  Written for gpusim from SHOC's published algorithm: block b owns
// the elements [b * n / gridDim.x, (b + 1) * n / gridDim.x) (rounded to whole float4 groups), its threads
// stride through them with float4 loads, and a shared-memory tree reduces the per-thread sums.
#define BLOCK_SIZE 256

extern "C" __global__ void scan_reduce(const float *in, float *isums, const int n)
{
    __shared__ float sdata[BLOCK_SIZE];

    // each block's region, in float4 groups
    int n4 = n / 4;
    int per_block = n4 / gridDim.x;
    int begin = blockIdx.x * per_block;
    int end = (blockIdx.x == gridDim.x - 1) ? n4 : begin + per_block;
    const float4 *in4 = reinterpret_cast<const float4 *>(in);

    float sum = 0.0f;
    for (int i = begin + threadIdx.x; i < end; i += blockDim.x) {
        float4 v = in4[i];
        sum += v.x + v.y + v.z + v.w;
    }
    sdata[threadIdx.x] = sum;
    __syncthreads();

    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) {
            sdata[threadIdx.x] += sdata[threadIdx.x + s];
        }
        __syncthreads();
    }

    if (threadIdx.x == 0) {
        isums[blockIdx.x] = sdata[0];
    }
}
