// Vector addition C = A + B: the first kernel of every CUDA course (seed 001, "handle 1d corner case").
//
// One thread per element.  The grid is rounded up to whole blocks, so the `if (i < n)` test is what keeps
// the threads past the end of the data from touching memory: only the last warp diverges on it (seed 000,
// "performance impact of control divergence": ceil(n/32) warps, one of them partly idle).
extern "C" __global__ void vector_add(const float* A, const float* B, float* C, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    // avoid kernel larger than data
    if (i < n)
        C[i] = A[i] + B[i];
}
