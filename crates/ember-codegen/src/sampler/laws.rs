//! The distributions a sampler kernel draws: a row each. A row names its parameters (real
//! `double`s or `ember_i64` integers, in NumPy's order), what it yields, and the statements
//! that put its value(s) with `EMBER_PUT(j, value)`; the samplers it calls are in
//! [`super::library`]. Parameters arrive as `a`, `b`, `c`; a row law also reads its row of the
//! vector parameter `vec[0 .. width)`.

/// A parameter's type inside the kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Param {
    /// `double`.
    Real,
    /// `ember_i64`.
    Int,
}

/// What a law writes for each of its items.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Shape {
    /// One value an element.
    Element,
    /// `width` values a row, with the row of a vector parameter (multinomial, dirichlet).
    Row,
}

/// One distribution.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Law {
    pub name: &'static str,
    pub params: &'static [Param],
    /// Whether its values are integers (int64 by default) rather than reals (float64).
    pub integer: bool,
    pub shape: Shape,
    /// Declarations before the kernel's loop (what the body keeps from item to item).
    pub prologue: &'static str,
    /// Statements putting the values.
    pub body: &'static str,
}

use Param::{Int, Real};

const fn real(name: &'static str, params: &'static [Param], body: &'static str) -> Law {
    Law {
        name,
        params,
        integer: false,
        shape: Shape::Element,
        prologue: "",
        body,
    }
}

/// A law that sets up what depends on its first parameter once, and again only when it
/// changes (a parameter of numbers is set up once a thread).
const fn kept(
    name: &'static str,
    params: &'static [Param],
    integer: bool,
    prologue: &'static str,
    body: &'static str,
) -> Law {
    Law {
        name,
        params,
        integer,
        shape: Shape::Element,
        prologue,
        body,
    }
}

/// The gamma laws' setup kept from item to item (shapes are never negative: -1 is no shape).
const GAMMA_KEPT: &str =
    "double gamma_key = -1.0;\nember_gamma_c gamma_c = ember_gamma_setup(1.0);";

const fn int(name: &'static str, params: &'static [Param], body: &'static str) -> Law {
    Law {
        name,
        params,
        integer: true,
        shape: Shape::Element,
        prologue: "",
        body,
    }
}

/// Every law, in the order the shared kernel numbers them.
pub const LAWS: &[Law] = &[
    real(
        "uniform",
        &[Real, Real],
        "EMBER_PUT(0, a + (b - a) * ember_uniform(s));",
    ),
    real("standard_normal", &[], "EMBER_PUT(0, ember_std_normal(s));"),
    real(
        "normal",
        &[Real, Real],
        "EMBER_PUT(0, a + b * ember_std_normal(s));",
    ),
    real(
        "lognormal",
        &[Real, Real],
        "EMBER_PUT(0, exp(a + b * ember_std_normal(s)));",
    ),
    real(
        "standard_exponential",
        &[],
        "EMBER_PUT(0, ember_std_exponential(s));",
    ),
    real(
        "exponential",
        &[Real],
        "EMBER_PUT(0, a * ember_std_exponential(s));",
    ),
    kept(
        "standard_gamma",
        &[Real],
        false,
        GAMMA_KEPT,
        "if (a != gamma_key) { gamma_c = ember_gamma_setup(a); gamma_key = a; }\nEMBER_PUT(0, ember_gamma_draw(s, &gamma_c));",
    ),
    kept(
        "gamma",
        &[Real, Real],
        false,
        GAMMA_KEPT,
        "if (a != gamma_key) { gamma_c = ember_gamma_setup(a); gamma_key = a; }\nEMBER_PUT(0, b * ember_gamma_draw(s, &gamma_c));",
    ),
    real("beta", &[Real, Real], "EMBER_PUT(0, ember_beta(s, a, b));"),
    real("chisquare", &[Real], "EMBER_PUT(0, ember_chisquare(s, a));"),
    real(
        "noncentral_chisquare",
        &[Real, Real],
        "EMBER_PUT(0, ember_noncentral_chisquare(s, a, b));",
    ),
    real("f", &[Real, Real], "EMBER_PUT(0, ember_f(s, a, b));"),
    real(
        "noncentral_f",
        &[Real, Real, Real],
        "EMBER_PUT(0, ember_noncentral_f(s, a, b, c));",
    ),
    real(
        "standard_t",
        &[Real],
        "EMBER_PUT(0, ember_standard_t(s, a));",
    ),
    real("standard_cauchy", &[], "EMBER_PUT(0, ember_cauchy(s));"),
    real(
        "laplace",
        &[Real, Real],
        "EMBER_PUT(0, ember_laplace(s, a, b));",
    ),
    real(
        "logistic",
        &[Real, Real],
        "EMBER_PUT(0, ember_logistic(s, a, b));",
    ),
    real(
        "gumbel",
        &[Real, Real],
        "EMBER_PUT(0, ember_gumbel(s, a, b));",
    ),
    real(
        "rayleigh",
        &[Real],
        "EMBER_PUT(0, a * sqrt(2.0 * ember_std_exponential(s)));",
    ),
    real(
        "weibull",
        &[Real],
        "EMBER_PUT(0, a == 0.0 ? 0.0 : pow(ember_std_exponential(s), 1.0 / a));",
    ),
    real(
        "pareto",
        &[Real],
        "EMBER_PUT(0, expm1(ember_std_exponential(s) / a));",
    ),
    real(
        "power",
        &[Real],
        "EMBER_PUT(0, pow(-expm1(-ember_std_exponential(s)), 1.0 / a));",
    ),
    real("wald", &[Real, Real], "EMBER_PUT(0, ember_wald(s, a, b));"),
    real(
        "vonmises",
        &[Real, Real],
        "EMBER_PUT(0, ember_vonmises(s, a, b));",
    ),
    real(
        "triangular",
        &[Real, Real, Real],
        "EMBER_PUT(0, ember_triangular(s, a, b, c));",
    ),
    kept(
        "poisson",
        &[Real],
        true,
        "double poisson_key = -1.0;\nember_poisson_c poisson_c = ember_poisson_setup(1.0);",
        "if (a != poisson_key) { poisson_c = ember_poisson_setup(a); poisson_key = a; }\nEMBER_PUT(0, ember_poisson_draw(s, &poisson_c));",
    ),
    int(
        "binomial",
        &[Int, Real],
        "EMBER_PUT(0, ember_binomial(s, a, b));",
    ),
    int(
        "negative_binomial",
        &[Real, Real],
        "EMBER_PUT(0, ember_negative_binomial(s, a, b));",
    ),
    int("geometric", &[Real], "EMBER_PUT(0, ember_geometric(s, a));"),
    int(
        "hypergeometric",
        &[Int, Int, Int],
        "EMBER_PUT(0, ember_hypergeometric(s, a, b, c));",
    ),
    int("logseries", &[Real], "EMBER_PUT(0, ember_logseries(s, a));"),
    int("zipf", &[Real], "EMBER_PUT(0, ember_zipf(s, a));"),
    // Integers in [a, b): the bits of a + interval, so uint64 bounds work too.
    int(
        "integers",
        &[Int, Int],
        "EMBER_PUT(0, (ember_u64)a + ember_interval(s, (ember_u64)b - (ember_u64)a - 1));",
    ),
    // NumPy's multinomial: a binomial a category of what is left (the row starts zeroed).
    Law {
        name: "multinomial",
        params: &[Int],
        integer: true,
        shape: Shape::Row,
        prologue: "",
        body: r#"ember_i64 left = a;
double rest = 1.0;
for (ember_i64 j = 0; j < width; j++) EMBER_PUT(j, 0);
for (ember_i64 j = 0; j + 1 < width && left > 0; j++) {
  double q = rest > 0.0 ? vec[j] / rest : 1.0;
  q = q > 1.0 ? 1.0 : (q < 0.0 ? 0.0 : q);
  const ember_i64 x = ember_binomial(s, left, q);
  EMBER_PUT(j, x);
  left -= x;
  rest -= vec[j];
}
if (left > 0) EMBER_PUT(width - 1, left);"#,
    },
    // NumPy's multivariate_hypergeometric ("marginals"): a hypergeometric draw a color of
    // what is left; colors arrive as float64 (exact below 2^53).
    Law {
        name: "multivariate_hypergeometric",
        params: &[Int],
        integer: true,
        shape: Shape::Row,
        prologue: "",
        body: r#"ember_i64 left = a;
double rest = 0.0;
for (ember_i64 j = 0; j < width; j++) { rest += vec[j]; EMBER_PUT(j, 0); }
for (ember_i64 j = 0; j + 1 < width && left > 0; j++) {
  const ember_i64 good = (ember_i64)vec[j];
  rest -= vec[j];
  const ember_i64 bad = (ember_i64)rest;
  const ember_i64 x = good == 0 ? 0 : (bad == 0 ? left : ember_hypergeometric(s, good, bad, left));
  EMBER_PUT(j, x);
  left -= x;
}
if (left > 0) EMBER_PUT(width - 1, left);"#,
    },
    // NumPy's dirichlet: normalized gammas, or (every alpha below 0.1) stick breaking by betas,
    // which keeps small values from underflowing to 0/0.
    Law {
        name: "dirichlet",
        params: &[],
        integer: false,
        shape: Shape::Row,
        prologue: "",
        body: r#"double top = 0.0;
for (ember_i64 j = 0; j < width; j++) top = vec[j] > top ? vec[j] : top;
if (top < 0.1) {
  double acc = 1.0;
  for (ember_i64 j = 0; j + 1 < width; j++) {
    double after = 0.0;
    for (ember_i64 l = j + 1; l < width; l++) after += vec[l];
    const double v = ember_beta(s, vec[j], after);
    EMBER_PUT(j, acc * v);
    acc *= 1.0 - v;
  }
  EMBER_PUT(width - 1, acc);
} else {
  double sum = 0.0;
  for (ember_i64 j = 0; j < width; j++) {
    const double g = ember_std_gamma(s, vec[j]);
    EMBER_PUT(j, g);
    sum += g;
  }
  for (ember_i64 j = 0; j < width; j++) EMBER_PUT(j, EMBER_GET(j) / sum);
}"#,
    },
];

/// The law named `name`, with its number.
pub fn law(name: &str) -> Option<(usize, &'static Law)> {
    LAWS.iter().enumerate().find(|(_, l)| l.name == name)
}
