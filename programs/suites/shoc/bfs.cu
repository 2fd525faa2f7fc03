// SHOC "BFS" (level 1): one level of a level-synchronous breadth-first search over a graph in CSR form
// (edgeArray: the offsets of each vertex's neighbours in edgeArrayAux).  Written for gpusim from SHOC's
// published algorithm, the warp-centric mapping of Hong et al. (PPoPP 2011): the vertices are split into
// chunks of CHUNK_SZ, one (virtual) warp of W_SZ threads per chunk; the warp visits its chunk's vertices in
// turn and, for each one on the current level, its lanes share the vertex's neighbour list, giving every
// unvisited neighbour the next level and raising the flag that asks for another level.
#define UNVISITED 0xFFFFFFFFu

extern "C" __global__ void BFS_kernel_warp(unsigned int *levels, const unsigned int *edgeArray,
                                           const unsigned int *edgeArrayAux, int W_SZ, int CHUNK_SZ,
                                           unsigned int numVertices, int curr, int *flag)
{
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    int w_off = tid % W_SZ;                    // lane within the virtual warp
    int w_id = tid / W_SZ;                     // virtual warp

    unsigned int v_begin = w_id * CHUNK_SZ;
    unsigned int v_end = min(v_begin + CHUNK_SZ, numVertices);

    for (unsigned int v = v_begin; v < v_end; v++) {
        if (levels[v] == (unsigned int)curr) {
            unsigned int nbr_begin = edgeArray[v];
            unsigned int nbr_end = edgeArray[v + 1];
            for (unsigned int i = nbr_begin + w_off; i < nbr_end; i += W_SZ) {
                unsigned int u = edgeArrayAux[i];
                if (levels[u] == UNVISITED) {
                    levels[u] = curr + 1;
                    *flag = 1;
                }
            }
        }
    }
}
