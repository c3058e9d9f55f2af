"""The module's distribution functions (CuPy's ``cupy.random._distributions``): each draws from
the current device's global ``RandomState``."""

from __future__ import annotations

from ._generator import module_function

__all__ = [
    "beta", "binomial", "chisquare", "dirichlet", "exponential", "f", "gamma", "geometric", "gumbel",
    "hypergeometric", "laplace", "logistic", "lognormal", "logseries", "multivariate_normal",
    "negative_binomial", "noncentral_chisquare", "noncentral_f", "normal", "pareto", "poisson", "power",
    "rayleigh", "standard_cauchy", "standard_exponential", "standard_gamma", "standard_normal", "standard_t",
    "triangular", "uniform", "vonmises", "wald", "weibull", "zipf",
]

beta = module_function('beta')
binomial = module_function('binomial')
chisquare = module_function('chisquare')
dirichlet = module_function('dirichlet')
exponential = module_function('exponential')
f = module_function('f')
gamma = module_function('gamma')
geometric = module_function('geometric')
gumbel = module_function('gumbel')
hypergeometric = module_function('hypergeometric')
laplace = module_function('laplace')
logistic = module_function('logistic')
lognormal = module_function('lognormal')
logseries = module_function('logseries')
multivariate_normal = module_function('multivariate_normal')
negative_binomial = module_function('negative_binomial')
noncentral_chisquare = module_function('noncentral_chisquare')
noncentral_f = module_function('noncentral_f')
normal = module_function('normal')
pareto = module_function('pareto')
poisson = module_function('poisson')
power = module_function('power')
rayleigh = module_function('rayleigh')
standard_cauchy = module_function('standard_cauchy')
standard_exponential = module_function('standard_exponential')
standard_gamma = module_function('standard_gamma')
standard_normal = module_function('standard_normal')
standard_t = module_function('standard_t')
triangular = module_function('triangular')
uniform = module_function('uniform')
vonmises = module_function('vonmises')
wald = module_function('wald')
weibull = module_function('weibull')
zipf = module_function('zipf')
