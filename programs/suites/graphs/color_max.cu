// Pannotia "color" (max variant): the neighbour scan of one round of Jones-Plassmann-style colouring.
//
// Follows Pannotia's graph colouring (color_max, first kernel of a round): every vertex carries a random
// value; for each vertex still uncoloured (color -1) one thread scans its CSR neighbours and records the
// largest value among the uncoloured ones in max_d, and raises the `stop` flag that keeps the host
// iterating.  (The round's second kernel gives this round's colour to every uncoloured vertex whose value
// exceeds its max_d.)  Coloured vertices drop out, so later rounds leave most threads idle and the active
// ones scattered.
// Launch: grid ceil(num_nodes / 256), block 256.

extern "C" __global__ void pannotia_color_max(const int *row, const int *col, const int *node_value,
                                              const int *color_array, int *stop, int *max_d, int num_nodes)
{
    const int tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid >= num_nodes || color_array[tid] != -1)
        return;
    int maximum = -1;
    for (int e = row[tid]; e < row[tid + 1]; e++) {
        const int node = col[e];
        if (color_array[node] == -1 && node_value[node] > maximum)
            maximum = node_value[node];
    }
    max_d[tid] = maximum;
    *stop = 1;
}
