// Matrix transpose through a shared-memory tile: out (width x height) = in (height x width) transposed.
//
// Each block stages a TILE x TILE tile (padded to TILE + 1 columns against bank conflicts) and writes it
// back transposed, so both global accesses are coalesced.  Planted bug (racecheck, shared RAW): the
// __syncthreads() between the tile store and the transposed load is missing; a thread reads an element
// that a thread of another warp has not stored yet.  The fixed twin race_transpose_missing_sync_fixed.cu
// has the barrier.
#define TILE 16

extern "C" __global__ void race_transpose_missing_sync(const float* in, float* out, int width, int height)
{
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    if (x < width && y < height)
        tile[threadIdx.y][threadIdx.x] = in[y * width + x];  // BUG: store, with no barrier before the reads

    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    if (x < height && y < width)
        out[y * height + x] = tile[threadIdx.x][threadIdx.y];  // BUG: read of another thread's store
}
