//! The runtime and array kernels on the default device (PoCL's CPU device in CI), from Rust
//! alone. `make test` sets EMBER_REQUIRE_DEVICE=1 so that a missing device fails the run.

mod common;

use common::{download, upload};

use ember_array::{creation, Array};
use ember_core::{DType, Scalar};

#[test]
fn runtime_and_kernels_on_the_default_device() {
    let Some(dev) = common::device("test") else {
        return;
    };

    // Round trip of a pseudo-random pattern.
    let values: Vec<i32> = (0..1000)
        .map(|i: i32| i.wrapping_mul(7919) ^ 0x5bd1)
        .collect();
    let a = upload(dev, &values, &[25, 40], DType::I32);
    assert_eq!(download::<i32>(&a), values);

    // A transposed view copied and converted by a generated strided kernel.
    let t = a.view(&[40, 25], &[4, 160], 0, DType::I32).unwrap();
    let f = t.astype(DType::F64).unwrap();
    let want: Vec<f64> = (0..40)
        .flat_map(|c| (0..25).map(move |r| (r, c)))
        .map(|(r, c)| values[r * 40 + c] as f64)
        .collect();
    assert_eq!(download::<f64>(&f), want);

    // Fill and arange.
    let full = creation::full(dev, &[7], DType::F32, Scalar::Float(-2.5)).unwrap();
    assert_eq!(download::<f32>(&full), vec![-2.5; 7]);
    let r = creation::arange(dev, Scalar::Int(-3), Scalar::Int(-1), 5, DType::I16).unwrap();
    assert_eq!(download::<i16>(&r), vec![-3, -1, 1, 3, 5]);

    // The same kernel again comes from the in-process cache.
    let before = dev.cache_stats().snapshot();
    let _ = creation::full(dev, &[3], DType::F32, Scalar::Float(1.0)).unwrap();
    let after = dev.cache_stats().snapshot();
    assert_eq!(
        after.2, before.2,
        "no new compile for a kernel already built"
    );

    // The pool hands a freed block back out.
    let used = dev.pool().used_bytes();
    let x = Array::empty(dev, &[300], DType::U8).unwrap();
    let addr = x.buffer().handle().unwrap();
    drop(x);
    let y = Array::empty(dev, &[300], DType::U8).unwrap();
    assert_eq!(y.buffer().handle().unwrap(), addr);
    assert_eq!(dev.pool().used_bytes(), used + 512);

    // Launch checks happen before anything is queued.
    let module = dev.module("__kernel void k(__global int* x) { x[0] = 1; }", "k", &[]);
    if let Ok(m) = module {
        let k = m.function("k").unwrap();
        let err = dev
            .launch(&k, [1, 1, 1], [1 << 20, 1, 1], 0, dev.default_stream(), &[])
            .unwrap_err();
        assert!(err.to_string().contains("more than the"), "{err}");
        let err = dev
            .launch(&k, [0, 1, 1], [1, 1, 1], 0, dev.default_stream(), &[])
            .unwrap_err();
        assert!(err.to_string().contains("at least 1"), "{err}");
    }
}
