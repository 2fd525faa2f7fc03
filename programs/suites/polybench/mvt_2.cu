// PolyBench/GPU "mvt" (matrix-vector product and transpose), second kernel: x2 = x2 + A^T * y2.  Written for
// gpusim from the suite's published algorithm and GPU mapping: one thread per column on 1D blocks of 256,
// walking down its column of A (coalesced across the warp), accumulating in global memory.
#define DATA_TYPE float

extern "C" __global__ void mvt_kernel2(int n, DATA_TYPE *a, DATA_TYPE *x2, DATA_TYPE *y2)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;

    if (i < n) {
        for (int j = 0; j < n; j++) {
            x2[i] += a[j * n + i] * y2[j];
        }
    }
}
