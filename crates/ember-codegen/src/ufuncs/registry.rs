//! Every ufunc ember has: one row each. NumPy's loops for it (which types it takes, what it
//! returns) come from `tables.rs`, generated from NumPy; the row adds the rest: other names,
//! whether `@jit` kernels may call it on scalars (`np.<name>(x)`), and its C body for one loop.
//! Adding a ufunc is adding a row (and its tests): arrays, `out=`, fusion, `ember.fuse`,
//! `@jit`, the Python namespace, docs and stubs all read this table.

use ember_core::dtype::Kind;
use ember_core::{DType, Error, Result};

use crate::complex::log1p_exact_below;
use crate::dialect::Dialect;
use crate::types::value_type;

use super::expr::{expression, Expr};
use super::ulp;

/// One loop of one ufunc to write: the values `args` (C expressions, already of the loop's
/// input types `ins`) and the type `out` of its first output.
pub struct Call<'a> {
    pub name: &'static str,
    pub ins: &'a [DType],
    pub out: DType,
    pub args: &'a [String],
    pub dialect: Dialect,
}

impl Call<'_> {
    /// The first input's type (what most bodies branch on).
    pub fn dtype(&self) -> DType {
        self.ins.first().copied().unwrap_or(self.out)
    }

    fn arg(&self, k: usize) -> &str {
        self.args.get(k).map_or("", String::as_str)
    }

    pub fn unsupported(&self) -> Result<Expr> {
        Err(Error::Type(format!(
            "ufunc '{}' is not supported for {} by ember yet",
            self.name,
            self.dtype().name()
        )))
    }
}

/// Writes the C expression of one loop.
pub type Body = fn(&Call) -> Result<Expr>;

/// One ufunc.
pub struct UfuncRow {
    pub name: &'static str,
    /// Other names NumPy gives it (`abs` for `absolute`).
    pub aliases: &'static [&'static str],
    /// Callable on scalars inside `@jit` kernels as `np.<name>(...)`, typed by NumPy's loops.
    pub jit: bool,
    pub body: Body,
}

const fn row(name: &'static str, aliases: &'static [&'static str]) -> UfuncRow {
    UfuncRow {
        name,
        aliases,
        jit: false,
        body: numpy_semantics,
    }
}

/// The bodies written before this table: one `match` over the names, NumPy's semantics where
/// C's differ (see `expr.rs`).
fn numpy_semantics(c: &Call) -> Result<Expr> {
    expression(c.name, c.ins, c.out, c.args, c.dialect)
}

pub const UFUNCS: &[UfuncRow] = &[
    row("add", &[]),
    row("subtract", &[]),
    row("multiply", &[]),
    row("divide", &["true_divide"]),
    row("floor_divide", &[]),
    row("remainder", &["mod"]),
    row("power", &["pow"]),
    row("negative", &[]),
    row("positive", &[]),
    row("absolute", &["abs"]),
    row("sign", &[]),
    row("sqrt", &[]),
    row("square", &[]),
    row("exp", &[]),
    row("exp2", &[]),
    row("log", &[]),
    row("log2", &[]),
    row("log10", &[]),
    row("log1p", &[]),
    row("expm1", &[]),
    row("sin", &[]),
    row("cos", &[]),
    row("tan", &[]),
    row("arcsin", &["asin"]),
    row("arccos", &["acos"]),
    row("arctan", &["atan"]),
    row("arctan2", &["atan2"]),
    row("sinh", &[]),
    row("cosh", &[]),
    row("tanh", &[]),
    row("floor", &[]),
    row("ceil", &[]),
    row("trunc", &[]),
    row("rint", &[]),
    row("maximum", &[]),
    row("minimum", &[]),
    row("fmax", &[]),
    row("fmin", &[]),
    row("isnan", &[]),
    row("isinf", &[]),
    row("isfinite", &[]),
    row("logical_and", &[]),
    row("logical_or", &[]),
    row("logical_not", &[]),
    row("logical_xor", &[]),
    row("bitwise_and", &[]),
    row("bitwise_or", &[]),
    row("bitwise_xor", &[]),
    row("invert", &["bitwise_not", "bitwise_invert"]),
    row("left_shift", &["bitwise_left_shift"]),
    row("right_shift", &["bitwise_right_shift"]),
    row("equal", &[]),
    row("not_equal", &[]),
    row("less", &[]),
    row("less_equal", &[]),
    row("greater", &[]),
    row("greater_equal", &[]),
    row("fmod", &[]),
    row("reciprocal", &[]),
    row("conjugate", &["conj"]),
    row("cbrt", &[]),
    row("fabs", &[]),
    row("deg2rad", &["radians"]),
    row("rad2deg", &["degrees"]),
    row("signbit", &[]),
    row("copysign", &[]),
    row("heaviside", &[]),
    row("float_power", &[]),
    row("gcd", &[]),
    row("lcm", &[]),
    row("arcsinh", &["asinh"]),
    row("arccosh", &["acosh"]),
    row("arctanh", &["atanh"]),
    row("hypot", &[]),
    row("ldexp", &[]),
    row("bitwise_count", &[]),
    UfuncRow {
        name: "nextafter",
        aliases: &[],
        jit: false,
        body: ulp::nextafter,
    },
    UfuncRow {
        name: "spacing",
        aliases: &[],
        jit: false,
        body: ulp::spacing,
    },
    UfuncRow {
        name: "logaddexp",
        aliases: &[],
        jit: true,
        body: |c| log_add_exp(c, false),
    },
    UfuncRow {
        name: "logaddexp2",
        aliases: &[],
        jit: true,
        body: |c| log_add_exp(c, true),
    },
];

/// `log(exp(x) + exp(y))` (base 2 with `two`) without overflow, as NumPy's npy_logaddexp:
/// the larger value plus log1p of the exponential of the difference; equal values (equal
/// infinities among them) give the value plus log(2) (plus 1).
fn log_add_exp(c: &Call, two: bool) -> Result<Expr> {
    let d = c.dtype();
    if d.kind() != Kind::Float {
        return c.unsupported();
    }
    let r = value_type(d, c.dialect);
    let (name, exp, same, scale) = if two {
        ("ember_logaddexp2", "exp2", 1.0, std::f64::consts::LOG2_E)
    } else {
        ("ember_logaddexp", "exp", std::f64::consts::LN_2, 1.0)
    };
    let name = format!("{name}_{}", d.name());
    // PoCL's log1p is off for tiny arguments; below this log1p(v) is v.
    let tiny = log1p_exact_below(d);
    let log1p = |v: &str| {
        let l = format!("({v} < (({r}){tiny:?}) ? {v} : log1p({v}))");
        if scale == 1.0 {
            l
        } else {
            format!("(({r}){scale:?} * {l})")
        }
    };
    let helper = format!(
        "static __device__ inline {r} {name}({r} x, {r} y) {{\n\
           if (x == y) return x + (({r}){same:?});\n\
           {r} d = x - y;\n\
           if (d > 0) {{ {r} e = {exp}(-d); return x + {}; }}\n\
           if (d <= 0) {{ {r} e = {exp}(d); return y + {}; }}\n\
           return d; }}\n",
        log1p("e"),
        log1p("e"),
    );
    Ok(Expr {
        code: format!("{name}({}, {})", c.arg(0), c.arg(1)),
        helpers: helper,
    })
}

/// The row of the ufunc called `name` or one of its aliases.
pub fn row_named(name: &str) -> Option<&'static UfuncRow> {
    UFUNCS
        .iter()
        .find(|r| r.name == name || r.aliases.contains(&name))
}

#[cfg(test)]
mod tests {
    use super::super::tables;
    use super::*;

    #[test]
    fn every_row_has_numpys_loops_and_one_name() {
        for r in UFUNCS {
            assert!(
                tables::UFUNCS.iter().any(|t| t.0 == r.name),
                "{} has no NumPy loops in tables.rs (rerun tools/gen_ufunc_tables.py)",
                r.name
            );
            for n in std::iter::once(&r.name).chain(r.aliases) {
                let named: Vec<_> = UFUNCS
                    .iter()
                    .filter(|o| o.name == *n || o.aliases.contains(n))
                    .collect();
                assert_eq!(named.len(), 1, "{n} names more than one ufunc");
            }
        }
    }

    #[test]
    fn log_add_exp_keeps_the_larger_value_and_guards_log1p() {
        let args = ["a".to_string(), "b".to_string()];
        static F32S: [DType; 2] = [DType::F32; 2];
        static F64S: [DType; 2] = [DType::F64; 2];
        let call = |name, ins: &'static [DType], d, dialect| Call {
            name,
            ins,
            out: d,
            args: &args,
            dialect,
        };
        let two = call("logaddexp2", &F32S, DType::F32, Dialect::OpenCl);
        let e = log_add_exp(&two, true).unwrap();
        assert_eq!(e.code, "ember_logaddexp2_float32(a, b)");
        assert!(
            e.helpers.contains("if (x == y) return x + ((float)1.0);"),
            "{}",
            e.helpers
        );
        assert!(
            e.helpers.contains(
                "((float)1.4426950408889634 * (e < ((float)9.313225746154785e-10) ? e : log1p(e)))"
            ),
            "{}",
            e.helpers
        );
        let e = log_add_exp(&call("logaddexp", &F64S, DType::F64, Dialect::Cuda), false).unwrap();
        assert!(e
            .helpers
            .contains("return x + ((double)0.6931471805599453);"));
        assert!(e.helpers.contains("double e = exp(-d); return x + (e < "));
        static I32S: [DType; 2] = [DType::I32; 2];
        let ints = log_add_exp(&call("logaddexp", &I32S, DType::I32, Dialect::Cuda), false);
        assert!(ints.is_err());
    }
}
