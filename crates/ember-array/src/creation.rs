//! Arrays made on the device: `full`, `arange`, `linspace` (NumPy's own arithmetic, so the
//! values are NumPy's to the bit).

use ember_codegen::types::{
    cast, complex_product_parts, component, param_dtype, round_in_place, value_type,
};
use ember_codegen::{Dialect, MapKernel, Operand};
use ember_core::{DType, Result, Scalar};
use ember_runtime::Device;

use crate::array::Array;
use crate::launch::run_map;
use ember_kernel::{dialect, param_bytes};

/// Fills `out` with `value` converted to its dtype.
pub fn fill(out: &Array, value: Scalar) -> Result<()> {
    let dtype = out.dtype().numeric("filling with a number")?;
    let spec = fill_spec(dtype);
    run_map(
        &spec,
        &[out],
        &[param_bytes(value, dtype).to_vec()],
        out.shape(),
    )
}

/// The kernel that sets every element of a `dtype` array to a scalar parameter.
pub fn fill_spec(dtype: DType) -> MapKernel {
    MapKernel {
        name: format!("ember_fill_{}", dtype.name()),
        inputs: vec![],
        outputs: vec![Operand::new("out", dtype)],
        scalars: vec![("v".into(), dtype)],
        body: "out = v;".into(),
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

/// The dtype NumPy's progressions compute in for a `dtype` result: its own (float16 in
/// float: `HALF_fill` does), and double for the others.
fn progression_dtype(dtype: DType) -> DType {
    match dtype {
        DType::F16 | DType::F32 | DType::F64 | DType::C64 | DType::C128 => dtype,
        _ => DType::F64,
    }
}

/// The scalar parameters `names` (each with `_re` and `_im`) as values of `compute`'s parts,
/// and their bytes.
fn part_params(
    names: &[&str],
    values: &[Scalar],
    compute: DType,
) -> (Vec<(String, DType)>, Vec<Vec<u8>>) {
    let part = param_dtype(component(compute));
    let mut params = Vec::new();
    let mut bytes = Vec::new();
    for (name, &v) in names.iter().zip(values) {
        let (re, im) = parts(v);
        for (suffix, x) in [("re", re), ("im", im)] {
            params.push((format!("{name}_{suffix}"), part));
            bytes.push(Scalar::Float(x).to_bytes(part));
        }
    }
    (params, bytes)
}

/// Statements making `{var}_re`, `{var}_im` (of `compute`'s part type `rt`) from expressions
/// `re`, `im`, rounded to a narrow float `compute` (float16: its values live in float).
fn assign_parts(var: &str, re: &str, im: &str, compute: DType, dialect: Dialect) -> String {
    let rt = value_type(component(compute), dialect);
    let mut s = format!("{rt} {var}_re = {re}, {var}_im = {im};");
    s += &round_in_place(compute, dialect, &format!("{var}_re"));
    s
}

/// The statement storing the value (`v_re`, `v_im`) of `compute` into `y` of `dtype`, as
/// NumPy's `astype` converts it; NumPy floors a progression it makes integers of.
fn store_progression(compute: DType, dtype: DType, dialect: Dialect) -> String {
    let part = component(compute);
    let value = if dtype.is_complex() {
        let pt = value_type(component(dtype), dialect);
        format!("ember_make_{}(({pt})v_re, ({pt})v_im)", dtype.name())
    } else if dtype == DType::Bool {
        "(unsigned char)(v_re != 0 || v_im != 0)".into()
    } else if dtype.is_integer() {
        cast("floor(v_re)", part, dtype, dialect)
    } else {
        cast("v_re", part, dtype, dialect)
    };
    format!("out = {value};")
}

/// A generated kernel with the bytes of its scalar arguments.
pub type KernelWithArgs = (MapKernel, Vec<Vec<u8>>);

fn progression_kernel(
    name: &str,
    compute: DType,
    dtype: DType,
    (scalars, bytes): (Vec<(String, DType)>, Vec<Vec<u8>>),
    body: String,
) -> KernelWithArgs {
    let spec = MapKernel {
        name: format!("ember_{name}_{}_{}", compute.name(), dtype.name()),
        inputs: vec![],
        outputs: vec![Operand::new("out", dtype)],
        scalars,
        body,
    };
    (spec, bytes)
}

/// The kernel of [`arange`] for `dtype` in `dialect`, and its arguments.
pub fn arange_kernel(
    first: Scalar,
    second: Scalar,
    dtype: DType,
    dialect: Dialect,
) -> KernelWithArgs {
    if dtype.is_integer() || dtype == DType::Bool {
        let as_i64 = |s: Scalar| match s {
            Scalar::Int(i) => i,
            Scalar::UInt(u) => u as i64,
            Scalar::Bool(b) => b as i64,
            Scalar::Float(f) => f as i64,
            Scalar::Complex(r, _) => r as i64,
        };
        let (a, b) = (as_i64(first), as_i64(second));
        let spec = MapKernel {
            name: format!("ember_arange_{}", dtype.name()),
            inputs: vec![],
            outputs: vec![Operand::new("out", dtype)],
            scalars: vec![("a".into(), DType::I64), ("b".into(), DType::I64)],
            body: format!("out = {};", cast("(a + b * i)", DType::I64, dtype, dialect)),
        };
        let bytes = vec![
            a.to_le_bytes().to_vec(),
            b.wrapping_sub(a).to_le_bytes().to_vec(),
        ];
        return (spec, bytes);
    }
    let compute = progression_dtype(dtype);
    let rt = value_type(component(compute), dialect);
    let mut body = String::new();
    for part in ["re", "im"] {
        body += &format!(
            "{rt} v_{part} = i == 0 ? a_{part} : (i == 1 ? b_{part} : a_{part} + ({rt})i * (b_{part} - a_{part}));"
        );
    }
    body += &store_progression(compute, dtype, dialect);
    let params = part_params(&["a", "b"], &[first, second], compute);
    progression_kernel("arange", compute, dtype, params, body)
}

/// NumPy's `arange` fill: `first`, `second` (the first two values, already in `dtype`), then
/// `first + i * (second - first)`, `n` values. Integer dtypes count in int64 (wrapping as the
/// dtype's own arithmetic does); float16 in float and the others in their own type, as
/// NumPy's `@NAME@_fill` does, each operation rounded on its own.
pub fn arange(
    device: &'static Device,
    first: Scalar,
    second: Scalar,
    n: usize,
    dtype: DType,
) -> Result<Array> {
    let out = Array::empty(device, &[n], dtype)?;
    let (spec, bytes) = arange_kernel(first, second, dtype, dialect(device));
    run_map(&spec, &[&out], &bytes, out.shape())?;
    Ok(out)
}

/// NumPy's `linspace`, in the dtype NumPy computes it in (`compute`, its `dt`): the values
/// below are of that dtype, as NumPy computes them on the host.
#[derive(Clone, Copy, Debug)]
pub struct Linspace {
    pub start: Scalar,
    pub stop: Scalar,
    /// What `arange(0, num)` is multiplied by: `step = delta / div`; `delta` itself where
    /// `step` underflows to 0 (then `divisor` is set) or where there is no step (`num` 0, or
    /// 1 with the endpoint).
    pub scale: Scalar,
    /// `div`, where NumPy divides by it before scaling (a step that underflows to 0).
    pub divisor: Option<Scalar>,
    pub num: usize,
    pub endpoint: bool,
    pub compute: DType,
}

/// The kernel of [`linspace`] for `dtype` in `dialect`, and its arguments.
pub fn linspace_kernel(spec: &Linspace, dtype: DType, dialect: Dialect) -> Result<KernelWithArgs> {
    let compute = spec.compute;
    if !(compute.is_float() || compute.is_complex()) {
        return Err(ember_core::Error::Type(format!(
            "linspace computes in a float or complex dtype, not {}",
            compute.name()
        )));
    }
    let d = dialect;
    let rt = value_type(component(compute), d);
    // NumPy: y = arange(0, num) (exact counts, float16 rounded), y * step, or y / div * delta
    // where step underflows to 0; then y + start.
    let mut body = assign_parts("t", &format!("({rt})i"), &format!("({rt})0"), compute, d);
    let x = if spec.divisor.is_some() {
        // A complex quotient by (div + 0j) is Smith's: times the reciprocal.
        let q = if compute.is_complex() {
            format!("t_re * (({rt})1 / d_re)")
        } else {
            "t_re / d_re".into()
        };
        body += &assign_parts("q", &q, "t_im", compute, d);
        "q"
    } else {
        "t"
    };
    let [re, im] = if compute.is_complex() {
        complex_product_parts(&format!("{x}_re"), &format!("{x}_im"), "s_re", "s_im")
    } else {
        [format!("{x}_re * s_re"), format!("{x}_im")]
    };
    body += &assign_parts("p", &re, &im, compute, d);
    body += &assign_parts("v", "p_re + a_re", "p_im + a_im", compute, d);
    let exact_end = spec.endpoint && spec.num > 1;
    if exact_end {
        body += " if (i == n - 1) { v_re = c_re; v_im = c_im; }";
    }
    body += &store_progression(compute, dtype, d);
    let mut names = vec!["a", "c", "s"];
    let mut values = vec![spec.start, spec.stop, spec.scale];
    if let Some(div) = spec.divisor {
        names.push("d");
        values.push(div);
    }
    let params = part_params(&names, &values, compute);
    let name = match (spec.divisor.is_some(), exact_end) {
        (false, false) => "linspace",
        (false, true) => "linspace_end",
        (true, false) => "linspace_tiny",
        (true, true) => "linspace_tiny_end",
    };
    Ok(progression_kernel(name, compute, dtype, params, body))
}

/// `num` values evenly spaced from `start` to `stop` (included when `endpoint`), of `dtype`,
/// as NumPy computes them: `i * step + start` in `compute`, each operation rounded on its own
/// (float16 rounded to float16 after each), the last value `stop` exactly, then floored for an
/// integer `dtype` and converted.
pub fn linspace(device: &'static Device, spec: &Linspace, dtype: DType) -> Result<Array> {
    let (kernel, bytes) = linspace_kernel(spec, dtype, dialect(device))?;
    let out = Array::empty(device, &[spec.num], dtype)?;
    run_map(&kernel, &[&out], &bytes, out.shape())?;
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
