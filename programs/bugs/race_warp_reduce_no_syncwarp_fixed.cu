// Block sum of ints (BLOCK = 64 threads): a shared-memory tree down to 64 values, then the last warp
// finishes warp-synchronously.
//
// The fixed twin of race_warp_reduce_no_syncwarp.cu, in the form the CUDA programming guide gives for
// independent thread scheduling: each lane keeps its sum in a register, and __syncwarp() separates every
// step's loads from its stores and its stores from the next step's loads.
#define BLOCK 64

extern "C" __global__ void race_warp_reduce_no_syncwarp_fixed(const int* in, int* out, int n)
{
    __shared__ int sdata[BLOCK];
    unsigned int t = threadIdx.x;
    unsigned int i = blockIdx.x * BLOCK + t;
    sdata[t] = (i < n) ? in[i] : 0;
    __syncthreads();

    if (t < 32) {
        int v = sdata[t] + sdata[t + 32];
        __syncwarp();  // FIX: loads of a step before any store of it, stores before the next step's loads
        sdata[t] = v;
        __syncwarp();
        v += sdata[t + 16];
        __syncwarp();
        sdata[t] = v;
        __syncwarp();
        v += sdata[t + 8];
        __syncwarp();
        sdata[t] = v;
        __syncwarp();
        v += sdata[t + 4];
        __syncwarp();
        sdata[t] = v;
        __syncwarp();
        v += sdata[t + 2];
        __syncwarp();
        sdata[t] = v;
        __syncwarp();
        v += sdata[t + 1];
        if (t == 0)
            out[blockIdx.x] = v;
    }
}
