// Naive matrix transpose: out (width x height) = in^T, in is height x width, row-major.
//
// Coalescing lesson (seed 003, "Memory Coalescing"): a warp (32 consecutive x) reads 32 consecutive floats of
// one row of `in` (4 sectors), but writes 32 floats that are `height` floats apart in `out` (32 sectors, one
// per thread).  transpose_smem and transpose_padded fix the writes through a shared-memory tile.
// Launch with 32 x 32 blocks over a ceil(width/32) x ceil(height/32) grid; any width and height.
#define TILE_DIM 32

extern "C" __global__ void transpose_naive(const float* in, float* out, int width, int height)
{
    int x = blockIdx.x * TILE_DIM + threadIdx.x;   // column of in
    int y = blockIdx.y * TILE_DIM + threadIdx.y;   // row of in
    if (x < width && y < height)
        out[x * height + y] = in[y * width + x];
}
