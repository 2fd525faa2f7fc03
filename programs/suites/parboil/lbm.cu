// Parboil "lbm": one time step of a D3Q19 lattice-Boltzmann fluid solver (BGK collision, then streaming).
//
// Follows the Parboil benchmark suite's lbm: every cell holds 19 particle distributions (rest C, the six
// faces N S E W T B and the twelve edges NE NW SE SW NT NB ST SB ET EB WT WB) plus a flag word; the CUDA
// layout is structure-of-arrays, entry e of cell c at grid[e * TOTAL_CELLS + c], so a warp of consecutive
// x cells reads each distribution coalesced.  The grid carries a margin of two z planes before and after
// the domain, so pushes off the domain land in the margin.  One thread per cell, a block per x row
// (block = SIZE_X threads, grid = SIZE_Y x SIZE_Z): load the 19 values, and
//   * obstacle cells bounce back: each distribution is sent back the way it came (pushed to the neighbour
//     in the opposite direction);
//   * fluid cells relax towards the local equilibrium (density rho, velocity u; accelerating cells have a
//     fixed inflow velocity), f_i += OMEGA * (feq_i - f_i), and push f_i to the neighbour in direction i.
// The suite's long run is 120 x 120 x 150 cells; one launch is one time step (src -> dst).

#define OMEGA 1.95f
#define DFL1 (1.0f / 3.0f)
#define DFL2 (1.0f / 18.0f)
#define DFL3 (1.0f / 36.0f)
#define OBSTACLE 1
#define ACCEL 2
#define N_CELL_ENTRIES 20
#define FLAGS 19

// entry index, and the x, y, z step of each of the 19 directions
#define C 0
#define N 1
#define S 2
#define E 3
#define W 4
#define T 5
#define B 6
#define NE 7
#define NW 8
#define SE 9
#define SW 10
#define NT 11
#define NB 12
#define ST 13
#define SB 14
#define ET 15
#define EB 16
#define WT 17
#define WB 18

extern "C" __global__ void parboil_lbm(const float *srcGrid, float *dstGrid, int nx, int ny, int nz)
{
    const int total = nx * ny * (nz + 4);         // cells including the two-plane margins
    const int margin = 2 * nx * ny;
    const int x = threadIdx.x, y = blockIdx.x, z = blockIdx.y;
    const int cell = margin + x + nx * (y + ny * z);
    const int plane = nx * ny;

#define SRC(e) srcGrid[(e) * total + cell]
#define DST(e, dx, dy, dz) dstGrid[(e) * total + cell + (dx) + (dy) * nx + (dz) * plane]

    const float fC = SRC(C), fN = SRC(N), fS = SRC(S), fE = SRC(E), fW = SRC(W), fT = SRC(T), fB = SRC(B);
    const float fNE = SRC(NE), fNW = SRC(NW), fSE = SRC(SE), fSW = SRC(SW);
    const float fNT = SRC(NT), fNB = SRC(NB), fST = SRC(ST), fSB = SRC(SB);
    const float fET = SRC(ET), fEB = SRC(EB), fWT = SRC(WT), fWB = SRC(WB);
    const int flags = __float_as_int(SRC(FLAGS));

    if (flags & OBSTACLE) {
        DST(C, 0, 0, 0) = fC;
        DST(S, 0, -1, 0) = fN;   DST(N, 0, 1, 0) = fS;
        DST(W, -1, 0, 0) = fE;   DST(E, 1, 0, 0) = fW;
        DST(B, 0, 0, -1) = fT;   DST(T, 0, 0, 1) = fB;
        DST(SW, -1, -1, 0) = fNE; DST(SE, 1, -1, 0) = fNW;
        DST(NW, -1, 1, 0) = fSE;  DST(NE, 1, 1, 0) = fSW;
        DST(SB, 0, -1, -1) = fNT; DST(ST, 0, -1, 1) = fNB;
        DST(NB, 0, 1, -1) = fST;  DST(NT, 0, 1, 1) = fSB;
        DST(WB, -1, 0, -1) = fET; DST(WT, -1, 0, 1) = fEB;
        DST(EB, 1, 0, -1) = fWT;  DST(ET, 1, 0, 1) = fWB;
        return;
    }

    float rho = fC + fN + fS + fE + fW + fT + fB + fNE + fNW + fSE + fSW
              + fNT + fNB + fST + fSB + fET + fEB + fWT + fWB;
    float ux = fE - fW + fNE - fNW + fSE - fSW + fET + fEB - fWT - fWB;
    float uy = fN - fS + fNE + fNW - fSE - fSW + fNT + fNB - fST - fSB;
    float uz = fT - fB + fNT - fNB + fST - fSB + fET - fEB + fWT - fWB;
    ux /= rho;
    uy /= rho;
    uz /= rho;
    if (flags & ACCEL) {
        ux = 0.005f;
        uy = 0.002f;
        uz = 0.000f;
    }
    const float u2 = 1.5f * (ux * ux + uy * uy + uz * uz);

    // feq_i = w_i * rho * (1 + 3 c.u + 4.5 (c.u)^2 - 1.5 u.u)
#define RELAX(f, w, cu) ((f) + OMEGA * ((w) * rho * (1.0f + 3.0f * (cu) + 4.5f * (cu) * (cu) - u2) - (f)))
    DST(C, 0, 0, 0) = RELAX(fC, DFL1, 0.0f);
    DST(N, 0, 1, 0) = RELAX(fN, DFL2, uy);
    DST(S, 0, -1, 0) = RELAX(fS, DFL2, -uy);
    DST(E, 1, 0, 0) = RELAX(fE, DFL2, ux);
    DST(W, -1, 0, 0) = RELAX(fW, DFL2, -ux);
    DST(T, 0, 0, 1) = RELAX(fT, DFL2, uz);
    DST(B, 0, 0, -1) = RELAX(fB, DFL2, -uz);
    DST(NE, 1, 1, 0) = RELAX(fNE, DFL3, ux + uy);
    DST(NW, -1, 1, 0) = RELAX(fNW, DFL3, -ux + uy);
    DST(SE, 1, -1, 0) = RELAX(fSE, DFL3, ux - uy);
    DST(SW, -1, -1, 0) = RELAX(fSW, DFL3, -ux - uy);
    DST(NT, 0, 1, 1) = RELAX(fNT, DFL3, uy + uz);
    DST(NB, 0, 1, -1) = RELAX(fNB, DFL3, uy - uz);
    DST(ST, 0, -1, 1) = RELAX(fST, DFL3, -uy + uz);
    DST(SB, 0, -1, -1) = RELAX(fSB, DFL3, -uy - uz);
    DST(ET, 1, 0, 1) = RELAX(fET, DFL3, ux + uz);
    DST(EB, 1, 0, -1) = RELAX(fEB, DFL3, ux - uz);
    DST(WT, -1, 0, 1) = RELAX(fWT, DFL3, -ux + uz);
    DST(WB, -1, 0, -1) = RELAX(fWB, DFL3, -ux - uz);
}
