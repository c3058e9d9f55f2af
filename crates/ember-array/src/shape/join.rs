//! Joining and splitting: `concatenate` and `stack` plans (the result's shape, where each
//! input goes, the dtype by promotion from the generated tables) and the pieces of `split`
//! and `array_split`, with NumPy's checks and words.

use ember_core::{DType, Error, Result};

use super::axes::expand_dims_shape;
use super::copy::assign;
use super::reshape::{ravel, reshape};
use super::{normalize_axis, view, Layout, Order};
use crate::array::{Array, Dims};
use crate::index::basic::basic_view;
use crate::index::{Item, Slice};
use crate::result_type::Casting;
use crate::ufunc::resolve::promote;

/// Where `concatenate` puts its inputs: the result's shape, and along `axis` the start of
/// each input's block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JoinPlan {
    pub shape: Dims,
    pub axis: usize,
    pub starts: Vec<usize>,
}

/// `concatenate` of arrays of `shapes` along `axis` (NumPy's `PyArray_ConcatenateArrays`);
/// None joins them flattened (`PyArray_ConcatenateFlattenedArrays`).
pub fn concatenate_plan(shapes: &[&[usize]], axis: Option<i64>) -> Result<JoinPlan> {
    let Some(first) = shapes.first() else {
        return Err(Error::Value(
            "need at least one array to concatenate".into(),
        ));
    };
    let Some(axis) = axis else {
        let mut starts = Vec::with_capacity(shapes.len());
        let mut total = 0usize;
        for s in shapes {
            starts.push(total);
            total = total.checked_add(s.iter().product()).ok_or_else(|| {
                Error::Value("total number of elements too large to concatenate".into())
            })?;
        }
        return Ok(JoinPlan {
            shape: Dims::from_slice(&[total]),
            axis: 0,
            starts,
        });
    };
    let ndim = first.len();
    if ndim == 0 {
        return Err(Error::Value(
            "zero-dimensional arrays cannot be concatenated".into(),
        ));
    }
    let axis = normalize_axis(axis, ndim, None)?;
    let mut shape = Dims::from_slice(first);
    let mut starts = vec![0];
    for (i, s) in shapes.iter().enumerate().skip(1) {
        if s.len() != ndim {
            return Err(Error::Value(format!(
                "all the input arrays must have same number of dimensions, but the array at index 0 has {ndim} dimension(s) and the array at index {i} has {} dimension(s)",
                s.len()
            )));
        }
        starts.push(shape[axis]);
        for (d, (&want, &got)) in first.iter().zip(s.iter()).enumerate() {
            if d == axis {
                shape[axis] += got;
            } else if want != got {
                return Err(Error::Value(format!(
                    "all the input array dimensions except for the concatenation axis must match exactly, but along dimension {d}, the array at index 0 has size {want} and the array at index {i} has size {got}"
                )));
            }
        }
    }
    Ok(JoinPlan {
        shape,
        axis,
        starts,
    })
}

/// The dtype of a join: `dtype` when given, else the inputs' promoted dtypes; every input
/// must cast to it by `casting` (NumPy's `TypeError` otherwise, for the first that does not).
pub fn join_dtype(inputs: &[DType], dtype: Option<DType>, casting: Casting) -> Result<DType> {
    let result = match dtype {
        Some(d) => d,
        None => inputs
            .iter()
            .copied()
            .reduce(promote)
            .ok_or_else(|| Error::Value("need at least one array to concatenate".into()))?,
    };
    for &d in inputs {
        casting.check(d, result)?;
    }
    Ok(result)
}

/// Checks a given `out=` against the plan, in NumPy's words.
fn check_out(plan: &JoinPlan, flat: bool, out: &Array) -> Result<()> {
    let wrong = |m: &str| Err(Error::Value(m.into()));
    if flat {
        if out.ndim() != 1 {
            return wrong("Output array must be 1D");
        }
        if out.shape()[0] != plan.shape[0] {
            return wrong("Output array is the wrong size");
        }
    } else if out.ndim() != plan.shape.len() {
        return wrong("Output array has wrong dimensionality");
    } else if out.shape() != plan.shape.as_slice() {
        return wrong("Output array is the wrong shape");
    }
    Ok(())
}

/// `np.concatenate(arrays, axis, out=, dtype=, casting=)`, copied on the device.
pub fn concatenate(
    arrays: &[Array],
    axis: Option<i64>,
    out: Option<&Array>,
    dtype: Option<DType>,
    casting: Casting,
) -> Result<Array> {
    if out.is_some() && dtype.is_some() {
        return Err(Error::Type(
            "concatenate() only takes `out` or `dtype` as an argument, but both were provided."
                .into(),
        ));
    }
    let shapes: Vec<&[usize]> = arrays.iter().map(|a| a.shape()).collect();
    let plan = concatenate_plan(&shapes, axis)?;
    let dtypes: Vec<DType> = arrays.iter().map(|a| a.dtype()).collect();
    let result = match out {
        Some(o) => {
            check_out(&plan, axis.is_none(), o)?;
            join_dtype(&dtypes, Some(o.dtype()), casting)?;
            o.clone()
        }
        None => Array::empty(
            arrays[0].device(),
            &plan.shape,
            join_dtype(&dtypes, dtype, casting)?,
        )?,
    };
    let along = result.strides()[plan.axis];
    for (a, &start) in arrays.iter().zip(&plan.starts) {
        let src = if axis.is_none() {
            ravel(a, Order::C)?
        } else {
            a.clone()
        };
        let mut block = Layout::of(&result);
        block.shape[plan.axis] = src.shape()[plan.axis];
        let delta = if src.size() == 0 {
            0
        } else {
            start as isize * along
        };
        assign(&src, &view(&result, &block, delta)?)?;
    }
    Ok(result)
}

/// `np.stack(arrays, axis)`: arrays of one shape joined along a new axis.
pub fn stack(
    arrays: &[Array],
    axis: i64,
    out: Option<&Array>,
    dtype: Option<DType>,
    casting: Casting,
) -> Result<Array> {
    let Some(first) = arrays.first() else {
        return Err(Error::Value("need at least one array to stack".into()));
    };
    if arrays.iter().any(|a| a.shape() != first.shape()) {
        return Err(Error::Value(
            "all input arrays must have the same shape".into(),
        ));
    }
    let axis = normalize_axis(axis, first.ndim() + 1, None)?;
    let shape = expand_dims_shape(first.shape(), &[axis as i64])?;
    let requested: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
    let expanded = arrays
        .iter()
        .map(|a| reshape(a, &requested, Order::C, None))
        .collect::<Result<Vec<_>>>()?;
    concatenate(&expanded, Some(axis as i64), out, dtype, casting)
}

/// How `array_split` cuts an axis.
#[derive(Clone, Copy, Debug)]
pub enum Cuts<'a> {
    /// This many nearly equal sections (the first ones one longer).
    Sections(i64),
    /// At these indices (Python slice bounds: negative ones count from the end).
    Indices(&'a [i64]),
}

/// The `(start, stop)` slice bounds of each piece `array_split` cuts an axis of `length`
/// into; `equal` is `split`'s demand that sections divide the axis evenly.
pub fn split_bounds(length: usize, cuts: Cuts<'_>, equal: bool) -> Result<Vec<(i64, i64)>> {
    let total = length as i64;
    let points: Vec<i64> = match cuts {
        Cuts::Indices(indices) => std::iter::once(0)
            .chain(indices.iter().copied())
            .chain(std::iter::once(total))
            .collect(),
        Cuts::Sections(n) => {
            if equal && n != 0 && total % n != 0 {
                return Err(Error::Value(
                    "array split does not result in an equal division".into(),
                ));
            }
            if n <= 0 {
                return Err(Error::Value(
                    "number sections must be larger than 0.".into(),
                ));
            }
            let (each, extras) = (total / n, total % n);
            let mut points = vec![0];
            for i in 0..n {
                let size = if i < extras { each + 1 } else { each };
                points.push(points[points.len() - 1] + size);
            }
            points
        }
    };
    Ok(points.windows(2).map(|w| (w[0], w[1])).collect())
}

/// The piece `start:stop` (Python slice bounds) of `a` along `axis`: a view.
pub fn piece(a: &Array, axis: usize, start: i64, stop: i64) -> Result<Array> {
    let mut items = vec![Item::Slice(Slice::full()); axis];
    items.push(Item::Slice(Slice::new(
        Some(start as isize),
        Some(stop as isize),
        None,
    )?));
    basic_view(a, &items)
}

/// The axis `split` and `array_split` cut: NumPy reads it as `ary.shape[axis]` (a Python
/// tuple index), so one out of range is an `IndexError`.
pub fn split_axis(ndim: usize, axis: i64) -> Result<usize> {
    normalize_axis(axis, ndim, None).map_err(|_| Error::Index("tuple index out of range".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn concatenation_shape_and_starts() {
        let plan = concatenate_plan(&[&[2, 3], &[2, 4], &[2, 0]], Some(-1)).unwrap();
        assert_eq!(plan.shape.as_slice(), &[2, 7]);
        assert_eq!((plan.axis, plan.starts), (1, vec![0, 3, 7]));
        let flat = concatenate_plan(&[&[2, 3], &[], &[4]], None).unwrap();
        assert_eq!(flat.shape.as_slice(), &[11]);
        assert_eq!(flat.starts, vec![0, 6, 7]);
    }

    #[test]
    fn concatenation_errors_are_numpy_s() {
        let msg =
            |shapes: &[&[usize]], axis| concatenate_plan(shapes, axis).unwrap_err().to_string();
        assert_eq!(msg(&[], Some(0)), "need at least one array to concatenate");
        assert_eq!(
            msg(&[&[], &[]], Some(0)),
            "zero-dimensional arrays cannot be concatenated"
        );
        assert_eq!(
            msg(&[&[4, 6]], Some(2)),
            "axis 2 is out of bounds for array of dimension 2"
        );
        assert_eq!(
            msg(&[&[2], &[2, 2]], Some(0)),
            "all the input arrays must have same number of dimensions, but the array at index 0 has 1 dimension(s) and the array at index 1 has 2 dimension(s)"
        );
        assert_eq!(
            msg(&[&[2, 3], &[2, 4]], Some(0)),
            "all the input array dimensions except for the concatenation axis must match exactly, but along dimension 1, the array at index 0 has size 3 and the array at index 1 has size 4"
        );
    }

    #[test]
    fn join_dtype_promotes_and_checks_casts() {
        assert_eq!(
            join_dtype(&[DType::I8, DType::U8], None, Casting::SameKind).unwrap(),
            DType::I16
        );
        assert_eq!(
            join_dtype(&[DType::I8, DType::U8], Some(DType::I8), Casting::Unsafe).unwrap(),
            DType::I8
        );
        assert_eq!(
            join_dtype(&[DType::F64], Some(DType::I8), Casting::SameKind).unwrap_err().to_string(),
            "Cannot cast array data from dtype('float64') to dtype('int8') according to the rule 'same_kind'"
        );
    }

    #[test]
    fn split_bounds_as_numpy() {
        assert_eq!(
            split_bounds(6, Cuts::Sections(4), false).unwrap(),
            vec![(0, 2), (2, 4), (4, 5), (5, 6)]
        );
        assert_eq!(
            split_bounds(6, Cuts::Indices(&[1, -1, 10]), false).unwrap(),
            vec![(0, 1), (1, -1), (-1, 10), (10, 6)]
        );
        assert_eq!(
            split_bounds(6, Cuts::Sections(4), true)
                .unwrap_err()
                .to_string(),
            "array split does not result in an equal division"
        );
        assert_eq!(
            split_bounds(6, Cuts::Sections(0), false)
                .unwrap_err()
                .to_string(),
            "number sections must be larger than 0."
        );
        assert_eq!(
            split_axis(2, -3).unwrap_err().to_string(),
            "tuple index out of range"
        );
        assert_eq!(split_axis(2, -1).unwrap(), 1);
    }
}
