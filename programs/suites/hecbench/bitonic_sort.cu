// HeCBench "bitonic-sort": one compare-exchange step of a bitonic sorting network.
//
// Follows HeCBench's bitonic-sort (after the oneAPI samples' parallel bitonic sort): sorting n = 2^m keys
// takes m(m+1)/2 launches; the launch for merge size k (2, 4, ..., n) and distance j (k/2, ..., 1)
// compares every key l with bit j clear against its partner l + j and swaps them unless they are in order,
// ascending where bit k of l is clear and descending where it is set.  One thread per pair; the pairs at
// distance j >= 32 are two coalesced streams, smaller distances interleave within a warp's accesses.
// Launch: grid n / 2 / 256, block 256.

extern "C" __global__ void hecbench_bitonic_step(int *a, int j, int k)
{
    const unsigned int t = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned int l = (t / j) * 2 * j + t % j;          // the pair's lower index: bit j clear
    const unsigned int partner = l + j;
    const int x = a[l], y = a[partner];
    const bool ascending = (l & k) == 0;
    if (ascending ? x > y : x < y) {
        a[l] = y;
        a[partner] = x;
    }
}
