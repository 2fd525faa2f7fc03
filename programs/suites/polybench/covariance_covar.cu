// PolyBench/GPU "covariance" (datamining), third kernel: symmat[j1][j2] = symmat[j2][j1] =
// sum_i data[i][j1] * data[i][j2] over the upper triangle j2 >= j1 of the centred data.  Written for gpusim
// from the suite's published algorithm and GPU mapping: one thread per column j1 on 1D blocks of 256, each
// looping over j2 >= j1 (a triangular, imbalanced amount of work per thread) and accumulating in global
// memory; the mirrored store symmat[j2][j1] is strided across the warp.
#define DATA_TYPE float

extern "C" __global__ void covariance_covar_kernel(int m, int n, DATA_TYPE *symmat, DATA_TYPE *data)
{
    int j1 = blockIdx.x * blockDim.x + threadIdx.x;

    if (j1 < m) {
        for (int j2 = j1; j2 < m; j2++) {
            symmat[j1 * m + j2] = 0.0f;
            for (int i = 0; i < n; i++) {
                symmat[j1 * m + j2] += data[i * m + j1] * data[i * m + j2];
            }
            symmat[j2 * m + j1] = symmat[j1 * m + j2];
        }
    }
}
