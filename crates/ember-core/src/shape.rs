//! Shapes and strides (in bytes, as NumPy keeps them).

/// NumPy's limit on an array's dimensions.
pub const MAX_DIMS: usize = 64;

/// `Err` with NumPy's message for a shape of more than [`MAX_DIMS`] dimensions.
pub fn check_ndim(ndim: usize) -> crate::Result<()> {
    if ndim > MAX_DIMS {
        return Err(crate::Error::Value(format!(
            "maximum supported dimension for an ndarray is currently {MAX_DIMS}, found {ndim}"
        )));
    }
    Ok(())
}

/// Number of elements of a shape (1 for 0-d).
pub fn size_of(shape: &[usize]) -> usize {
    shape.iter().product()
}

/// C-order strides in bytes.
pub fn c_strides(shape: &[usize], itemsize: usize) -> Vec<isize> {
    let mut strides = vec![0isize; shape.len()];
    let mut step = itemsize as isize;
    for (stride, &dim) in strides.iter_mut().zip(shape).rev() {
        *stride = step;
        step *= dim.max(1) as isize;
    }
    strides
}

/// True when elements lie in C order with no gaps (size-1 and empty axes ignore their stride,
/// as NumPy's flags do).
pub fn is_c_contiguous(shape: &[usize], strides: &[isize], itemsize: usize) -> bool {
    if size_of(shape) == 0 {
        return true;
    }
    let mut expected = itemsize as isize;
    for (&dim, &stride) in shape.iter().zip(strides).rev() {
        if dim != 1 {
            if stride != expected {
                return false;
            }
            expected *= dim as isize;
        }
    }
    true
}

/// True when elements lie in Fortran order with no gaps.
pub fn is_f_contiguous(shape: &[usize], strides: &[isize], itemsize: usize) -> bool {
    let rev_shape: Vec<usize> = shape.iter().rev().copied().collect();
    let rev_strides: Vec<isize> = strides.iter().rev().copied().collect();
    is_c_contiguous(&rev_shape, &rev_strides, itemsize)
}

/// The byte range `[lo, hi)` that elements of a strided view touch, relative to its first element.
pub fn extent(shape: &[usize], strides: &[isize], itemsize: usize) -> (isize, isize) {
    if size_of(shape) == 0 {
        return (0, 0);
    }
    let (mut lo, mut hi) = (0isize, 0isize);
    for (&dim, &stride) in shape.iter().zip(strides) {
        let span = (dim as isize - 1) * stride;
        if span < 0 {
            lo += span;
        } else {
            hi += span;
        }
    }
    (lo, hi + itemsize as isize)
}

/// The shape NumPy broadcasting gives `shapes` (right-aligned; a 1 stretches), or an error
/// naming them all as NumPy does.
pub fn broadcast_shapes(shapes: &[&[usize]]) -> crate::Result<Vec<usize>> {
    let ndim = shapes.iter().map(|s| s.len()).max().unwrap_or(0);
    let mut out = vec![1usize; ndim];
    for shape in shapes {
        for (axis, &dim) in shape.iter().rev().enumerate() {
            let slot = &mut out[ndim - 1 - axis];
            if *slot == 1 {
                *slot = dim;
            } else if dim != 1 && dim != *slot {
                let listed: Vec<String> = shapes.iter().map(|s| format_shape(s)).collect();
                return Err(crate::Error::Value(format!(
                    "operands could not be broadcast together with shapes {}",
                    listed.join(" ")
                )));
            }
        }
    }
    Ok(out)
}

/// Byte strides that view an array of `shape`/`strides` as the larger broadcast `target`
/// (stretched axes get stride 0).
pub fn broadcast_strides(shape: &[usize], strides: &[isize], target: &[usize]) -> Vec<isize> {
    let lead = target.len() - shape.len();
    let mut out = vec![0isize; target.len()];
    for (axis, (&dim, &stride)) in shape.iter().zip(strides).enumerate() {
        if dim != 1 || target[lead + axis] == 1 {
            out[lead + axis] = stride;
        }
    }
    out
}

/// A shape as NumPy prints it: `(2, 3)`, `(4,)`, `()`.
pub fn format_shape(shape: &[usize]) -> String {
    match shape {
        [one] => format!("({one},)"),
        _ => format!(
            "({})",
            shape
                .iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// Merges adjacent axes that every operand walks contiguously (outer stride = inner stride
/// times inner extent), so a kernel unravels fewer axes. Returns the new shape and each
/// operand's new strides.
pub fn collapse_axes(shape: &[usize], strides: &[Vec<isize>]) -> (Vec<usize>, Vec<Vec<isize>>) {
    let mut out_shape: Vec<usize> = Vec::new();
    let mut out_strides: Vec<Vec<isize>> = vec![Vec::new(); strides.len()];
    for axis in 0..shape.len() {
        let dim = shape[axis];
        if dim == 1 && shape.len() > 1 {
            continue;
        }
        let merge = !out_shape.is_empty()
            && strides.iter().enumerate().all(|(k, s)| {
                let prev = *out_strides[k].last().unwrap_or(&0);
                prev == s[axis] * dim as isize
            });
        if merge {
            let last = out_shape.len() - 1;
            out_shape[last] *= dim;
            for (k, s) in strides.iter().enumerate() {
                out_strides[k][last] = s[axis];
            }
        } else {
            out_shape.push(dim);
            for (k, s) in strides.iter().enumerate() {
                out_strides[k].push(s[axis]);
            }
        }
    }
    (out_shape, out_strides)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c_strides_of_3d() {
        assert_eq!(c_strides(&[2, 3, 4], 4), vec![48, 16, 4]);
        assert_eq!(c_strides(&[], 8), Vec::<isize>::new());
    }

    #[test]
    fn contiguity_flags() {
        assert!(is_c_contiguous(&[2, 3], &[12, 4], 4));
        assert!(!is_c_contiguous(&[2, 3], &[4, 8], 4));
        assert!(is_f_contiguous(&[2, 3], &[4, 8], 4));
        assert!(is_c_contiguous(&[1, 3], &[999, 4], 4));
        assert!(is_c_contiguous(&[0, 3], &[7, 5], 4));
    }

    #[test]
    fn extent_with_negative_strides() {
        assert_eq!(extent(&[3], &[-4], 4), (-8, 4));
        assert_eq!(extent(&[2, 3], &[12, 4], 4), (0, 24));
        assert_eq!(extent(&[0], &[4], 4), (0, 0));
    }

    #[test]
    fn broadcasting_follows_numpy() {
        assert_eq!(
            broadcast_shapes(&[&[2, 1, 3], &[4, 1]]).unwrap(),
            vec![2, 4, 3]
        );
        assert_eq!(broadcast_shapes(&[&[], &[5]]).unwrap(), vec![5]);
        let err = broadcast_shapes(&[&[2, 3], &[4]]).unwrap_err().to_string();
        assert!(err.contains("(2, 3) (4,)"), "{err}");
        assert_eq!(
            broadcast_strides(&[3, 1], &[4, 4], &[2, 3, 5]),
            vec![0, 4, 0]
        );
    }

    #[test]
    fn contiguous_axes_collapse() {
        let (shape, strides) = collapse_axes(&[2, 3, 4], &[vec![48, 16, 4], vec![0, 0, 4]]);
        assert_eq!(shape, vec![6, 4]);
        assert_eq!(strides, vec![vec![16, 4], vec![0, 4]]);
        let (shape, _) = collapse_axes(&[2, 3, 4], &[vec![48, 16, 4]]);
        assert_eq!(shape, vec![24]);
    }
}
