//! Numba's xoroshiro128+ draws (`ember_codegen::xoroshiro`) on the default device from states
//! made on the host (`ember_array::xoroshiro`), against values Numba computed; and the CUDA
//! version through NVRTC.

mod common;

use common::{download, upload};

use ember_array::xoroshiro::{splitmix64, xoroshiro128p_states};
use ember_array::Array;
use ember_codegen::types::storage_type;
use ember_codegen::xoroshiro::{state_pointer_type, xoroshiro_prelude};
use ember_codegen::Dialect;
use ember_core::DType;
use ember_runtime::{current_stream, BackendKind, Device, KernelArg};

// Reference values from Numba 0.68.1 (numba.cuda.random's functions, which are also CPU
// functions): states = create_xoroshiro128p_states(4, seed=1234); for each state i, three
// rounds of xoroshiro128p_next, xoroshiro128p_uniform_float32, _uniform_float64,
// _normal_float32 and _normal_float64, outputs at [3 * i + round]. Floats as their bits.

const NUMBA_NEXT: [u64; 12] = [
    0x7619ec365e3039b6,
    0x114cf95720f1939d,
    0x170fe4893aba0eb3,
    0xbf195123922bb965,
    0x5c1d2c662383debb,
    0xf6229b2995e61f6d,
    0x1d7031d766da21c4,
    0x71e86296e2043e23,
    0x20ccf7d0bfdf9139,
    0x0e0055d6993fbe9f,
    0xe3cb29551c242deb,
    0xd563b583944784e2,
];
const NUMBA_UNIFORM_F32: [u32; 12] = [
    0x3edbbb0d, 0x3f188efe, 0x3ea704de, 0x3f684659, 0x3dcfa60c, 0x3f551281, 0x3f2b01bd, 0x3eecd0a7,
    0x3f12819e, 0x3f01f2b6, 0x3eb9dd98, 0x3f6d207c,
];
const NUMBA_UNIFORM_F64: [u64; 12] = [
    0x3fec9dcd98961d65,
    0x3feaddbac4d77b94,
    0x3fcb92c1ebde4c74,
    0x3fe89d5945596415,
    0x3fc9a1cf7661bcd0,
    0x3fe27c786c0d3da8,
    0x3fece7d754e9525b,
    0x3fde29959f45c0f4,
    0x3feb398bec5daef3,
    0x3fb50f055ecdec98,
    0x3fcb56fabbb9ff7c,
    0x3fefa643a9923330,
];
const NUMBA_NORMAL_F32: [u32; 12] = [
    0xbf9bd63d, 0xbf5a22ad, 0xbfd0c475, 0xbf58cc9c, 0xbf186e7b, 0x3f8a6e04, 0x3f812352, 0x3ea82c95,
    0xbf3f0264, 0xbf6509a8, 0x3f34ca99, 0x3f1a739b,
];
const NUMBA_NORMAL_F64: [u64; 12] = [
    0x3fdf6d52aab2e40d,
    0xbfea5f87d278341b,
    0xbfeaed30c54a191a,
    0xbff8d6643cc08b1c,
    0xbfdc9b8cd5a77273,
    0x3fcaf667b2756116,
    0x3fe0974f80659586,
    0x3fe8c6fb77d69e38,
    0xbff44571ca4b7dfd,
    0x3fd8a108b3823fa7,
    0x3ff52b464bd4057b,
    0xbfd1ed122d869503,
];
/// The states after those draws.
const NUMBA_FINAL_STATES: [u64; 8] = [
    0xf4383db90beeff1a,
    0xb16b2fa1c4b9abe3,
    0x5e0f975d2db63c8d,
    0xf4f0dd69c3ed55d1,
    0xe17b31698cdb7ad4,
    0xe7b0dad740437352,
    0xc2c6188191aaefdd,
    0xbf25c564a8c6a3e5,
];

fn dialect_of(dev: &Device) -> Dialect {
    match dev.kind() {
        BackendKind::Cuda => Dialect::Cuda,
        BackendKind::OpenCl => Dialect::OpenCl,
    }
}

/// How a hand-written kernel receives an array (OpenCL: the bare buffer; these arrays start
/// at offset 0).
fn arg(dev: &Device, a: &Array) -> KernelArg<'static> {
    match dev.kind() {
        BackendKind::Cuda => a.kernel_arg(),
        BackendKind::OpenCl => KernelArg::Memory(a.buffer().handle().unwrap()),
    }
}

/// A kernel: thread `i` runs `rounds` rounds of the five draws on state `i`.
fn draws_source(dialect: Dialect) -> String {
    let t = dialect.table();
    let (g, st) = (t.global, state_pointer_type(dialect));
    let u64t = storage_type(DType::U64, dialect);
    format!(
        "{prelude}
{kernel} xoroshiro_draws({g}{u64t}* states, {g}{u64t}* next, {g}float* uf, {g}double* ud,
                         {g}float* nf, {g}double* nd, int rounds) {{
  const {i64} i = {id};
  {st} s = states + 2 * i;
  for (int k = 0; k < rounds; k++) {{
    const {i64} j = i * rounds + k;
    next[j] = ember_xoroshiro128p_next(s);
    uf[j] = ember_xoroshiro128p_uniform_float32(s);
    ud[j] = ember_xoroshiro128p_uniform_float64(s);
    nf[j] = ember_xoroshiro128p_normal_float32(s);
    nd[j] = ember_xoroshiro128p_normal_float64(s);
  }}
}}
",
        prelude = xoroshiro_prelude(dialect),
        kernel = t.kernel_prefix,
        i64 = t.int64,
        id = t.global_id,
    )
}

/// Compiles and runs [`draws_source`] over `states` (n x 2 uint64), `rounds` rounds.
fn run_draws(dev: &'static Device, states: &Array, rounds: usize) -> [Array; 5] {
    let n = states.shape()[0];
    let module = dev
        .module(&draws_source(dialect_of(dev)), "xoroshiro_draws", &[])
        .unwrap();
    let function = module.function("xoroshiro_draws").unwrap();
    let m = n * rounds;
    let outs = [DType::U64, DType::F32, DType::F64, DType::F32, DType::F64]
        .map(|d| Array::empty(dev, &[m], d).unwrap());
    let rounds32 = (rounds as i32).to_le_bytes();
    let mut args = vec![arg(dev, states)];
    args.extend(outs.iter().map(|a| arg(dev, a)));
    args.push(KernelArg::Bytes(&rounds32));
    dev.launch(
        &function,
        [n as u32, 1, 1],
        [1, 1, 1],
        0,
        current_stream(dev),
        &args,
    )
    .unwrap();
    outs
}

fn assert_close(name: &str, got: &[f64], want: &[f64], tol: f64) {
    for (j, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= tol * w.abs().max(1.0),
            "{name}[{j}]: {g} on the device, {w} from Numba"
        );
    }
}

#[test]
fn draws_on_the_device_match_numba() {
    let Some(dev) = common::device("xoroshiro") else {
        return;
    };
    let states = upload(dev, &xoroshiro128p_states(4, 1234, 0), &[4, 2], DType::U64);
    let [next, uf, ud, nf, nd] = run_draws(dev, &states, 3);

    assert_eq!(download::<u64>(&next), NUMBA_NEXT);
    let uf: Vec<u32> = download::<f32>(&uf).iter().map(|x| x.to_bits()).collect();
    assert_eq!(uf, NUMBA_UNIFORM_F32, "uniform float32");
    let ud: Vec<u64> = download::<f64>(&ud).iter().map(|x| x.to_bits()).collect();
    assert_eq!(ud, NUMBA_UNIFORM_F64, "uniform float64");
    assert_eq!(download::<u64>(&states), NUMBA_FINAL_STATES);

    // Normals go through the device's log, sqrt and cos: a few ulp from Numba's.
    let nf: Vec<f64> = download::<f32>(&nf).iter().map(|&x| x.into()).collect();
    let want: Vec<f64> = NUMBA_NORMAL_F32
        .iter()
        .map(|&b| f32::from_bits(b).into())
        .collect();
    assert_close("normal float32", &nf, &want, 4e-6);
    let want: Vec<f64> = NUMBA_NORMAL_F64
        .iter()
        .map(|&b| f64::from_bits(b))
        .collect();
    assert_close("normal float64", &download::<f64>(&nd), &want, 4e-6);
}

/// Numba's unit floats, from its definition: `(x >> 11) * 2^-53`, and that rounded to float32.
fn numba_unit_floats(x: u64) -> (f32, f64) {
    let d = (x >> 11) as f64 * 2f64.powi(-53);
    (d as f32, d)
}

#[test]
fn unit_float_conversion_is_numbas() {
    let Some(dev) = common::device("xoroshiro") else {
        return;
    };
    // A state (x, 0) draws x first. Edge cases: the largest x (whose float32 rounds up to
    // exactly 1.0, as Numba's does), float32 rounding ties to even both ways, tiny values;
    // then a spread of arbitrary words.
    let tie = |m: u64| m << 11;
    let mut xs: Vec<u64> = vec![
        0,
        1 << 11,
        u64::MAX,
        u64::MAX - (1 << 40),
        tie((1 << 52) | (1 << 28)),
        tie((1 << 52) | (1 << 29) | (1 << 28)),
        tie((1 << 52) | (1 << 28) | 1),
        tie((1 << 30) | (1 << 5)),
        tie((1 << 30) | (3 << 5)),
        0x8000_0000_0000_0000,
    ];
    xs.extend((1..=1000).map(splitmix64));
    let n = xs.len();
    let host: Vec<u64> = xs.iter().flat_map(|&x| [x, 0]).collect();
    let states = upload(dev, &host, &[n, 2], DType::U64);
    let dialect = dialect_of(dev);
    let module = dev
        .module(&first_draw_source(dialect), "xoroshiro_first", &[])
        .unwrap();
    let function = module.function("xoroshiro_first").unwrap();
    let f32_out = Array::empty(dev, &[n], DType::F32).unwrap();
    let f64_out = Array::empty(dev, &[n], DType::F64).unwrap();
    let args = [arg(dev, &states), arg(dev, &f32_out), arg(dev, &f64_out)];
    dev.launch(
        &function,
        [n as u32, 1, 1],
        [1, 1, 1],
        0,
        current_stream(dev),
        &args,
    )
    .unwrap();
    let (got32, got64) = (download::<f32>(&f32_out), download::<f64>(&f64_out));
    for (j, &x) in xs.iter().enumerate() {
        let (w32, w64) = numba_unit_floats(x);
        assert_eq!(got32[j].to_bits(), w32.to_bits(), "float32 of x = {x:#x}");
        assert_eq!(got64[j].to_bits(), w64.to_bits(), "float64 of x = {x:#x}");
    }
    assert_eq!(
        got32[2], 1.0,
        "Numba's float32 uniform of the largest word is 1.0"
    );
}

/// A kernel: thread `i` draws one uniform float32 from state `i`, puts the state back, and
/// draws one uniform float64, so both convert the same word.
fn first_draw_source(dialect: Dialect) -> String {
    let t = dialect.table();
    let (g, st) = (t.global, state_pointer_type(dialect));
    format!(
        "{prelude}
{kernel} xoroshiro_first({st} states, {g}float* f, {g}double* d) {{
  const {i64} i = {id};
  {st} s = states + 2 * i;
  const {u64} s0 = s[0], s1 = s[1];
  f[i] = ember_xoroshiro128p_uniform_float32(s);
  s[0] = s0; s[1] = s1;
  d[i] = ember_xoroshiro128p_uniform_float64(s);
}}
",
        prelude = xoroshiro_prelude(dialect),
        kernel = t.kernel_prefix,
        i64 = t.int64,
        id = t.global_id,
        u64 = storage_type(DType::U64, dialect),
    )
}

#[test]
fn cuda_version_compiles_through_nvrtc() {
    if !common::nvrtc_here() {
        return;
    }
    common::compile_cuda(&draws_source(Dialect::Cuda), "xoroshiro_draws");
    common::compile_cuda(&xoroshiro_prelude(Dialect::Cuda), "xoroshiro_prelude");
}
