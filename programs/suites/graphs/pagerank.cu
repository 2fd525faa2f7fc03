// Pannotia "pagerank": the push step of one PageRank iteration.
//
// Follows Pannotia's PageRank (pagerank1 kernel): one thread per vertex divides its current rank by its
// out-degree and adds that share to every out-neighbour's next rank with a float atomicAdd (the second
// kernel of the iteration applies the damping: rank = (1 - d) / n + d * next).  On a power-law (R-MAT)
// graph the atomics are scattered over many addresses and pile up on the hubs; the loops are as long as
// the degree, so warps diverge.
// Launch: grid ceil(num_nodes / 256), block 256.

extern "C" __global__ void pannotia_pagerank(const int *row, const int *col, const float *page_rank1,
                                             float *page_rank2, int num_nodes)
{
    const int tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid >= num_nodes)
        return;
    const int start = row[tid], end = row[tid + 1];
    const float share = page_rank1[tid] / (float)(end - start);
    for (int e = start; e < end; e++)
        atomicAdd(&page_rank2[col[e]], share);
}
