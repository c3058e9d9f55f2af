//! `a[index]` and `a[index] = value` on the device: a basic index is a view; an advanced one
//! becomes element offsets into the array's buffer ([`super::offsets`]) and one kernel
//! gathers (or scatters) through them.

use std::sync::OnceLock;

use ember_core::{DType, Error, Result, Scalar};

use super::advanced;
use super::basic::basic_view;
pub use super::offsets::nonzero;
use super::offsets::{offset_args, offsets, resolve, summed_offsets, terms, Resolved};
use super::{Item, Slice};
use crate::array::{Array, Dims};
use crate::compact::compact;
use crate::shape::broadcast::for_assignment;
use crate::shape::copy::{assign, fill};
use crate::shape::reshape::ravel;
use crate::shape::{normalize_axis, view, Layout, Order};
use crate::user_kernel::{ElementwiseKernel, UserArg};

/// One item of an index as `a[index]` receives it: arrays still on the device.
#[derive(Clone, Debug)]
pub enum Index {
    Int(isize),
    Slice(Slice),
    NewAxis,
    Ellipsis,
    Bool(bool),
    /// An ember array (integer or boolean).
    Array(Array),
}

/// What `a[index] = value` writes.
#[derive(Clone, Debug)]
pub enum Value {
    Array(Array),
    /// An array made from a nested Python sequence (NumPy refuses one with more axes than
    /// the target has).
    Sequence(Array),
    /// A host value already converted as NumPy converts it for the array's dtype.
    Scalar(Scalar),
}

impl Value {
    fn array(&self) -> Option<&Array> {
        match self {
            Value::Array(v) | Value::Sequence(v) => Some(v),
            Value::Scalar(_) => None,
        }
    }
}

type KernelCell = OnceLock<Result<ElementwiseKernel>>;

fn kernel(
    cell: &'static KernelCell,
    ins: &str,
    outs: &str,
    body: &str,
    name: &str,
) -> Result<&'static ElementwiseKernel> {
    cell.get_or_init(|| ElementwiseKernel::new(ins, outs, body, name, "", "", "", Vec::new()))
        .as_ref()
        .map_err(Clone::clone)
}

/// Index arrays a gather kernel takes directly; more are summed into the last one.
const GATHER_SLOTS: usize = 4;

/// The gather through `slots` index arrays: `y = src[b + r1 + r2 + sum of wrapped k_t * s_t]`.
/// Each index `k_t` is checked against its axis's length `n_t` in the kernel; a bad one sets
/// `bad[t]` and reads element `b` instead, and the caller raises NumPy's `IndexError` (the
/// indices are read once).
fn gather_kernel(slots: usize) -> Result<&'static ElementwiseKernel> {
    static K: [KernelCell; GATHER_SLOTS + 1] = [const { OnceLock::new() }; GATHER_SLOTS + 1];
    let mut ins = vec!["raw T src, int64 b".to_string()];
    ins.extend(
        (0..slots).map(|t| format!("{} k{t}, int64 n{t}, int64 s{t}", ["I", "J", "K", "L"][t])),
    );
    ins.push("int64 r1, int64 r2".into());
    let body: String = (0..slots)
        .map(|t| {
            format!(
                "{{ ptrdiff_t j = (ptrdiff_t)k{t}; if (j < 0) j += n{t}; if (j < 0 || j >= n{t}) {{ bad[{t}] = 1; j = 0; }} o += j * s{t}; }} "
            )
        })
        .collect();
    kernel(
        &K[slots],
        &ins.join(", "),
        "raw int32 bad, T y",
        // `ptrdiff_t`, not `long long`: OpenCL C reserves `long long` (PoCL makes it 128-bit).
        &format!("ptrdiff_t o = b + r1 + r2; {body}y = src[o]"),
        &format!("ember_gather{slots}"),
    )
}

fn scatter_kernel() -> Result<&'static ElementwiseKernel> {
    static K: KernelCell = OnceLock::new();
    kernel(
        &K,
        "int64 b, int64 off, int64 r1, int64 r2, T v",
        "raw T dst",
        "dst[b + off + r1 + r2] = v",
        "ember_scatter",
    )
}

fn masked_fill_kernel() -> Result<&'static ElementwiseKernel> {
    static K: KernelCell = OnceLock::new();
    kernel(
        &K,
        "bool m, T v",
        "T a",
        "if (m) a = v",
        "ember_masked_fill",
    )
}

/// The whole buffer under `a` as a 1-d array of its dtype (float16 as its bits: kernels
/// move float16 elements as 16-bit integers), or None when the buffer is not whole elements.
fn buffer_of(a: &Array) -> Result<Option<Array>> {
    let item = a.dtype().itemsize();
    let len = a.buffer().len();
    if !len.is_multiple_of(item) {
        return Ok(None);
    }
    let d = bits(a.dtype())?;
    Ok(Some(a.view(&[len / item], &[item as isize], 0, d)?))
}

/// The dtype a gather moves `d`'s elements as ([`DType::mover`]).
fn bits(d: DType) -> Result<DType> {
    d.mover().map_or_else(|| d.numeric("advanced indexing"), Ok)
}

fn as_bits(a: &Array) -> Result<Array> {
    a.view(a.shape(), a.strides(), a.offset(), bits(a.dtype())?)
}

fn has_arrays(index: &[Index]) -> bool {
    index
        .iter()
        .any(|i| matches!(i, Index::Bool(_) | Index::Array(_)))
}

fn basic_items(index: &[Index]) -> Vec<Item> {
    index
        .iter()
        .map(|i| match i {
            Index::Int(v) => Item::Int(*v),
            Index::Slice(s) => Item::Slice(*s),
            Index::NewAxis => Item::NewAxis,
            _ => Item::Ellipsis,
        })
        .collect()
}

/// The items of `index` when it is basic: it holds no arrays, or only 0-d integer ones
/// (integers to NumPy).
fn basic_index(index: &[Index], resolved: Option<&Resolved>) -> Option<Vec<Item>> {
    match resolved {
        None => Some(basic_items(index)),
        Some(r) if !r.items.iter().any(Item::is_array) => Some(r.items.clone()),
        Some(_) => None,
    }
}

/// The one mask of `index` when it is exactly one boolean array of `a`'s shape (NumPy's
/// single boolean index).
fn whole_mask<'i>(a: &Array, index: &'i [Index]) -> Option<&'i Array> {
    match index {
        [Index::Array(m)] if m.dtype() == DType::Bool && m.ndim() > 0 && m.shape() == a.shape() => {
            Some(m)
        }
        _ => None,
    }
}

/// `a[index]`.
pub fn getitem(a: &Array, index: &[Index]) -> Result<Array> {
    if !has_arrays(index) {
        return basic_view(a, &basic_items(index));
    }
    if let Some(mask) = whole_mask(a, index) {
        return compact(mask, Some(a));
    }
    let resolved = resolve(index)?;
    if !resolved.items.iter().any(Item::is_array) {
        // 0-d integer arrays are integers: the index is basic after all.
        return basic_view(a, &resolved.items);
    }
    let plan = advanced::plan(&Layout::of(a), &resolved.items)?;
    let (source, terms) = match terms(a, &plan, &resolved)? {
        Some(t) => (a.clone(), t),
        None => {
            let copied = a.copy()?;
            let plan = advanced::plan(&Layout::of(&copied), &resolved.items)?;
            let t = terms(&copied, &plan, &resolved)?
                .ok_or_else(|| Error::Value("a copy's strides are whole elements".into()))?;
            (copied, t)
        }
    };
    let out = Array::empty(a.device(), &plan.shape, a.dtype())?;
    if out.size() == 0 {
        return Ok(out);
    }
    let buffer = buffer_of(&source)?
        .ok_or_else(|| Error::Value("a copy's buffer is whole elements".into()))?;
    let int = |v: i64| UserArg::Scalar(Scalar::Int(v), Some(DType::I64));
    let mut args = vec![UserArg::Array(buffer), int(terms.base)];
    // Index arrays beyond the kernel's slots: checked and summed into the last slot.
    let (direct, extra) = terms
        .terms
        .split_at(terms.terms.len().min(GATHER_SLOTS - 1));
    // A mask's indices are in range by construction: only other arrays' flags are read back
    // (a wait for the kernel), and only theirs need zeroing.
    let checked = direct.iter().any(|t| !t.from_mask);
    let flags = if checked {
        crate::creation::full(a.device(), &[GATHER_SLOTS], DType::I32, Scalar::Int(0))?
    } else {
        Array::empty(a.device(), &[GATHER_SLOTS], DType::I32)?
    };
    for t in direct {
        args.extend([
            UserArg::Array(t.placed.clone()),
            int(t.len as i64),
            int(t.stride),
        ]);
    }
    let folded = summed_offsets(extra)?;
    if let Some(f) = &folded {
        args.extend([UserArg::Array(f.clone()), int(i64::MAX), int(1)]);
    }
    let [r1, r2] = terms.rest;
    for r in [r1, r2] {
        args.push(r.map_or_else(|| int(0), UserArg::Array));
    }
    args.push(UserArg::Array(flags.clone()));
    args.push(UserArg::Array(as_bits(&out)?));
    let slots = direct.len() + usize::from(folded.is_some());
    gather_kernel(slots)?.call(a.device(), args, None)?;
    if !checked {
        return Ok(out);
    }
    let mut bad = [0u8; 4 * GATHER_SLOTS];
    flags.to_host(&mut bad)?;
    for (t, term) in direct.iter().enumerate() {
        if !term.from_mask && bad[4 * t..4 * t + 4] != [0; 4] {
            return Err(term.out_of_bounds()?);
        }
    }
    Ok(out)
}

fn value_array(a: &Array, value: &Value) -> Result<Array> {
    match value {
        Value::Array(v) | Value::Sequence(v) if v.dtype() == a.dtype() => Ok(v.clone()),
        Value::Array(v) | Value::Sequence(v) => v.astype(a.dtype()),
        Value::Scalar(s) => crate::creation::full(a.device(), &[], a.dtype(), *s),
    }
}

/// `a[index] = value` (where indices repeat, one of the values lands, as in NumPy).
pub fn setitem(a: &Array, index: &[Index], value: &Value) -> Result<()> {
    if let Some(mask) = whole_mask(a, index) {
        check_mask_value(mask, value)?;
    }
    if masked_fill(a, index, value)? {
        return Ok(());
    }
    let resolved = if has_arrays(index) {
        Some(resolve(index)?)
    } else {
        None
    };
    match (basic_index(index, resolved.as_ref()), resolved) {
        (Some(items), _) => set_basic(a, &items, value),
        (None, Some(resolved)) => scatter(a, &resolved, value),
        (None, None) => Err(Error::Value("an index without arrays is basic".into())),
    }
}

/// `a[items] = value` for a basic index: into a view.
fn set_basic(a: &Array, items: &[Item], value: &Value) -> Result<()> {
    let target = basic_view(a, items)?;
    let one_element = items.len() == a.ndim() && items.iter().all(|i| matches!(i, Item::Int(_)));
    if one_element && value.array().is_some_and(|v| v.ndim() > 0) {
        // NumPy stores into one element (every axis given an integer) as a scalar.
        return Err(Error::Value(
            "setting an array element with a sequence.".into(),
        ));
    }
    match value {
        Value::Scalar(s) => fill(&target, *s),
        Value::Sequence(v) if v.ndim() > target.ndim() => Err(Error::Value(format!(
            "setting an array element with a sequence. The requested array would exceed the maximum number of dimension of {}.",
            target.ndim()
        ))),
        Value::Array(v) | Value::Sequence(v) => assign(
            &view(v, &for_assignment(&Layout::of(v), target.shape())?, 0)?,
            &target,
        ),
    }
}

/// `a[mask] = value` with one value and a mask over leading axes: a masked fill, with no
/// compaction. Returns whether it applied.
fn masked_fill(a: &Array, index: &[Index], value: &Value) -> Result<bool> {
    let [Index::Array(m)] = index else {
        return Ok(false);
    };
    let scalar_value = value.array().is_none_or(|v| v.ndim() == 0);
    let leading = a.shape().get(..m.ndim()).unwrap_or(&[]);
    if m.dtype() != DType::Bool || m.ndim() == 0 || m.shape() != leading || !scalar_value {
        return Ok(false);
    }
    let mut shape = Dims::from_slice(m.shape());
    shape.extend(std::iter::repeat_n(1, a.ndim() - m.ndim()));
    let mut strides = crate::array::Strides::from_slice(m.strides());
    strides.extend(std::iter::repeat_n(0, a.ndim() - m.ndim()));
    let mask = m.view(&shape, &strides, m.offset(), DType::Bool)?;
    let v = value_array(a, value)?;
    let args = vec![
        UserArg::Array(mask),
        UserArg::Array(as_bits(&v)?),
        UserArg::Array(as_bits(a)?),
    ];
    masked_fill_kernel()?.call(a.device(), args, None)?;
    Ok(true)
}

/// `a[index] = value` for an advanced index: a scatter through element offsets.
fn scatter(a: &Array, resolved: &Resolved, value: &Value) -> Result<()> {
    let plan = advanced::plan(&Layout::of(a), &resolved.items)?;
    let Some(offsets) = offsets(a, &plan, resolved)? else {
        return Err(Error::Index(
            "assignment through an advanced index needs strides in whole elements".into(),
        ));
    };
    let buffer = buffer_of(a)?.ok_or_else(|| {
        Error::Index("assignment through an advanced index needs a buffer of whole elements".into())
    })?;
    let v = value_array(a, value)?;
    let layout = for_assignment(&Layout::of(&v), &plan.shape).map_err(|_| {
        Error::Value(format!(
            "shape mismatch: value array of shape {} could not be broadcast to indexing result of shape {}",
            crate::shape::dims_text(v.shape()),
            crate::shape::dims_text(&plan.shape)
        ))
    })?;
    let v = view(&v, &layout, 0)?;
    if v.size() == 0 {
        return Ok(());
    }
    let mut args: Vec<UserArg> = offset_args(offsets).into();
    args.push(UserArg::Array(as_bits(&v)?));
    args.push(UserArg::Array(buffer));
    scatter_kernel()?.call(a.device(), args, None)?;
    Ok(())
}

/// NumPy's rules for `a[mask] = value` with a mask of `a`'s whole shape.
fn check_mask_value(mask: &Array, value: &Value) -> Result<()> {
    let Some(v) = value.array() else {
        return Ok(());
    };
    if v.ndim() > 1 {
        return Err(Error::Value(format!(
            "NumPy boolean array indexing assignment requires a 0 or 1-dimensional input, input has {} dimensions",
            v.ndim()
        )));
    }
    if v.size() != 1 {
        let count = compact(mask, None)?.size();
        if v.size() != count {
            return Err(Error::Value(format!(
                "NumPy boolean array indexing assignment cannot assign {} input values to the {count} output values where the mask is true",
                v.size()
            )));
        }
    }
    Ok(())
}

/// `take(a, indices, axis)`: elements of `a` (flattened when `axis` is None) at `indices`.
pub fn take(a: &Array, indices: Index, axis: Option<i64>) -> Result<Array> {
    match axis {
        None => getitem(&ravel(a, Order::C)?, &[indices]),
        Some(axis) => {
            let axis = normalize_axis(axis, a.ndim(), None)?;
            let mut index = vec![Index::Slice(Slice::full()); axis];
            index.push(indices);
            getitem(a, &index)
        }
    }
}
