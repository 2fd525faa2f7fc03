// Parboil "mri-q": the Q matrix of non-Cartesian MRI reconstruction (Stone et al., 2008), ComputeQ kernel.
//
// Follows the Parboil benchmark suite's mri-q: for every voxel x,
//     Qr(x) += sum_k |phi_k|^2 cos(2 pi k . x),   Qi(x) += sum_k |phi_k|^2 sin(2 pi k . x)
// with the k-space samples {Kx, Ky, Kz, PhiMag} streamed through constant memory in chunks of
// KERNEL_Q_K_ELEMS_PER_GRID (every thread reads the same sample: a broadcast), one thread per voxel holding
// its coordinates and partial sums in registers; one launch per chunk accumulates into Qr/Qi.  The
// trigonometry is single-precision cosf/sinf (the accurate library versions: range reduction, polynomial,
// and a local-memory slow path for huge arguments).
// Launch: grid numX / 256, block 256 (KERNEL_Q_THREADS_PER_BLOCK).

#define KERNEL_Q_THREADS_PER_BLOCK 256
#define KERNEL_Q_K_ELEMS_PER_GRID 1024
#define PIx2 6.2831853071795864769252867665590058f

struct kValues {
    float Kx;
    float Ky;
    float Kz;
    float PhiMag;
};

__constant__ kValues ck[KERNEL_Q_K_ELEMS_PER_GRID];

extern "C" __global__ void parboil_mri_q(int numK, int kGlobalIndex, const float *x, const float *y,
                                         const float *z, float *Qr, float *Qi)
{
    const int xIndex = blockIdx.x * KERNEL_Q_THREADS_PER_BLOCK + threadIdx.x;

    const float sX = x[xIndex];
    const float sY = y[xIndex];
    const float sZ = z[xIndex];
    float sQr = Qr[xIndex];
    float sQi = Qi[xIndex];

    for (int kIndex = 0; kIndex < KERNEL_Q_K_ELEMS_PER_GRID && kGlobalIndex < numK; kIndex++, kGlobalIndex++) {
        const float expArg = PIx2 * (ck[kIndex].Kx * sX + ck[kIndex].Ky * sY + ck[kIndex].Kz * sZ);
        sQr += ck[kIndex].PhiMag * cosf(expArg);
        sQi += ck[kIndex].PhiMag * sinf(expArg);
    }

    Qr[xIndex] = sQr;
    Qi[xIndex] = sQi;
}
