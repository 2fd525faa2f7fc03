// For every positive element, the number of positive even elements in its 32-thread block; 0 for the
// others: out[i] = (in[i] > 0) ? #{j in block : in[j] > 0 and in[j] even} : 0.
//
// Planted bug (vote mask naming inactive lanes): __ballot_sync(0xffffffff, ...) inside if (x > 0); the
// lanes with x <= 0 are named by the mask but are not in the branch.  The fixed twin
// ballot_inactive_lanes_fixed.cu votes outside the branch with the condition folded into the predicate.
extern "C" __global__ void ballot_inactive_lanes(const int* in, int* out)
{
    int i = blockIdx.x * 32 + threadIdx.x;
    int x = in[i];
    int count = 0;
    if (x > 0) {
        unsigned int even = __ballot_sync(0xffffffffu, x % 2 == 0);  // BUG: lanes with x <= 0 are not here
        count = __popc(even);
    }
    out[i] = count;
}
