//! NumPy's indexing: what `a[index]` selects. A *basic* index (integers, slices, `None`,
//! `...`) selects a view ([`basic`]); one holding integer or boolean arrays selects by
//! *advanced* indexing ([`advanced`] plans where each index goes, [`gather`] moves the
//! elements on the device). Errors are NumPy's `IndexError`s, in NumPy's words.

pub mod advanced;
pub mod basic;
pub mod gather;
mod offsets;

use ember_core::{Error, Result};

use crate::array::Dims;

/// A slice as Python's `PySlice_Unpack` leaves it: a missing start or stop is the far end
/// for the step's direction, every bound clamped to `isize`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slice {
    pub start: isize,
    pub stop: isize,
    pub step: isize,
}

/// Where a slice lands on an axis: its first index, step and number of elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    pub start: isize,
    pub step: isize,
    pub len: usize,
}

impl Slice {
    /// `slice(start, stop, step)` (None where Python has None).
    pub fn new(start: Option<isize>, stop: Option<isize>, step: Option<isize>) -> Result<Slice> {
        let step = step.unwrap_or(1);
        if step == 0 {
            return Err(Error::Value("slice step cannot be zero".into()));
        }
        // Python clamps a step of -2**63 to keep `-step` representable.
        let step = step.max(-isize::MAX);
        let back = step < 0;
        Ok(Slice {
            start: start.unwrap_or(if back { isize::MAX } else { 0 }),
            stop: stop.unwrap_or(if back { isize::MIN } else { isize::MAX }),
            step,
        })
    }

    /// `slice(None)`: the whole axis.
    pub fn full() -> Slice {
        Slice {
            start: 0,
            stop: isize::MAX,
            step: 1,
        }
    }

    /// The span on an axis of `len` elements (Python's `PySlice_AdjustIndices`).
    pub fn on_axis(self, len: usize) -> Span {
        let n = len as isize;
        let clamp = |v: isize| -> isize {
            if v < 0 {
                let v = v.saturating_add(n);
                if v < 0 {
                    if self.step < 0 {
                        -1
                    } else {
                        0
                    }
                } else {
                    v
                }
            } else if v >= n {
                if self.step < 0 {
                    n - 1
                } else {
                    n
                }
            } else {
                v
            }
        };
        let (start, stop) = (clamp(self.start), clamp(self.stop));
        let count = if self.step < 0 {
            if stop < start {
                (start - stop - 1) / (-self.step) + 1
            } else {
                0
            }
        } else if start < stop {
            (stop - start - 1) / self.step + 1
        } else {
            0
        };
        Span {
            start,
            step: self.step,
            len: count as usize,
        }
    }
}

/// One item of an index, as the planners see it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Item {
    /// An integer (Python's `int`, NumPy's integer scalars, 0-d integer arrays).
    Int(isize),
    Slice(Slice),
    /// `None` (`np.newaxis`): a new axis of length 1.
    NewAxis,
    /// `...`: as many full slices as the other items leave axes.
    Ellipsis,
    /// `True` or `False` (a 0-d boolean): a new axis of length 1 indexed by `[0]` or `[]`.
    Bool(bool),
    /// An integer array of this shape.
    IntArray(Dims),
    /// A boolean array of this shape with `count` true elements: its `nonzero()`, one
    /// integer array of length `count` per axis it covers.
    Mask {
        shape: Dims,
        count: usize,
    },
}

impl Item {
    /// How many of the array's axes the item indexes.
    fn axes_used(&self) -> usize {
        match self {
            Item::Int(_) | Item::Slice(_) | Item::IntArray(_) => 1,
            Item::Mask { shape, .. } => shape.len(),
            Item::NewAxis | Item::Ellipsis | Item::Bool(_) => 0,
        }
    }

    /// Whether it makes the index advanced.
    pub fn is_array(&self) -> bool {
        matches!(self, Item::Bool(_) | Item::IntArray(_) | Item::Mask { .. })
    }
}

/// NumPy's checks shared by both kinds of index: one ellipsis at most, and no more indexed
/// axes than the array has. Returns how many axes the ellipsis stands for.
fn count_axes(items: &[Item], ndim: usize) -> Result<usize> {
    if items.iter().filter(|i| **i == Item::Ellipsis).count() > 1 {
        return Err(Error::Index(
            "an index can only have a single ellipsis ('...')".into(),
        ));
    }
    let used: usize = items.iter().map(Item::axes_used).sum();
    if used > ndim {
        return Err(Error::Index(format!(
            "too many indices for array: array is {ndim}-dimensional, but {used} were indexed"
        )));
    }
    Ok(ndim - used)
}

/// An integer index on an axis of `len`, wrapped from the end when negative; NumPy's
/// `IndexError` when out of range.
pub fn wrap_index(index: isize, len: usize, axis: usize) -> Result<usize> {
    let n = len as isize;
    let i = if index < 0 {
        index.saturating_add(n)
    } else {
        index
    };
    if (0..n).contains(&i) {
        Ok(i as usize)
    } else {
        Err(Error::Index(format!(
            "index {index} is out of bounds for axis {axis} with size {len}"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Python's `range(*slice(start, stop, step).indices(len))`: (start, step, len).
    fn span(
        start: Option<isize>,
        stop: Option<isize>,
        step: Option<isize>,
        len: usize,
    ) -> (isize, isize, usize) {
        let s = Slice::new(start, stop, step).unwrap().on_axis(len);
        (s.start, s.step, s.len)
    }

    #[test]
    fn slices_land_as_python_slices() {
        assert_eq!(span(None, None, None, 5), (0, 1, 5));
        assert_eq!(span(Some(1), Some(4), None, 5), (1, 1, 3));
        assert_eq!(span(None, None, Some(-1), 5), (4, -1, 5));
        assert_eq!(span(Some(-2), None, None, 5), (3, 1, 2));
        assert_eq!(span(Some(10), Some(20), None, 5), (5, 1, 0));
        assert_eq!(span(Some(-10), Some(3), Some(2), 5), (0, 2, 2));
        assert_eq!(span(Some(3), Some(-10), Some(-2), 5), (3, -2, 2));
        assert_eq!(span(None, None, Some(-3), 0), (-1, -3, 0));
        assert_eq!(
            span(Some(isize::MIN), Some(isize::MAX), Some(isize::MIN), 4).2,
            0
        );
        assert_eq!(
            Slice::new(None, None, Some(0)).unwrap_err().to_string(),
            "slice step cannot be zero"
        );
    }

    #[test]
    fn integers_wrap_or_raise_numpy_s_error() {
        assert_eq!(wrap_index(-1, 3, 0).unwrap(), 2);
        assert_eq!(
            wrap_index(-4, 3, 1).unwrap_err().to_string(),
            "index -4 is out of bounds for axis 1 with size 3"
        );
        assert_eq!(
            wrap_index(isize::MIN, 3, 0).unwrap_err().to_string(),
            format!(
                "index {} is out of bounds for axis 0 with size 3",
                isize::MIN
            )
        );
    }

    #[test]
    fn index_shape_checks() {
        let e = count_axes(&[Item::Ellipsis, Item::Int(0), Item::Ellipsis], 3).unwrap_err();
        assert_eq!(
            e.to_string(),
            "an index can only have a single ellipsis ('...')"
        );
        let e = count_axes(&vec![Item::Int(0); 4], 3).unwrap_err();
        assert_eq!(
            e.to_string(),
            "too many indices for array: array is 3-dimensional, but 4 were indexed"
        );
        let mask = Item::Mask {
            shape: Dims::from_slice(&[2, 3]),
            count: 1,
        };
        assert_eq!(
            count_axes(&[mask, Item::NewAxis, Item::Ellipsis], 3).unwrap(),
            1
        );
    }
}
