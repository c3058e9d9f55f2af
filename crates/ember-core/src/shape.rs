//! Shapes and strides (in bytes, as NumPy keeps them).

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
}
