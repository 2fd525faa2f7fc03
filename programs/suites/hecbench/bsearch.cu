// HeCBench "bsearch": classic binary search of many keys in one sorted array.
//
// Follows HeCBench's bsearch (the classic variant of "classic and vectorizable binary search"): one thread
// per key narrows [low, high) by halves until one element is left and stores the position of the last
// element not greater than the key.  With a power-of-two array every thread takes the same log2(n) steps
// (no divergence); the loads are a gather whose first steps hit the same few words from every thread
// (cached) and whose last steps are scattered over the whole array (16 MB here: L2-resident on the H100).
// Launch: grid ceil(m / 256), block 256.

extern "C" __global__ void hecbench_bsearch(const int *a, const int *z, int *r, int n, int m)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= m)
        return;
    const int key = z[i];
    int low = 0, high = n;
    while (low + 1 < high) {
        const int mid = low + (high - low) / 2;
        if (key < a[mid])
            high = mid;
        else
            low = mid;
    }
    r[i] = low;
}
