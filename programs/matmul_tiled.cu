// Tiled matrix multiplication with boundary checks (seed 000, MatrixMulKernelTiled; seed 001, "handle
// boundary"): P = M * N for square Width x Width matrices, any Width.
//
// A block of TILE_WIDTH x TILE_WIDTH threads computes one TILE_WIDTH x TILE_WIDTH tile of P in
// ceil(Width / TILE_WIDTH) phases.  In each phase every thread loads one element of M and one of N into
// shared memory (Mds, Nds), the block synchronises, and each thread runs TILE_WIDTH multiply-adds out of
// shared memory: global traffic drops by a factor of TILE_WIDTH.  The two __syncthreads() are the seeds'
// read-after-write (tile loaded before use) and write-after-read (tile used before overwritten) barriers.
//
// Boundary checks: a load that falls outside the matrix puts 0 in the tile (so the inner loop needs no
// test), and a thread whose P element lies outside the matrix still helps load tiles but writes nothing.
//
// Two entry points, matmul_tiled_16 and matmul_tiled_32, share one template body (extern "C" keeps their
// PTX names unmangled; a template cannot itself be extern "C").

template <int TILE_WIDTH>
__device__ __forceinline__ void matmul_tiled_body(const float* M_d, const float* N_d, float* P_d, int Width)
{
    __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];

    int bx = blockIdx.x;
    int by = blockIdx.y;
    int tx = threadIdx.x;
    int ty = threadIdx.y;

    // Identify the row and column of the P element to work on
    int row = by * TILE_WIDTH + ty;
    int col = bx * TILE_WIDTH + tx;

    float Pvalue = 0;
    // Loop over the M and N tiles required to compute the P element
    for (int phase = 0; phase < (Width + TILE_WIDTH - 1) / TILE_WIDTH; ++phase) {
        // Collaborative loading of M and N tiles into shared memory, 0 outside the matrix
        if ((row < Width) && ((phase * TILE_WIDTH + tx) < Width))
            Mds[ty][tx] = M_d[row * Width + phase * TILE_WIDTH + tx];
        else
            Mds[ty][tx] = 0;
        if (((phase * TILE_WIDTH + ty) < Width) && (col < Width))
            Nds[ty][tx] = N_d[(phase * TILE_WIDTH + ty) * Width + col];
        else
            Nds[ty][tx] = 0;
        __syncthreads();

        for (int k = 0; k < TILE_WIDTH; ++k)
            Pvalue += Mds[ty][k] * Nds[k][tx];
        __syncthreads();
    }
    if ((row < Width) && (col < Width))
        P_d[row * Width + col] = Pvalue;
}

extern "C" __global__ void matmul_tiled_16(const float* M_d, const float* N_d, float* P_d, int Width)
{
    matmul_tiled_body<16>(M_d, N_d, P_d, Width);
}

extern "C" __global__ void matmul_tiled_32(const float* M_d, const float* N_d, float* P_d, int Width)
{
    matmul_tiled_body<32>(M_d, N_d, P_d, Width);
}
