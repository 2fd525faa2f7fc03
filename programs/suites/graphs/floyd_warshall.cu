// Pannotia "fw": one pivot step of the Floyd-Warshall all-pairs shortest paths.
//
// Follows Pannotia's Floyd-Warshall: the n x n distance matrix (row-major, INF where no path is known yet)
// is relaxed through pivot k, dist[i][j] = min(dist[i][j], dist[i][k] + dist[k][j]), with a 2D grid of
// 16 x 16 blocks, one thread per entry; the host launches the kernel once per pivot.  Row k and column k do
// not change during the step (dist[k][k] = 0), so the step is race-free.  A warp reads 16 consecutive words
// of a row, the same dist[i][k] (broadcast) and 16 words of row k (cached across the grid).
// Launch: grid (ceil(n / 16), ceil(n / 16)), block (16, 16).

extern "C" __global__ void pannotia_floyd_warshall(int *dist, int n, int k)
{
    const int i = blockIdx.y * blockDim.y + threadIdx.y;
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && j < n) {
        const int via = dist[i * n + k] + dist[k * n + j];
        if (via < dist[i * n + j])
            dist[i * n + j] = via;
    }
}
