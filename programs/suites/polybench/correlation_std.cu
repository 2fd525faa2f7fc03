// PolyBench/GPU "correlation" (datamining), second kernel: the standard deviation of each column,
// stddev[j] = sqrt(sum_i (data[i][j] - mean[j])^2 / float_n), replaced by 1 when it is at most eps (to
// avoid dividing by ~0 later).  Written for gpusim from the suite's published algorithm and GPU mapping: one
// thread per column on 1D blocks of 256, accumulating in global memory.
#define DATA_TYPE float

extern "C" __global__ void correlation_std_kernel(int m, int n, DATA_TYPE float_n, DATA_TYPE eps,
                                                  DATA_TYPE *mean, DATA_TYPE *stddev, DATA_TYPE *data)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;

    if (j < m) {
        stddev[j] = 0.0f;
        for (int i = 0; i < n; i++) {
            stddev[j] += (data[i * m + j] - mean[j]) * (data[i * m + j] - mean[j]);
        }
        stddev[j] /= float_n;
        stddev[j] = sqrtf(stddev[j]);
        stddev[j] = (stddev[j] <= eps) ? 1.0f : stddev[j];
    }
}
