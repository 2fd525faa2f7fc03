// SHOC "S3D" (level 2): the reaction-rate evaluation of the S3D combustion code (its "getrates" chemistry,
// machine-generated straight-line code), here the forward rate constants of the ratt step: for every grid
// point, from the temperature T, each reaction's constant in modified Arrhenius form
// k = A T^b exp(-E / (R T)), written as expf(log A + b log T - (E/R) / T) with the mechanism's numbers as
// literals, plus the reactions of the forms A / T and A exp(-(E/R) / T) / T^2.  Written for gpusim from
// SHOC's published description: one thread per grid point on blocks of 128, pointwise, no shared memory,
// each constant stored reaction-major (RF[r * n + i], coalesced).  The 32-reaction mechanism is our own
// (plausible magnitudes, not GRI-Mech's numbers); refs.py holds the same table.
extern "C" __global__ void ratt_kernel(const float *T, float *RF, float TCONV, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) {
        return;
    }

    const float TEMP = T[i] * TCONV;
    const float ALOGT = logf(TEMP);
    const float TI = 1.0f / TEMP;
    const float TI2 = TI * TI;

    RF[ 0 * n + i] = expf(2.00748978e+01f + 9.60812271e-01f * ALOGT - 2.45998457e+04f * TI);
    RF[ 1 * n + i] = expf(2.96798439e+01f - 1.50414707e+04f * TI);
    RF[ 2 * n + i] = expf(3.32821350e+01f + 6.42448664e-01f * ALOGT - 5.65975244e+03f * TI);
    RF[ 3 * n + i] = expf(3.54395485e+01f - 5.82114339e-01f * ALOGT);
    RF[ 4 * n + i] = expf(3.68626289e+01f - 7.64970958e-01f * ALOGT - 8.73785889e+02f * TI);
    RF[ 5 * n + i] = 9.01386290e+15f * TI;
    RF[ 6 * n + i] = expf(2.07805958e+01f + 2.55057424e-01f * ALOGT - 1.06192859e+03f * TI);
    RF[ 7 * n + i] = expf(3.18377934e+01f - 1.00321650e+04f * TI);
    RF[ 8 * n + i] = 4.94460794e+13f * TI2 * expf(-2.20673320e+04f * TI);
    RF[ 9 * n + i] = expf(2.25838013e+01f - 1.13106012e+00f * ALOGT - 1.80309238e+04f * TI);
    RF[10 * n + i] = expf(3.63078270e+01f + 6.83707118e-01f * ALOGT);
    RF[11 * n + i] = expf(2.99242764e+01f + 1.39803243e+00f * ALOGT - 1.17717891e+04f * TI);
    RF[12 * n + i] = expf(2.04272060e+01f - 1.49722773e+04f * TI);
    RF[13 * n + i] = expf(2.54354534e+01f + 1.41362011e+00f * ALOGT - 2.44434961e+04f * TI);
    RF[14 * n + i] = expf(3.03793373e+01f - 9.50022638e-01f * ALOGT - 4.19222852e+03f * TI);
    RF[15 * n + i] = 2.54905512e+13f * TI2 * expf(-1.99370293e+04f * TI);
    RF[16 * n + i] = expf(2.09681015e+01f - 1.11047447e+00f * ALOGT - 2.02818594e+04f * TI);
    RF[17 * n + i] = expf(3.07372284e+01f - 9.89792578e+03f * TI);
    RF[18 * n + i] = expf(2.53662777e+01f - 6.36268631e-02f * ALOGT - 2.05589746e+04f * TI);
    RF[19 * n + i] = expf(3.49773750e+01f + 2.09362721e+00f * ALOGT);
    RF[20 * n + i] = expf(2.97577801e+01f + 4.58964519e-02f * ALOGT - 7.76550293e+03f * TI);
    RF[21 * n + i] = 1.07238977e+16f * TI;
    RF[22 * n + i] = expf(2.29273624e+01f + 3.21129918e-01f * ALOGT - 1.99554707e+04f * TI);
    RF[23 * n + i] = expf(3.33493271e+01f - 2.18781719e+04f * TI);
    RF[24 * n + i] = 6.47859746e+13f * TI2 * expf(-2.23105117e+04f * TI);
    RF[25 * n + i] = expf(3.73699951e+01f + 6.51701748e-01f * ALOGT - 2.25742480e+04f * TI);
    RF[26 * n + i] = expf(3.16255074e+01f + 9.86856878e-01f * ALOGT);
    RF[27 * n + i] = expf(2.92891922e+01f + 1.98972154e+00f * ALOGT - 1.49896924e+04f * TI);
    RF[28 * n + i] = expf(3.55997391e+01f - 1.35520869e+04f * TI);
    RF[29 * n + i] = expf(3.55267715e+01f + 1.63222814e+00f * ALOGT - 1.38523291e+04f * TI);
    RF[30 * n + i] = expf(3.15417271e+01f + 2.12486339e+00f * ALOGT - 2.28698066e+04f * TI);
    RF[31 * n + i] = 1.26955700e+13f * TI2 * expf(-1.31827676e+04f * TI);
}
