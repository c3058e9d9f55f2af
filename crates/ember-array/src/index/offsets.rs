//! Element offsets of an advanced index on the device: each index array checked against its
//! axis (NumPy's `IndexError` from the array's extremes, read on the host), wrapped, scaled by
//! its stride and placed among the result's axes; the slices' axes as `arange`s. Masks are
//! their `nonzero()` arrays (stream compaction; only the count is read on the host).

use ember_core::dtype::Kind;
use ember_core::{DType, Error, Result, Scalar};

use super::advanced::AdvancedPlan;
use super::gather::Index;
use super::Item;
use crate::array::{Array, Dims, Strides};
use crate::compact::compact;
use crate::creation::arange;
use crate::reduction::{reduce, Reduction};
use crate::shape::reshape::reshape;
use crate::shape::Order;
use crate::ufunc::resolve::OperandType;
use crate::ufunc::{self, Operand};
use crate::user_kernel::UserArg;

fn binary(name: &str, a: Operand, b: Operand) -> Result<Array> {
    let device = match (&a, &b) {
        (Operand::Array(x), _) | (_, Operand::Array(x)) => x.device(),
        _ => return Err(Error::Value("an index operation needs an array".into())),
    };
    let mut out = ufunc::apply(device, ufunc::ufunc(name)?, &[a, b], &[None], None)?;
    out.pop()
        .ok_or_else(|| Error::Value(format!("{name} gave no result")))
}

fn int(v: i64) -> Operand {
    Operand::Scalar(Scalar::Int(v), OperandType::Strong(DType::I64))
}

/// The one element of a 0-d or size-1 array, read on the host.
fn read_i64(a: &Array) -> Result<i64> {
    let a = a.astype(DType::I64)?;
    let mut bytes = [0u8; 8];
    a.to_host(&mut bytes)?;
    Ok(i64::from_le_bytes(bytes))
}

/// `nonzero(a)`: the indices of the non-zero elements, one int64 array per axis (stream
/// compaction on the device; only the count is read on the host).
pub fn nonzero(a: &Array) -> Result<Vec<Array>> {
    if a.ndim() == 0 {
        return Err(Error::Value("Calling nonzero on 0d arrays is not allowed. Use np.atleast_1d(scalar).nonzero() instead. If the context of this error is of the form `arr[nonzero(cond)]`, just use `arr[cond]`.".into()));
    }
    let mask = if a.dtype() == DType::Bool {
        a.clone()
    } else {
        a.astype(DType::Bool)?
    };
    let mut rest = compact(&mask, None)?;
    let mut out = Vec::with_capacity(a.ndim());
    for &dim in a.shape()[1..].iter().rev() {
        out.push(binary(
            "remainder",
            Operand::Array(rest.clone()),
            int(dim as i64),
        )?);
        rest = binary("floor_divide", Operand::Array(rest), int(dim as i64))?;
    }
    out.push(rest);
    out.reverse();
    Ok(out)
}

/// An index with its arrays read: the planner's items, each integer array (int64) by item,
/// and each mask's `nonzero()` arrays by item.
pub(super) struct Resolved {
    pub items: Vec<Item>,
    pub arrays: Vec<Vec<Array>>,
}

pub(super) fn resolve(index: &[Index]) -> Result<Resolved> {
    let mut items = Vec::with_capacity(index.len());
    let mut arrays = Vec::with_capacity(index.len());
    for ix in index {
        let (item, held) = match ix {
            Index::Int(i) => (Item::Int(*i), vec![]),
            Index::Slice(s) => (Item::Slice(*s), vec![]),
            Index::NewAxis => (Item::NewAxis, vec![]),
            Index::Ellipsis => (Item::Ellipsis, vec![]),
            Index::Bool(b) => (Item::Bool(*b), vec![]),
            Index::Array(a) => match (a.dtype().kind(), a.ndim()) {
                (Kind::Bool, 0) => (Item::Bool(read_i64(a)? != 0), vec![]),
                (Kind::Int | Kind::UInt, 0) => (Item::Int(read_i64(a)? as isize), vec![]),
                (Kind::Bool, _) => {
                    let parts = nonzero(a)?;
                    let count = parts.first().map_or(0, Array::size);
                    (
                        Item::Mask {
                            shape: Dims::from_slice(a.shape()),
                            count,
                        },
                        parts,
                    )
                }
                (Kind::Int | Kind::UInt, _) => {
                    (Item::IntArray(Dims::from_slice(a.shape())), vec![a.clone()])
                }
                _ => {
                    return Err(Error::Index(
                        "arrays used as indices must be of integer (or boolean) type".into(),
                    ))
                }
            },
        };
        items.push(item);
        arrays.push(held);
    }
    Ok(Resolved { items, arrays })
}

/// `idx` as int64 with negative values wrapped; a value out of `[-len, len)` is NumPy's
/// `IndexError` (found from the array's extremes).
fn checked_index(idx: &Array, len: usize, axis: usize) -> Result<Array> {
    let idx = if idx.dtype() == DType::I64 {
        idx.clone()
    } else {
        idx.astype(DType::I64)?
    };
    if idx.size() == 0 {
        return Ok(idx);
    }
    let n = len as i64;
    let hi = read_i64(&reduce(&idx, Reduction::Max, None, None, None, false)?)?;
    let lo = read_i64(&reduce(&idx, Reduction::Min, None, None, None, false)?)?;
    let bad = if hi >= n {
        Some(hi)
    } else if lo < -n {
        Some(lo)
    } else {
        None
    };
    if let Some(bad) = bad {
        return Err(out_of_bounds(bad, axis, len));
    }
    if lo < 0 {
        return binary("remainder", Operand::Array(idx), int(n));
    }
    Ok(idx)
}

/// An advanced index as the gather kernel takes it: the base element (a scalar), each index
/// array placed among the result's axes (unchecked, unwrapped, in its own integer dtype) with
/// its axis's length and stride in elements, and the rest axes before and after the index
/// axes, each broadcasting over the result.
pub(super) struct Terms {
    pub base: i64,
    pub terms: Vec<Term>,
    pub rest: [Option<Array>; 2],
}

/// One index array of [`Terms`].
pub(super) struct Term {
    /// The array as the index gave it (for messages).
    pub given: Array,
    /// The array reshaped to its place among the result's axes.
    pub placed: Array,
    pub len: usize,
    pub axis: usize,
    pub stride: i64,
    /// A mask's `nonzero()` array: in range by construction.
    pub from_mask: bool,
}

/// The plan's byte distances in elements, or None where one is not a whole element.
pub(super) fn terms(a: &Array, plan: &AdvancedPlan, resolved: &Resolved) -> Result<Option<Terms>> {
    let item = a.dtype().itemsize() as isize;
    let start = a.offset() as isize + plan.delta;
    let whole = start % item == 0
        && plan.terms.iter().all(|t| t.stride % item == 0)
        && plan.rest.iter().all(|r| r.stride % item == 0);
    if !whole {
        return Ok(None);
    }
    let mut terms = Vec::with_capacity(plan.terms.len());
    for t in &plan.terms {
        let given = resolved.arrays[t.item][t.part].clone();
        let placed: Vec<i64> = t.placed.iter().map(|&d| d as i64).collect();
        terms.push(Term {
            placed: reshape(&given, &placed, Order::C, None)?,
            given,
            len: t.len,
            axis: t.axis,
            stride: (t.stride / item) as i64,
            from_mask: matches!(resolved.items[t.item], Item::Mask { .. }),
        });
    }
    let ndim = plan.shape.len();
    let mut rest: [Option<Array>; 2] = [None, None];
    for r in &plan.rest {
        let group = usize::from(r.axis >= plan.fancy_at);
        let step = (r.stride / item) as i64;
        let values = arange(
            a.device(),
            Scalar::Int(0),
            Scalar::Int(step),
            r.len,
            DType::I64,
        )?;
        let mut shape = Dims::from_elem(1, ndim);
        shape[r.axis] = r.len;
        let mut strides = Strides::from_elem(0, ndim);
        strides[r.axis] = 8;
        let placed = values.view(&shape, &strides, 0, DType::I64)?;
        rest[group] = Some(match rest[group].take() {
            None => placed,
            Some(g) => binary("add", Operand::Array(g), Operand::Array(placed))?,
        });
    }
    Ok(Some(Terms {
        base: (start / item) as i64,
        terms,
        rest,
    }))
}

impl Term {
    /// The term's element offsets: checked, wrapped, scaled by the stride (int64).
    pub fn offsets(&self) -> Result<Array> {
        let mut o = if self.from_mask {
            self.placed.clone()
        } else {
            checked_index(&self.placed, self.len, self.axis)?
        };
        if self.stride != 1 {
            o = binary("multiply", Operand::Array(o), int(self.stride))?;
        }
        Ok(o)
    }

    /// NumPy's `IndexError` for the first value of the index array (in its C order) out of
    /// `[-len, len)`. Read on the host: only for an index the gather found bad.
    pub fn out_of_bounds(&self) -> Result<Error> {
        let values = self.given.astype(DType::I64)?;
        let mut bytes = vec![0u8; values.size() * 8];
        values.to_host(&mut bytes)?;
        let n = self.len as i64;
        let first = bytes
            .chunks_exact(8)
            .map(|c| i64::from_le_bytes(c.try_into().unwrap_or_default()))
            .find(|&v| v < -n || v >= n);
        Ok(match first {
            Some(bad) => out_of_bounds(bad, self.axis, self.len),
            // The kernel saw a bad index the host does not: never hand back its values.
            None => Error::Index(format!(
                "an index is out of bounds for axis {} with size {}",
                self.axis, self.len
            )),
        })
    }
}

fn out_of_bounds(bad: i64, axis: usize, len: usize) -> Error {
    Error::Index(format!(
        "index {bad} is out of bounds for axis {axis} with size {len}"
    ))
}

/// Element offsets of a plan (for scatters): the base (a scalar), the index arrays' part
/// summed, and the rest axes.
pub(super) struct Offsets {
    base: i64,
    fancy: Option<Array>,
    rest: [Option<Array>; 2],
}

/// The plan's offsets in elements, the index arrays checked and summed, or None where a
/// distance is not a whole element.
pub(super) fn offsets(
    a: &Array,
    plan: &AdvancedPlan,
    resolved: &Resolved,
) -> Result<Option<Offsets>> {
    let Some(t) = terms(a, plan, resolved)? else {
        return Ok(None);
    };
    Ok(Some(Offsets {
        base: t.base,
        fancy: summed_offsets(&t.terms)?,
        rest: t.rest,
    }))
}

/// The sum of `terms`' element offsets (each checked), or None for no terms.
pub(super) fn summed_offsets(terms: &[Term]) -> Result<Option<Array>> {
    let mut sum: Option<Array> = None;
    for term in terms {
        let o = term.offsets()?;
        sum = Some(match sum {
            None => o,
            Some(f) => binary("add", Operand::Array(f), Operand::Array(o))?,
        });
    }
    Ok(sum)
}

pub(super) fn offset_args(o: Offsets) -> [UserArg; 4] {
    let arg = |a: Option<Array>| match a {
        Some(a) => UserArg::Array(a),
        None => UserArg::Scalar(Scalar::Int(0), Some(DType::I64)),
    };
    let [r1, r2] = o.rest;
    [
        UserArg::Scalar(Scalar::Int(o.base), Some(DType::I64)),
        arg(o.fancy),
        arg(r1),
        arg(r2),
    ]
}
