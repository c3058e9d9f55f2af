//! Moving the elements of an opaque dtype (`DType::Opaque`: datetime64, structured, void).
//! No kernel computes on them, so a copy moves their bytes as unsigned words, through numeric
//! views of the same memory: the widest word that every element's size, first address and
//! stride allow, and one more axis when an element is several words.

use ember_core::{DType, Error, Result};

use crate::array::Array;

/// The widest unsigned word (8, 4, 2 or 1 bytes) that divides the elements' size and every
/// array's first address and strides.
fn word(itemsize: usize, arrays: &[&Array]) -> DType {
    let fits = |bytes: usize| {
        itemsize.is_multiple_of(bytes)
            && arrays.iter().all(|a| {
                a.is_aligned(bytes as u64) && a.strides().iter().all(|s| s % bytes as isize == 0)
            })
    };
    [DType::U64, DType::U32, DType::U16]
        .into_iter()
        .find(|w| fits(w.itemsize()))
        .unwrap_or(DType::U8)
}

/// `a`'s memory as `word`s: the same view, with an axis of each element's words when there
/// are several.
fn as_words(a: &Array, word: DType) -> Result<Array> {
    let per_element = a.dtype().itemsize() / word.itemsize();
    let mut shape = a.shape().to_vec();
    let mut strides = a.strides().to_vec();
    if per_element > 1 {
        shape.push(per_element);
        strides.push(word.itemsize() as isize);
    }
    a.view(&shape, &strides, a.offset(), word)
}

/// Copies `src` into `dst`, both of one opaque dtype and the same shape, word by word.
pub(crate) fn copy_opaque(src: &Array, dst: &Array) -> Result<()> {
    if src.dtype() != dst.dtype() {
        let opaque = if src.dtype().is_opaque() {
            src.dtype()
        } else {
            dst.dtype()
        };
        return Err(Error::Type(format!(
            "cannot convert between {} and {}: ember holds {opaque} arrays but does not convert them; view the array as a numeric dtype of the same size first",
            src.dtype(),
            dst.dtype()
        )));
    }
    let word = word(src.dtype().itemsize(), &[src, dst]);
    as_words(src, word)?.copy_into(&as_words(dst, word)?)
}
