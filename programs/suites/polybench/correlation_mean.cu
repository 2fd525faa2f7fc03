// PolyBench/GPU "correlation" (datamining), first kernel: the mean of each of the m columns of the n x m
// data matrix.  Written for gpusim from the suite's published algorithm and GPU mapping: one thread per
// column on 1D blocks of 256 (coalesced column walk), accumulating in global memory.
#define DATA_TYPE float

extern "C" __global__ void correlation_mean_kernel(int m, int n, DATA_TYPE float_n, DATA_TYPE *mean,
                                                   DATA_TYPE *data)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;

    if (j < m) {
        mean[j] = 0.0f;
        for (int i = 0; i < n; i++) {
            mean[j] += data[i * m + j];
        }
        mean[j] /= float_n;
    }
}
