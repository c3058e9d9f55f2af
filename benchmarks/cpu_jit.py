"""``@ember.njit`` beside Numba's ``@njit`` on the same functions, each library in a process of
its own (BENCHMARKS.md's row: first call, scalar call, loops at 10^7 elements).

    python benchmarks/cpu_jit.py                          # ember only
    NUMBA_PATH=/tmp/numba python benchmarks/cpu_jit.py    # and Numba (pip install --target)
    NUMBA_PATH=/tmp/numba python benchmarks/cpu_jit.py --rounds 5   # taking turns, medians

Rows:

- first call: a fresh process compiles ``x * x`` and calls it once (wall time of that call);
- scalar call: host time of one call of the compiled ``x * x`` (best of 7 runs of 10^5 calls);
- sum, saxpy, 5-point stencil, Monte-Carlo pi: the loops written out, 10^7 elements (the
  stencil 3,163 x 3,163), single-threaded, then with ``parallel=True`` and ``prange`` on
  every core; median of 7 runs after a warm-up call, results checked against NumPy;
- a ``@vectorize`` ufunc (``sqrt(x*x + y*y)`` of two 10^7 arrays, a new array out) on one
  thread and with ``target="parallel"``, and the array expression ``a * 2 + b`` in ``@njit``.

The Monte-Carlo loops draw from generators written in the functions (a 64-bit linear
congruential one; splitmix64 of the draw's number in parallel): both compilers run the same
arithmetic, neither calls a library.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys

FUNCTIONS = r'''
import numpy as np

@njit
def square(x):
    return x * x

@njit
def total(a):
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i]
    return s

@njit
def saxpy(alpha, x, y, out):
    for i in range(x.shape[0]):
        out[i] = alpha * x[i] + y[i]

@njit
def stencil(a, out):
    for i in range(1, a.shape[0] - 1):
        for j in range(1, a.shape[1] - 1):
            out[i, j] = 0.25 * (a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1]) - a[i, j]

@njit
def mc_pi(n, seed):
    state = seed
    inside = 0
    for _ in range(n):
        state = state * 6364136223846793005 + 1442695040888963407
        x = ((state >> 11) & 9007199254740991) * (1.0 / 9007199254740992.0)
        state = state * 6364136223846793005 + 1442695040888963407
        y = ((state >> 11) & 9007199254740991) * (1.0 / 9007199254740992.0)
        if x * x + y * y < 1.0:
            inside += 1
    return 4.0 * inside / n

@njit(parallel=True)
def par_total(a):
    s = 0.0
    for i in prange(a.shape[0]):
        s += a[i]
    return s

@njit(parallel=True)
def par_saxpy(alpha, x, y, out):
    for i in prange(x.shape[0]):
        out[i] = alpha * x[i] + y[i]

@njit(parallel=True)
def par_stencil(a, out):
    for i in prange(1, a.shape[0] - 1):
        for j in range(1, a.shape[1] - 1):
            out[i, j] = 0.25 * (a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1]) - a[i, j]

@njit(parallel=True)
def par_mc_pi(n, seed):
    inside = 0
    for i in prange(n):
        # splitmix64 of the draw's number: each iteration's numbers stand alone.
        z = seed + i * 2 * -7046029254386353131
        z = (z ^ ((z >> 30) & 17179869183)) * -4658895280553007687
        z = (z ^ ((z >> 27) & 137438953471)) * -7723592293110705685
        z = z ^ ((z >> 31) & 8589934591)
        x = ((z >> 11) & 9007199254740991) * (1.0 / 9007199254740992.0)
        z = seed + (i * 2 + 1) * -7046029254386353131
        z = (z ^ ((z >> 30) & 17179869183)) * -4658895280553007687
        z = (z ^ ((z >> 27) & 137438953471)) * -7723592293110705685
        z = z ^ ((z >> 31) & 8589934591)
        y = ((z >> 11) & 9007199254740991) * (1.0 / 9007199254740992.0)
        if x * x + y * y < 1.0:
            inside += 1
    return 4.0 * inside / n

@vectorize(["float64(float64, float64)"])
def hypot_ufunc(x, y):
    return (x * x + y * y) ** 0.5

@vectorize(["float64(float64, float64)"], target="parallel")
def par_hypot_ufunc(x, y):
    return (x * x + y * y) ** 0.5

@njit
def expression(a, b):
    return a * 2.0 + b
'''

FIRST_CALL = r'''
import sys, time
{imports}
t = time.perf_counter()
@njit
def square(x):
    return x * x
square(3.0)
print(time.perf_counter() - t)
'''

DRIVER = r'''
import json, statistics, sys, time
import numpy as np
{imports}
exec(compile(FUNCTIONS, "cpu_jit_functions.py", "exec"))

def best_per_call(f, arg, calls=100_000):
    f(arg)
    runs = []
    for _ in range(7):
        t = time.perf_counter()
        for _ in range(calls):
            f(arg)
        runs.append((time.perf_counter() - t) / calls)
    return min(runs)

def median_time(f, *args):
    f(*args)
    runs = []
    for _ in range(7):
        t = time.perf_counter()
        f(*args)
        runs.append(time.perf_counter() - t)
    return statistics.median(runs)

rng = np.random.default_rng(0)
n = 10_000_000
a, b = rng.random(n), rng.random(n)
out = np.empty(n)
side = 3163
grid, grid_out = rng.random((side, side)), np.zeros((side, side))
rows = {{}}
rows["scalar call"] = best_per_call(square, 3.0)
rows["sum"] = median_time(total, a)
assert abs(total(a) - a.sum()) < 1e-6 * n
rows["saxpy"] = median_time(saxpy, 2.0, a, b, out)
np.testing.assert_allclose(out, 2.0 * a + b)
rows["stencil"] = median_time(stencil, grid, grid_out)
want = 0.25 * (grid[:-2, 1:-1] + grid[2:, 1:-1] + grid[1:-1, :-2] + grid[1:-1, 2:]) - grid[1:-1, 1:-1]
np.testing.assert_allclose(grid_out[1:-1, 1:-1], want, rtol=1e-12)
rows["Monte-Carlo pi"] = median_time(mc_pi, n, 12345)
assert abs(mc_pi(n, 12345) - np.pi) < 1e-2
rows["sum, parallel"] = median_time(par_total, a)
assert abs(par_total(a) - a.sum()) < 1e-6 * n
rows["saxpy, parallel"] = median_time(par_saxpy, 2.0, a, b, out)
np.testing.assert_allclose(out, 2.0 * a + b)
grid_out[:] = 0
rows["stencil, parallel"] = median_time(par_stencil, grid, grid_out)
np.testing.assert_allclose(grid_out[1:-1, 1:-1], want, rtol=1e-12)
rows["Monte-Carlo pi, parallel"] = median_time(par_mc_pi, n, 12345)
assert abs(par_mc_pi(n, 12345) - np.pi) < 1e-2
rows["vectorize ufunc"] = median_time(hypot_ufunc, a, b)
np.testing.assert_allclose(hypot_ufunc(a, b), np.hypot(a, b), rtol=1e-12)
rows["vectorize ufunc, parallel"] = median_time(par_hypot_ufunc, a, b)
np.testing.assert_allclose(par_hypot_ufunc(a, b), np.hypot(a, b), rtol=1e-12)
rows["array expression a * 2 + b"] = median_time(expression, a, b)
np.testing.assert_allclose(expression(a, b), a * 2.0 + b)
print(json.dumps(rows))
'''

LIBRARIES = {
    "ember": "from ember import njit, prange, vectorize",
    "numba": "from numba import njit, prange, vectorize",
}


def run(code: str, env: dict) -> str:
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(done.stderr[-3000:])
    return done.stdout.strip().splitlines()[-1]


def measure(lib: str) -> dict:
    env = dict(os.environ)
    if lib == "numba":
        env["PYTHONPATH"] = os.environ["NUMBA_PATH"] + os.pathsep + env.get("PYTHONPATH", "")
    imports = LIBRARIES[lib]
    first = min(float(run(FIRST_CALL.format(imports=imports), env)) for _ in range(3))
    driver = f"FUNCTIONS = {FUNCTIONS!r}\n" + DRIVER.format(imports=imports)
    rows = json.loads(run(driver, env))
    return {"first call": first, **rows}


def main() -> None:
    libs = ["ember"] + (["numba"] if os.environ.get("NUMBA_PATH") else [])
    # On a shared machine a slow minute can land on one library's process: with --rounds N the
    # libraries take turns N times (the order alternating) and each row is the median of rounds.
    rounds = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 1
    runs: dict = {lib: [] for lib in libs}
    for r in range(rounds):
        for lib in libs if r % 2 == 0 else libs[::-1]:
            runs[lib].append(measure(lib))
    results = {lib: {row: statistics.median(m[row] for m in runs[lib]) for row in runs[lib][0]} for lib in libs}
    if rounds > 1:
        print(f"Each row: the median of {rounds} rounds, the libraries taking turns.\n")
    print(f"| row | {' | '.join(libs)} |{' ember vs Numba |' if 'numba' in results else ''}")
    print(f"| --- |{' ---: |' * len(libs)}{' ---: |' if 'numba' in results else ''}")
    for row in results["ember"]:
        cells = []
        for lib in libs:
            t = results[lib][row]
            cells.append(f"{t * 1e6:.3f} µs" if t < 1e-3 else f"{t * 1e3:.2f} ms")
        ratio = ""
        if "numba" in results:
            ratio = f" {results['numba'][row] / results['ember'][row]:.2f}× |"
        print(f"| {row} | {' | '.join(cells)} |{ratio}")


if __name__ == "__main__":
    main()
