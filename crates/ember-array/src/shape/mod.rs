//! NumPy's shape semantics as plans over a layout (shape and byte strides): what a reshape,
//! a transpose, a broadcast or a join gives, with NumPy's errors in NumPy's words. A plan
//! that keeps the elements where they are is a view ([`Layout`]); the array-level functions
//! apply it to an [`Array`] and copy on the device only where NumPy copies.
//!
//! The planners know no device, so fusion, the jit and user kernels (and the tests) can ask
//! them about any shape.

pub mod axes;
pub mod broadcast;
pub mod copy;
pub mod join;
pub mod reshape;

use ember_core::{Error, Result};

use crate::array::{Array, Dims, Strides};

/// Where the elements of a view are: its shape and byte strides (the offset of its first
/// element is kept apart, as a change against the array it views).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Layout {
    pub shape: Dims,
    pub strides: Strides,
}

impl Layout {
    /// The layout of `shape` and `strides`.
    pub fn new(shape: &[usize], strides: &[isize]) -> Layout {
        Layout {
            shape: Dims::from_slice(shape),
            strides: Strides::from_slice(strides),
        }
    }

    /// An array's layout.
    pub fn of(a: &Array) -> Layout {
        Layout::new(a.shape(), a.strides())
    }

    /// The layout with its axes taken in the order `axes` (a permutation or a selection).
    pub fn pick(&self, axes: &[usize]) -> Layout {
        Layout {
            shape: axes.iter().map(|&i| self.shape[i]).collect(),
            strides: axes.iter().map(|&i| self.strides[i]).collect(),
        }
    }

    /// Number of elements.
    pub fn size(&self) -> usize {
        self.shape.iter().product()
    }
}

/// `a`'s memory seen through `layout`, its first element `delta` bytes after `a`'s.
pub fn view(a: &Array, layout: &Layout, delta: isize) -> Result<Array> {
    let offset = a.offset() as isize + delta;
    let offset = usize::try_from(offset).map_err(|_| {
        Error::Value(format!(
            "a view at byte offset {offset} starts before its buffer"
        ))
    })?;
    a.view(&layout.shape, &layout.strides, offset, a.dtype())
}

/// NumPy's memory orders (`order=` of reshape, ravel, copy, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Order {
    /// Row-major: the last axis varies fastest.
    C,
    /// Column-major: the first axis varies fastest.
    F,
    /// F when the array is Fortran-contiguous and not C-contiguous, else C.
    A,
    /// The order the elements have in memory.
    K,
}

impl Order {
    /// `order=` as NumPy reads it (None is C; the letters in either case).
    pub fn parse(text: Option<&str>) -> Result<Order> {
        match text {
            None | Some("C" | "c") => Ok(Order::C),
            Some("F" | "f") => Ok(Order::F),
            Some("A" | "a") => Ok(Order::A),
            Some("K" | "k") => Ok(Order::K),
            Some(other) => Err(Error::Value(format!(
                "order must be one of 'C', 'F', 'A', or 'K' (got '{other}')"
            ))),
        }
    }

    /// 'A' made definite for `a` (the other orders unchanged).
    pub fn for_array(self, a: &Array) -> Order {
        match self {
            Order::A if a.is_f_contiguous() && !a.is_c_contiguous() => Order::F,
            Order::A => Order::C,
            other => other,
        }
    }
}

/// NumPy's `normalize_axis_index`: `axis` in `[-ndim, ndim)` as an index from 0, else
/// `AxisError` (its message led by `prefix`, the argument's name, when given).
pub fn normalize_axis(axis: i64, ndim: usize, prefix: Option<&'static str>) -> Result<usize> {
    let n = ndim as i64;
    if (-n..n).contains(&axis) {
        Ok(if axis < 0 { axis + n } else { axis } as usize)
    } else {
        Err(Error::Axis { axis, ndim, prefix })
    }
}

/// NumPy's `normalize_axis_tuple`: every axis normalised (the first bad one is the error),
/// then repeats refused: `"repeated axis in `{argname}` argument"` or `"repeated axis"`.
pub fn normalize_axes(axes: &[i64], ndim: usize, argname: Option<&'static str>) -> Result<Dims> {
    let out = axes
        .iter()
        .map(|&a| normalize_axis(a, ndim, argname))
        .collect::<Result<Dims>>()?;
    if has_repeats(&out) {
        return Err(Error::Value(match argname {
            Some(name) => format!("repeated axis in `{name}` argument"),
            None => "repeated axis".into(),
        }));
    }
    Ok(out)
}

fn has_repeats(axes: &[usize]) -> bool {
    axes.iter().enumerate().any(|(i, a)| axes[..i].contains(a))
}

/// A shape as NumPy's reshape and broadcast messages print it: no spaces, a comma only
/// after the one dimension of a 1-d shape, negative (unknown) dimensions as `newaxis`,
/// leading unknown ones left out (NumPy's `convert_shape_to_string`).
pub fn shape_text(dims: &[i64]) -> String {
    let first = dims.iter().position(|&d| d >= 0).unwrap_or(dims.len());
    let parts: Vec<String> = dims[first..]
        .iter()
        .map(|&d| {
            if d < 0 {
                "newaxis".into()
            } else {
                d.to_string()
            }
        })
        .collect();
    let comma = if dims.len() == 1 && !parts.is_empty() {
        ","
    } else {
        ""
    };
    format!("({}{comma})", parts.join(","))
}

/// [`shape_text`] of a known shape.
pub fn dims_text(dims: &[usize]) -> String {
    let signed: Vec<i64> = dims.iter().map(|&d| d as i64).collect();
    shape_text(&signed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders_parse_as_numpy_reads_them() {
        assert_eq!(Order::parse(None).unwrap(), Order::C);
        assert_eq!(Order::parse(Some("f")).unwrap(), Order::F);
        assert_eq!(Order::parse(Some("K")).unwrap(), Order::K);
        assert_eq!(
            Order::parse(Some("X")).unwrap_err().to_string(),
            "order must be one of 'C', 'F', 'A', or 'K' (got 'X')"
        );
    }

    #[test]
    fn axes_normalise_with_numpy_errors() {
        assert_eq!(normalize_axis(-1, 3, None).unwrap(), 2);
        assert_eq!(normalize_axis(0, 1, None).unwrap(), 0);
        let err = normalize_axis(3, 3, Some("source")).unwrap_err();
        assert_eq!(
            err.to_string(),
            "source: axis 3 is out of bounds for array of dimension 3"
        );
        assert!(matches!(
            normalize_axis(-4, 3, None),
            Err(Error::Axis { axis: -4, .. })
        ));
        assert_eq!(
            normalize_axes(&[0, -1], 3, None).unwrap().as_slice(),
            &[0, 2]
        );
        assert_eq!(
            normalize_axes(&[0, -3], 3, Some("source"))
                .unwrap_err()
                .to_string(),
            "repeated axis in `source` argument"
        );
        assert_eq!(
            normalize_axes(&[1, 1], 3, None).unwrap_err().to_string(),
            "repeated axis"
        );
        // The first bad axis is reported before any repeat.
        assert!(matches!(
            normalize_axes(&[0, 0, 5], 3, None),
            Err(Error::Axis { axis: 5, .. })
        ));
    }

    #[test]
    fn shapes_print_as_numpy_messages_print_them() {
        assert_eq!(shape_text(&[4]), "(4,)");
        assert_eq!(shape_text(&[2, 3]), "(2,3)");
        assert_eq!(shape_text(&[]), "()");
        assert_eq!(shape_text(&[0, -1]), "(0,newaxis)");
        assert_eq!(shape_text(&[-1, 0]), "(0)");
        assert_eq!(shape_text(&[-1]), "()");
        assert_eq!(dims_text(&[2, 3, 1]), "(2,3,1)");
    }

    #[test]
    fn layouts_pick_axes() {
        let l = Layout::new(&[2, 3, 4], &[96, 32, 8]);
        assert_eq!(l.pick(&[2, 0]), Layout::new(&[4, 2], &[8, 96]));
        assert_eq!(l.size(), 24);
    }
}
