// In each 32-thread block the low half swaps pairs through shared memory, out[i] = in[i ^ 1] for lanes
// 0..15; after the branch the high half stores its own value negated, out[i] = -in[i] for lanes 16..31.
//
// The fixed twin of syncwarp_inactive_lanes.cu: the mask names the lanes of the branch.
extern "C" __global__ void syncwarp_inactive_lanes_fixed(const int* in, int* out)
{
    __shared__ int s[32];
    int lane = threadIdx.x;
    int i = blockIdx.x * 32 + lane;
    if (lane < 16) {
        s[lane] = in[i];
        __syncwarp(0x0000ffffu);  // FIX: lanes 0..15, those in the branch
        out[i] = s[lane ^ 1];
    }
    if (lane >= 16)
        out[i] = -in[i];
}
