// Lonestar "bfs" (data-driven, worklist): one level of breadth-first search over the frontier only.
//
// Follows LonestarGPU's worklist BFS: the current frontier is an explicit worklist; one thread per item
// visits its vertex's edges, claims each unvisited neighbour with an atomic compare-and-swap of its
// distance from INF to level + 1 (so a vertex is pushed exactly once), and pushes it onto the next
// worklist by reserving a slot with atomicAdd on the worklist's length: one global atomic per discovered
// vertex, all on the same counter.
// Launch: grid ceil(n / 256) (covers any frontier), block 256.

#define INF 0x7fffffff

extern "C" __global__ void lonestar_bfs_wl(const int *row_start, const int *edge_dst, int *dist,
                                           const int *in_wl, int in_len, int *out_wl, int *out_len, int level)
{
    const int id = blockIdx.x * blockDim.x + threadIdx.x;
    if (id >= in_len)
        return;
    const int node = in_wl[id];
    for (int e = row_start[node]; e < row_start[node + 1]; e++) {
        const int dst = edge_dst[e];
        if (atomicCAS(&dist[dst], INF, level + 1) == INF)
            out_wl[atomicAdd(out_len, 1)] = dst;
    }
}
