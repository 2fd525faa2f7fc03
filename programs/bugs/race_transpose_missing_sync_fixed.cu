// Matrix transpose through a shared-memory tile: out (width x height) = in (height x width) transposed.
//
// The fixed twin of race_transpose_missing_sync.cu: a __syncthreads() between the tile store and the
// transposed load.
#define TILE 16

extern "C" __global__ void race_transpose_missing_sync_fixed(const float* in, float* out, int width, int height)
{
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    if (x < width && y < height)
        tile[threadIdx.y][threadIdx.x] = in[y * width + x];
    __syncthreads();  // FIX: the whole tile is stored before anyone reads it transposed

    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    if (x < height && y < width)
        out[y * height + x] = tile[threadIdx.x][threadIdx.y];
}
