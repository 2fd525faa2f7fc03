// Block sum of ints (BLOCK = 64 threads): a shared-memory tree down to 64 values, then the last warp
// finishes "warp-synchronously" (Harris kernel 6, the unrolled last warp through a volatile pointer).
//
// Planted bug (racecheck, shared RAW/WAR between lanes of one warp): the unrolled steps rely on the 32
// lanes running in lock-step.  Since Volta (independent thread scheduling) they need not: lane t may read
// v[t + 16] before lane t + 16 has stored its sum, or after it has stored the next one.  volatile only
// keeps the loads and stores in memory; it orders nothing between lanes.  The fixed twin
// race_warp_reduce_no_syncwarp_fixed.cu keeps the sum in a register with __syncwarp() around each store.
#define BLOCK 64

extern "C" __global__ void race_warp_reduce_no_syncwarp(const int* in, int* out, int n)
{
    __shared__ int sdata[BLOCK];
    unsigned int t = threadIdx.x;
    unsigned int i = blockIdx.x * BLOCK + t;
    sdata[t] = (i < n) ? in[i] : 0;
    __syncthreads();

    if (t < 32) {
        volatile int* v = sdata;
        v[t] += v[t + 32];  // BUG: stores that other lanes load in the next step, no __syncwarp between
        v[t] += v[t + 16];  // BUG: lanes of one warp read and write each other's slots without __syncwarp
        v[t] += v[t + 8];   // BUG
        v[t] += v[t + 4];   // BUG
        v[t] += v[t + 2];   // BUG
        v[t] += v[t + 1];   // BUG
    }
    if (t == 0)
        out[blockIdx.x] = sdata[0];
}
