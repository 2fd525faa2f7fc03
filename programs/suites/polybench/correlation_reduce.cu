// PolyBench/GPU "correlation" (datamining), third kernel: standardise the data,
// data[i][j] = (data[i][j] - mean[j]) / (sqrt(float_n) * stddev[j]).  Written for gpusim from the suite's
// published algorithm and GPU mapping: one thread per element on 32x8 blocks.
#define DATA_TYPE float

extern "C" __global__ void correlation_reduce_kernel(int m, int n, DATA_TYPE float_n, DATA_TYPE *mean,
                                                     DATA_TYPE *stddev, DATA_TYPE *data)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;

    if (i < n && j < m) {
        data[i * m + j] -= mean[j];
        data[i * m + j] /= sqrtf(float_n) * stddev[j];
    }
}
