//! `where(condition, x, y)`: elements of `x` where `condition` holds, else of `y`, broadcast
//! together. The result's dtype is NumPy 2's `result_type(x, y)` from the generated tables
//! (Python scalars weak, NEP 50). A Python int out of the result's range is NumPy's
//! `OverflowError`, as in NumPy 2.5 and in every ufunc (NumPy 2.4's `where` wrapped it).
//! One generated kernel converts each operand inline: no temporary copies.

use ember_codegen::types::cast;
use ember_codegen::{MapKernel, Operand as KernelOperand};
use ember_core::{DType, Error, Result, Scalar};
use ember_kernel::{dialect, scalar_param};

use crate::array::Array;
use crate::launch::run_map;
use crate::result_type::result_type;
use crate::shape::dims_text;
use crate::ufunc::resolve::OperandType;

/// A choice of `where`: an array, or a host scalar and how it takes part in promotion.
#[derive(Clone, Debug)]
pub enum Choice {
    Array(Array),
    Scalar(Scalar, OperandType),
}

impl Choice {
    fn kind(&self) -> OperandType {
        match self {
            Choice::Array(a) => OperandType::Strong(a.dtype()),
            Choice::Scalar(_, t) => *t,
        }
    }

    fn shape(&self) -> &[usize] {
        match self {
            Choice::Array(a) => a.shape(),
            Choice::Scalar(..) => &[],
        }
    }
}

/// The dtype `where(c, x, y)` gives.
pub fn where_dtype(x: &Choice, y: &Choice) -> Result<DType> {
    result_type(&[x.kind(), y.kind()])?.numeric("where")
}

/// The broadcast shape of the three operands, with NumPy's iterator error.
fn common_shape(shapes: &[&[usize]]) -> Result<Vec<usize>> {
    ember_core::shape::broadcast_shapes(shapes).map_err(|_| {
        let listed: String = shapes
            .iter()
            .map(|s| format!("{} ", dims_text(s)))
            .collect();
        Error::Value(format!(
            "operands could not be broadcast together with shapes {listed}"
        ))
    })
}

/// `where(condition, x, y)` on `condition`'s device (a non-boolean condition counts as
/// true where it is non-zero).
pub fn where_(condition: &Array, x: &Choice, y: &Choice) -> Result<Array> {
    let dtype = where_dtype(x, y)?;
    let shape = common_shape(&[condition.shape(), x.shape(), y.shape()])?;
    for choice in [x, y] {
        if let Choice::Scalar(value, kind) = choice {
            scalar_param(*value, python_kind(kind), dtype)?; // refused even when nothing runs
        }
    }
    let device = condition.device();
    let out = Array::empty(device, &shape, dtype)?;
    if out.size() == 0 {
        return Ok(out);
    }
    let d = dialect(device);
    // Operands go as they are: the launch broadcasts them to `shape`.
    let mut inputs = vec![KernelOperand::new("c", condition.dtype())];
    let mut scalars = Vec::new();
    let mut bytes = Vec::new();
    let mut value_of = |name: &str, choice: &Choice| -> Result<String> {
        Ok(match choice {
            Choice::Array(a) => {
                inputs.push(KernelOperand::new(name, a.dtype()));
                cast(name, a.dtype(), dtype, d)
            }
            Choice::Scalar(value, kind) => {
                scalars.push((name.to_string(), dtype));
                bytes.push(scalar_param(*value, python_kind(kind), dtype)?.to_vec());
                name.to_string()
            }
        })
    };
    let (xv, yv) = (value_of("x", x)?, value_of("y", y)?);
    let mut arrays = vec![condition];
    for choice in [x, y] {
        if let Choice::Array(a) = choice {
            arrays.push(a);
        }
    }
    let test = cast("c", arrays[0].dtype(), DType::Bool, d);
    let name = format!(
        "ember_where_{}_{}_{}_{}",
        arrays[0].dtype().name(),
        operand_name(x),
        operand_name(y),
        dtype.name()
    );
    let spec = MapKernel {
        name,
        inputs,
        outputs: vec![KernelOperand::new("z", dtype)],
        scalars,
        body: format!("z = {test} ? {xv} : {yv};"),
    };
    arrays.push(&out);
    run_map(&spec, &arrays, &bytes, &shape)?;
    Ok(out)
}

/// The kind of Python scalar a weak operand was (None: a NumPy scalar, converted as `astype`).
fn python_kind(kind: &OperandType) -> Option<ember_core::dtype::Kind> {
    match kind {
        OperandType::Weak(k) => Some(*k),
        OperandType::Strong(_) => None,
    }
}

fn operand_name(c: &Choice) -> &'static str {
    match c {
        Choice::Array(a) => a.dtype().name(),
        Choice::Scalar(..) => "scalar",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ember_core::dtype::Kind;

    fn weak(k: Kind) -> Choice {
        Choice::Scalar(Scalar::Int(1), OperandType::Weak(k))
    }

    fn strong(d: DType) -> Choice {
        Choice::Scalar(Scalar::Int(1), OperandType::Strong(d))
    }

    #[test]
    fn dtype_is_numpy_s_result_type() {
        assert_eq!(
            where_dtype(&strong(DType::I8), &weak(Kind::Int)).unwrap(),
            DType::I8
        );
        assert_eq!(
            where_dtype(&strong(DType::I8), &weak(Kind::Float)).unwrap(),
            DType::F64
        );
        assert_eq!(
            where_dtype(&strong(DType::F16), &weak(Kind::Complex)).unwrap(),
            DType::C64
        );
        assert_eq!(
            where_dtype(&weak(Kind::Int), &weak(Kind::Int)).unwrap(),
            DType::I64
        );
        assert_eq!(
            where_dtype(&strong(DType::Bool), &strong(DType::Bool)).unwrap(),
            DType::Bool
        );
        assert_eq!(
            where_dtype(&strong(DType::U8), &strong(DType::I8)).unwrap(),
            DType::I16
        );
    }

    #[test]
    fn broadcast_errors_list_every_operand() {
        let err = common_shape(&[&[2], &[3], &[]]).unwrap_err().to_string();
        assert_eq!(
            err,
            "operands could not be broadcast together with shapes (2,) (3,) () "
        );
        assert_eq!(common_shape(&[&[2, 1], &[3], &[]]).unwrap(), vec![2, 3]);
    }
}
