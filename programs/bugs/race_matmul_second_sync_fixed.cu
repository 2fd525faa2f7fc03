// Tiled matrix multiplication C = A * B of n x n floats (n a multiple of TILE), one thread per C element.
//
// The fixed twin of race_matmul_second_sync.cu: the second __syncthreads() keeps the next phase's tile
// loads after every thread has finished reading the current tile.
#define TILE 8

extern "C" __global__ void race_matmul_second_sync_fixed(const float* A, const float* B, float* C, int n)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    float sum = 0.0f;
    for (int ph = 0; ph < n / TILE; ++ph) {
        As[ty][tx] = A[row * n + ph * TILE + tx];
        Bs[ty][tx] = B[(ph * TILE + ty) * n + col];
        __syncthreads();
        for (int k = 0; k < TILE; ++k)
            sum += As[ty][k] * Bs[k][tx];
        __syncthreads();  // FIX: all reads of this tile before the next phase overwrites it
    }
    C[row * n + col] = sum;
}
