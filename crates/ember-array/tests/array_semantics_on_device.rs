//! Array semantics that move data, from Rust alone on the default device: reshape copies,
//! joins, advanced indexing and `where`. Expected values are computed here from the index
//! arithmetic of a C-ordered array (the Python tests compare the same operations with NumPy).

mod common;

use common::{download, upload};

use ember_array::index::gather::{getitem, nonzero, setitem, Index, Value};
use ember_array::index::Slice;
use ember_array::result_type::Casting;
use ember_array::select::{where_, Choice};
use ember_array::shape::{join, reshape, Order};
use ember_array::ufunc::resolve::OperandType;
use ember_core::dtype::Kind;
use ember_core::{DType, Scalar};

/// Values of a (2, 3, 4) C array: a[i, j, k] = 100 i + 10 j + k.
fn cube() -> Vec<i32> {
    (0..2)
        .flat_map(|i| (0..3).flat_map(move |j| (0..4).map(move |k| 100 * i + 10 * j + k)))
        .collect()
}

#[test]
fn reshape_copies_where_no_view_can() {
    let Some(dev) = common::device("semantics") else {
        return;
    };
    let a = upload(dev, &cube(), &[2, 3, 4], DType::I32);
    // The transpose (4, 3, 2) read in C order, then reshaped to (4, 6): a copy.
    let t = a.view(&[4, 3, 2], &[4, 16, 48], 0, DType::I32).unwrap();
    let r = reshape::reshape(&t, &[4, -1], Order::C, None).unwrap();
    assert_eq!(r.shape(), &[4, 6]);
    let want: Vec<i32> = (0..4)
        .flat_map(|k| (0..3).flat_map(move |j| (0..2).map(move |i| 100 * i + 10 * j + k)))
        .collect();
    assert_eq!(download::<i32>(&r), want);
    // In Fortran order the same transpose is a view.
    let f = reshape::reshape(&t, &[24], Order::F, Some(false)).unwrap();
    assert!(std::sync::Arc::ptr_eq(f.buffer(), a.buffer()));
    assert_eq!(download::<i32>(&f), cube());
}

#[test]
fn concatenate_promotes_and_places_each_input() {
    let Some(dev) = common::device("semantics") else {
        return;
    };
    let x = upload(dev, &[1i8, -2, 3, -4], &[2, 2], DType::I8);
    let y = upload(dev, &[200u8, 201], &[2, 1], DType::U8);
    let c = join::concatenate(&[x.clone(), y], Some(-1), None, None, Casting::SameKind).unwrap();
    assert_eq!((c.shape(), c.dtype()), (&[2usize, 3][..], DType::I16));
    assert_eq!(download::<i16>(&c), vec![1, -2, 200, 3, -4, 201]);
    let s = join::stack(&[x.clone(), x], 2, None, None, Casting::SameKind).unwrap();
    assert_eq!(s.shape(), &[2, 2, 2]);
    assert_eq!(download::<i8>(&s), vec![1, 1, -2, -2, 3, 3, -4, -4]);
}

#[test]
fn advanced_indexing_gathers_and_scatters() {
    let Some(dev) = common::device("semantics") else {
        return;
    };
    let a = upload(dev, &cube(), &[2, 3, 4], DType::I32);
    let rows = upload(dev, &[1i64, 0, -1], &[3], DType::I64);
    let cols = upload(dev, &[3i64, 0, 2], &[3], DType::I64);
    // a[rows, :, cols]: separated by a slice, so the index axis goes first: shape (3, 3).
    let full = Index::Slice(Slice::full());
    let g = getitem(
        &a,
        &[
            Index::Array(rows.clone()),
            full.clone(),
            Index::Array(cols.clone()),
        ],
    )
    .unwrap();
    assert_eq!(g.shape(), &[3, 3]);
    let want: Vec<i32> = [(1, 3), (0, 0), (1, 2)]
        .iter()
        .flat_map(|&(i, k)| (0..3).map(move |j| 100 * i + 10 * j + k))
        .collect();
    assert_eq!(download::<i32>(&g), want);
    // a[:, [1, 0, -1], ::2]: in place.
    let mid = upload(dev, &[1i64, 0, -1], &[3], DType::I64);
    let step = Index::Slice(Slice::new(None, None, Some(2)).unwrap());
    let g = getitem(&a, &[full.clone(), Index::Array(mid), step]).unwrap();
    assert_eq!(g.shape(), &[2, 3, 2]);
    let want: Vec<i32> = (0..2)
        .flat_map(|i| {
            [1, 0, 2]
                .into_iter()
                .flat_map(move |j| [0, 2].into_iter().map(move |k| 100 * i + 10 * j + k))
        })
        .collect();
    assert_eq!(download::<i32>(&g), want);
    // Out of range values are NumPy's IndexError.
    let bad = upload(dev, &[0i64, 4], &[2], DType::I64);
    let err = getitem(&a, &[Index::Int(0), Index::Int(0), Index::Array(bad)]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "index 4 is out of bounds for axis 2 with size 4"
    );
    // a[rows, 0, cols] = -1.
    setitem(
        &a,
        &[Index::Array(rows), Index::Int(0), Index::Array(cols)],
        &Value::Scalar(Scalar::Int(-1)),
    )
    .unwrap();
    let mut want = cube();
    for (i, k) in [(1, 3), (0, 0), (1, 2)] {
        want[i * 12 + k] = -1;
    }
    assert_eq!(download::<i32>(&a), want);
}

#[test]
fn masks_select_in_c_order() {
    let Some(dev) = common::device("semantics") else {
        return;
    };
    let a = upload(dev, &cube(), &[2, 3, 4], DType::I32);
    let bits: Vec<u8> = (0..6).map(|i| (i % 3 != 1) as u8).collect();
    let mask = upload(dev, &bits, &[2, 3], DType::Bool);
    let parts = nonzero(&mask).unwrap();
    assert_eq!(download::<i64>(&parts[0]), vec![0, 0, 1, 1]);
    assert_eq!(download::<i64>(&parts[1]), vec![0, 2, 0, 2]);
    let g = getitem(&a, &[Index::Array(mask)]).unwrap();
    assert_eq!(g.shape(), &[4, 4]);
    let want: Vec<i32> = [(0, 0), (0, 2), (1, 0), (1, 2)]
        .iter()
        .flat_map(|&(i, j)| (0..4).map(move |k| 100 * i + 10 * j + k))
        .collect();
    assert_eq!(download::<i32>(&g), want);
}

#[test]
fn where_promotes_like_numpy_and_refuses_weak_ints_out_of_range() {
    let Some(dev) = common::device("semantics") else {
        return;
    };
    let c = upload(dev, &[1u8, 0, 1, 0], &[4], DType::Bool);
    let x = upload(dev, &[1i8, 2, 3, 4], &[4], DType::I8);
    let weak = |v: i64| Choice::Scalar(Scalar::Int(v), OperandType::Weak(Kind::Int));
    // int8 with a weak -7: int8.
    let w = where_(&c, &Choice::Array(x.clone()), &weak(-7)).unwrap();
    assert_eq!(w.dtype(), DType::I8);
    assert_eq!(download::<i8>(&w), vec![1, -7, 3, -7]);
    // A weak 300 does not fit int8: NumPy 2.5's OverflowError, as a ufunc gives.
    let err = where_(&c, &Choice::Array(x.clone()), &weak(300)).unwrap_err();
    assert_eq!(err.to_string(), "Python integer 300 out of bounds for int8");
    // A (2, 1) condition broadcast against (4,): shape (2, 4), float64 from a weak float.
    let c2 = upload(dev, &[0.0f32, 2.5], &[2, 1], DType::F32);
    let w = where_(
        &c2,
        &Choice::Scalar(Scalar::Float(0.5), OperandType::Weak(Kind::Float)),
        &Choice::Array(x),
    )
    .unwrap();
    assert_eq!((w.shape(), w.dtype()), (&[2usize, 4][..], DType::F64));
    assert_eq!(
        download::<f64>(&w),
        vec![1.0, 2.0, 3.0, 4.0, 0.5, 0.5, 0.5, 0.5]
    );
}
