// Pannotia "sssp": one Bellman-Ford relaxation round as a min-plus sparse matrix-vector product.
//
// Follows Pannotia's SSSP: the weighted graph is a CSR matrix (row, col, weight) and each round computes
// dist_out[v] = min(dist_in[v], min over the edges (u, v) of dist_in[u] + w(u, v)) with one thread per
// row (the scalar CSR SpMV of the suite, with (min, +) in place of (+, *)); the host swaps the buffers and
// repeats until nothing changes.  Rows are contiguous runs of col/weight, the dist_in loads are scattered.
// INF is 2^30 - 1 so that INF + w cannot overflow.
// Launch: grid ceil(num_nodes / 256), block 256.

extern "C" __global__ void pannotia_sssp(int num_nodes, const int *row, const int *col, const int *weight,
                                         const int *dist_in, int *dist_out)
{
    const int tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid >= num_nodes)
        return;
    int m = dist_in[tid];
    for (int e = row[tid]; e < row[tid + 1]; e++)
        m = min(m, dist_in[col[e]] + weight[e]);
    dist_out[tid] = m;
}
