//! Broadcasting as NumPy does it: the common shape of several shapes, a view of an array
//! at a larger shape (repeated axes get stride 0), and the broadcast of an assigned value.

use ember_core::shape::format_shape;
use ember_core::{Error, Result};

use super::{dims_text, shape_text, view, Layout};
use crate::array::{Array, Dims, Strides};

/// The shape arrays of `shapes` broadcast to, with `np.broadcast_shapes`' error naming the
/// first two arguments that disagree (NumPy's `PyArray_Broadcast`: axes from the left, each
/// compared with the argument that set it).
pub fn broadcast_shapes(shapes: &[&[usize]]) -> Result<Dims> {
    let ndim = shapes.iter().map(|s| s.len()).max().unwrap_or(0);
    let mut out = Dims::from_elem(1, ndim);
    for (axis, slot) in out.iter_mut().enumerate() {
        let mut source = 0;
        for (j, shape) in shapes.iter().enumerate() {
            let Some(k) = (axis + shape.len()).checked_sub(ndim) else {
                continue;
            };
            let d = shape[k];
            if d == 1 {
                continue;
            }
            if *slot == 1 {
                *slot = d;
                source = j;
            } else if *slot != d {
                return Err(Error::Value(format!(
                    "shape mismatch: objects cannot be broadcast to a single shape.  Mismatch is between arg {source} with shape {} and arg {j} with shape {}.",
                    format_shape(shapes[source]),
                    format_shape(shape)
                )));
            }
        }
    }
    Ok(out)
}

/// A requested shape's dimensions, refusing negative ones as `broadcast_to` does.
pub fn requested_shape(shape: &[i64]) -> Result<Dims> {
    shape
        .iter()
        .map(|&d| usize::try_from(d))
        .collect::<std::result::Result<Dims, _>>()
        .map_err(|_| Error::Value("all elements of broadcast shape must be non-negative".into()))
}

/// The view of `layout` at `target` (`np.broadcast_to`): a stretched axis has stride 0.
pub fn broadcast_to(layout: &Layout, target: &[i64]) -> Result<Layout> {
    let shape = requested_shape(target)?;
    let lead = shape.len().checked_sub(layout.shape.len()).ok_or_else(|| {
        Error::Value("input operand has more dimensions than allowed by the axis remapping".into())
    })?;
    let mut strides = Strides::from_elem(0, shape.len());
    for (i, (&d, &s)) in layout.shape.iter().zip(&layout.strides).enumerate() {
        if d == shape[lead + i] {
            strides[lead + i] = s;
        } else if d != 1 {
            return Err(Error::Value(format!(
                "operands could not be broadcast together with remapped shapes [original->remapped]: {}  and requested shape {}",
                dims_text(&layout.shape),
                shape_text(target)
            )));
        }
    }
    Ok(Layout { shape, strides })
}

/// `np.broadcast_to(a, shape)`: a view that must not be written (one memory location stands
/// for many elements).
pub fn broadcast_array(a: &Array, target: &[i64]) -> Result<Array> {
    view(a, &broadcast_to(&Layout::of(a), target)?, 0)
}

/// The view of a value of layout `src` assigned into an array of shape `dst` (`a[i] = v`):
/// NumPy first drops the value's leading length-1 axes while it has more axes than `dst`,
/// so `a[0] = b[None]` works (and its error names the value's shape after that).
pub fn for_assignment(src: &Layout, dst: &[usize]) -> Result<Layout> {
    let mut first = 0;
    while src.shape.len() - first > dst.len() && src.shape[first] == 1 {
        first += 1;
    }
    let value = Layout::new(&src.shape[first..], &src.strides[first..]);
    let target: Vec<i64> = dst.iter().map(|&d| d as i64).collect();
    broadcast_to(&value, &target).map_err(|_| {
        Error::Value(format!(
            "could not broadcast input array from shape {} into shape {}",
            dims_text(&value.shape),
            dims_text(dst)
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn common_shape_of_several() {
        assert_eq!(
            broadcast_shapes(&[&[2, 1], &[3], &[4, 1, 1]])
                .unwrap()
                .as_slice(),
            &[4, 2, 3]
        );
        assert_eq!(broadcast_shapes(&[]).unwrap().as_slice(), &[] as &[usize]);
        assert_eq!(broadcast_shapes(&[&[0], &[1]]).unwrap().as_slice(), &[0]);
    }

    #[test]
    fn mismatch_names_the_arguments_as_numpy() {
        let err = broadcast_shapes(&[&[2, 3], &[2, 4], &[1]]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "shape mismatch: objects cannot be broadcast to a single shape.  Mismatch is between arg 0 with shape (2, 3) and arg 1 with shape (2, 4)."
        );
        let err = broadcast_shapes(&[&[1], &[3], &[2]]).unwrap_err();
        assert!(err
            .to_string()
            .contains("arg 1 with shape (3,) and arg 2 with shape (2,)"));
    }

    #[test]
    fn broadcast_to_stretches_with_zero_strides() {
        let l = Layout::new(&[3, 1], &[8, 8]);
        assert_eq!(
            broadcast_to(&l, &[2, 3, 4]).unwrap(),
            Layout::new(&[2, 3, 4], &[0, 8, 0])
        );
        let err = broadcast_to(&Layout::new(&[2, 3, 1], &[24, 8, 8]), &[3, 3, 1]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "operands could not be broadcast together with remapped shapes [original->remapped]: (2,3,1)  and requested shape (3,3,1)"
        );
        assert_eq!(
            broadcast_to(&l, &[3]).unwrap_err().to_string(),
            "input operand has more dimensions than allowed by the axis remapping"
        );
        assert_eq!(
            broadcast_to(&l, &[-1, 3, 1]).unwrap_err().to_string(),
            "all elements of broadcast shape must be non-negative"
        );
    }

    #[test]
    fn assigned_values_drop_leading_unit_axes() {
        let v = Layout::new(&[1, 1, 3], &[24, 24, 8]);
        assert_eq!(for_assignment(&v, &[3]).unwrap(), Layout::new(&[3], &[8]));
        assert_eq!(
            for_assignment(&Layout::new(&[3], &[8]), &[2])
                .unwrap_err()
                .to_string(),
            "could not broadcast input array from shape (3,) into shape (2,)"
        );
    }
}
