//! Reductions on the default device (PoCL's CPU device in CI), from Rust alone, against sums
//! computed here. `make test` sets EMBER_REQUIRE_DEVICE=1 so that a missing device fails.

mod common;

use common::{download, upload};

use ember_array::reduction::{cumsum, reduce, Reduction};
use ember_array::Array;
use ember_core::DType;

#[test]
fn reductions_on_the_default_device() {
    let Some(dev) = common::device("reductions") else {
        return;
    };
    let (rows, cols) = (30, 50);
    let values: Vec<i32> = (0..rows * cols)
        .map(|i: i32| (i.wrapping_mul(7919) ^ 0x5bd1) % 1000)
        .collect();
    let a = upload(dev, &values, &[rows as usize, cols as usize], DType::I32);
    let at = |r: i32, c: i32| values[(r * cols + c) as usize] as i64;

    // Along the contiguous axis, and across it (int32 sums are int64, as NumPy's).
    let s = reduce(&a, Reduction::Sum, Some(&[1]), None, None, false).unwrap();
    assert_eq!(s.dtype(), DType::I64);
    let want: Vec<i64> = (0..rows)
        .map(|r| (0..cols).map(|c| at(r, c)).sum())
        .collect();
    assert_eq!(download::<i64>(&s), want);
    let s = reduce(&a, Reduction::Sum, Some(&[0]), None, None, true).unwrap();
    assert_eq!(s.shape(), &[1, cols as usize]);
    let want: Vec<i64> = (0..cols)
        .map(|c| (0..rows).map(|r| at(r, c)).sum())
        .collect();
    assert_eq!(download::<i64>(&s), want);

    // The first maximum of the whole array, through a transposed view.
    let t = a.view(
        &[cols as usize, rows as usize],
        &[4, 4 * cols as isize],
        0,
        DType::I32,
    );
    let m = reduce(&t.unwrap(), Reduction::ArgMax, None, None, None, false).unwrap();
    assert_eq!(m.shape(), &[] as &[usize]);
    let flat_t: Vec<i64> = (0..cols)
        .flat_map(|c| (0..rows).map(move |r| (r, c)))
        .map(|(r, c)| at(r, c))
        .collect();
    let best = flat_t.iter().copied().max().unwrap();
    let first = flat_t.iter().position(|&v| v == best).unwrap() as i64;
    assert_eq!(download::<i64>(&m), vec![first]);

    // Mean of integers is float64; a cumulative sum keeps the shape.
    let mean = reduce(&a, Reduction::Mean, None, None, None, false).unwrap();
    let total: i64 = values.iter().map(|&v| v as i64).sum();
    assert_eq!(
        download::<f64>(&mean),
        vec![total as f64 / values.len() as f64]
    );
    let c = cumsum(&a, None, None, None).unwrap();
    let got = download::<i64>(&c);
    assert_eq!(got.last().copied(), Some(total));

    // NumPy's messages.
    let err = reduce(&a, Reduction::Sum, Some(&[2]), None, None, false).unwrap_err();
    assert_eq!(
        err.to_string(),
        "axis 2 is out of bounds for array of dimension 2"
    );
    let empty = Array::empty(dev, &[0, 3], DType::F32).unwrap();
    let err = reduce(&empty, Reduction::Max, None, None, None, false).unwrap_err();
    assert_eq!(
        err.to_string(),
        "zero-size array to reduction operation maximum which has no identity"
    );
}
