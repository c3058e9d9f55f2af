//! Views that move, drop or add axes: `transpose`, `swapaxes`, `moveaxis`, `squeeze` and
//! `expand_dims`, with NumPy's checks in NumPy's order and words.

use ember_core::{Error, Result};

use super::{normalize_axes, normalize_axis, Layout};
use crate::array::Dims;

/// `transpose(axes)`: the axes permuted (reversed when `axes` is None). As NumPy's
/// `PyArray_Transpose`, the axes are checked one by one: range, then repeats.
pub fn transpose(layout: &Layout, axes: Option<&[i64]>) -> Result<Layout> {
    let n = layout.shape.len();
    let Some(axes) = axes else {
        let reversed: Vec<usize> = (0..n).rev().collect();
        return Ok(layout.pick(&reversed));
    };
    if axes.len() != n {
        return Err(Error::Value("axes don't match array".into()));
    }
    let mut seen = vec![false; n];
    let mut perm = Vec::with_capacity(n);
    for &axis in axes {
        let a = normalize_axis(axis, n, None)?;
        if std::mem::replace(&mut seen[a], true) {
            return Err(Error::Value("repeated axis in transpose".into()));
        }
        perm.push(a);
    }
    Ok(layout.pick(&perm))
}

/// `swapaxes(axis1, axis2)`: two axes exchanged.
pub fn swapaxes(layout: &Layout, axis1: i64, axis2: i64) -> Result<Layout> {
    let n = layout.shape.len();
    let a = normalize_axis(axis1, n, Some("axis1"))?;
    let b = normalize_axis(axis2, n, Some("axis2"))?;
    let mut perm: Vec<usize> = (0..n).collect();
    perm.swap(a, b);
    Ok(layout.pick(&perm))
}

/// The permutation `np.moveaxis(a, source, destination)` applies.
pub fn moveaxis_order(ndim: usize, source: &[i64], destination: &[i64]) -> Result<Vec<usize>> {
    let source = normalize_axes(source, ndim, Some("source"))?;
    let destination = normalize_axes(destination, ndim, Some("destination"))?;
    if source.len() != destination.len() {
        return Err(Error::Value(
            "`source` and `destination` arguments must have the same number of elements".into(),
        ));
    }
    let mut order: Vec<usize> = (0..ndim).filter(|a| !source.contains(a)).collect();
    let mut moves: Vec<(usize, usize)> = destination.iter().copied().zip(source).collect();
    moves.sort_unstable();
    for (dest, src) in moves {
        order.insert(dest, src);
    }
    Ok(order)
}

/// `moveaxis(source, destination)`: the axes `source` moved to the places `destination`,
/// the others keeping their order.
pub fn moveaxis(layout: &Layout, source: &[i64], destination: &[i64]) -> Result<Layout> {
    Ok(layout.pick(&moveaxis_order(layout.shape.len(), source, destination)?))
}

/// Which axes of `squeeze(axis)` to take.
#[derive(Clone, Copy, Debug)]
pub enum SqueezeAxes<'a> {
    /// Every length-1 axis.
    All,
    /// One axis given as an integer (a 0-d array lets 0 and -1 through, as NumPy does).
    One(i64),
    /// Axes given as a tuple.
    Many(&'a [i64]),
}

/// `squeeze(axis)`: the chosen length-1 axes dropped (NumPy's `PyArray_ConvertMultiAxis`,
/// then `PyArray_SqueezeSelected`).
pub fn squeeze(layout: &Layout, axes: SqueezeAxes<'_>) -> Result<Layout> {
    let n = layout.shape.len();
    let mut drop = vec![false; n];
    match axes {
        SqueezeAxes::All => {
            for (flag, &d) in drop.iter_mut().zip(&layout.shape) {
                *flag = d == 1;
            }
        }
        SqueezeAxes::One(axis) if n == 0 && (axis == 0 || axis == -1) => {}
        SqueezeAxes::One(axis) => drop[normalize_axis(axis, n, None)?] = true,
        SqueezeAxes::Many(list) => {
            for &axis in list {
                let a = normalize_axis(axis, n, None)?;
                if std::mem::replace(&mut drop[a], true) {
                    return Err(Error::Value("duplicate value in 'axis'".into()));
                }
            }
        }
    }
    if drop
        .iter()
        .zip(&layout.shape)
        .any(|(&d, &len)| d && len != 1)
    {
        return Err(Error::Value(
            "cannot select an axis to squeeze out which has size not equal to one".into(),
        ));
    }
    let keep: Vec<usize> = (0..n).filter(|&i| !drop[i]).collect();
    Ok(layout.pick(&keep))
}

/// The shape `expand_dims(axis)` gives an array of `shape`: length-1 axes at the places
/// `axis` of the result (which is then a reshape, always a view).
pub fn expand_dims_shape(shape: &[usize], axis: &[i64]) -> Result<Dims> {
    let out_ndim = shape.len() + axis.len();
    let axes = normalize_axes(axis, out_ndim, None)?;
    let mut dims = shape.iter();
    Ok((0..out_ndim)
        .map(|i| {
            if axes.contains(&i) {
                1
            } else {
                dims.next().copied().unwrap_or(1)
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn l() -> Layout {
        Layout::new(&[2, 3, 1], &[24, 8, 8])
    }

    #[test]
    fn transpose_permutes_and_checks_in_numpy_order() {
        assert_eq!(
            transpose(&l(), None).unwrap(),
            Layout::new(&[1, 3, 2], &[8, 8, 24])
        );
        assert_eq!(
            transpose(&l(), Some(&[1, -1, 0])).unwrap(),
            Layout::new(&[3, 1, 2], &[8, 8, 24])
        );
        assert_eq!(
            transpose(&l(), Some(&[1, 0])).unwrap_err().to_string(),
            "axes don't match array"
        );
        assert_eq!(
            transpose(&l(), Some(&[0, 0, 5])).unwrap_err().to_string(),
            "repeated axis in transpose"
        );
        assert_eq!(
            transpose(&l(), Some(&[5, 0, 0])).unwrap_err().to_string(),
            "axis 5 is out of bounds for array of dimension 3"
        );
    }

    #[test]
    fn swapaxes_names_the_bad_argument() {
        assert_eq!(
            swapaxes(&l(), 0, -1).unwrap(),
            Layout::new(&[1, 3, 2], &[8, 8, 24])
        );
        assert_eq!(
            swapaxes(&l(), 0, 3).unwrap_err().to_string(),
            "axis2: axis 3 is out of bounds for array of dimension 3"
        );
        assert_eq!(
            swapaxes(&l(), 3, 0).unwrap_err().to_string(),
            "axis1: axis 3 is out of bounds for array of dimension 3"
        );
    }

    #[test]
    fn moveaxis_as_numpy() {
        assert_eq!(moveaxis_order(3, &[0], &[-1]).unwrap(), vec![1, 2, 0]);
        assert_eq!(
            moveaxis_order(4, &[0, 1], &[-1, -2]).unwrap(),
            vec![2, 3, 1, 0]
        );
        assert_eq!(
            moveaxis_order(3, &[0, 0], &[1, 2]).unwrap_err().to_string(),
            "repeated axis in `source` argument"
        );
        assert_eq!(
            moveaxis_order(3, &[0, 1], &[1]).unwrap_err().to_string(),
            "`source` and `destination` arguments must have the same number of elements"
        );
        assert_eq!(
            moveaxis_order(3, &[0], &[3]).unwrap_err().to_string(),
            "destination: axis 3 is out of bounds for array of dimension 3"
        );
    }

    #[test]
    fn squeeze_selects_unit_axes() {
        let s = Layout::new(&[1, 3, 1], &[24, 8, 8]);
        assert_eq!(
            squeeze(&s, SqueezeAxes::All).unwrap(),
            Layout::new(&[3], &[8])
        );
        assert_eq!(
            squeeze(&s, SqueezeAxes::One(-1)).unwrap(),
            Layout::new(&[1, 3], &[24, 8])
        );
        assert_eq!(
            squeeze(&s, SqueezeAxes::Many(&[0, 2, 0]))
                .unwrap_err()
                .to_string(),
            "duplicate value in 'axis'"
        );
        assert_eq!(
            squeeze(&s, SqueezeAxes::One(1)).unwrap_err().to_string(),
            "cannot select an axis to squeeze out which has size not equal to one"
        );
        let scalar = Layout::default();
        assert_eq!(squeeze(&scalar, SqueezeAxes::One(-1)).unwrap(), scalar);
        assert!(matches!(
            squeeze(&scalar, SqueezeAxes::Many(&[0])),
            Err(Error::Axis {
                axis: 0,
                ndim: 0,
                ..
            })
        ));
    }

    #[test]
    fn expand_dims_places_unit_axes_in_the_result() {
        assert_eq!(
            expand_dims_shape(&[2, 3], &[0, -1]).unwrap().as_slice(),
            &[1, 2, 3, 1]
        );
        assert_eq!(
            expand_dims_shape(&[2, 3], &[1]).unwrap().as_slice(),
            &[2, 1, 3]
        );
        assert_eq!(
            expand_dims_shape(&[2, 3], &[0, 0]).unwrap_err().to_string(),
            "repeated axis"
        );
        assert_eq!(
            expand_dims_shape(&[2, 3], &[5]).unwrap_err().to_string(),
            "axis 5 is out of bounds for array of dimension 3"
        );
    }
}
