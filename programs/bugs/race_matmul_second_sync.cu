// Tiled matrix multiplication C = A * B of n x n floats (n a multiple of TILE), one thread per C element.
//
// Each phase loads one TILE x TILE tile of A and of B into shared memory, waits, and accumulates the
// tile's products.  Planted bug (racecheck, shared WAR): the second __syncthreads() at the end of a phase
// is missing, so a fast thread overwrites As/Bs with the next phase's tile while slower threads still read
// the current one.  The fixed twin race_matmul_second_sync_fixed.cu has both barriers.
#define TILE 8

extern "C" __global__ void race_matmul_second_sync(const float* A, const float* B, float* C, int n)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    float sum = 0.0f;
    for (int ph = 0; ph < n / TILE; ++ph) {
        As[ty][tx] = A[row * n + ph * TILE + tx];    // BUG: overwrites the tile other threads still read
        Bs[ty][tx] = B[(ph * TILE + ty) * n + col];  // BUG: overwrites the tile other threads still read
        __syncthreads();
        for (int k = 0; k < TILE; ++k)
            sum += As[ty][k] * Bs[k][tx];            // BUG: reads racing with the next phase's writes
    }
    C[row * n + col] = sum;
}
