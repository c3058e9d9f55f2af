//! Bindings of NumPy's universal functions: operands read straight from Python objects,
//! results made as `ember.ndarray` objects natively (the small-operation hot path).

use ember_array::ufunc::{self, fused, Operand, OperandType};
use ember_core::dtype::Kind;
use ember_core::{DType, Scalar};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::errors::IntoPyResult;
use crate::launch_args::{known, KnownTypes};
use crate::scalars::{is_wide_int, python_scalar};

/// The table position of the ufunc called `name` (Python keeps it to call by number).
#[pyfunction]
fn ufunc_id(name: &str) -> PyResult<(usize, usize, usize)> {
    let u = ufunc::ufunc(name).py()?;
    Ok((u.id, u.nin, u.nout))
}

/// Every ufunc of the registry: (name, aliases, NumPy's one-line summary, callable in @jit).
#[pyfunction]
fn ufunc_rows() -> Vec<(&'static str, Vec<&'static str>, &'static str, bool)> {
    ufunc::resolve::all()
        .iter()
        .map(|u| (u.name, u.row.aliases.to_vec(), u.doc, u.row.jit))
        .collect()
}

/// The names of ember's dtypes, in ember-core's table order.
#[pyfunction]
fn dtype_names() -> Vec<&'static str> {
    DType::ALL.iter().map(|d| d.name()).collect()
}

/// Registers the opaque dtype NumPy calls `name` (`str(dtype)`), with array-interface type
/// string `typestr` and `itemsize` bytes, so arrays can hold it (`ember_core::Opaque`).
#[pyfunction]
fn register_opaque(name: &str, typestr: &str, itemsize: usize) -> PyResult<()> {
    ember_core::Opaque::register(name, typestr, itemsize).py()?;
    Ok(())
}

/// Registers structured dtype `name` with its fields (name, offset, dtype name, sub-array
/// shape), each field's dtype registered before (`ember_core::Record`).
#[pyfunction]
fn register_record(
    name: &str,
    typestr: &str,
    itemsize: usize,
    alignment: usize,
    fields: Vec<(String, usize, String, Vec<usize>)>,
) -> PyResult<()> {
    let fields = fields
        .into_iter()
        .map(|(name, offset, dtype, shape)| {
            Ok(ember_core::Field {
                name,
                offset,
                dtype: DType::from_name(&dtype).py()?,
                shape,
            })
        })
        .collect::<PyResult<_>>()?;
    let record = ember_core::Record {
        fields,
        itemsize,
        alignment,
    };
    ember_core::Opaque::register_record(name, typestr, record).py()?;
    Ok(())
}

pub(crate) fn operand(k: &KnownTypes, value: &Bound<'_, PyAny>) -> PyResult<Operand> {
    if k.is_ndarray(value) {
        return Ok(Operand::Array(k.array_of(value)?));
    }
    if let Some(dtype) = k.numpy_scalar(value) {
        let s = crate::launch_args::scalar_value(value, dtype)?;
        return Ok(Operand::Scalar(s, OperandType::Strong(dtype)));
    }
    if let Some(s) = python_scalar(value)? {
        // A Python bool is a bool array's element; ints, floats and complex are weak.
        let t = match s {
            Scalar::Bool(_) => OperandType::Strong(DType::Bool),
            _ if is_wide_int(value, s) => OperandType::Weak(Kind::Int),
            s => OperandType::Weak(s.kind()),
        };
        return Ok(Operand::Scalar(s, t));
    }
    if k.is_host_array(value) {
        return Err(PyTypeError::new_err(
            "Unsupported type <class 'numpy.ndarray'>: a NumPy array lives in host memory; copy it to the device with ember.asarray(x) first",
        ));
    }
    Err(PyTypeError::new_err(format!(
        "Unsupported type {}",
        value.get_type().name()?
    )))
}

/// Applies ufunc number `id` to `args`; `out` is None, an array, or a tuple of arrays/None.
/// Returns the output array, or a tuple of them.
#[pyfunction]
#[pyo3(signature = (id, args, out=None, dtype=None))]
fn ufunc_call<'py>(
    py: Python<'py>,
    id: usize,
    args: &Bound<'py, PyTuple>,
    out: Option<&Bound<'py, PyAny>>,
    dtype: Option<&str>,
) -> PyResult<Bound<'py, PyAny>> {
    let k = known()?;
    let u = ufunc::resolve::by_id(id).py()?;
    let mut inputs: smallvec::SmallVec<[Operand; 3]> = smallvec::SmallVec::new();
    for a in args.iter() {
        inputs.push(operand(k, &a)?);
    }
    let mut outs: smallvec::SmallVec<[Option<ember_array::Array>; 2]> = smallvec::SmallVec::new();
    let given_out = out.filter(|o| !o.is_none());
    if let Some(o) = given_out {
        let items: Vec<Bound<'py, PyAny>> = match o.cast::<PyTuple>() {
            Ok(t) => t.iter().collect(),
            Err(_) => vec![o.clone()],
        };
        if items.len() != u.nout {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "The 'out' tuple must have exactly {} entries: one per ufunc output",
                u.nout
            )));
        }
        for item in &items {
            if item.is_none() {
                outs.push(None);
            } else if k.is_ndarray(item) {
                outs.push(Some(k.array_of(item)?));
            } else {
                return Err(PyTypeError::new_err(format!(
                    "return arrays must be of ArrayType (ember.ndarray), got {}",
                    item.get_type().name()?
                )));
            }
        }
    }
    let dtype = dtype.map(DType::from_name).transpose().py()?;
    let device = ember_runtime::device(ember_runtime::current_device()).py()?;
    let results = ufunc::apply(device, u, &inputs, &outs, dtype).py()?;
    // Outputs given by the caller come back as the caller's objects.
    let mut objects: smallvec::SmallVec<[Bound<'py, PyAny>; 2]> = smallvec::SmallVec::new();
    let given: Vec<Option<Bound<'py, PyAny>>> = match given_out {
        Some(o) => match o.cast::<PyTuple>() {
            Ok(t) => t.iter().map(|x| (!x.is_none()).then_some(x)).collect(),
            Err(_) => vec![Some(o.clone())],
        },
        None => Vec::new(),
    };
    for (j, r) in results.into_iter().enumerate() {
        match given.get(j).cloned().flatten() {
            Some(obj) => objects.push(obj),
            None => objects.push(k.wrap(py, r)?),
        }
    }
    if objects.len() == 1 {
        return Ok(objects.swap_remove(0));
    }
    Ok(PyTuple::new(py, objects)?.into_any())
}

/// `a <op> b` for a one-output binary ufunc: the operators' path (no argument tuple, no
/// `out`, no `dtype`).
#[pyfunction]
fn ufunc_binary<'py>(
    py: Python<'py>,
    id: usize,
    a: &Bound<'py, PyAny>,
    b: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let k = known()?;
    let u = ufunc::resolve::by_id(id).py()?;
    let inputs = [operand(k, a)?, operand(k, b)?];
    k.wrap(py, apply_one(u, &inputs, None)?)
}

/// `u` (one output) over `inputs` on the current device, into `out` when given: its result.
pub(crate) fn apply_one(
    u: &'static ufunc::Ufunc,
    inputs: &[Operand],
    out: Option<ember_array::Array>,
) -> PyResult<ember_array::Array> {
    let device = ember_runtime::device(ember_runtime::current_device()).py()?;
    let mut results = ufunc::apply(device, u, inputs, &[out], None).py()?;
    match results.pop() {
        Some(r) if results.is_empty() => Ok(r),
        _ => Err(PyTypeError::new_err(format!(
            "{} has more than one output",
            u.name
        ))),
    }
}

/// A traced step as Python records it: the operation (a ufunc's name, `astype` or `where`),
/// its operands (`k >= 0`: parameter `k`; `-(j + 1)`: step `j`) and, for `astype`, the dtype.
type TracedStep = (String, Vec<i64>, Option<String>);

fn traced_ref(r: i64) -> fused::Ref {
    if r >= 0 {
        fused::Ref::Param(r as usize)
    } else {
        fused::Ref::Step((-r - 1) as usize)
    }
}

/// The body of an `ember.fuse` kernel: `params` are (dtype name, weak) per parameter.
/// Returns the statements, the helper functions and the outputs' dtype names.
#[pyfunction]
fn fused_kernel_body(
    params: Vec<(String, bool)>,
    steps: Vec<TracedStep>,
    outputs: Vec<i64>,
    dialect: &str,
) -> PyResult<(String, String, Vec<&'static str>)> {
    let params = params
        .iter()
        .map(|(name, weak)| {
            Ok(fused::FusedParam {
                dtype: DType::from_name(name)?,
                weak: *weak,
            })
        })
        .collect::<ember_core::Result<Vec<_>>>()
        .py()?;
    let mut traced = Vec::with_capacity(steps.len());
    for (op, args, dtype) in &steps {
        let arg = |k: usize| {
            args.get(k).copied().map(traced_ref).ok_or_else(|| {
                pyo3::exceptions::PyValueError::new_err(format!("{op} needs {} operands", k + 1))
            })
        };
        traced.push(match op.as_str() {
            "astype" => fused::Step::Cast {
                arg: arg(0)?,
                to: DType::from_name(dtype.as_deref().unwrap_or("")).py()?,
            },
            "where" => fused::Step::Where {
                cond: arg(0)?,
                x: arg(1)?,
                y: arg(2)?,
            },
            name => fused::Step::Ufunc {
                name: name.to_string(),
                args: args.iter().copied().map(traced_ref).collect(),
            },
        });
    }
    let outputs: Vec<fused::Ref> = outputs.into_iter().map(traced_ref).collect();
    // Anything but "cuda" is OpenCL, as the fusion front passes it.
    let dialect = ember_codegen::Dialect::named(dialect).unwrap_or(ember_codegen::Dialect::OpenCl);
    let body = fused::fused_body(&params, &traced, &outputs, dialect).py()?;
    Ok((
        body.operation,
        body.preamble,
        body.outputs.iter().map(|d| d.name()).collect(),
    ))
}

/// Sets automatic fusion's settings (on, smallest size, passes before fusing); returns the
/// previous ones.
#[pyfunction]
fn set_fusion(enabled: bool, min_size: usize, after: u32) -> (bool, usize, u32) {
    ufunc::deferred::configure(enabled, min_size, after)
}

/// Automatic fusion's counts: results that waited, fused, computed alone, never computed.
#[pyfunction]
fn fusion_stats() -> [u64; 4] {
    ufunc::deferred::stats()
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(fusion_stats, m)?)?;
    m.add_function(wrap_pyfunction!(set_fusion, m)?)?;
    m.add_function(wrap_pyfunction!(fused_kernel_body, m)?)?;
    m.add_function(wrap_pyfunction!(ufunc_binary, m)?)?;
    m.add_function(wrap_pyfunction!(ufunc_id, m)?)?;
    m.add_function(wrap_pyfunction!(ufunc_rows, m)?)?;
    m.add_function(wrap_pyfunction!(dtype_names, m)?)?;
    m.add_function(wrap_pyfunction!(register_opaque, m)?)?;
    m.add_function(wrap_pyfunction!(register_record, m)?)?;
    m.add_function(wrap_pyfunction!(ufunc_call, m)?)?;
    Ok(())
}
