// PolyBench/GPU "covariance" (datamining), second kernel: centre the data, data[i][j] -= mean[j].  Written
// for gpusim from the suite's published algorithm and GPU mapping: one thread per element on 32x8 blocks.
#define DATA_TYPE float

extern "C" __global__ void covariance_reduce_kernel(int m, int n, DATA_TYPE *mean, DATA_TYPE *data)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;

    if (i < n && j < m) {
        data[i * m + j] -= mean[j];
    }
}
