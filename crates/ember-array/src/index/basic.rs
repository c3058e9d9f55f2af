//! Basic indexing: integers, slices, `None` and `...` select a view, as NumPy's
//! `get_view_from_index` does (an all-integer index gives a 0-d view).

use ember_core::{Error, Result};

use super::{count_axes, wrap_index, Item};
use crate::array::{Array, Dims, Strides};
use crate::shape::{view, Layout};

/// The view a basic index selects: its layout, and its first element's distance in bytes
/// from the array's first element.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BasicView {
    pub layout: Layout,
    pub delta: isize,
}

/// The view of an array of layout `source` that `items` (integers, slices, `None` and `...`
/// only) select, with NumPy's errors: one ellipsis, no more indices than axes, integers in
/// range.
pub fn plan(source: &Layout, items: &[Item]) -> Result<BasicView> {
    let ndim = source.shape.len();
    let ellipsis_axes = count_axes(items, ndim)?;
    let mut shape = Dims::new();
    let mut strides = Strides::new();
    let mut delta = 0isize;
    let mut axis = 0;
    for item in items {
        match item {
            Item::Int(i) => {
                let k = wrap_index(*i, source.shape[axis], axis)?;
                delta += k as isize * source.strides[axis];
                axis += 1;
            }
            Item::Slice(s) => {
                let span = s.on_axis(source.shape[axis]);
                let stride = source.strides[axis];
                // An empty slice keeps the offset: its start may lie outside the axis.
                if span.len > 0 {
                    delta += span.start * stride;
                    strides.push(stride * span.step);
                } else {
                    strides.push(stride);
                }
                shape.push(span.len);
                axis += 1;
            }
            Item::NewAxis => {
                shape.push(1);
                strides.push(0);
            }
            Item::Ellipsis => {
                shape.extend_from_slice(&source.shape[axis..axis + ellipsis_axes]);
                strides.extend_from_slice(&source.strides[axis..axis + ellipsis_axes]);
                axis += ellipsis_axes;
            }
            Item::Bool(_) | Item::IntArray(_) | Item::Mask { .. } => {
                return Err(Error::Value(
                    "an index with arrays is an advanced index: plan it with index::advanced"
                        .into(),
                ))
            }
        }
    }
    shape.extend_from_slice(&source.shape[axis..]);
    strides.extend_from_slice(&source.strides[axis..]);
    Ok(BasicView {
        layout: Layout { shape, strides },
        delta,
    })
}

/// `a[items]` for a basic index: a view of `a`'s memory.
pub fn basic_view(a: &Array, items: &[Item]) -> Result<Array> {
    let v = plan(&Layout::of(a), items)?;
    view(a, &v.layout, v.delta)
}

#[cfg(test)]
mod tests {
    use super::super::Slice;
    use super::*;

    fn sl(start: Option<isize>, stop: Option<isize>, step: Option<isize>) -> Item {
        Item::Slice(Slice::new(start, stop, step).unwrap())
    }

    /// A C-contiguous (2, 3, 4) array of 8-byte elements.
    fn l() -> Layout {
        Layout::new(&[2, 3, 4], &[96, 32, 8])
    }

    #[test]
    fn integers_and_slices_select_views() {
        let v = plan(&l(), &[Item::Int(1)]).unwrap();
        assert_eq!(
            v,
            BasicView {
                layout: Layout::new(&[3, 4], &[32, 8]),
                delta: 96
            }
        );
        let v = plan(
            &l(),
            &[Item::Int(-1), sl(None, None, Some(-2)), Item::Int(1)],
        )
        .unwrap();
        assert_eq!(
            v,
            BasicView {
                layout: Layout::new(&[2], &[-64]),
                delta: 96 + 64 + 8
            }
        );
        let v = plan(&l(), &[Item::Int(0), Item::Int(0), Item::Int(0)]).unwrap();
        assert_eq!(v.layout, Layout::default());
    }

    #[test]
    fn new_axes_and_ellipsis_place_axes() {
        let v = plan(&l(), &[Item::Ellipsis, Item::NewAxis, Item::Int(2)]).unwrap();
        assert_eq!(
            v,
            BasicView {
                layout: Layout::new(&[2, 3, 1], &[96, 32, 0]),
                delta: 16
            }
        );
        let v = plan(&l(), &[Item::NewAxis, Item::Ellipsis]).unwrap();
        assert_eq!(v.layout, Layout::new(&[1, 2, 3, 4], &[0, 96, 32, 8]));
    }

    #[test]
    fn empty_slices_keep_the_offset() {
        let v = plan(&l(), &[sl(Some(5), Some(9), None)]).unwrap();
        assert_eq!(
            v,
            BasicView {
                layout: Layout::new(&[0, 3, 4], &[96, 32, 8]),
                delta: 0
            }
        );
    }

    #[test]
    fn errors_are_numpy_s() {
        let msg = |items: &[Item]| plan(&l(), items).unwrap_err().to_string();
        assert_eq!(
            msg(&[Item::Int(5)]),
            "index 5 is out of bounds for axis 0 with size 2"
        );
        assert_eq!(
            msg(&[Item::Int(0), Item::Int(-4)]),
            "index -4 is out of bounds for axis 1 with size 3"
        );
        assert_eq!(
            msg(&[Item::Int(0), Item::Int(0), Item::Int(0), Item::Int(0)]),
            "too many indices for array: array is 3-dimensional, but 4 were indexed"
        );
        assert_eq!(
            msg(&[Item::Ellipsis, Item::Ellipsis]),
            "an index can only have a single ellipsis ('...')"
        );
        let scalar = Layout::default();
        assert_eq!(
            plan(&scalar, &[Item::Int(0)]).unwrap_err().to_string(),
            "too many indices for array: array is 0-dimensional, but 1 were indexed"
        );
    }
}
