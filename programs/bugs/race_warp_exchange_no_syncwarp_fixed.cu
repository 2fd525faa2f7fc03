// Each lane of a 32-thread block subtracts its own value from its pair partner's (lane ^ 1), exchanged
// through shared memory: out[i] = in[i ^ 1] - in[i] within each block.
//
// The fixed twin of race_warp_exchange_no_syncwarp.cu: __syncwarp() between the stores and the loads.
extern "C" __global__ void race_warp_exchange_no_syncwarp_fixed(const int* in, int* out)
{
    __shared__ int s[32];
    int lane = threadIdx.x;
    int i = blockIdx.x * 32 + lane;
    s[lane] = in[i];
    __syncwarp();  // FIX: every lane's store before any lane's load
    out[i] = s[lane ^ 1] - in[i];
}
