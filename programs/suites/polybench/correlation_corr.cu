// PolyBench/GPU "correlation" (datamining), fourth kernel: the correlation matrix of the standardised data,
// symmat[j1][j1] = 1 and symmat[j1][j2] = symmat[j2][j1] = sum_i data[i][j1] * data[i][j2] for j2 > j1.
// Written for gpusim from the suite's published algorithm and GPU mapping: one thread per column j1 on 1D
// blocks of 256, each looping over j2 > j1 (triangular, imbalanced work), accumulating in global memory.
#define DATA_TYPE float

extern "C" __global__ void correlation_corr_kernel(int m, int n, DATA_TYPE *symmat, DATA_TYPE *data)
{
    int j1 = blockIdx.x * blockDim.x + threadIdx.x;

    if (j1 < m) {
        symmat[j1 * m + j1] = 1.0f;
        for (int j2 = j1 + 1; j2 < m; j2++) {
            symmat[j1 * m + j2] = 0.0f;
            for (int i = 0; i < n; i++) {
                symmat[j1 * m + j2] += data[i * m + j1] * data[i * m + j2];
            }
            symmat[j2 * m + j1] = symmat[j1 * m + j2];
        }
    }
}
