//! Arrays made on the device: `full`, `arange`, `linspace`.

use ember_codegen::types::{component, param_dtype, value_type};
use ember_codegen::{Dialect, MapKernel, Operand};
use ember_core::{DType, Result, Scalar};
use ember_runtime::Device;

use crate::array::Array;
use crate::launch::{dialect, run_map};

/// Fills `out` with `value` converted to its dtype.
pub fn fill(out: &Array, value: Scalar) -> Result<()> {
    let dtype = out.dtype();
    let spec = fill_spec(dtype, !out.is_c_contiguous(), out.ndim());
    run_map(
        &spec,
        &[out],
        &[value.to_bytes(param_dtype(dtype))],
        out.shape(),
    )
}

/// The kernel that sets every element of a `dtype` array to a scalar parameter.
pub fn fill_spec(dtype: DType, strided: bool, ndim: usize) -> MapKernel {
    MapKernel {
        name: format!("ember_fill_{}", dtype.name()),
        inputs: vec![],
        outputs: vec![Operand::new("y", dtype, strided)],
        scalars: vec![("v".into(), dtype)],
        ndim: if strided { ndim } else { 0 },
        body: "y = v;".into(),
    }
}

/// A new array of `shape` holding `value`.
pub fn full(
    device: &'static Device,
    shape: &[usize],
    dtype: DType,
    value: Scalar,
) -> Result<Array> {
    let out = Array::empty(device, shape, dtype)?;
    fill(&out, value)?;
    Ok(out)
}

/// Statement assigning `y` from doubles `re`, `im`, converted to `dtype`.
fn from_double_parts(dtype: DType, device: &Device) -> String {
    let d = dialect(device);
    match dtype {
        DType::C64 | DType::C128 => {
            let part = value_type(component(dtype), d);
            format!("y = ember_make_{}(({part})re, ({part})im);", dtype.name())
        }
        DType::Bool => "y = (unsigned char)(re != 0 || im != 0);".into(),
        DType::F16 | DType::F32 | DType::F64 => format!("y = ({})re;", value_type(dtype, d)),
        // NumPy floors when it makes integers from a float progression.
        _ => format!("y = ({})floor(re);", value_type(dtype, d)),
    }
}

fn run_progression(out: &Array, name: &str, body_prefix: &str, parts: &[f64]) -> Result<()> {
    let dtype = out.dtype();
    let device = out.device();
    let names = ["a_re", "a_im", "b_re", "b_im", "c_re", "c_im"];
    let spec = MapKernel {
        name: format!("ember_{name}_{}", dtype.name()),
        inputs: vec![],
        outputs: vec![Operand::new("y", dtype, false)],
        scalars: names[..parts.len()]
            .iter()
            .map(|n| (n.to_string(), DType::F64))
            .collect(),
        ndim: 0,
        body: format!("{body_prefix} {}", from_double_parts(dtype, device)),
    };
    let scalars: Vec<Vec<u8>> = parts.iter().map(|v| v.to_le_bytes().to_vec()).collect();
    run_map(&spec, &[out], &scalars, out.shape())
}

/// `start, start + step, ...`, `n` values. Integer dtypes count in int64 (exact); others in
/// double, as NumPy does.
pub fn arange(
    device: &'static Device,
    start: Scalar,
    step: Scalar,
    n: usize,
    dtype: DType,
) -> Result<Array> {
    let out = Array::empty(device, &[n], dtype)?;
    if dtype.is_integer() {
        let as_i64 = |s: Scalar| match s {
            Scalar::Int(i) => i,
            Scalar::UInt(u) => u as i64,
            Scalar::Bool(b) => b as i64,
            Scalar::Float(f) => f as i64,
            Scalar::Complex(r, _) => r as i64,
        };
        let spec = MapKernel {
            name: format!("ember_arange_{}", dtype.name()),
            inputs: vec![],
            outputs: vec![Operand::new("y", dtype, false)],
            scalars: vec![("a".into(), DType::I64), ("b".into(), DType::I64)],
            ndim: 0,
            body: format!("y = ({})(a + b * i);", value_type(dtype, dialect(device))),
        };
        let scalars = [
            as_i64(start).to_le_bytes().to_vec(),
            as_i64(step).to_le_bytes().to_vec(),
        ];
        run_map(&spec, &[&out], &scalars, out.shape())?;
        return Ok(out);
    }
    let (s_re, s_im) = parts(start);
    let (d_re, d_im) = parts(step);
    // NumPy rounds the product before adding it: no multiply-add (CUDA would merge one across
    // statements; OpenCL C only within one).
    let body = match dialect(device) {
        Dialect::Cuda => {
            "double re = a_re + __dmul_rn(b_re, (double)i), im = a_im + __dmul_rn(b_im, (double)i);"
        }
        Dialect::OpenCl => {
            "double re_i = b_re * (double)i; double im_i = b_im * (double)i; double re = a_re + re_i, im = a_im + im_i;"
        }
    };
    run_progression(&out, "arange", body, &[s_re, s_im, d_re, d_im])?;
    Ok(out)
}

/// `num` values evenly spaced from `start` to `stop` (included when `endpoint`); the last
/// value is `stop` exactly, as in NumPy.
pub fn linspace(
    device: &'static Device,
    start: Scalar,
    stop: Scalar,
    num: usize,
    endpoint: bool,
    dtype: DType,
) -> Result<Array> {
    let out = Array::empty(device, &[num], dtype)?;
    let div = if endpoint { num.saturating_sub(1) } else { num } as f64;
    let (s_re, s_im) = parts(start);
    let (e_re, e_im) = parts(stop);
    let (st_re, st_im) = if div > 0.0 {
        ((e_re - s_re) / div, (e_im - s_im) / div)
    } else {
        (0.0, 0.0)
    };
    // The last element is `stop` exactly; one element is `start` (NumPy's rule).
    let exact_end = endpoint && num > 1;
    let last = if exact_end { "i == n - 1" } else { "0" };
    run_progression(
        &out,
        if exact_end { "linspace_end" } else { "linspace" },
        &format!("double re = ({last}) ? c_re : a_re + b_re * (double)i, im = ({last}) ? c_im : a_im + b_im * (double)i;"),
        &[s_re, s_im, st_re, st_im, e_re, e_im],
    )?;
    Ok(out)
}

fn parts(s: Scalar) -> (f64, f64) {
    match s {
        Scalar::Bool(b) => (b as u8 as f64, 0.0),
        Scalar::Int(i) => (i as f64, 0.0),
        Scalar::UInt(u) => (u as f64, 0.0),
        Scalar::Float(f) => (f, 0.0),
        Scalar::Complex(r, i) => (r, i),
    }
}
