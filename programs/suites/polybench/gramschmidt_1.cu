// PolyBench/GPU "gramschmidt" (QR by modified Gram-Schmidt), first kernel of step k: the norm of column k,
// R[k][k] = sqrt(sum_i A[i][k]^2).  Written for gpusim from the suite's published algorithm and GPU
// mapping: the norm is computed serially by thread 0 of the launch (the other threads do nothing), a
// latency-bound walk down one column of the m x n matrix.
#define DATA_TYPE float

extern "C" __global__ void gramschmidt_kernel1(int m, int n, int k, DATA_TYPE *a, DATA_TYPE *r)
{
    int tid = blockIdx.x * blockDim.x + threadIdx.x;

    if (tid == 0) {
        DATA_TYPE nrm = 0.0f;
        for (int i = 0; i < m; i++) {
            nrm += a[i * n + k] * a[i * n + k];
        }
        r[k * n + k] = sqrtf(nrm);
    }
}
