// Lonestar "tc": triangle counting by sorted-list intersection over the edges of the oriented graph.
//
// Follows LonestarGPU's triangle counting (edge-iterator with merge intersection): the undirected graph is
// oriented from lower to higher vertex id (each triangle u < v < w is counted once, at its edge (u, v)), the
// oriented adjacency lists are sorted, and one thread per oriented edge merges the two lists N+(u) and
// N+(v), counting their common vertices.  Counts are summed per block (warp shuffles, shared memory) and
// added to the 64-bit total with one atomic per block.  Work per thread is the sum of two list lengths:
// heavily imbalanced on a power-law graph, with data-dependent branches in the merge.
// Launch: grid ceil(m / 256), block 256.

#define BLOCK 256

extern "C" __global__ void lonestar_triangle_count(const int *row_start, const int *edge_dst, const int *edge_src,
                                                   int m, unsigned long long *total)
{
    __shared__ unsigned long long warp_counts[BLOCK / 32];
    const int e = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned long long count = 0;
    if (e < m) {
        const int u = edge_src[e], v = edge_dst[e];
        int i = row_start[u], iend = row_start[u + 1];
        int j = row_start[v], jend = row_start[v + 1];
        while (i < iend && j < jend) {
            const int a = edge_dst[i], b = edge_dst[j];
            if (a == b) {
                count++;
                i++;
                j++;
            } else if (a < b) {
                i++;
            } else {
                j++;
            }
        }
    }
    for (int offset = 16; offset > 0; offset /= 2)
        count += __shfl_down_sync(0xffffffff, count, offset);
    if (threadIdx.x % 32 == 0)
        warp_counts[threadIdx.x / 32] = count;
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned long long sum = 0;
        for (int w = 0; w < BLOCK / 32; w++)
            sum += warp_counts[w];
        atomicAdd(total, sum);
    }
}
