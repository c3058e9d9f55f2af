"""The distributions ``Generator`` and ``RandomState`` share (a mixin): NumPy's signatures, NumPy's
parameter checks, a sampler kernel for each (``crates/ember-codegen/src/sampler/laws.rs``
holds the algorithms). Values are float64 (integer laws: int64) unless ``dtype=`` asks for
float32 (or another integer type), as CuPy's ``dtype`` arguments do."""

from __future__ import annotations

import warnings

import numpy as np

from .. import _dtypes
from .._ndarray import ndarray
from ._params import any_true, check, draw, host_or_device, is_scalar, out_shape, output_dtype, per_item

# Each law's parameters: (name, 'f' for float64 or 'i' for int64, NumPy's constraints).
_LAWS: dict[str, tuple] = {
    "uniform": (("low", "f", ()), ("high", "f", ())),
    "standard_normal": (),
    "normal": (("loc", "f", ()), ("scale", "f", ("nonneg",))),
    "lognormal": (("mean", "f", ()), ("sigma", "f", ("nonneg",))),
    "standard_exponential": (),
    "exponential": (("scale", "f", ("nonneg",)),),
    "standard_gamma": (("shape", "f", ("nonneg",)),),
    "gamma": (("shape", "f", ("nonneg",)), ("scale", "f", ("nonneg",))),
    "beta": (("a", "f", ("positive",)), ("b", "f", ("positive",))),
    "chisquare": (("df", "f", ("positive",)),),
    "noncentral_chisquare": (("df", "f", ("positive",)), ("nonc", "f", ("nonneg",))),
    "f": (("dfnum", "f", ("positive",)), ("dfden", "f", ("positive",))),
    "noncentral_f": (("dfnum", "f", ("positive",)), ("dfden", "f", ("positive",)), ("nonc", "f", ("nonneg",))),
    "standard_t": (("df", "f", ("positive",)),),
    "standard_cauchy": (),
    "laplace": (("loc", "f", ()), ("scale", "f", ("nonneg",))),
    "logistic": (("loc", "f", ()), ("scale", "f", ("nonneg",))),
    "gumbel": (("loc", "f", ()), ("scale", "f", ("nonneg",))),
    "rayleigh": (("scale", "f", ("nonneg",)),),
    "weibull": (("a", "f", ("nonneg",)),),
    "pareto": (("a", "f", ("positive",)),),
    "power": (("a", "f", ("positive",)),),
    "wald": (("mean", "f", ("positive",)), ("scale", "f", ("positive",))),
    "vonmises": (("mu", "f", ()), ("kappa", "f", ("nonneg",))),
    "triangular": (("left", "f", ()), ("mode", "f", ()), ("right", "f", ())),
    "poisson": (("lam", "f", ("poisson_max", "poisson")),),
    "binomial": (("n", "i", ("nonneg",)), ("p", "f", ("bounded_0_1",))),
    "negative_binomial": (("n", "f", ("positive_not_nan",)), ("p", "f", ("bounded_gt0_1",))),
    "geometric": (("p", "f", ("bounded_gt0_1",)),),
    "hypergeometric": (("ngood", "i", ("nonneg",)), ("nbad", "i", ("nonneg",)), ("nsample", "i", ("nonneg",))),
    "logseries": (("p", "f", ("bounded_lt0_1",)),),
    "zipf": (("a", "f", ("gt_1",)),),
}
_INTEGER = {"poisson", "binomial", "negative_binomial", "geometric", "hypergeometric", "logseries", "zipf"}


class Distributions:
    """Every distribution, drawn from ``self._bits`` (a :class:`Philox`)."""

    # RandomState keeps NumPy's legacy limits where they differ from Generator's.
    _legacy = False

    def _law(self, law: str, size, dtype, *given):
        params = []
        for (name, kind, constraints), value in zip(_LAWS[law], given, strict=True):
            if value is None:
                # NumPy's TypeError; CuPy's legacy functions raise ValueError.
                raise (ValueError if self._legacy else TypeError)(f"{name} must be real number, not NoneType")
            value = host_or_device(value, kind)
            check(name, value, *constraints)
            params.append(value)
        integer = law in _INTEGER
        out, cast = output_dtype(dtype, "int64" if integer else "float64", integer)
        values = draw(self._bits, law, size, params, out)
        return values if cast is None else values.astype(cast)

    def _fill(self, law: str, size, dtype, *given):
        """``normal``/``uniform``/``exponential`` of numbers: the bandwidth-bound fill kernels
        (float32 or float64 only, as CuPy's and NumPy's ``random``, ``rand``, ``normal`` take
        them). They draw other numbers than the sampler does for array parameters."""
        out = "float64" if dtype is None else _dtypes.name_of(_dtypes.normalize(dtype))
        if out not in ("float32", "float64"):
            raise TypeError(f"ember.random supports float32 and float64 only here, got {out}")
        shape = out_shape(size, ())
        fill = {"normal": self._bits.normal, "uniform": self._bits.uniform, "exponential": self._bits.exponential}
        return fill[law](shape, out, *given)

    # Continuous laws.
    def uniform(self, low=0.0, high=1.0, size=None, dtype=None) -> ndarray:
        """Uniform values in ``[low, high)`` (rounding may reach ``high``, as NumPy warns)."""
        if is_scalar(low) and is_scalar(high):
            if not np.isfinite(float(high) - float(low)):
                raise OverflowError("high - low range exceeds valid bounds")
            return self._fill("uniform", size, dtype, float(low), float(high))
        return self._law("uniform", size, dtype, low, high)

    def standard_normal(self, size=None, dtype=None, out=None) -> ndarray:
        """Standard normal values."""
        return self._into(out, self._fill("normal", self._size_of(size, out), dtype, 0.0, 1.0))

    def normal(self, loc=0.0, scale=1.0, size=None, dtype=None) -> ndarray:
        """Normal values of mean ``loc`` and standard deviation ``scale``."""
        if is_scalar(loc) and is_scalar(scale):
            check("scale", float(scale), "nonneg")
            return self._fill("normal", size, dtype, float(loc), float(scale))
        return self._law("normal", size, dtype, loc, scale)

    def lognormal(self, mean=0.0, sigma=1.0, size=None, dtype=None) -> ndarray:
        return self._law("lognormal", size, dtype, mean, sigma)

    def standard_exponential(self, size=None, dtype=None, method="inv", out=None) -> ndarray:
        """Exponential values of scale 1 (by inversion whatever ``method`` names)."""
        if method not in ("zig", "inv"):
            raise ValueError(f"{method} is not a valid method: use 'zig' or 'inv'")
        if not self._legacy:
            self._float_only(dtype, "standard_exponential")
        size = self._size_of(size, out)
        if dtype is None or _dtypes.normalize(dtype).char in "fd":
            return self._into(out, self._fill("exponential", size, dtype, 1.0))
        return self._into(out, self._law("standard_exponential", size, dtype))

    def exponential(self, scale=1.0, size=None, dtype=None) -> ndarray:
        if is_scalar(scale) and (dtype is None or _dtypes.normalize(dtype).char in "fd"):
            check("scale", float(scale), "nonneg")
            return self._fill("exponential", size, dtype, float(scale))
        return self._law("exponential", size, dtype, scale)

    def standard_gamma(self, shape, size=None, dtype=None, out=None) -> ndarray:
        if not self._legacy:
            self._float_only(dtype, "standard_gamma")
        return self._into(out, self._law("standard_gamma", self._size_of(size, out), dtype, shape))

    def gamma(self, shape, scale=1.0, size=None, dtype=None) -> ndarray:
        return self._law("gamma", size, dtype, shape, scale)

    def beta(self, a, b, size=None, dtype=None) -> ndarray:
        return self._law("beta", size, dtype, a, b)

    def chisquare(self, df, size=None, dtype=None) -> ndarray:
        return self._law("chisquare", size, dtype, df)

    def noncentral_chisquare(self, df, nonc, size=None, dtype=None) -> ndarray:
        return self._law("noncentral_chisquare", size, dtype, df, nonc)

    def f(self, dfnum, dfden, size=None, dtype=None) -> ndarray:
        return self._law("f", size, dtype, dfnum, dfden)

    def noncentral_f(self, dfnum, dfden, nonc, size=None, dtype=None) -> ndarray:
        return self._law("noncentral_f", size, dtype, dfnum, dfden, nonc)

    def standard_t(self, df, size=None, dtype=None) -> ndarray:
        return self._law("standard_t", size, dtype, df)

    def standard_cauchy(self, size=None, dtype=None) -> ndarray:
        return self._law("standard_cauchy", size, dtype)

    def laplace(self, loc=0.0, scale=1.0, size=None, dtype=None) -> ndarray:
        return self._law("laplace", size, dtype, loc, scale)

    def logistic(self, loc=0.0, scale=1.0, size=None, dtype=None) -> ndarray:
        return self._law("logistic", size, dtype, loc, scale)

    def gumbel(self, loc=0.0, scale=1.0, size=None, dtype=None) -> ndarray:
        return self._law("gumbel", size, dtype, loc, scale)

    def rayleigh(self, scale=1.0, size=None, dtype=None) -> ndarray:
        return self._law("rayleigh", size, dtype, scale)

    def weibull(self, a, size=None, dtype=None) -> ndarray:
        return self._law("weibull", size, dtype, a)

    def pareto(self, a, size=None, dtype=None) -> ndarray:
        return self._law("pareto", size, dtype, a)

    def power(self, a, size=None, dtype=None) -> ndarray:
        return self._law("power", size, dtype, a)

    def wald(self, mean, scale, size=None, dtype=None) -> ndarray:
        return self._law("wald", size, dtype, mean, scale)

    def vonmises(self, mu, kappa, size=None, dtype=None) -> ndarray:
        return self._law("vonmises", size, dtype, mu, kappa)

    def triangular(self, left, mode, right, size=None, dtype=None) -> ndarray:
        left, mode, right = (host_or_device(v, "f") for v in (left, mode, right))
        if any_true(left > mode):
            raise ValueError("left > mode")
        if any_true(mode > right):
            raise ValueError("mode > right")
        if any_true(left == right):
            raise ValueError("left == right")
        return self._law("triangular", size, dtype, left, mode, right)

    # Discrete laws.
    def poisson(self, lam=1.0, size=None, dtype=None) -> ndarray:
        return self._law("poisson", size, dtype, lam)

    def binomial(self, n, p, size=None, dtype=None) -> ndarray:
        return self._law("binomial", size, dtype, n, p)

    def negative_binomial(self, n, p, size=None, dtype=None) -> ndarray:
        return self._law("negative_binomial", size, dtype, n, p)

    def geometric(self, p, size=None, dtype=None) -> ndarray:
        return self._law("geometric", size, dtype, p)

    def hypergeometric(self, ngood, nbad, nsample, size=None, dtype=None) -> ndarray:
        ngood, nbad, nsample = (host_or_device(v, "i") for v in (ngood, nbad, nsample))
        for name, value in (("ngood", ngood), ("nbad", nbad), ("nsample", nsample)):
            check(name, value, "nonneg")
        if self._legacy and any_true(nsample < 1):
            raise ValueError("nsample < 1 or nsample is NaN")
        if any_true(ngood + nbad < nsample):
            raise ValueError("ngood + nbad < nsample")
        if not self._legacy and (any_true(ngood >= 10**9) or any_true(nbad >= 10**9)):
            raise ValueError("both ngood and nbad must be less than 1000000000")
        return self._law("hypergeometric", size, dtype, ngood, nbad, nsample)

    def logseries(self, p, size=None, dtype=None) -> ndarray:
        return self._law("logseries", size, dtype, p)

    def zipf(self, a, size=None, dtype=None) -> ndarray:
        return self._law("zipf", size, dtype, a)

    # Laws of vectors.
    def multinomial(self, n, pvals, size=None) -> ndarray:
        """Counts of ``n`` trials over the categories of ``pvals`` (the last takes what the
        others leave): shape ``size + (len(pvals),)``."""
        from .._creation import asarray

        p = pvals.get() if isinstance(pvals, ndarray) else np.asarray(pvals, dtype=np.float64)
        p = p.astype(np.float64, copy=False)
        if p.ndim == 0:
            raise ValueError("pvals must have at least 1 dimension")
        if np.any(np.logical_not(np.logical_and(p >= 0, p <= 1))):
            raise ValueError("pvals < 0, pvals > 1 or pvals contains NaNs")
        if np.any(p[..., :-1].sum(axis=-1) > 1.0 + 1e-12):
            raise ValueError("sum(pvals[:-1]) > 1.0")
        n = host_or_device(n, "i")
        check("n", n, "nonneg")
        k = p.shape[-1]
        rows = out_shape(size, [n, np.empty(p.shape[:-1])])
        per_row = p.ndim > 1
        vector = asarray(np.ascontiguousarray(np.broadcast_to(p, rows + (k,)) if per_row else p))
        return self._bits.sample("multinomial", rows + (k,), "int64", [per_item(n, rows)], vector, per_row)

    def dirichlet(self, alpha, size=None, dtype=None) -> ndarray:
        """Points of the simplex with Dirichlet density of ``alpha``: shape ``size + (k,)``.
        A single ``alpha`` (as CuPy takes it) is every component's, the last axis of ``size``
        the simplex's."""
        from .._creation import _shape_tuple, asarray

        a = alpha.get() if isinstance(alpha, ndarray) else np.asarray(alpha, dtype=np.float64)
        a = a.astype(np.float64, copy=False)
        if a.ndim == 0 and size is not None and _shape_tuple(size):
            shape = _shape_tuple(size)
            a, size = np.full(shape[-1], float(a)), shape[:-1]
        if a.ndim != 1:
            raise ValueError("alpha must be a one-dimensional sequence of floats")
        if np.any(a < 0):
            raise ValueError("alpha < 0")
        if np.any(np.isnan(a)):
            raise ValueError("alpha contains NaNs")
        shape = out_shape(size, ()) + (a.size,)
        values = self._bits.sample("dirichlet", shape, "float64", [], asarray(a), False)
        return values if dtype is None else values.astype(dtype)

    def multivariate_normal(self, mean, cov, size=None, check_valid="warn", tol=1e-8, *, method="svd",
                            dtype=None) -> ndarray:
        """Normal vectors of mean ``mean`` and covariance ``cov``: standard normals times a
        factor of ``cov`` (SVD, eigh or Cholesky, computed on the host: ``cov`` is k × k)."""
        from .._creation import asarray

        mean = np.asarray(mean.get() if isinstance(mean, ndarray) else mean, dtype=np.float64)
        cov = np.asarray(cov.get() if isinstance(cov, ndarray) else cov, dtype=np.float64)
        if method not in ("svd", "eigh", "cholesky"):
            raise ValueError("method must be one of {'eigh', 'svd', 'cholesky'}")
        if mean.ndim != 1:
            raise ValueError("mean must be 1 dimensional")
        if cov.ndim != 2 or cov.shape[0] != cov.shape[1]:
            raise ValueError("cov must be 2 dimensional and square")
        if mean.shape[0] != cov.shape[0]:
            raise ValueError("mean and cov must have same length")
        if check_valid not in ("warn", "raise", "ignore"):
            raise ValueError("check_valid must equal 'warn', 'raise', or 'ignore'")
        if method == "cholesky":
            factor = np.linalg.cholesky(cov).T
        else:
            if method == "eigh":
                s, v = np.linalg.eigh(cov)
                vt = v.T
            else:
                _, s, vt = np.linalg.svd(cov)
            if check_valid != "ignore":
                psd = np.allclose((vt.T * s) @ vt, cov, rtol=tol, atol=tol) and (method == "svd" or np.all(s >= -tol))
                if not psd:
                    if check_valid == "raise":
                        raise ValueError("covariance is not symmetric positive-semidefinite.")
                    warnings.warn("covariance is not symmetric positive-semidefinite.", RuntimeWarning, stacklevel=2)
            factor = np.sqrt(np.maximum(s, 0))[:, None] * vt
        shape = out_shape(size, ())
        z = self._fill("normal", shape + mean.shape, None, 0.0, 1.0)
        values = z @ asarray(factor) + asarray(mean)
        return values if dtype is None else values.astype(dtype)

    # Helpers of the ``out=`` and ``dtype=`` arguments.
    @staticmethod
    def _float_only(dtype, what: str) -> None:
        if dtype is not None and _dtypes.normalize(dtype).char not in "fd":
            raise TypeError(f"Unsupported dtype {_dtypes.normalize(dtype)} for {what}")

    @staticmethod
    def _size_of(size, out):
        from .._creation import _shape_tuple

        if out is None:
            return size
        if size is not None and _shape_tuple(size) != out.shape:
            raise ValueError("size must match out.shape when used together")
        return out.shape

    @staticmethod
    def _into(out, values: ndarray) -> ndarray:
        if out is None:
            return values
        if not isinstance(out, ndarray):
            raise TypeError(f"out must be an ember.ndarray, got {type(out).__name__}")
        if not out.flags.c_contiguous:
            raise ValueError("Supplied output array is not contiguous, writable or aligned.")
        if out.dtype != values.dtype:
            raise TypeError(
                f"Supplied output array has the wrong type. Expected {values.dtype.name}, got {out.dtype.name}"
            )
        values._a.copy_into(out._a)
        return out
