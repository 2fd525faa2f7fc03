// SHOC "Triad" (level 1, the STREAM triad with the host-device transfers left out): C = A + s * B.
// Written for gpusim from SHOC's published description: one thread per element, no bounds check (the
// benchmark sizes its arrays in whole blocks of 128 threads), so one load of A and B and one store of C per
// thread, fully coalesced.
extern "C" __global__ void triad(float *A, float *B, float *C, float s)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    C[gid] = A[gid] + s * B[gid];
}
