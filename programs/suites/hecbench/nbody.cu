// HeCBench "nbody": the all-pairs gravitational acceleration step of an N-body simulation.
//
// Follows HeCBench's nbody (after the oneAPI GSimulation sample): particles are an array of structures
// {pos[3], vel[3], acc[3], mass}; one thread per particle i loops over every particle j, reading j's
// structure straight from global memory (all threads of a warp read the same j: a broadcast), and
// accumulates a_i += G m_j (r_j - r_i) / (|r_j - r_i|^2 + eps^2)^(3/2) with the softening eps, then stores
// its acceleration.  (The suite's second kernel, the velocity/position update, is a short streaming pass.)
// Launch: grid ceil(n / 256), block 256.

struct Particle {
    float pos[3];
    float vel[3];
    float acc[3];
    float mass;
};

extern "C" __global__ void hecbench_nbody_accel(Particle *particles, int n, float G, float softening2)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const float xi = particles[i].pos[0], yi = particles[i].pos[1], zi = particles[i].pos[2];
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
    for (int j = 0; j < n; j++) {
        const float dx = particles[j].pos[0] - xi;
        const float dy = particles[j].pos[1] - yi;
        const float dz = particles[j].pos[2] - zi;
        const float distance_sqr = dx * dx + dy * dy + dz * dz + softening2;
        const float distance_inv = rsqrtf(distance_sqr);
        const float s = G * particles[j].mass * distance_inv * distance_inv * distance_inv;
        ax += dx * s;
        ay += dy * s;
        az += dz * s;
    }
    particles[i].acc[0] = ax;
    particles[i].acc[1] = ay;
    particles[i].acc[2] = az;
}
