// PolyBench/GPU "gesummv" (scalar, vector and matrix multiplication): y = alpha * A x + beta * B x.
// Written for gpusim from the suite's published algorithm and GPU mapping: one thread per row on 1D blocks
// of 256, both row walks uncoalesced across the warp; tmp and y accumulate in global memory.
#define DATA_TYPE float

extern "C" __global__ void gesummv_kernel(int n, DATA_TYPE alpha, DATA_TYPE beta, DATA_TYPE *a, DATA_TYPE *b,
                                          DATA_TYPE *tmp, DATA_TYPE *x, DATA_TYPE *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;

    if (i < n) {
        tmp[i] = 0;
        y[i] = 0;
        for (int j = 0; j < n; j++) {
            tmp[i] += a[i * n + j] * x[j];
            y[i] += b[i * n + j] * x[j];
        }
        y[i] = alpha * tmp[i] + beta * y[i];
    }
}
