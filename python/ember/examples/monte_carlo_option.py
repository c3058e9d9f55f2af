"""Monte-Carlo price of a European call, each thread simulating paths with cuda.random, checked against Black-Scholes.
Written for Numba; on ember only the imports change."""

import math

import numpy as np
from ember import cuda  # was: from numba import cuda
from ember.cuda.random import (  # was: from numba.cuda.random import (
    create_xoroshiro128p_states,
    xoroshiro128p_normal_float32,
)


@cuda.jit
def simulate(rng_states, s0, strike, r, sigma, t, n_steps, paths_per_thread, sums, sums_sq):
    tid = cuda.grid(1)
    if tid < sums.size:
        dt = t / n_steps
        drift = (r - 0.5 * sigma * sigma) * dt
        vol = sigma * math.sqrt(dt)
        total = 0.0
        total_sq = 0.0
        for _ in range(paths_per_thread):
            log_s = math.log(s0)
            for _ in range(n_steps):
                log_s += drift + vol * xoroshiro128p_normal_float32(rng_states, tid)
            payoff = max(math.exp(log_s) - strike, 0.0)
            total += payoff
            total_sq += payoff * payoff
        sums[tid] = total
        sums_sq[tid] = total_sq


def norm_cdf(x):
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


s0, strike, r, sigma, t = 100.0, 105.0, 0.03, 0.25, 1.0
n_steps, paths_per_thread = 52, 16
threads_per_block, blocks = 128, 64
n_threads = threads_per_block * blocks
n_paths = n_threads * paths_per_thread

rng_states = create_xoroshiro128p_states(n_threads, seed=2718)
sums = cuda.device_array(n_threads, dtype=np.float64)
sums_sq = cuda.device_array(n_threads, dtype=np.float64)
simulate[blocks, threads_per_block](rng_states, s0, strike, r, sigma, t, n_steps, paths_per_thread, sums, sums_sq)

mean = sums.copy_to_host().sum() / n_paths
var = sums_sq.copy_to_host().sum() / n_paths - mean * mean
price = math.exp(-r * t) * mean
std_err = math.exp(-r * t) * math.sqrt(var / n_paths)

d1 = (math.log(s0 / strike) + (r + 0.5 * sigma**2) * t) / (sigma * math.sqrt(t))
d2 = d1 - sigma * math.sqrt(t)
reference = s0 * norm_cdf(d1) - strike * math.exp(-r * t) * norm_cdf(d2)

error = price - reference
assert abs(error) < 4 * std_err, f"Monte-Carlo price {price:.4f} is {error / std_err:.1f} standard errors off"
print(f"{n_paths:,} paths of {n_steps} steps: price {price:.4f} +- {std_err:.4f} (one standard error)")
print(f"European call (S0={s0:g}, K={strike:g}, r={r:g}, sigma={sigma:g}, T={t:g}): Monte-Carlo {price:.4f}, "
      f"Black-Scholes {reference:.4f}, error {error:+.4f} ({error / std_err:+.2f} standard errors)")
