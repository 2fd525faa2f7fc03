// PolyBench/GPU "lu" (LU decomposition without pivoting), second kernel of step k: the trailing update
// A[i][j] -= A[i][k] * A[k][j] for i, j > k (row k already divided by the pivot by the first kernel).
// Written for gpusim from the suite's published algorithm and GPU mapping: one thread per element of the
// trailing submatrix on 32x8 blocks.
#define DATA_TYPE float

extern "C" __global__ void lu_kernel2(int n, int k, DATA_TYPE *a)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;

    if (i > k && j > k && i < n && j < n) {
        a[i * n + j] = a[i * n + j] - a[i * n + k] * a[k * n + j];
    }
}
