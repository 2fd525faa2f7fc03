// SHOC "Spmv" (level 1), CSR vector kernel: y = A x in compressed sparse row form, one warp per row.  Written
// for gpusim from SHOC's published algorithm: the 32 lanes of a warp stride through the row together
// (coalesced loads of values and column indices, x gathered through the read-only path), each keeps a
// partial sum, and the warp's partial sums are reduced in shared memory with a halving tree before lane 0
// writes the row's result.
#define BLOCK_SIZE 128
#define WARP_SIZE 32

extern "C" __global__ void spmv_csr_vector_kernel(const float *__restrict__ val, const int *__restrict__ cols,
                                                  const int *__restrict__ rowDelimiters,
                                                  const float *__restrict__ vec, const int dim,
                                                  float *__restrict__ out)
{
    __shared__ volatile float partialSums[BLOCK_SIZE];

    int t = threadIdx.x;
    int id = t & (WARP_SIZE - 1);
    int warpsPerBlock = blockDim.x / WARP_SIZE;
    int myRow = blockIdx.x * warpsPerBlock + (t / WARP_SIZE);

    if (myRow < dim) {
        int warpStart = rowDelimiters[myRow];
        int warpEnd = rowDelimiters[myRow + 1];
        float mySum = 0.0f;
        for (int j = warpStart + id; j < warpEnd; j += WARP_SIZE) {
            int col = cols[j];
            mySum += val[j] * __ldg(&vec[col]);
        }
        partialSums[t] = mySum;
        __syncwarp();

        if (id < 16) partialSums[t] = mySum = mySum + partialSums[t + 16];
        __syncwarp();
        if (id < 8) partialSums[t] = mySum = mySum + partialSums[t + 8];
        __syncwarp();
        if (id < 4) partialSums[t] = mySum = mySum + partialSums[t + 4];
        __syncwarp();
        if (id < 2) partialSums[t] = mySum = mySum + partialSums[t + 2];
        __syncwarp();
        if (id < 1) partialSums[t] = mySum = mySum + partialSums[t + 1];
        __syncwarp();

        if (id == 0) {
            out[myRow] = partialSums[t];
        }
    }
}
