// Parboil "mri-gridding", scatter formulation: non-uniform k-space samples convolved onto a Cartesian grid.
//
// Follows the algorithm and data layout of the Parboil benchmark suite's mri-gridding: each sample is a
// ReconstructionSample {real, imag, kX, kY, kZ, sdc} (array of structures), its value weighted by the
// density compensation sdc, spread over the grid points within half a kernel width of it with a separable
// Kaiser-Bessel kernel read from a lookup table indexed by the squared distance.  The suite's optimised
// code sorts the samples into bins and gathers; this is the direct scatter that the binning replaces: one
// thread per sample, float atomics into the complex grid.  Radial trajectories put most samples near the
// centre of k-space, so the atomics there contend on a few addresses.
// Launch: grid ceil(numSamples / 256), block 256.

struct ReconstructionSample {
    float real;
    float imag;
    float kX;
    float kY;
    float kZ;
    float sdc;
};

extern "C" __global__ void parboil_gridding_scatter(const ReconstructionSample *samples, int numSamples,
                                                    float2 *gridData, int gridSize, float halfWidth,
                                                    const float *kernelLUT, float lutScale)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= numSamples)
        return;

    const ReconstructionSample s = samples[i];
    const float half = 0.5f * gridSize;
    const float sx = s.kX + half, sy = s.kY + half, sz = s.kZ + half;   // grid coordinates
    const float re = s.real * s.sdc, im = s.imag * s.sdc;

    const int x0 = max((int)ceilf(sx - halfWidth), 0), x1 = min((int)floorf(sx + halfWidth), gridSize - 1);
    const int y0 = max((int)ceilf(sy - halfWidth), 0), y1 = min((int)floorf(sy + halfWidth), gridSize - 1);
    const int z0 = max((int)ceilf(sz - halfWidth), 0), z1 = min((int)floorf(sz + halfWidth), gridSize - 1);

    for (int z = z0; z <= z1; z++) {
        const float dz = z - sz;
        const float wz = kernelLUT[(int)(dz * dz * lutScale)];
        for (int y = y0; y <= y1; y++) {
            const float dy = y - sy;
            const float wzy = wz * kernelLUT[(int)(dy * dy * lutScale)];
            for (int x = x0; x <= x1; x++) {
                const float dx = x - sx;
                const float w = wzy * kernelLUT[(int)(dx * dx * lutScale)];
                float2 *cell = &gridData[(z * gridSize + y) * gridSize + x];
                atomicAdd(&cell->x, w * re);
                atomicAdd(&cell->y, w * im);
            }
        }
    }
}
