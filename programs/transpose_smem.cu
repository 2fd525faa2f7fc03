// Matrix transpose through an unpadded 32 x 32 shared-memory tile.
//
// The block reads a 32 x 32 tile of `in` row by row (coalesced), synchronises, and writes the transposed tile
// to `out` row by row (coalesced too).  To transpose, a warp reads a *column* of the tile: tile[tx][ty] for
// tx = 0..31 is 32 words that are 32 words apart, all in one bank: a 32-way bank conflict on every read
// (seed 003, "Bank conflicts and strides": stride 32).  transpose_padded removes it.
// Launch with 32 x 32 blocks over a ceil(width/32) x ceil(height/32) grid; any width and height.
#define TILE_DIM 32

extern "C" __global__ void transpose_smem(const float* in, float* out, int width, int height)
{
    __shared__ float tile[TILE_DIM][TILE_DIM];

    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    if (x < width && y < height)
        tile[threadIdx.y][threadIdx.x] = in[y * width + x];
    __syncthreads();

    // the output tile is at block (by, bx) of out, which is height wide
    x = blockIdx.y * TILE_DIM + threadIdx.x;
    y = blockIdx.x * TILE_DIM + threadIdx.y;
    if (x < height && y < width)
        out[y * height + x] = tile[threadIdx.x][threadIdx.y];
}
