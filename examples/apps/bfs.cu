// bfs: breadth-first search by levels on a graph in CSR form, one launch per level until a level adds no
// vertex (after the level-synchronous BFS of the Parboil and SHOC suites; written for gpusim's examples).
extern "C" __global__ void bfs_level(const int* __restrict__ row_start, const int* __restrict__ adjacent,
                                     int* level, int depth, int n, int* grew)
{
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n || level[v] != depth)
        return;
    for (int e = row_start[v]; e < row_start[v + 1]; ++e) {
        int u = adjacent[e];
        if (level[u] < 0) {              // several frontier vertices may claim u: they all write depth + 1
            level[u] = depth + 1;
            *grew = 1;
        }
    }
}

// How many vertices each level holds (unreached vertices counted in the last bin).
extern "C" __global__ void level_histogram(const int* __restrict__ level, int n, int bins, int* counts)
{
    __shared__ int local[64];
    for (int b = threadIdx.x; b < bins; b += blockDim.x)
        local[b] = 0;
    __syncthreads();
    for (int v = blockIdx.x * blockDim.x + threadIdx.x; v < n; v += gridDim.x * blockDim.x) {
        int l = level[v];
        atomicAdd(&local[(l < 0 || l >= bins - 1) ? bins - 1 : l], 1);
    }
    __syncthreads();
    for (int b = threadIdx.x; b < bins; b += blockDim.x)
        if (local[b])
            atomicAdd(&counts[b], local[b]);
}
