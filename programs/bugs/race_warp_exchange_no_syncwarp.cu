// Each lane of a 32-thread block subtracts its own value from its pair partner's (lane ^ 1), exchanged
// through shared memory: out[i] = in[i ^ 1] - in[i] within each block.
//
// Planted bug (racecheck, shared RAW between lanes of one warp): no __syncwarp() between the store of a
// lane's value and its partner's load; under independent thread scheduling the partner may load first.
// The fixed twin race_warp_exchange_no_syncwarp_fixed.cu has the __syncwarp().
extern "C" __global__ void race_warp_exchange_no_syncwarp(const int* in, int* out)
{
    __shared__ int s[32];
    int lane = threadIdx.x;
    int i = blockIdx.x * 32 + lane;
    s[lane] = in[i];                // BUG: store, not separated from the partner's load
    out[i] = s[lane ^ 1] - in[i];   // BUG: load of the partner lane's store
}
