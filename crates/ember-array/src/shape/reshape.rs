//! `reshape`, `ravel` and `flatten` as NumPy does them: a view whenever the strides allow one
//! (NumPy's `_attempt_nocopy_reshape`), else a copy in the requested order.

use ember_core::{Error, Result};

use super::copy::{contiguous_strides, copy_in_order, keep_order_axes};
use super::{shape_text, view, Layout, Order};
use crate::array::{Array, Dims, Strides};

/// The shape `requested` asks for in an array of `size` elements: its one negative
/// (unknown) dimension filled in (NumPy's `_fix_unknown_dimension`: every negative length
/// counts as unknown).
pub fn resolve_shape(requested: &[i64], size: usize) -> Result<Dims> {
    let mismatch = || {
        Error::Value(format!(
            "cannot reshape array of size {size} into shape {}",
            shape_text(requested)
        ))
    };
    let mut unknown = None;
    let mut known: usize = 1;
    for (i, &d) in requested.iter().enumerate() {
        if d < 0 {
            if unknown.is_some() {
                return Err(Error::Value(
                    "can only specify one unknown dimension".into(),
                ));
            }
            unknown = Some(i);
        } else {
            known = usize::try_from(d)
                .ok()
                .and_then(|d| known.checked_mul(d))
                .ok_or_else(mismatch)?;
        }
    }
    let mut shape: Dims = requested.iter().map(|&d| d.max(0) as usize).collect();
    match unknown {
        Some(i) if known != 0 && size.is_multiple_of(known) => shape[i] = size / known,
        None if known == size => {}
        _ => return Err(mismatch()),
    }
    Ok(shape)
}

/// Strides showing the elements of `old` in `order` ('C' or 'F') with `new_shape`, or None
/// when no view can (NumPy's `_attempt_nocopy_reshape`): each group of old axes whose
/// lengths multiply to a group of new axes must be contiguous among itself.
pub fn nocopy_strides(
    old: &Layout,
    new_shape: &[usize],
    itemsize: usize,
    order: Order,
) -> Option<Strides> {
    let fortran = order == Order::F;
    // Unit axes have no effect but would need special cases: their strides do not matter.
    let (olddims, oldstrides): (Vec<usize>, Vec<isize>) = old
        .shape
        .iter()
        .zip(&old.strides)
        .filter(|(&d, _)| d != 1)
        .map(|(&d, &s)| (d, s))
        .unzip();
    let (oldnd, newnd) = (olddims.len(), new_shape.len());
    let mut newstrides = Strides::from_elem(0, newnd);
    let (mut oi, mut oj, mut ni, mut nj) = (0, 1, 0, 1);
    while ni < newnd && oi < oldnd {
        let (mut np, mut op) = (new_shape[ni], olddims[oi]);
        while np != op {
            if np < op {
                // Trailing unit axes of the new shape are handled after the loop.
                np *= *new_shape.get(nj)?;
                nj += 1;
            } else {
                op *= *olddims.get(oj)?;
                oj += 1;
            }
        }
        for ok in oi..oj - 1 {
            let joined = if fortran {
                oldstrides[ok + 1] == olddims[ok] as isize * oldstrides[ok]
            } else {
                oldstrides[ok] == olddims[ok + 1] as isize * oldstrides[ok + 1]
            };
            if !joined {
                return None;
            }
        }
        if fortran {
            newstrides[ni] = oldstrides[oi];
            for nk in ni + 1..nj {
                newstrides[nk] = newstrides[nk - 1] * new_shape[nk - 1] as isize;
            }
        } else {
            newstrides[nj - 1] = oldstrides[oj - 1];
            for nk in (ni + 1..nj).rev() {
                newstrides[nk - 1] = newstrides[nk] * new_shape[nk] as isize;
            }
        }
        ni = nj;
        nj += 1;
        oi = oj;
        oj += 1;
    }
    // Trailing unit axes of the new shape.
    let mut last = if ni >= 1 {
        newstrides[ni - 1]
    } else {
        itemsize as isize
    };
    if fortran && ni >= 1 {
        last *= new_shape[ni - 1] as isize;
    }
    for stride in newstrides.iter_mut().skip(ni) {
        *stride = last;
    }
    Some(newstrides)
}

/// What a reshape does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reshape {
    /// A view of the same elements.
    View(Layout),
    /// Copy the array in `order` (C or F), then view the copy with `shape`.
    Copy { shape: Dims, order: Order },
}

/// NumPy's reshape of an array of `old` layout: `order` is C, F or A ('A' already made
/// definite by the caller: [`Order::for_array`]); `copy` is NumPy 2's `copy=` (None: only
/// when needed; `Some(true)`: always; `Some(false)`: never, an error instead).
pub fn plan(
    old: &Layout,
    itemsize: usize,
    requested: &[i64],
    order: Order,
    copy: Option<bool>,
) -> Result<Reshape> {
    let order = match order {
        Order::K => {
            return Err(Error::Value(
                "order 'K' is not permitted for reshaping".into(),
            ))
        }
        Order::A => Order::C,
        other => other,
    };
    let same = requested.len() == old.shape.len()
        && requested
            .iter()
            .zip(&old.shape)
            .all(|(&r, &d)| r == d as i64);
    if same && copy != Some(true) {
        return Ok(Reshape::View(old.clone()));
    }
    let shape = resolve_shape(requested, old.size())?;
    if copy == Some(true) {
        return Ok(Reshape::Copy { shape, order });
    }
    let contiguous = match order {
        Order::F => is_contiguous(old, itemsize, Order::F),
        _ => is_contiguous(old, itemsize, Order::C),
    };
    let strides = if contiguous {
        contiguous_strides(&shape, itemsize, order)
    } else {
        match nocopy_strides(old, &shape, itemsize, order) {
            Some(strides) => strides,
            None if copy == Some(false) => {
                return Err(Error::Value(
                    "Unable to avoid creating a copy while reshaping.".into(),
                ))
            }
            None => return Ok(Reshape::Copy { shape, order }),
        }
    };
    Ok(Reshape::View(Layout { shape, strides }))
}

fn is_contiguous(layout: &Layout, itemsize: usize, order: Order) -> bool {
    use ember_core::shape::{is_c_contiguous, is_f_contiguous};
    match order {
        Order::F => is_f_contiguous(&layout.shape, &layout.strides, itemsize),
        _ => is_c_contiguous(&layout.shape, &layout.strides, itemsize),
    }
}

/// `a.reshape(requested, order=, copy=)`: a view when NumPy gives one, else a copy on the
/// device (see [`plan`]).
pub fn reshape(a: &Array, requested: &[i64], order: Order, copy: Option<bool>) -> Result<Array> {
    ember_core::shape::check_ndim(requested.len())?;
    let itemsize = a.dtype().itemsize();
    match plan(
        &Layout::of(a),
        itemsize,
        requested,
        order.for_array(a),
        copy,
    )? {
        Reshape::View(layout) => view(a, &layout, 0),
        Reshape::Copy { shape, order } => {
            let copied = copy_in_order(a, order)?;
            let layout = Layout {
                strides: contiguous_strides(&shape, itemsize, order),
                shape,
            };
            view(&copied, &layout, 0)
        }
    }
}

/// Whether the elements fill one block of memory with no gaps in some order of the axes
/// (NumPy's test for a view from a 'K'-order ravel; negative strides never do).
pub fn is_keep_order_contiguous(layout: &Layout, itemsize: usize) -> bool {
    let mut axes: Vec<(usize, isize)> = layout
        .shape
        .iter()
        .zip(&layout.strides)
        .map(|(&d, &s)| (d, s))
        .collect();
    axes.sort_by_key(|&(_, s)| s.unsigned_abs());
    let mut expected = itemsize as isize;
    for (d, s) in axes {
        if d == 1 {
            continue;
        }
        if s != expected {
            return false;
        }
        expected *= d as isize;
    }
    true
}

/// `ravel(a, order)`: the elements as a 1-d array read in `order`, a view when they already
/// lie that way (NumPy's `PyArray_Ravel`), else a copy.
pub fn ravel(a: &Array, order: Order) -> Result<Array> {
    let mut order = order.for_array(a);
    if order == Order::K {
        if a.is_c_contiguous() {
            order = Order::C;
        } else if a.is_f_contiguous() {
            order = Order::F;
        }
    }
    let flat = [a.size() as i64];
    match order {
        Order::C if a.is_c_contiguous() => reshape(a, &flat, Order::C, None),
        Order::F if a.is_f_contiguous() => reshape(a, &flat, Order::F, None),
        Order::K if is_keep_order_contiguous(&Layout::of(a), a.dtype().itemsize()) => {
            let layout = Layout::new(&[a.size()], &[a.dtype().itemsize() as isize]);
            view(a, &layout, 0)
        }
        _ => flatten(a, order),
    }
}

/// `a.flatten(order)`: a 1-d copy of the elements read in `order`.
pub fn flatten(a: &Array, order: Order) -> Result<Array> {
    let order = order.for_array(a);
    let copied = match order {
        // The axes in the order NumPy's iterator reads them, then a C-order copy.
        Order::K => {
            let axes = keep_order_axes(&Layout::of(a));
            copy_in_order(&view(a, &Layout::of(a).pick(&axes), 0)?, Order::C)?
        }
        // A C or F copy is read straight through.
        _ => copy_in_order(a, order)?,
    };
    let itemsize = a.dtype().itemsize() as isize;
    view(&copied, &Layout::new(&[a.size()], &[itemsize]), 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c_layout(shape: &[usize], itemsize: usize) -> Layout {
        Layout {
            shape: Dims::from_slice(shape),
            strides: contiguous_strides(shape, itemsize, Order::C),
        }
    }

    #[test]
    fn one_unknown_dimension_is_inferred() {
        assert_eq!(resolve_shape(&[2, -1], 6).unwrap().as_slice(), &[2, 3]);
        assert_eq!(resolve_shape(&[-2, 3], 6).unwrap().as_slice(), &[2, 3]);
        assert_eq!(resolve_shape(&[], 1).unwrap().as_slice(), &[] as &[usize]);
        assert_eq!(
            resolve_shape(&[0, -1, 5], 0).unwrap_err().to_string(),
            "cannot reshape array of size 0 into shape (0,newaxis,5)"
        );
        assert_eq!(
            resolve_shape(&[-1, -1], 6).unwrap_err().to_string(),
            "can only specify one unknown dimension"
        );
        assert_eq!(
            resolve_shape(&[4], 6).unwrap_err().to_string(),
            "cannot reshape array of size 6 into shape (4,)"
        );
        assert_eq!(
            resolve_shape(&[-1, 0], 0).unwrap_err().to_string(),
            "cannot reshape array of size 0 into shape (0)"
        );
    }

    #[test]
    fn contiguous_arrays_reshape_to_views() {
        let old = c_layout(&[2, 3, 4], 8);
        let plan = plan(&old, 8, &[4, -1], Order::C, None).unwrap();
        assert_eq!(plan, Reshape::View(Layout::new(&[4, 6], &[48, 8])));
        let plan = super::plan(&old, 8, &[4, 6], Order::F, None).unwrap();
        assert_eq!(
            plan,
            Reshape::Copy {
                shape: Dims::from_slice(&[4, 6]),
                order: Order::F
            }
        );
    }

    #[test]
    fn transposed_arrays_view_only_where_axes_stay_joined() {
        // A (4, 6) C array transposed: (6, 4) with strides (8, 48).
        let t = Layout::new(&[6, 4], &[8, 48]);
        assert_eq!(nocopy_strides(&t, &[24], 8, Order::C), None);
        assert_eq!(
            nocopy_strides(&t, &[24], 8, Order::F).unwrap().as_slice(),
            &[8]
        );
        assert_eq!(
            nocopy_strides(&t, &[2, 3, 4], 8, Order::C)
                .unwrap()
                .as_slice(),
            &[24, 8, 48]
        );
        assert_eq!(
            nocopy_strides(&t, &[6, 1, 4, 1], 8, Order::C)
                .unwrap()
                .as_slice(),
            &[8, 192, 48, 48]
        );
        assert_eq!(
            plan(&t, 8, &[24], Order::C, Some(false))
                .unwrap_err()
                .to_string(),
            "Unable to avoid creating a copy while reshaping."
        );
    }

    #[test]
    fn same_shape_is_a_view_even_when_strided() {
        let t = Layout::new(&[6, 4], &[8, 48]);
        assert_eq!(
            plan(&t, 8, &[6, 4], Order::C, None).unwrap(),
            Reshape::View(t.clone())
        );
        assert!(matches!(
            plan(&t, 8, &[6, 4], Order::C, Some(true)).unwrap(),
            Reshape::Copy { .. }
        ));
        assert_eq!(
            plan(&t, 8, &[24], Order::K, None).unwrap_err().to_string(),
            "order 'K' is not permitted for reshaping"
        );
    }

    #[test]
    fn keep_order_contiguity_ignores_axis_order_not_sign() {
        assert!(is_keep_order_contiguous(&Layout::new(&[6, 4], &[8, 48]), 8));
        assert!(!is_keep_order_contiguous(
            &Layout::new(&[6, 4], &[-8, 48]),
            8
        ));
        assert!(!is_keep_order_contiguous(
            &Layout::new(&[3, 4], &[64, 8]),
            8
        ));
    }
}
