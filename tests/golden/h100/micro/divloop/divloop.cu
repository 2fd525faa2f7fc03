// Division by a loop-invariant register: one division per trip of a loop that ptxas does not unroll.
// The divisor d is a kernel argument (not written in the loop) except in *_variant, where it changes every trip.
#define LOOP(T, OP, DIV)                                                          \
    T acc = 0;                                                                    \
    _Pragma("unroll 1")                                                           \
    for (int i = threadIdx.x; i < n; i += blockDim.x) acc += a[i] OP (DIV);       \
    o[blockIdx.x * blockDim.x + threadIdx.x] = acc;

extern "C" __global__ void loop_udiv(const unsigned *a, unsigned *o, unsigned d, int n) { LOOP(unsigned, /, d) }
extern "C" __global__ void loop_urem(const unsigned *a, unsigned *o, unsigned d, int n) { LOOP(unsigned, %, d) }
extern "C" __global__ void loop_sdiv(const int *a, int *o, int d, int n) { LOOP(int, /, d) }
extern "C" __global__ void loop_srem(const int *a, int *o, int d, int n) { LOOP(int, %, d) }
extern "C" __global__ void loop_add(const unsigned *a, unsigned *o, unsigned d, int n) { LOOP(unsigned, +, d) }
extern "C" __global__ void loop_udiv_variant(const unsigned *a, unsigned *o, unsigned d, int n) { LOOP(unsigned, /, d + i) }
