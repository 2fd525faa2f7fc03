// PolyBench/GPU "gramschmidt" (QR by modified Gram-Schmidt), third kernel of step k: for every column
// j > k, R[k][j] = sum_i Q[i][k] * A[i][j], then A[i][j] -= Q[i][k] * R[k][j].  Written for gpusim from the
// suite's published algorithm and GPU mapping: one thread per column j on 1D blocks of 256, two coalesced
// walks down the column, R[k][j] accumulated in global memory.
#define DATA_TYPE float

extern "C" __global__ void gramschmidt_kernel3(int m, int n, int k, DATA_TYPE *a, DATA_TYPE *r, DATA_TYPE *q)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;

    if (j > k && j < n) {
        r[k * n + j] = 0.0f;
        for (int i = 0; i < m; i++) {
            r[k * n + j] += q[i * n + k] * a[i * n + j];
        }
        for (int i = 0; i < m; i++) {
            a[i * n + j] -= q[i * n + k] * r[k * n + j];
        }
    }
}
