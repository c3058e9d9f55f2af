//! FFT plans of ember's passes on the default device (PoCL's CPU device in CI), from Rust alone:
//! every count of passes (the last one must land in the output, the others alternate with the
//! work area), an output that is the input, and the layout checks.

mod common;

use common::{download, upload};

use ember_array::fft::{Plan, Rows};
use ember_array::Array;
use ember_core::DType;

/// The DFT of each row of `x` (interleaved re, im), in f64.
fn dft(x: &[f64], n: usize, inverse: bool) -> Vec<f64> {
    let sign = if inverse { 1.0 } else { -1.0 };
    let mut out = vec![0.0; x.len()];
    for (row, chunk) in x.chunks(2 * n).enumerate() {
        for k in 0..n {
            let (mut re, mut im) = (0.0, 0.0);
            for j in 0..n {
                let turn = ((j * k) % n) as f64 / n as f64;
                let (s, c) = (sign * 2.0 * std::f64::consts::PI * turn).sin_cos();
                re += chunk[2 * j] * c - chunk[2 * j + 1] * s;
                im += chunk[2 * j] * s + chunk[2 * j + 1] * c;
            }
            out[row * 2 * n + 2 * k] = re;
            out[row * 2 * n + 2 * k + 1] = im;
        }
    }
    out
}

/// A complex128 array's values, interleaved (re, im).
fn values(a: &Array) -> Vec<f64> {
    download::<[f64; 2]>(a).into_iter().flatten().collect()
}

fn signal(len: usize) -> Vec<f64> {
    (0..len)
        .map(|i| ((i * 7919 + 13) % 1000) as f64 / 500.0 - 1.0)
        .collect()
}

#[test]
fn passes_plans_of_every_pass_count_match_the_dft() {
    let Some(dev) = common::device("test") else {
        return;
    };
    // 1 (no pass), 7 (one), 56 (two), 120 (three: 5 4 3 2 -> 8 5 3), 2 * 3 * 5 * 7 (four).
    for n in [1usize, 7, 56, 120, 210] {
        let rows = 3;
        let x = signal(2 * n * rows);
        let input = upload(dev, &x, &[rows, n], DType::C128);
        let plan = Plan::passes(dev, n, rows, true, Rows::Auto).unwrap();
        let (work, _) = plan.work_area();
        let passes = ember_array::fft::radices(n).unwrap().len();
        assert_eq!(work, if passes >= 2 { rows * n * 16 } else { 0 }, "n = {n}");
        for inverse in [false, true] {
            let out = Array::empty(dev, &[rows, n], DType::C128).unwrap();
            plan.execute(&input, &out, inverse).unwrap();
            let got = values(&out);
            let want = dft(&x, n, inverse);
            let err = got
                .iter()
                .zip(&want)
                .map(|(a, b)| (a - b).abs())
                .fold(0.0, f64::max);
            assert!(
                err < 1e-9 * n as f64,
                "n = {n}, inverse = {inverse}: error {err}"
            );
        }
        assert_eq!(values(&input), x, "the input is left as it was");
        // In place: the output is the input.
        plan.execute(&input, &input, false).unwrap();
        let got = values(&input);
        let want = dft(&x, n, false);
        let err = got
            .iter()
            .zip(&want)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        assert!(err < 1e-9 * n as f64, "in place, n = {n}: error {err}");
    }
}

#[test]
fn plans_refuse_what_does_not_fit_their_layout() {
    let Some(dev) = common::device("test") else {
        return;
    };
    let plan = Plan::passes(dev, 8, 4, false, Rows::Auto).unwrap();
    let small = Array::empty(dev, &[3, 8], DType::C64).unwrap();
    let right = Array::empty(dev, &[4, 8], DType::C64).unwrap();
    let wrong = Array::empty(dev, &[4, 8], DType::C128).unwrap();
    let message = plan.execute(&small, &right, false).unwrap_err().to_string();
    assert!(message.contains("at least 32 elements"), "{message}");
    assert!(plan.execute(&right, &wrong, false).is_err());
    let message = Plan::passes(dev, 11, 1, false, Rows::Auto)
        .err()
        .unwrap()
        .to_string();
    assert!(message.contains("Bluestein"), "{message}");
}
