//! NumPy's reductions on the device — `sum prod mean var std max min argmax argmin any all`
//! and `cumsum` — with NumPy 2's axes, keepdims, result dtypes and errors.
//!
//! Kernels come from `ember_codegen::reduce`; [`plan`] chooses them by layout (reducing along
//! the contiguous axis or across it), splits long reductions into two passes, and launches.

mod plan;
mod scan;

pub use scan::{cumsum, cumulate};

use ember_codegen::reduce::{Combine, Map, Post};
use ember_core::dtype::Kind;
use ember_core::shape::format_shape;
use ember_core::{DType, Error, Result};

use crate::array::Array;
use crate::user_kernel::reduction::normalize_axes;
use plan::{Geometry, Pass};

/// A reduction of NumPy's.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Reduction {
    Sum,
    Prod,
    Mean,
    /// Variance with `ddof` delta degrees of freedom.
    Var {
        ddof: f64,
    },
    Std {
        ddof: f64,
    },
    Max,
    Min,
    ArgMax,
    ArgMin,
    Any,
    All,
    /// How many elements are not zero (NumPy's `count_nonzero`, as intp).
    CountNonzero,
    /// The sum with NaN read as 0 (NumPy's `nansum`).
    NanSum,
    /// The sum of the elements that are not NaN and their count, as the real and imaginary
    /// parts of a complex128 (`nanmean` in one pass).
    NanSumCount,
}

impl Reduction {
    /// The reduction NumPy calls `name` (`ddof` is used by `var` and `std`).
    pub fn from_name(name: &str, ddof: f64) -> Result<Reduction> {
        Ok(match name {
            "sum" => Reduction::Sum,
            "prod" => Reduction::Prod,
            "mean" => Reduction::Mean,
            "var" => Reduction::Var { ddof },
            "std" => Reduction::Std { ddof },
            "max" | "amax" => Reduction::Max,
            "min" | "amin" => Reduction::Min,
            "argmax" => Reduction::ArgMax,
            "argmin" => Reduction::ArgMin,
            "any" => Reduction::Any,
            "all" => Reduction::All,
            "count_nonzero" => Reduction::CountNonzero,
            "nansum" => Reduction::NanSum,
            "nan_sum_count" => Reduction::NanSumCount,
            other => {
                return Err(Error::Value(format!(
                    "no reduction {other:?}; ember has sum, prod, mean, var, std, max, min, argmax, argmin, any, \
                     all, count_nonzero, nansum, nan_sum_count"
                )))
            }
        })
    }

    /// NumPy's name of the operation in its messages: the ufunc its combine step is.
    fn ufunc(self) -> &'static str {
        match self.combine() {
            Combine::Add => "add",
            Combine::Multiply => "multiply",
            Combine::Max => "maximum",
            Combine::Min => "minimum",
            Combine::ArgMax => "argmax",
            Combine::ArgMin => "argmin",
            Combine::Or => "logical_or",
            Combine::And => "logical_and",
        }
    }

    fn combine(self) -> Combine {
        match self {
            Reduction::Sum
            | Reduction::Mean
            | Reduction::Var { .. }
            | Reduction::Std { .. }
            | Reduction::CountNonzero
            | Reduction::NanSum
            | Reduction::NanSumCount => Combine::Add,
            Reduction::Prod => Combine::Multiply,
            Reduction::Max => Combine::Max,
            Reduction::Min => Combine::Min,
            Reduction::ArgMax => Combine::ArgMax,
            Reduction::ArgMin => Combine::ArgMin,
            Reduction::Any => Combine::Or,
            Reduction::All => Combine::And,
        }
    }

    fn is_arg(self) -> bool {
        matches!(self, Reduction::ArgMax | Reduction::ArgMin)
    }
}

/// The dtypes of a reduction: what values accumulate in, what it returns, and what the mean
/// of a variance is computed in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReductionTypes {
    pub acc: DType,
    pub output: DType,
    pub mean: Option<DType>,
}

/// NumPy's default dtype of a sum or product: bools and small integers widen to 64 bits.
pub fn sum_dtype(input: DType) -> DType {
    match input.kind() {
        Kind::Bool | Kind::Int => DType::I64,
        Kind::UInt => DType::U64,
        _ => input,
    }
}

/// A narrow float is computed in its compute type (float16 in float32), as NumPy does.
fn computed_in(dtype: DType) -> DType {
    dtype.compute()
}

/// The dtypes NumPy uses for `op` on `input`, given the `dtype=` argument and the dtype of
/// `out=` (a sum into `out` with no `dtype` accumulates in `out`'s dtype, as NumPy's does).
pub fn result_types(
    op: Reduction,
    input: DType,
    dtype: Option<DType>,
    out: Option<DType>,
) -> Result<ReductionTypes> {
    input.numeric(&format!("{op:?}").to_lowercase())?;
    let inexact = |d: DType| match d.kind() {
        Kind::Bool | Kind::Int | Kind::UInt => DType::F64,
        _ => d,
    };
    let real = |d: DType| match d {
        DType::C64 => DType::F32,
        DType::C128 => DType::F64,
        d => d,
    };
    let types = |acc: DType, output: DType| ReductionTypes {
        acc,
        output,
        mean: None,
    };
    Ok(match op {
        Reduction::Sum | Reduction::Prod | Reduction::NanSum => {
            let d = dtype.or(out).unwrap_or_else(|| sum_dtype(input));
            types(computed_in(d), d)
        }
        Reduction::CountNonzero => types(DType::I64, DType::I64),
        Reduction::NanSumCount => types(DType::C128, DType::C128),
        Reduction::Mean => {
            let d = dtype.unwrap_or_else(|| inexact(input));
            types(computed_in(d), d)
        }
        Reduction::Var { .. } | Reduction::Std { .. } => {
            let d = dtype.unwrap_or_else(|| inexact(input));
            let mean = computed_in(d);
            ReductionTypes {
                acc: real(mean),
                output: real(d),
                mean: Some(mean),
            }
        }
        _ if dtype.is_some() => {
            return Err(Error::Type(format!(
                "{}() got an unexpected keyword argument 'dtype'",
                op_name(op)
            )))
        }
        Reduction::Max | Reduction::Min => types(computed_in(input), input),
        Reduction::ArgMax | Reduction::ArgMin => types(computed_in(input), DType::I64),
        Reduction::Any | Reduction::All => types(DType::Bool, DType::Bool),
    })
}

fn op_name(op: Reduction) -> &'static str {
    match op {
        Reduction::Sum => "sum",
        Reduction::Prod => "prod",
        Reduction::Mean => "mean",
        Reduction::Var { .. } => "var",
        Reduction::Std { .. } => "std",
        Reduction::Max => "max",
        Reduction::Min => "min",
        Reduction::ArgMax => "argmax",
        Reduction::ArgMin => "argmin",
        Reduction::Any => "any",
        Reduction::All => "all",
        Reduction::CountNonzero => "count_nonzero",
        Reduction::NanSum => "nansum",
        Reduction::NanSumCount => "nan_sum_count",
    }
}

/// `axis` normalised for an array of `ndim` axes, sorted. A 0-d array takes axis 0 or -1 as
/// no axis, as NumPy's reductions do.
pub(crate) fn reduced_axes(axis: Option<&[isize]>, ndim: usize) -> Result<Vec<usize>> {
    if let (0, Some(list)) = (ndim, axis) {
        if list.iter().all(|&a| a == 0 || a == -1) {
            return Ok(Vec::new());
        }
    }
    let mut axes = normalize_axes(axis, ndim)?;
    axes.sort_unstable();
    Ok(axes)
}

/// Where results go: `out` itself when a kernel can write it directly (C-contiguous, of the
/// kernel's dtype, not sharing the input's memory), else a new array (copied into `out`
/// afterwards when given).
pub(crate) fn target(
    a: &Array,
    out: Option<&Array>,
    shape: &[usize],
    dtype: DType,
) -> Result<Array> {
    if let Some(o) = out {
        if !std::ptr::eq(o.device(), a.device()) {
            return Err(Error::Value(format!(
                "out= is on device {} but the array is on device {}",
                o.device().info().ordinal,
                a.device().info().ordinal
            )));
        }
        let shared = std::sync::Arc::ptr_eq(o.buffer(), a.buffer());
        if o.dtype() == dtype && o.is_c_contiguous() && !shared {
            return Ok(o.clone());
        }
    }
    Array::empty(a.device(), shape, dtype)
}

/// Copies `result` into `out` when they differ; returns what the caller gets.
pub(crate) fn deliver(result: Array, out: Option<&Array>) -> Result<Array> {
    match out {
        Some(o) if !std::ptr::eq(o, &result) && !o.is_same_view(&result) => {
            result.copy_into(o)?;
            Ok(o.clone())
        }
        Some(o) => Ok(o.clone()),
        None => Ok(result),
    }
}

/// NumPy's `op(a, axis=axis, dtype=dtype, out=out, keepdims=keepdims)`. Arg reductions take
/// one axis or none (then they index the flattened array).
pub fn reduce(
    a: &Array,
    op: Reduction,
    axis: Option<&[isize]>,
    dtype: Option<DType>,
    out: Option<&Array>,
    keepdims: bool,
) -> Result<Array> {
    if op.is_arg() && axis.is_some_and(|list| list.len() != 1) {
        return Err(Error::Type(format!(
            "{} takes a single axis (an int) or None",
            op_name(op)
        )));
    }
    let ndim = a.ndim();
    let axes = reduced_axes(axis, ndim)?;
    let types = result_types(op, a.dtype(), dtype, out.map(Array::dtype))?;
    let shape: Vec<usize> = (0..ndim)
        .filter_map(|d| match (axes.contains(&d), keepdims) {
            (false, _) => Some(a.shape()[d]),
            (true, true) => Some(1),
            (true, false) => None,
        })
        .collect();
    if let Some(o) = out {
        check_out(op, o, &shape)?;
    }
    let n: usize = axes.iter().map(|&d| a.shape()[d]).product();
    if n == 0 {
        match op {
            Reduction::Max | Reduction::Min => {
                let which = if op == Reduction::Max {
                    "maximum"
                } else {
                    "minimum"
                };
                return Err(Error::Value(format!(
                    "zero-size array to reduction operation {which} which has no identity"
                )));
            }
            Reduction::ArgMax | Reduction::ArgMin => {
                return Err(Error::Value(format!(
                    "attempt to get {} of an empty sequence",
                    op_name(op)
                )))
            }
            _ => {}
        }
    }
    let kernel_output = if op.is_arg() {
        DType::I64
    } else {
        types.output
    };
    let result = target(a, out, &shape, kernel_output)?;
    let geometry = Geometry::of(a, &axes, !op.is_arg());
    let mut pass = Pass {
        combine: op.combine(),
        input: a,
        geometry: &geometry,
        acc: types.acc,
        map: Map::Value,
        post: Post::Keep,
        divisor: 1.0,
        mean: None,
    };
    match op {
        Reduction::Mean => {
            pass.post = Post::Divide;
            pass.divisor = n as f64;
            pass.run(&result)?;
        }
        Reduction::Var { ddof } | Reduction::Std { ddof } => {
            // NumPy's two passes: the mean, then the mean squared deviation from it.
            let mean_dtype = types.mean.unwrap_or(types.acc);
            let mean = Array::empty(a.device(), &[geometry.m()], mean_dtype)?;
            Pass {
                acc: mean_dtype,
                post: Post::Divide,
                divisor: n as f64,
                ..pass
            }
            .run(&mean)?;
            pass.map = Map::CenteredSquare { mean: mean_dtype };
            pass.mean = Some(&mean);
            pass.post = if matches!(op, Reduction::Std { .. }) {
                Post::DivideSqrt
            } else {
                Post::Divide
            };
            pass.divisor = (n as f64 - ddof).max(0.0);
            pass.run(&result)?;
        }
        Reduction::CountNonzero => {
            pass.map = Map::NonZero;
            pass.run(&result)?;
        }
        Reduction::NanSum => {
            pass.map = Map::NanAsZero;
            pass.run(&result)?;
        }
        Reduction::NanSumCount => {
            pass.map = Map::NanSumCount;
            pass.run(&result)?;
        }
        _ => pass.run(&result)?,
    }
    deliver(result, out)
}

/// `out` must have the result's shape; the messages are NumPy's.
fn check_out(op: Reduction, out: &Array, shape: &[usize]) -> Result<()> {
    if out.shape() == shape {
        return Ok(());
    }
    if op.is_arg() {
        return Err(Error::Value(format!(
            "output array does not match result of np.{}.",
            op_name(op)
        )));
    }
    if out.ndim() != shape.len() {
        return Err(Error::Value(format!(
            "output parameter for reduction operation {} has the wrong number of dimensions: Found {} but expected {}",
            op.ufunc(),
            out.ndim(),
            shape.len()
        )));
    }
    Err(Error::Value(format!(
        "output parameter for reduction operation {} has the wrong shape: Found {} but expected {}",
        op.ufunc(),
        format_shape(out.shape()),
        format_shape(shape)
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn result_types_follow_numpy() {
        let t = |op, input, dtype, out| result_types(op, input, dtype, out).unwrap();
        assert_eq!(t(Reduction::Sum, DType::I8, None, None).output, DType::I64);
        assert_eq!(t(Reduction::Sum, DType::U16, None, None).output, DType::U64);
        assert_eq!(
            t(Reduction::Sum, DType::Bool, None, None).output,
            DType::I64
        );
        let half = t(Reduction::Sum, DType::F16, None, None);
        assert_eq!((half.acc, half.output), (DType::F32, DType::F16));
        assert_eq!(
            t(Reduction::Sum, DType::F32, None, Some(DType::F64)).acc,
            DType::F64
        );
        assert_eq!(
            t(Reduction::Mean, DType::I32, None, None).output,
            DType::F64
        );
        let var = t(Reduction::Var { ddof: 0.0 }, DType::C64, None, None);
        assert_eq!(
            (var.mean, var.acc, var.output),
            (Some(DType::C64), DType::F32, DType::F32)
        );
        assert_eq!(
            t(Reduction::ArgMin, DType::F16, None, None).output,
            DType::I64
        );
        assert_eq!(t(Reduction::Any, DType::C128, None, None).acc, DType::Bool);
        assert!(result_types(Reduction::Max, DType::F32, Some(DType::F64), None).is_err());
        let count = t(Reduction::CountNonzero, DType::C64, None, None);
        assert_eq!((count.acc, count.output), (DType::I64, DType::I64));
        let nansum = t(Reduction::NanSum, DType::F16, None, None);
        assert_eq!((nansum.acc, nansum.output), (DType::F32, DType::F16));
        assert_eq!(
            t(Reduction::NanSumCount, DType::F32, None, None).output,
            DType::C128
        );
    }

    #[test]
    fn axes_are_checked_like_numpy() {
        assert_eq!(reduced_axes(Some(&[-1, 0]), 3).unwrap(), vec![0, 2]);
        assert_eq!(reduced_axes(Some(&[0]), 0).unwrap(), Vec::<usize>::new());
        let err = reduced_axes(Some(&[2]), 2).unwrap_err().to_string();
        assert_eq!(err, "axis 2 is out of bounds for array of dimension 2");
        let err = reduced_axes(Some(&[1, -1]), 2).unwrap_err().to_string();
        assert_eq!(err, "duplicate value in 'axis'");
    }
}
