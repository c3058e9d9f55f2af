//! The device-side conversions around cuSOLVER, run on whatever device is here (PoCL's CPU
//! device on CI), and their CUDA C compiled through NVRTC: cuSOLVER itself runs only on the
//! GPU machine (`tests/array/test_lapack_cusolver.py`).

use ember_runtime::cuda::nvrtc;
use ember_runtime::Device;

use super::*;

fn device() -> Option<&'static Device> {
    match ember_runtime::device(0) {
        Ok(d) => Some(d),
        Err(e) => {
            eprintln!("no device ({e}); skipping");
            None
        }
    }
}

/// `values` (the parts of complex ones one after the other) into a new array of `dtype`.
fn upload_f64(device: &'static Device, values: &[f64], shape: &[usize], dtype: DType) -> Array {
    let a = Array::empty(device, shape, dtype).unwrap();
    let bytes: Vec<u8> = match dtype {
        DType::F32 | DType::C64 => values
            .iter()
            .flat_map(|&v| (v as f32).to_le_bytes())
            .collect(),
        _ => values.iter().flat_map(|v| v.to_le_bytes()).collect(),
    };
    a.set_from_host(&bytes).unwrap();
    a
}

fn download_f64(a: &Array) -> Vec<f64> {
    let mut bytes = vec![0u8; a.nbytes()];
    a.to_host(&mut bytes).unwrap();
    match a.dtype() {
        DType::F32 | DType::C64 => bytes
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()) as f64)
            .collect(),
        _ => bytes
            .chunks_exact(8)
            .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
            .collect(),
    }
}

fn download_i64(a: &Array) -> Vec<i64> {
    let mut bytes = vec![0u8; a.nbytes()];
    a.to_host(&mut bytes).unwrap();
    bytes
        .chunks_exact(8)
        .map(|c| i64::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// Distinct values: element k is k + 1 (never 0, so a missed write shows).
fn counting(len: usize) -> Vec<f64> {
    (1..=len).map(|k| k as f64).collect()
}

#[test]
fn batched_routines_take_small_stacks_only() {
    assert!(batched(8, 10_000) && batched(32, 2));
    assert!(!batched(33, 100) && !batched(8, 1));
}

#[test]
fn conversion_kernels_compile_for_cuda() {
    if nvrtc::ensure().is_err() {
        eprintln!("NVRTC not found; skipping");
        return;
    }
    let mut specs = vec![
        (conjugate_spec(DType::C64), false),
        (conjugate_spec(DType::C128), false),
    ];
    for dtype in [DType::F32, DType::F64, DType::C64, DType::C128] {
        let real = !dtype.is_complex();
        for lower in [true, false] {
            specs.push((triangle_spec(dtype, lower, Dialect::Cuda), real));
        }
    }
    specs.push((unpack_spec(DType::F32), false));
    specs.push((unpack_spec(DType::F64), false));
    for (spec, vector) in specs {
        let mut layouts = vec![(0, false), (3, false)];
        if vector {
            layouts.push((0, true));
        }
        for (ndim, vector) in layouts {
            let src = spec
                .user_map(
                    Dialect::Cuda,
                    ndim,
                    vector,
                    false,
                    ember_codegen::Cover::GridStride,
                )
                .source(Dialect::Cuda);
            if let Err(e) = nvrtc::compile_cubin(&src, &spec.name, "sm_90", &[]) {
                panic!("{} did not compile: {e}\n{src}", spec.name);
            }
        }
    }
}

#[test]
fn pointers_step_through_the_stack() {
    let Some(device) = device() else { return };
    let a = Array::empty(device, &[5, 3, 3], DType::F64).unwrap();
    let p = download_i64(&pointers(&a, 5, 72).unwrap());
    let base = a.address() as i64;
    assert_eq!(p, (0..5).map(|i| base + 72 * i).collect::<Vec<_>>());
}

#[test]
fn adjoint_conjugates_and_transposes_each_matrix() {
    let Some(device) = device() else { return };
    // Two complex 2 x 3 stacks (batch, c = 2, r = 3): element (b, q, p) = (v, -v - 1).
    let (batch, c, r) = (2, 2, 3);
    let mut values = Vec::new();
    for k in 0..batch * c * r {
        values.extend([k as f64 + 1.0, -(k as f64) - 2.0]);
    }
    let x = upload_f64(device, &values, &[batch, c, r], DType::C128);
    let out = Array::empty(device, &[batch, r, c], DType::C128).unwrap();
    adjoint_into(&x, &out).unwrap();
    let got = download_f64(&out);
    for b in 0..batch {
        for p in 0..r {
            for q in 0..c {
                let src = 2 * ((b * c + q) * r + p);
                let dst = 2 * ((b * r + p) * c + q);
                assert_eq!(got[dst], values[src]);
                assert_eq!(got[dst + 1], -values[src + 1]);
            }
        }
    }
    // Real matrices are transposed only.
    let x = upload_f64(device, &counting(12), &[batch, c, r], DType::F64);
    let out = Array::empty(device, &[batch, r, c], DType::F64).unwrap();
    adjoint_into(&x, &out).unwrap();
    let got = download_f64(&out);
    assert_eq!(&got[..6], &[1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
}

#[test]
fn copy_triangle_keeps_the_other_triangle() {
    let Some(device) = device() else { return };
    let (batch, n) = (3, 5);
    for dtype in [DType::F32, DType::F64, DType::C128] {
        // Parts per element: a complex element's two parts share its position.
        let parts = if dtype.is_complex() { 2 } else { 1 };
        let size = batch * n * n * parts;
        for lower in [true, false] {
            let a = upload_f64(device, &counting(size), &[batch, n, n], dtype);
            let f: Vec<f64> = counting(size).iter().map(|v| -v).collect();
            let factored = upload_f64(device, &f, &[batch, n, n], dtype);
            copy_triangle(&factored, &a, n, lower).unwrap();
            let got = download_f64(&a);
            for (k, &v) in got.iter().enumerate() {
                // Stack element (b, c, r): row r of column c (column-major).
                let e = k / parts;
                let (c, r) = ((e % (n * n)) / n, e % n);
                let from_factor = if lower { r >= c } else { r <= c };
                let expected = if from_factor { f[k] } else { k as f64 + 1.0 };
                assert_eq!(v, expected, "{dtype} element {k}, lower {lower}");
            }
        }
    }
}

#[test]
fn real_eigenvectors_unpack_to_complex_pairs() {
    let Some(device) = device() else { return };
    // One 3 x 3 matrix: eigenvalue 0 real, 1 and 2 a pair (+ then -); columns 1..=3 of the
    // padded stack hold the packed vectors, columns 0 and 4 are spares.
    let n = 3;
    let mut packed = vec![f64::NAN; (n + 2) * n];
    for (j, col) in [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]
        .iter()
        .enumerate()
    {
        packed[(j + 1) * n..(j + 2) * n].copy_from_slice(col);
    }
    let packed = upload_f64(device, &packed, &[1, n + 2, n], DType::F64);
    let w = upload_f64(
        device,
        &[2.0, 0.0, 1.0, 0.5, 1.0, -0.5],
        &[1, n],
        DType::C128,
    );
    let v = Array::empty(device, &[1, n, n], DType::C128).unwrap();
    unpack_real_vectors(&packed, &w, &v, n).unwrap();
    let got = download_f64(&v);
    let expected = [
        [(1.0, 0.0), (2.0, 0.0), (3.0, 0.0)],
        [(4.0, 7.0), (5.0, 8.0), (6.0, 9.0)],
        [(4.0, -7.0), (5.0, -8.0), (6.0, -9.0)],
    ];
    for (j, column) in expected.iter().enumerate() {
        for (r, &(re, im)) in column.iter().enumerate() {
            let k = 2 * (j * n + r);
            assert_eq!((got[k], got[k + 1]), (re, im), "column {j} row {r}");
        }
    }
}

#[test]
fn identity_columns_are_the_identity_s() {
    let Some(device) = device() else { return };
    let q = identity_columns(device, 2, 2, 3, DType::F64).unwrap();
    assert_eq!(
        download_f64(&q),
        [1.0, 0.0, 0.0, 0.0, 1.0, 0.0].repeat(2),
        "two 3 x 2 matrices"
    );
    // A wide one: 2 x 3, its first two columns the identity's, the third zero.
    let wide = identity_columns(device, 1, 3, 2, DType::F64).unwrap();
    assert_eq!(download_f64(&wide), [1.0, 0.0, 0.0, 1.0, 0.0, 0.0]);
    for shape in [[2, 0, 0], [2, 3, 0], [2, 0, 3]] {
        let z = identity_columns(device, shape[0], shape[1], shape[2], DType::C64).unwrap();
        assert_eq!(z.size(), 0);
    }
}
