// HeCBench "black-scholes": European option prices under Black-Scholes with a continuous dividend yield.
//
// Follows HeCBench's black-scholes (after FinanceBench): the options are an array of structures
// {spot, strike, rate, dividend yield, volatility, time, type}, one thread per option, and the normal
// cumulative distribution is the Abramowitz-Stegun 26.2.17 polynomial (error below 7.5e-8):
//   d1 = (ln(S/K) + (r - q + v^2/2) t) / (v sqrt t),  d2 = d1 - v sqrt t
//   call = S e^-qt N(d1) - K e^-rt N(d2),            put = K e^-rt N(-d2) - S e^-qt N(-d1)
// Transcendental-heavy (logf, expf, sqrtf, divisions) on 28-byte strided records.
// Launch: grid ceil(numOptions / 256), block 256.

struct OptionInput {
    float s;        // spot price
    float strike;
    float r;        // risk-free rate
    float divq;     // dividend yield
    float v;        // volatility
    float t;        // time to expiry, years
    int type;       // 0 call, 1 put
};

__device__ float cnd(float d)
{
    const float a1 = 0.31938153f, a2 = -0.356563782f, a3 = 1.781477937f, a4 = -1.821255978f,
                a5 = 1.330274429f;
    const float rsqrt2pi = 0.39894228040143267794f;
    const float k = 1.0f / (1.0f + 0.2316419f * fabsf(d));
    const float tail = rsqrt2pi * expf(-0.5f * d * d) * (k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5)))));
    return d > 0.0f ? 1.0f - tail : tail;
}

extern "C" __global__ void hecbench_black_scholes(const OptionInput *options, float *prices, int numOptions)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= numOptions)
        return;
    const OptionInput o = options[i];
    const float vsqrtt = o.v * sqrtf(o.t);
    const float d1 = (logf(o.s / o.strike) + (o.r - o.divq + 0.5f * o.v * o.v) * o.t) / vsqrtt;
    const float d2 = d1 - vsqrtt;
    const float disc_s = o.s * expf(-o.divq * o.t);
    const float disc_k = o.strike * expf(-o.r * o.t);
    float price;
    if (o.type == 0)
        price = disc_s * cnd(d1) - disc_k * cnd(d2);
    else
        price = disc_k * cnd(-d2) - disc_s * cnd(-d1);
    prices[i] = price;
}
