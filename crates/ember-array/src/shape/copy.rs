//! Copies in a memory order, and assignment between any two layouts: the strided casting
//! copy kernel given the fewest axes that describe both operands (it is compiled per number
//! of axes, so a transposed or sliced copy of a 4-d array often needs a 1-d or 2-d kernel,
//! or a plain memcpy), safe when source and destination overlap, as NumPy's assignment is.

use ember_core::shape::{collapse_axes, extent};
use ember_core::{Result, Scalar};

use super::{Layout, Order};
use crate::array::{Array, Strides};

/// Byte strides of a contiguous array of `shape` in `order` (F, else C); a zero-length axis
/// counts as length 1, as in NumPy.
pub fn contiguous_strides(shape: &[usize], itemsize: usize, order: Order) -> Strides {
    let mut strides = Strides::from_elem(0, shape.len());
    let mut step = itemsize as isize;
    let mut place = |i: usize| {
        strides[i] = step;
        step *= shape[i].max(1) as isize;
    };
    if order == Order::F {
        (0..shape.len()).for_each(&mut place);
    } else {
        (0..shape.len()).rev().for_each(&mut place);
    }
    strides
}

/// Byte strides of a new array laid out like `layout` (NumPy's 'K'): the axes keep their
/// order of decreasing |stride| (ties in axis order), every stride positive.
pub fn keep_order_strides(layout: &Layout, itemsize: usize) -> Strides {
    let mut perm: Vec<usize> = (0..layout.shape.len()).collect();
    perm.sort_by_key(|&i| std::cmp::Reverse(layout.strides[i].unsigned_abs()));
    let permuted: Vec<usize> = perm.iter().map(|&i| layout.shape[i]).collect();
    let packed = contiguous_strides(&permuted, itemsize, Order::C);
    let mut strides = Strides::from_elem(0, perm.len());
    for (j, &i) in perm.iter().enumerate() {
        strides[i] = packed[j];
    }
    strides
}

/// The order, slowest first, in which NumPy's iterator reads `layout`'s axes for order 'K'
/// (what `ravel`/`flatten` return): by decreasing |stride|, except that a stride of 0 (a
/// broadcast or length-1 axis) decides nothing, so such axes stay where C order has them.
pub fn keep_order_axes(layout: &Layout) -> Vec<usize> {
    let n = layout.shape.len();
    let stride = |k: usize| match layout.shape[k] {
        1 => 0,
        _ => layout.strides[k].unsigned_abs(),
    };
    // Fastest first, as the iterator sorts them: each axis moves towards the fast end past
    // every axis with a larger stride, looking through ambiguous ones.
    let mut perm: Vec<usize> = (0..n).rev().collect();
    for i0 in 1..n {
        let s0 = stride(perm[i0]);
        let mut pos = i0;
        for i1 in (0..i0).rev() {
            let s1 = stride(perm[i1]);
            if s0 == 0 || s1 == 0 {
                continue;
            }
            if s1 <= s0 {
                break;
            }
            pos = i1;
        }
        let axis = perm.remove(i0);
        perm.insert(pos, axis);
    }
    perm.reverse();
    perm
}

/// A new array of `a`'s shape, dtype and device laid out in `order` (C, F, or 'K' like `a`;
/// 'A' is resolved against `a`), uninitialised.
pub fn empty_in_order(a: &Array, order: Order) -> Result<Array> {
    let itemsize = a.dtype().itemsize();
    let strides = match order.for_array(a) {
        Order::K if a.is_c_contiguous() => contiguous_strides(a.shape(), itemsize, Order::C),
        Order::K if a.is_f_contiguous() => contiguous_strides(a.shape(), itemsize, Order::F),
        Order::K => keep_order_strides(&Layout::of(a), itemsize),
        other => contiguous_strides(a.shape(), itemsize, other),
    };
    // A copy with no elements has zero strides, as every new empty array (NumPy 2.4).
    let strides = if a.size() == 0 {
        Strides::from_elem(0, a.ndim())
    } else {
        strides
    };
    let block = Array::empty(a.device(), &[a.size()], a.dtype())?;
    block.view(a.shape(), &strides, 0, a.dtype())
}

/// A copy of `a` on the device laid out in `order`.
pub fn copy_in_order(a: &Array, order: Order) -> Result<Array> {
    let out = empty_in_order(a, order)?;
    assign(a, &out)?;
    Ok(out)
}

/// The bytes `[lo, hi)` of its buffer that a non-empty array touches.
fn byte_range(a: &Array) -> (isize, isize) {
    let (lo, hi) = extent(a.shape(), a.strides(), a.dtype().itemsize());
    (a.offset() as isize + lo, a.offset() as isize + hi)
}

/// Writes `src`'s elements, converted, into `dst` of the same shape, on the device.
pub fn assign(src: &Array, dst: &Array) -> Result<()> {
    if src.size() == 0 && src.shape() == dst.shape() {
        return Ok(());
    }
    let staged;
    let mut src = src;
    if std::sync::Arc::ptr_eq(src.buffer(), dst.buffer()) {
        if src.is_same_view(dst) {
            return Ok(()); // a[...] = a
        }
        let ((s_lo, s_hi), (d_lo, d_hi)) = (byte_range(src), byte_range(dst));
        if s_lo < d_hi && d_lo < s_hi {
            // Threads would read elements that others already overwrote: stage the source.
            staged = src.copy()?;
            src = &staged;
        }
    }
    if src.shape() != dst.shape() {
        return src.copy_into(dst); // its error names both shapes
    }
    let (shape, strides) = collapse_axes(
        src.shape(),
        &[src.strides().to_vec(), dst.strides().to_vec()],
    );
    if shape.len() == src.ndim() {
        return src.copy_into(dst);
    }
    let s = src.view(&shape, &strides[0], src.offset(), src.dtype())?;
    let d = dst.view(&shape, &strides[1], dst.offset(), dst.dtype())?;
    s.copy_into(&d)
}

/// Sets every element of `dst` to `value` (converted to its dtype), over the fewest axes.
pub fn fill(dst: &Array, value: Scalar) -> Result<()> {
    if dst.size() == 0 {
        return Ok(());
    }
    let (shape, strides) = collapse_axes(dst.shape(), &[dst.strides().to_vec()]);
    if shape.len() == dst.ndim() {
        return crate::creation::fill(dst, value);
    }
    let flat = dst.view(&shape, &strides[0], dst.offset(), dst.dtype())?;
    crate::creation::fill(&flat, value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contiguous_strides_in_either_order() {
        assert_eq!(
            contiguous_strides(&[2, 3, 4], 4, Order::C).as_slice(),
            &[48, 16, 4]
        );
        assert_eq!(
            contiguous_strides(&[2, 3, 4], 4, Order::F).as_slice(),
            &[4, 8, 24]
        );
        assert_eq!(
            contiguous_strides(&[2, 0, 4], 8, Order::C).as_slice(),
            &[32, 32, 8]
        );
        assert!(contiguous_strides(&[], 8, Order::F).is_empty());
    }

    #[test]
    fn keep_order_reading_leaves_broadcast_axes_in_c_order() {
        // np.ravel(np.broadcast_to(x, (3, 2, 4)), order='K') for x of shape (2, 1) reads in C
        // order; a transpose is read in memory order.
        let broadcast = Layout::new(&[3, 2, 4], &[0, 8, 0]);
        assert_eq!(keep_order_axes(&broadcast), vec![0, 1, 2]);
        let t = Layout::new(&[4, 3, 2], &[8, 32, 96]);
        assert_eq!(keep_order_axes(&t), vec![2, 1, 0]);
        let mixed = Layout::new(&[2, 4, 3], &[24, 0, 8]);
        assert_eq!(keep_order_axes(&mixed), vec![0, 1, 2]);
        // The length-1 axis goes anywhere; axis 2 is read slower than axis 0.
        let f = Layout::new(&[2, 1, 3], &[8, 16, 16]);
        assert_eq!(keep_order_axes(&f), vec![1, 2, 0]);
    }

    #[test]
    fn keep_order_follows_memory_order_with_positive_strides() {
        // NumPy: np.copy(c, order='K').strides for c of shape (4, 2, 3), strides (8, -96, 32).
        let c = Layout::new(&[4, 2, 3], &[8, -96, 32]);
        assert_eq!(keep_order_strides(&c, 8).as_slice(), &[8, 96, 32]);
        let t = Layout::new(&[3, 2], &[8, 24]);
        assert_eq!(keep_order_strides(&t, 8).as_slice(), &[8, 24]);
    }
}
