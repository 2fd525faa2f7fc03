// Parboil "bfs": one level of a queue-based breadth-first search (Luo, Wong and Hwu, DAC 2010).
//
// Follows the Parboil benchmark suite's BFS: the graph is an array of nodes {first edge, edge count} and an
// array of edges {destination, cost}; the current frontier is a queue of node ids (q1).  One thread per
// frontier node visits its edges; a neighbour still WHITE is claimed with an atomic exchange to this
// level's grey shade, gets cost + 1, and is appended to a block-level queue in shared memory (shared atomic
// on its tail).  When the block queue is full the node goes straight to the global queue (global atomic on
// the global tail).  At the end the block reserves room in the next frontier q2 with one global atomic and
// copies its queue there.  One launch per level; this launch is the widest level of the traversal.
// Launch: grid ceil(frontier / 512), block 512.

#define MAX_THREADS_PER_BLOCK 512
#define LOCAL_QUEUE_SIZE 1600
#define WHITE 0

extern "C" __global__ void parboil_bfs(const int *q1, int *q2, const int2 *g_graph_nodes,
                                       const int2 *g_graph_edges, int *g_color, int *g_cost, int *tail,
                                       int no_of_nodes, int gray_shade)
{
    __shared__ int local_q_tail;
    __shared__ int local_q[LOCAL_QUEUE_SIZE];
    __shared__ int shift;

    if (threadIdx.x == 0)
        local_q_tail = 0;
    __syncthreads();

    const int tid = blockIdx.x * MAX_THREADS_PER_BLOCK + threadIdx.x;
    if (tid < no_of_nodes) {
        const int pid = q1[tid];
        const int2 cur_node = g_graph_nodes[pid];
        const int cost = g_cost[pid];
        for (int i = cur_node.x; i < cur_node.x + cur_node.y; i++) {
            const int id = g_graph_edges[i].x;
            if (g_color[id] == WHITE) {                         // cheap test before the atomic
                const int old_color = atomicExch(&g_color[id], gray_shade);
                if (old_color == WHITE) {
                    g_cost[id] = cost + 1;
                    const int index = atomicAdd(&local_q_tail, 1);
                    if (index < LOCAL_QUEUE_SIZE) {
                        local_q[index] = id;
                    } else {                                    // block queue full: global queue
                        const int gindex = atomicAdd(tail, 1);
                        q2[gindex] = id;
                    }
                }
            }
        }
    }
    __syncthreads();

    if (threadIdx.x == 0) {
        local_q_tail = min(local_q_tail, LOCAL_QUEUE_SIZE);
        shift = atomicAdd(tail, local_q_tail);
    }
    __syncthreads();

    for (int i = threadIdx.x; i < local_q_tail; i += blockDim.x)
        q2[shift + i] = local_q[i];
}
