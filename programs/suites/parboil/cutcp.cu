// Parboil "cutcp": cutoff Coulombic potential on a 3D lattice (Rodrigues et al., CF 2008).
//
// Follows the Parboil benchmark suite's cutcp: V(p) = sum over atoms a with |p - a| < c of
// q_a / r * (1 - r^2 / c^2)^2, lattice spacing h = 0.5 A, cutoff c = 12 A.  Atoms are sorted into a 3D grid
// of cubic bins (4 A: 8 lattice spacings) of BIN_DEPTH float4 slots {x, y, z, q}, empty slots padded with a
// far-away charge-free atom.  One thread block computes the 8 x 8 x 8 lattice points of one bin's region;
// each of its 128 threads computes 4 points along z.  The bins that can hold atoms within the cutoff of the
// region are listed once, as offsets in constant memory; the block walks that list, staging 16 bins
// (128 atoms) at a time in shared memory, and every thread tests every staged atom against its points (the
// x-y distance first, as the suite does).
// Launch: grid (binDim_x, binDim_y, binDim_z), block (8, 8, 2).

#define BIN_DEPTH 8
#define REGION 8
#define BINS_PER_LOAD 16
#define NBRLIST_MAXLEN 343

__constant__ int3 NbrList[NBRLIST_MAXLEN];

extern "C" __global__ void parboil_cutcp(int binDim_x, int binDim_y, int binDim_z, const float4 *binZeroAddr,
                                         float h, float cutoff2, float inv_cutoff2, float *regionZeroAddr,
                                         int nbrlistlen)
{
    __shared__ float4 AtomBinCache[BINS_PER_LOAD * BIN_DEPTH];

    const int tid = threadIdx.x + REGION * (threadIdx.y + REGION * threadIdx.z);
    const int nx = binDim_x * REGION, ny = binDim_y * REGION;

    // lattice coordinates of this thread's four points: (px, py, pz + i * h) for i = 0..3
    const int gx = blockIdx.x * REGION + threadIdx.x;
    const int gy = blockIdx.y * REGION + threadIdx.y;
    const int gz = blockIdx.z * REGION + threadIdx.z * 4;
    const float px = gx * h, py = gy * h, pz = gz * h;

    float energy0 = 0.0f, energy1 = 0.0f, energy2 = 0.0f, energy3 = 0.0f;

    for (int nbrbase = 0; nbrbase < nbrlistlen; nbrbase += BINS_PER_LOAD) {
        __syncthreads();
        // thread tid stages slot tid % BIN_DEPTH of list entry nbrbase + tid / BIN_DEPTH
        float4 atom = make_float4(-1000.0f, -1000.0f, -1000.0f, 0.0f);
        const int nbr = nbrbase + tid / BIN_DEPTH;
        if (nbr < nbrlistlen) {
            const int3 d = NbrList[nbr];
            const int ib = blockIdx.x + d.x, jb = blockIdx.y + d.y, kb = blockIdx.z + d.z;
            if (ib >= 0 && ib < binDim_x && jb >= 0 && jb < binDim_y && kb >= 0 && kb < binDim_z)
                atom = binZeroAddr[((kb * binDim_y + jb) * binDim_x + ib) * BIN_DEPTH + tid % BIN_DEPTH];
        }
        AtomBinCache[tid] = atom;
        __syncthreads();

        for (int j = 0; j < BINS_PER_LOAD * BIN_DEPTH; j++) {
            const float4 a = AtomBinCache[j];
            const float dx = px - a.x, dy = py - a.y;
            const float dxy2 = dx * dx + dy * dy;
            if (dxy2 >= cutoff2)
                continue;
            float dz = pz - a.z;
            float r2 = dxy2 + dz * dz;
            if (r2 < cutoff2) {
                const float s = 1.0f - r2 * inv_cutoff2;
                energy0 += a.w * rsqrtf(r2) * s * s;
            }
            dz += h;
            r2 = dxy2 + dz * dz;
            if (r2 < cutoff2) {
                const float s = 1.0f - r2 * inv_cutoff2;
                energy1 += a.w * rsqrtf(r2) * s * s;
            }
            dz += h;
            r2 = dxy2 + dz * dz;
            if (r2 < cutoff2) {
                const float s = 1.0f - r2 * inv_cutoff2;
                energy2 += a.w * rsqrtf(r2) * s * s;
            }
            dz += h;
            r2 = dxy2 + dz * dz;
            if (r2 < cutoff2) {
                const float s = 1.0f - r2 * inv_cutoff2;
                energy3 += a.w * rsqrtf(r2) * s * s;
            }
        }
    }

    float *p = regionZeroAddr + (gz * ny + gy) * nx + gx;
    p[0] += energy0;
    p[nx * ny] += energy1;
    p[2 * nx * ny] += energy2;
    p[3 * nx * ny] += energy3;
}
