// PolyBench/GPU "mvt" (matrix-vector product and transpose), first kernel: x1 = x1 + A * y1.  Written for
// gpusim from the suite's published algorithm and GPU mapping: one thread per row on 1D blocks of 256, each
// walking its row of A (uncoalesced across the warp), accumulating in global memory.
#define DATA_TYPE float

extern "C" __global__ void mvt_kernel1(int n, DATA_TYPE *a, DATA_TYPE *x1, DATA_TYPE *y1)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;

    if (i < n) {
        for (int j = 0; j < n; j++) {
            x1[i] += a[i * n + j] * y1[j];
        }
    }
}
