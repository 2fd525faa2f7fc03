// Matrix transpose through a shared-memory tile padded to 32 x 33 (seed 003, "Padding to avoid bank
// conflicts": make the stride 33).
//
// Identical to transpose_smem except for the one extra column: the column read tile[tx][ty] now touches
// words 33 apart, i.e. banks (33 * tx + ty) % 32 = (tx + ty) % 32, all different: no bank conflict.  The
// padding words are never used; they cost 32 * 4 = 128 bytes of shared memory per block.
// Launch with 32 x 32 blocks over a ceil(width/32) x ceil(height/32) grid; any width and height.
#define TILE_DIM 32

extern "C" __global__ void transpose_padded(const float* in, float* out, int width, int height)
{
    __shared__ float tile[TILE_DIM][TILE_DIM + 1];

    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    if (x < width && y < height)
        tile[threadIdx.y][threadIdx.x] = in[y * width + x];
    __syncthreads();

    x = blockIdx.y * TILE_DIM + threadIdx.x;
    y = blockIdx.x * TILE_DIM + threadIdx.y;
    if (x < height && y < width)
        out[y * height + x] = tile[threadIdx.x][threadIdx.y];
}
