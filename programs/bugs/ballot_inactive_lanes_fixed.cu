// For every positive element, the number of positive even elements in its 32-thread block; 0 for the
// others: out[i] = (in[i] > 0) ? #{j in block : in[j] > 0 and in[j] even} : 0.
//
// The fixed twin of ballot_inactive_lanes.cu: every lane votes, the branch condition in the predicate.
extern "C" __global__ void ballot_inactive_lanes_fixed(const int* in, int* out)
{
    int i = blockIdx.x * 32 + threadIdx.x;
    int x = in[i];
    unsigned int even = __ballot_sync(0xffffffffu, x > 0 && x % 2 == 0);  // FIX: the whole warp votes
    out[i] = (x > 0) ? __popc(even) : 0;
}
