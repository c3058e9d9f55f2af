//! Advanced indexing plans: where each index array goes (NumPy's `prepare_index` and
//! `mapiter` rules). Integer arrays, boolean masks (by their `nonzero()` arrays, one per
//! axis they cover), `True`/`False` and, among them, integers broadcast together to one
//! shape; its axes replace the indexed axes in place when the array indices are next to
//! each other, and go first when a slice, `None` or `...` separates them.

use ember_core::{Error, Result};

use super::{count_axes, wrap_index, Item};
use crate::array::Dims;
use crate::shape::{dims_text, Layout};

/// One index array of a plan (a mask gives one per axis it covers).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexTerm {
    /// The index item it comes from, and for a mask which of its `nonzero()` arrays.
    pub item: usize,
    pub part: usize,
    /// The array's axis it indexes, that axis' length (its values are checked against it)
    /// and byte stride.
    pub axis: usize,
    pub len: usize,
    pub stride: isize,
    /// The index array's shape with unit axes added so that it broadcasts to its place
    /// among the result's axes.
    pub placed: Dims,
}

/// An axis of the result that a slice, `None` or `...` makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RestAxis {
    /// Its position in the result.
    pub axis: usize,
    pub len: usize,
    /// Byte stride (0 for `None`).
    pub stride: isize,
}

/// What an advanced index selects: element `r` of the result is at `delta` plus, for each
/// term, its index array's value (broadcast to `r`) times its stride, plus each rest axis'
/// coordinate times its stride, bytes from the array's first element.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AdvancedPlan {
    pub shape: Dims,
    pub delta: isize,
    /// The index arrays' broadcast shape, and the result axis where it starts.
    pub fancy_shape: Dims,
    pub fancy_at: usize,
    pub terms: Vec<IndexTerm>,
    pub rest: Vec<RestAxis>,
}

/// An index item in the order of the index, once masks are split per axis.
enum Entry {
    /// Takes part in the broadcast: its shape, and the term it adds (None for integers and
    /// `True`/`False`, which add a constant).
    Fancy {
        shape: Dims,
        term: Option<(usize, usize, usize)>,
    },
    /// Result axes of its own: (length, byte stride) each, and the bytes its start adds.
    Plain {
        axes: Vec<(usize, isize)>,
        delta: isize,
    },
}

/// The plan for `items` (at least one of them an array, a mask or a boolean) on an array
/// of layout `source`. NumPy's errors in NumPy's order: ellipsis and too many indices, a
/// mask that does not fit its axes, an integer out of range, index shapes that do not
/// broadcast. (Index array values are checked on the device, against each term's `len`.)
pub fn plan(source: &Layout, items: &[Item]) -> Result<AdvancedPlan> {
    let ndim = source.shape.len();
    let ellipsis_axes = count_axes(items, ndim)?;
    let mut entries = Vec::with_capacity(items.len() + 1);
    let mut integers = Vec::new();
    let mut axis = 0;
    for (k, item) in items.iter().enumerate() {
        match item {
            Item::Int(i) => {
                integers.push((*i, axis));
                entries.push(Entry::Fancy {
                    shape: Dims::new(),
                    term: None,
                });
                axis += 1;
            }
            Item::Bool(b) => entries.push(Entry::Fancy {
                shape: Dims::from_slice(&[*b as usize]),
                term: None,
            }),
            Item::IntArray(shape) => {
                entries.push(Entry::Fancy {
                    shape: shape.clone(),
                    term: Some((k, 0, axis)),
                });
                axis += 1;
            }
            Item::Mask { shape, count } => {
                // A mask with no elements selects nothing from axes of any length (NumPy skips
                // the length check for it: it reads it as empty integer indices).
                let empty = shape.contains(&0);
                for (j, &d) in shape.iter().enumerate() {
                    if d != source.shape[axis] && !empty {
                        return Err(Error::Index(format!(
                            "boolean index did not match indexed array along axis {axis}; size of axis is {} but size of corresponding boolean axis is {d}",
                            source.shape[axis]
                        )));
                    }
                    entries.push(Entry::Fancy {
                        shape: Dims::from_slice(&[*count]),
                        term: Some((k, j, axis)),
                    });
                    axis += 1;
                }
            }
            Item::Slice(s) => {
                let span = s.on_axis(source.shape[axis]);
                let stride = source.strides[axis];
                let (delta, step) = if span.len > 0 {
                    (span.start * stride, stride * span.step)
                } else {
                    (0, stride)
                };
                entries.push(Entry::Plain {
                    axes: vec![(span.len, step)],
                    delta,
                });
                axis += 1;
            }
            Item::NewAxis => entries.push(Entry::Plain {
                axes: vec![(1, 0)],
                delta: 0,
            }),
            Item::Ellipsis => {
                let axes = (axis..axis + ellipsis_axes)
                    .map(|a| (source.shape[a], source.strides[a]))
                    .collect();
                entries.push(Entry::Plain { axes, delta: 0 });
                axis += ellipsis_axes;
            }
        }
    }
    let trailing: Vec<(usize, isize)> = (axis..ndim)
        .map(|a| (source.shape[a], source.strides[a]))
        .collect();
    entries.push(Entry::Plain {
        axes: trailing,
        delta: 0,
    });

    let mut delta = 0isize;
    for (i, axis) in integers {
        delta += wrap_index(i, source.shape[axis], axis)? as isize * source.strides[axis];
    }
    let fancy_shape = broadcast_indices(&entries)?;

    let fancy: Vec<usize> = (0..entries.len())
        .filter(|&e| matches!(entries[e], Entry::Fancy { .. }))
        .collect();
    let (first, last) = (fancy[0], fancy[fancy.len() - 1]);
    let together = fancy.len() == last - first + 1;
    let mut rest_axes: Vec<(usize, isize)> = Vec::new();
    let mut before = 0;
    for (e, entry) in entries.iter().enumerate() {
        if let Entry::Plain { axes, delta: d } = entry {
            delta += d;
            rest_axes.extend(axes);
            if together && e < first {
                before += axes.len();
            }
        }
    }
    let fancy_at = before;
    let mut shape = Dims::with_capacity(rest_axes.len() + fancy_shape.len());
    shape.extend(rest_axes[..before].iter().map(|&(len, _)| len));
    shape.extend_from_slice(&fancy_shape);
    shape.extend(rest_axes[before..].iter().map(|&(len, _)| len));
    let rest = rest_axes
        .iter()
        .enumerate()
        .map(|(j, &(len, stride))| RestAxis {
            axis: if j < before { j } else { j + fancy_shape.len() },
            len,
            stride,
        })
        .collect();
    let after = shape.len() - fancy_at - fancy_shape.len();
    let terms = entries
        .iter()
        .filter_map(|e| match e {
            Entry::Fancy {
                shape: s,
                term: Some((item, part, axis)),
            } => {
                let mut placed = Dims::from_elem(1, fancy_at + fancy_shape.len() - s.len());
                placed.extend_from_slice(s);
                placed.extend(std::iter::repeat_n(1, after));
                Some(IndexTerm {
                    item: *item,
                    part: *part,
                    axis: *axis,
                    len: source.shape[*axis],
                    stride: source.strides[*axis],
                    placed,
                })
            }
            _ => None,
        })
        .collect();
    Ok(AdvancedPlan {
        shape,
        delta,
        fancy_shape,
        fancy_at,
        terms,
        rest,
    })
}

/// The broadcast shape of the index arrays; NumPy's error lists every array's shape.
fn broadcast_indices(entries: &[Entry]) -> Result<Dims> {
    let shapes: Vec<&[usize]> = entries
        .iter()
        .filter_map(|e| match e {
            Entry::Fancy { shape, .. } => Some(shape.as_slice()),
            Entry::Plain { .. } => None,
        })
        .collect();
    crate::shape::broadcast::broadcast_shapes(&shapes).map_err(|_| {
        // Integers are not arrays: NumPy leaves them out of the list.
        let listed: String = entries
            .iter()
            .filter_map(|e| match e {
                Entry::Fancy { shape, term } if term.is_some() || !shape.is_empty() => {
                    Some(format!("{} ", dims_text(shape)))
                }
                _ => None,
            })
            .collect();
        Error::Index(format!(
            "shape mismatch: indexing arrays could not be broadcast together with shapes {listed}"
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::super::Slice;
    use super::*;

    fn l() -> Layout {
        Layout::new(&[2, 3, 4], &[96, 32, 8])
    }

    fn arr(shape: &[usize]) -> Item {
        Item::IntArray(Dims::from_slice(shape))
    }

    fn all() -> Item {
        Item::Slice(Slice::full())
    }

    fn shape_of(items: &[Item]) -> Vec<usize> {
        plan(&l(), items).unwrap().shape.to_vec()
    }

    #[test]
    fn adjacent_arrays_stay_in_place() {
        assert_eq!(shape_of(&[all(), arr(&[5]), arr(&[5])]), vec![2, 5]);
        assert_eq!(shape_of(&[arr(&[2, 1]), arr(&[3])]), vec![2, 3, 4]);
        let p = plan(&l(), &[all(), arr(&[5]), all()]).unwrap();
        assert_eq!((p.shape.to_vec(), p.fancy_at), (vec![2, 5, 4], 1));
        assert_eq!(p.terms[0].placed.as_slice(), &[1, 5, 1]);
        assert_eq!(p.terms[0].stride, 32);
        assert_eq!(
            p.rest,
            vec![
                RestAxis {
                    axis: 0,
                    len: 2,
                    stride: 96
                },
                RestAxis {
                    axis: 2,
                    len: 4,
                    stride: 8
                }
            ]
        );
    }

    #[test]
    fn separated_arrays_go_first() {
        // a[[0, 1], :, [0, 1]] and a[0, :, [0, 1]]: the integer is an index array here.
        assert_eq!(shape_of(&[arr(&[2]), all(), arr(&[2])]), vec![2, 3]);
        assert_eq!(shape_of(&[Item::Int(0), all(), arr(&[2])]), vec![2, 3]);
        // None and a zero-axis ellipsis separate too.
        assert_eq!(
            shape_of(&[Item::Int(0), Item::NewAxis, arr(&[2])]),
            vec![2, 1, 4]
        );
        let p = plan(&l(), &[all(), arr(&[2]), Item::Ellipsis, arr(&[2])]).unwrap();
        assert_eq!((p.shape.to_vec(), p.fancy_at), (vec![2, 2], 0));
        assert_eq!(
            p.rest,
            vec![RestAxis {
                axis: 1,
                len: 2,
                stride: 96
            }]
        );
        assert_eq!(
            shape_of(&[
                arr(&[2, 1]),
                Item::Slice(Slice::new(Some(1), Some(3), None).unwrap()),
                arr(&[3])
            ]),
            vec![2, 3, 2]
        );
    }

    #[test]
    fn masks_cover_their_axes_and_booleans_add_one() {
        let mask = Item::Mask {
            shape: Dims::from_slice(&[2, 3]),
            count: 4,
        };
        let p = plan(&l(), &[mask]).unwrap();
        assert_eq!(p.shape.as_slice(), &[4, 4]);
        assert_eq!(
            (p.terms[1].part, p.terms[1].axis, p.terms[1].len),
            (1, 1, 3)
        );
        assert_eq!(shape_of(&[Item::Bool(true)]), vec![1, 2, 3, 4]);
        assert_eq!(shape_of(&[Item::Bool(false), Item::Int(1)]), vec![0, 3, 4]);
        assert_eq!(shape_of(&[Item::Bool(true), arr(&[2])]), vec![2, 3, 4]);
    }

    #[test]
    fn integers_and_slices_add_their_offsets() {
        let s = Item::Slice(Slice::new(Some(1), None, None).unwrap());
        let p = plan(&l(), &[Item::Int(-1), arr(&[3]), s]).unwrap();
        assert_eq!(p.delta, 96 + 8);
        assert_eq!(p.shape.as_slice(), &[3, 3]);
    }

    #[test]
    fn errors_in_numpy_s_order_and_words() {
        let msg = |items: &[Item]| plan(&l(), items).unwrap_err().to_string();
        let bad_mask = Item::Mask {
            shape: Dims::from_slice(&[3]),
            count: 2,
        };
        assert_eq!(
            msg(&[bad_mask.clone(), Item::Int(7)]),
            "boolean index did not match indexed array along axis 0; size of axis is 2 but size of corresponding boolean axis is 3"
        );
        assert_eq!(
            msg(&[arr(&[2, 3]), Item::Int(5), arr(&[4])]),
            "index 5 is out of bounds for axis 1 with size 3"
        );
        assert_eq!(
            msg(&[arr(&[2, 3]), Item::Int(0), arr(&[4])]),
            "shape mismatch: indexing arrays could not be broadcast together with shapes (2,3) (4,) "
        );
        assert_eq!(
            msg(&[Item::Bool(false), arr(&[2])]),
            "shape mismatch: indexing arrays could not be broadcast together with shapes (0,) (2,) "
        );
        let mask = Item::Mask {
            shape: Dims::from_slice(&[2, 3]),
            count: 5,
        };
        assert_eq!(
            msg(&[mask, arr(&[3])]),
            "shape mismatch: indexing arrays could not be broadcast together with shapes (5,) (5,) (3,) "
        );
        let big = Item::Mask {
            shape: Dims::from_slice(&[2, 3, 4, 1]),
            count: 1,
        };
        assert_eq!(
            msg(&[big, arr(&[2])]),
            "too many indices for array: array is 3-dimensional, but 5 were indexed"
        );
    }
}
