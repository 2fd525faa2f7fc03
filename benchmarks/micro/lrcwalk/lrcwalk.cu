// Many SMs walking the same array at once (lrcwalk.py): does an SM's latency-bound walk get faster when
// other SMs read the same sectors just before it (their reads still in flight at the L2 slice)?
//
// Each thread i accumulates an all-pairs interaction over n 40-byte records {pos[3], vel[3], acc[3], mass}
// (the shape of HeCBench nbody's loop: every lane of a warp reads the same record, a broadcast), starting at
// record j0 = (blockIdx.x * j0_stride) % n and wrapping.  j0_stride = 0: every block walks the records in
// the same order ("together"); j0_stride = n / gridDim.x: each block starts at its own place ("spread"),
// so no two SMs read a sector within the same stretch of time.
struct Record {
    float pos[3];
    float vel[3];
    float acc[3];
    float mass;
};

extern "C" __global__ void lrc_walk(Record *r, int n, int j0_stride, float G, float softening2)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const float xi = r[i].pos[0], yi = r[i].pos[1], zi = r[i].pos[2];
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
    int j = (int)(((long long)blockIdx.x * j0_stride) % n);
    for (int k = 0; k < n; k++) {
        const float dx = r[j].pos[0] - xi;
        const float dy = r[j].pos[1] - yi;
        const float dz = r[j].pos[2] - zi;
        const float d2 = dx * dx + dy * dy + dz * dz + softening2;
        const float inv = rsqrtf(d2);
        const float s = G * r[j].mass * inv * inv * inv;
        ax += dx * s;
        ay += dy * s;
        az += dz * s;
        j = (j + 1 == n) ? 0 : j + 1;
    }
    r[i].acc[0] = ax;
    r[i].acc[1] = ay;
    r[i].acc[2] = az;
}
