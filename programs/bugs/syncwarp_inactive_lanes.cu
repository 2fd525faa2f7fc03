// In each 32-thread block the low half swaps pairs through shared memory, out[i] = in[i ^ 1] for lanes
// 0..15; after the branch the high half stores its own value negated, out[i] = -in[i] for lanes 16..31.
//
// Planted bug (__syncwarp mask naming inactive lanes): __syncwarp() with the default full mask inside
// if (lane < 16).  Lanes 16..31 are named by the mask and have not exited (they have work after the
// branch), but they never execute this __syncwarp().  (Lanes that have exited would be allowed.)  The
// fixed twin syncwarp_inactive_lanes_fixed.cu names the 16 lanes that take the branch.
extern "C" __global__ void syncwarp_inactive_lanes(const int* in, int* out)
{
    __shared__ int s[32];
    int lane = threadIdx.x;
    int i = blockIdx.x * 32 + lane;
    if (lane < 16) {
        s[lane] = in[i];
        __syncwarp();  // BUG: full mask, but lanes 16..31 are alive elsewhere and never get here
        out[i] = s[lane ^ 1];
    }
    if (lane >= 16)
        out[i] = -in[i];
}
