//! `linalg::matmul_into` on the default device against a host product in float64: products
//! into strided blocks of larger stacks, transposed and conjugated operands, `C -= A B` and
//! `C = A B`, triangles, every float and complex dtype, sizes that leave partial tiles.

mod common;

use ember_array::linalg::{matmul_into, Triangle, Update};
use ember_array::Array;
use ember_core::DType;

/// A stack of `shape` holding `values` (complex as pairs).
fn upload(
    dev: &'static ember_runtime::Device,
    values: &[f64],
    shape: &[usize],
    dtype: DType,
) -> Array {
    let bytes: Vec<u8> = match dtype {
        DType::F32 | DType::C64 => values
            .iter()
            .flat_map(|&v| (v as f32).to_le_bytes())
            .collect(),
        _ => values.iter().flat_map(|&v| v.to_le_bytes()).collect(),
    };
    let a = Array::empty(dev, shape, dtype).unwrap();
    a.set_from_host(&bytes).unwrap();
    a
}

fn download(a: &Array) -> Vec<f64> {
    match a.dtype() {
        DType::F32 | DType::C64 => common::download::<f32>(&a.reshape_flat())
            .iter()
            .map(|&v| v as f64)
            .collect(),
        _ => common::download::<f64>(&a.reshape_flat()),
    }
}

trait Flat {
    fn reshape_flat(&self) -> Array;
}

impl Flat for Array {
    /// The same bytes as a 1-d array of real components.
    fn reshape_flat(&self) -> Array {
        let part = if self.dtype() == DType::C64 {
            DType::F32
        } else if self.dtype() == DType::C128 {
            DType::F64
        } else {
            self.dtype()
        };
        let n = self.nbytes() / part.itemsize();
        self.view(&[n], &[part.itemsize() as isize], self.offset(), part)
            .unwrap()
    }
}

/// A deterministic, non-trivial sequence.
fn values(count: usize, seed: u64) -> Vec<f64> {
    let mut x = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..count)
        .map(|_| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((x >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
        })
        .collect()
}

#[test]
fn products_subtract_into_strided_blocks() {
    let Some(dev) = common::device("matmul-into") else {
        return;
    };
    let (batch, rows, cols) = (2, 90, 80);
    for dtype in [DType::F32, DType::F64, DType::C64, DType::C128] {
        let comps = if dtype.is_complex() { 2 } else { 1 };
        let tol = if matches!(dtype, DType::F32 | DType::C64) {
            1e-4
        } else {
            1e-12
        };
        for (m, n, k) in [(21, 19, 13), (70, 65, 40), (1, 9, 3), (67, 1, 5), (5, 4, 0)] {
            for (subtract, conj, triangle) in [
                (true, false, Triangle::All),
                (false, dtype.is_complex(), Triangle::All),
                (true, dtype.is_complex(), Triangle::Lower(2)),
                (true, false, Triangle::Upper(-3)),
            ] {
                let (r0, c0) = (4, 7);
                let c_host = values(batch * rows * cols * comps, 1);
                let c = upload(dev, &c_host, &[batch, rows, cols], dtype);
                let item = dtype.itemsize() as isize;
                let block = c
                    .view(
                        &[batch, m, n],
                        &[(rows * cols) as isize * item, cols as isize * item, item],
                        (r0 * cols + c0) * dtype.itemsize(),
                        dtype,
                    )
                    .unwrap();
                // A stored transposed (k x m per matrix), B as it is.
                let a_host = values(batch * k * m * comps, 2);
                let at = upload(dev, &a_host, &[batch, k, m], dtype);
                let a = at
                    .view(
                        &[batch, m, k],
                        &[(k * m) as isize * item, item, m as isize * item],
                        0,
                        dtype,
                    )
                    .unwrap();
                let b_host = values(batch * k * n * comps, 3);
                let b = upload(dev, &b_host, &[batch, k, n], dtype);
                let update = Update {
                    conj_a: conj,
                    subtract,
                    triangle,
                };
                matmul_into(&a, &b, &block, update).unwrap();
                let got = download(&c);
                let at_ = |v: &[f64], idx: usize| -> (f64, f64) {
                    if comps == 2 {
                        (v[2 * idx], v[2 * idx + 1])
                    } else {
                        (v[idx], 0.0)
                    }
                };
                for p in 0..batch {
                    for i in 0..rows {
                        for j in 0..cols {
                            let idx = (p * rows + i) * cols + j;
                            let mut want = at_(&c_host, idx);
                            let (bi, bj) = (i as isize - r0 as isize, j as isize - c0 as isize);
                            let inside =
                                bi >= 0 && bj >= 0 && (bi as usize) < m && (bj as usize) < n;
                            let kept = match triangle {
                                Triangle::All => true,
                                Triangle::Lower(s) => bi - bj + s >= 0,
                                Triangle::Upper(s) => bi - bj + s <= 0,
                            };
                            if inside && kept {
                                let (bi, bj) = (bi as usize, bj as usize);
                                let (mut sr, mut si) = (0.0, 0.0);
                                for r in 0..k {
                                    let (ar, mut ai) = at_(&a_host, (p * k + r) * m + bi);
                                    if conj {
                                        ai = -ai;
                                    }
                                    let (br, bim) = at_(&b_host, (p * k + r) * n + bj);
                                    sr += ar * br - ai * bim;
                                    si += ar * bim + ai * br;
                                }
                                want = if subtract {
                                    (want.0 - sr, want.1 - si)
                                } else {
                                    (sr, si)
                                };
                            }
                            let have = at_(&got, idx);
                            let err = (have.0 - want.0).abs() + (have.1 - want.1).abs();
                            assert!(
                                err <= tol * (1.0 + k as f64),
                                "{dtype} m={m} n={n} k={k} {update:?}: element ({p}, {i}, {j}) is {have:?}, want {want:?}"
                            );
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn bad_operands_are_refused_with_clear_errors() {
    let Some(dev) = common::device("matmul-into-errors") else {
        return;
    };
    let a = Array::empty(dev, &[1, 3, 4], DType::F32).unwrap();
    let b = Array::empty(dev, &[1, 5, 2], DType::F32).unwrap();
    let c = Array::empty(dev, &[1, 3, 2], DType::F32).unwrap();
    let e = matmul_into(&a, &b, &c, Update::default()).unwrap_err();
    assert!(e.to_string().contains("do not make a product"), "{e}");
    let i = Array::empty(dev, &[1, 4, 2], DType::I32).unwrap();
    let e = matmul_into(&a, &i, &c, Update::default()).unwrap_err();
    assert!(e.to_string().contains("one float or complex dtype"), "{e}");
}
