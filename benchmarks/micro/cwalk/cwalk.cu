// One warp walking a __constant__ array with a register index (LDC), one dependent load at a time: what a
// constant-cache miss costs and how many bytes one miss brings in.  Every lane reads the same word (a
// broadcast, as mri_q's ck[kIndex]); the next index is i * stride plus the word just read (a zero), so each
// load waits for the last.  With stride below the fill granularity G, one load in G / stride misses; with
// stride >= G every load does.  The loop's SM cycles come from clock64() around it.

__constant__ int cdata[16384];      // 64 KB, zeros

extern "C" __global__ void cwalk(int n, int stride, int *out, long long *clk)
{
    int idx = 0;
    int s = 0;
    long long t0 = clock64();
    for (int i = 0; i < n; i++) {
        const int v = cdata[idx];
        s += v;
        idx = (i + 1) * stride + v;
    }
    long long t1 = clock64();
    if (threadIdx.x == 0)
        clk[0] = t1 - t0;
    out[threadIdx.x] = s;
}
