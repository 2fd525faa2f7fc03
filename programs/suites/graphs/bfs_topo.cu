// Lonestar "bfs" (topology-driven): one level of breadth-first search over every vertex.
//
// Follows LonestarGPU's topology-driven BFS: the CSR graph (row_start, edge_dst) is swept by one thread per
// vertex on every level; the threads whose vertex is on the current level visit its edges and set every
// unvisited neighbour's distance to level + 1 (a benign race: all writers store the same value), raising
// the global `changed` flag that tells the host to run another level.  Most threads do nothing but a load
// and a compare; the active ones run loops as long as their degree (R-MAT: a few thousand on the hubs),
// so the warps are divergent and imbalanced, and the neighbour distance loads are scattered.
// Launch: grid ceil(n / 256), block 256.

#define INF 0x7fffffff

extern "C" __global__ void lonestar_bfs_topo(const int *row_start, const int *edge_dst, int *dist, int n,
                                             int level, int *changed)
{
    const int node = blockIdx.x * blockDim.x + threadIdx.x;
    if (node >= n || dist[node] != level)
        return;
    for (int e = row_start[node]; e < row_start[node + 1]; e++) {
        const int dst = edge_dst[e];
        if (dist[dst] == INF) {
            dist[dst] = level + 1;
            *changed = 1;
        }
    }
}
