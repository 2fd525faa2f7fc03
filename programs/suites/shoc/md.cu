// SHOC "MD" (level 1): the Lennard-Jones force on every atom from its neighbour list, as in LAMMPS' pair
// style lj/cut: for each neighbour within the cutoff, F += del * r^-2 * r^-6 * (lj1 * r^-6 - lj2).  Written
// for gpusim from SHOC's published algorithm and data layout: one thread per atom on blocks of 256,
// positions as float4 (SHOC reads them through the texture cache: here the read-only path), the neighbour
// list stored neighbour-major (entry j of atom i at j * inum + i) so the index loads coalesce, and a
// data-dependent branch on the cutoff.
extern "C" __global__ void compute_lj_force(float4 *force, const float4 *__restrict__ position, int neighCount,
                                            const int *__restrict__ neighList, float cutsq, float lj1, float lj2,
                                            int inum)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= inum) {
        return;
    }

    float4 ipos = __ldg(&position[idx]);
    float4 f = make_float4(0.0f, 0.0f, 0.0f, 0.0f);

    for (int j = 0; j < neighCount; j++) {
        int jidx = neighList[j * inum + idx];
        float4 jpos = __ldg(&position[jidx]);

        float delx = ipos.x - jpos.x;
        float dely = ipos.y - jpos.y;
        float delz = ipos.z - jpos.z;
        float r2inv = delx * delx + dely * dely + delz * delz;

        if (r2inv < cutsq) {
            r2inv = 1.0f / r2inv;
            float r6inv = r2inv * r2inv * r2inv;
            float forceC = r2inv * r6inv * (lj1 * r6inv - lj2);
            f.x += delx * forceC;
            f.y += dely * forceC;
            f.z += delz * forceC;
        }
    }
    force[idx] = f;
}
