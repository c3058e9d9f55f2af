//! Bindings of `ember_array::index` and `where`: a Python index read into index items
//! (integers, slices, `None`, `...`, booleans and ember arrays); host data among them (lists,
//! NumPy arrays, other libraries' arrays) goes through the converter `ember` registers,
//! which puts it on the device.

use std::sync::OnceLock;

use ember_array::index::gather::{self, Index, Value};
use ember_array::index::Slice;
use ember_array::select::{self, Choice};
use ember_core::dtype::Kind;
use pyo3::exceptions::{PyIndexError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyComplex, PyFloat, PyInt, PySlice, PyString, PyTuple};

use crate::errors::IntoPyResult;
use crate::launch_args::{known, KnownTypes};
use crate::shape::wrap_result;

const INVALID_INDEX: &str = "only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and integer or boolean arrays are valid indices";

static CONVERTER: OnceLock<Py<PyAny>> = OnceLock::new();

/// Registers the Python function that turns host index data into an int, a bool or an
/// `ember.ndarray` (or raises NumPy's `IndexError`).
#[pyfunction]
fn register_index_converter(converter: Py<PyAny>) {
    let _ = CONVERTER.set(converter);
}

fn slice_of(obj: &Bound<'_, PySlice>) -> PyResult<Slice> {
    let (mut start, mut stop, mut step) = (0, 0, 0);
    // SAFETY: `obj` is a slice; the interpreter writes the three values or sets an error.
    if unsafe { pyo3::ffi::PySlice_Unpack(obj.as_ptr(), &mut start, &mut stop, &mut step) } < 0 {
        return Err(PyErr::fetch(obj.py()));
    }
    Ok(Slice { start, stop, step })
}

fn int_index(obj: &Bound<'_, PyAny>) -> PyResult<Index> {
    obj.extract::<isize>()
        .map(Index::Int)
        .map_err(|_| PyIndexError::new_err("cannot fit 'int' into an index-sized integer"))
}

/// One item of an index; `convert` allows the registered converter (a value it returned is
/// read without it).
fn index_item(k: &KnownTypes, obj: &Bound<'_, PyAny>, convert: bool) -> PyResult<Index> {
    let py = obj.py();
    if obj.is_none() {
        return Ok(Index::NewAxis);
    }
    if k.is_ndarray(obj) {
        return Ok(Index::Array(k.array_of(obj)?));
    }
    if obj.is_instance_of::<PyBool>() {
        return Ok(Index::Bool(obj.is_truthy()?));
    }
    if obj.is_instance_of::<PyInt>() {
        return int_index(obj);
    }
    if let Ok(s) = obj.cast::<PySlice>() {
        return slice_of(s).map(Index::Slice);
    }
    if obj.is(py.Ellipsis()) {
        return Ok(Index::Ellipsis);
    }
    if let Some(dtype) = k.numpy_scalar(obj) {
        return match dtype.kind() {
            Kind::Bool => Ok(Index::Bool(obj.is_truthy()?)),
            Kind::Int | Kind::UInt => int_index(obj),
            Kind::Float | Kind::Complex | Kind::Opaque => Err(PyIndexError::new_err(INVALID_INDEX)),
        };
    }
    let plain = obj.is_instance_of::<PyFloat>()
        || obj.is_instance_of::<PyComplex>()
        || obj.is_instance_of::<PyString>()
        || obj.is_instance_of::<PyBytes>();
    match CONVERTER.get() {
        Some(f) if convert && !plain => index_item(k, &f.bind(py).call1((obj,))?, false),
        _ => Err(PyIndexError::new_err(INVALID_INDEX)),
    }
}

/// A Python index (a tuple of items, or one item) as index items.
fn index_of(k: &KnownTypes, index: &Bound<'_, PyAny>) -> PyResult<Vec<Index>> {
    match index.cast::<PyTuple>() {
        Ok(t) => t.iter().map(|x| index_item(k, &x, true)).collect(),
        Err(_) => Ok(vec![index_item(k, index, true)?]),
    }
}

fn ndarray(k: &KnownTypes, obj: &Bound<'_, PyAny>) -> PyResult<ember_array::Array> {
    if !k.is_ndarray(obj) {
        return Err(PyTypeError::new_err(format!(
            "expected an ember.ndarray, got {}",
            obj.get_type().name()?
        )));
    }
    k.array_of(obj)
}

/// `a[index]`: a view for a basic index, else a gathered copy.
#[pyfunction]
fn getitem<'py>(a: &Bound<'py, PyAny>, index: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let k = known()?;
    let src = ndarray(k, a)?;
    let items = index_of(k, index)?;
    // A basic index only makes a view: not worth releasing the GIL for.
    let out = if items
        .iter()
        .any(|i| matches!(i, Index::Array(_) | Index::Bool(_)))
    {
        a.py().detach(|| gather::getitem(&src, &items)).py()?
    } else {
        gather::getitem(&src, &items).py()?
    };
    wrap_result(k, a, &src, out)
}

/// `a[index] = value`: `value` an `ember.ndarray` (made from a nested Python sequence when
/// `sequence`) or a scalar already converted for `a`'s dtype.
#[pyfunction]
#[pyo3(signature = (a, index, value, sequence=false))]
fn setitem(
    a: &Bound<'_, PyAny>,
    index: &Bound<'_, PyAny>,
    value: &Bound<'_, PyAny>,
    sequence: bool,
) -> PyResult<()> {
    let k = known()?;
    let dst = ndarray(k, a)?;
    let items = index_of(k, index)?;
    let value = match (k.is_ndarray(value), sequence) {
        (true, false) => Value::Array(k.array_of(value)?),
        (true, true) => Value::Sequence(k.array_of(value)?),
        (false, _) => Value::Scalar(crate::array::scalar(value)?),
    };
    a.py().detach(|| gather::setitem(&dst, &items, &value)).py()
}

/// `nonzero(a)`: one int64 array per axis.
#[pyfunction]
fn nonzero<'py>(a: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyTuple>> {
    let k = known()?;
    let src = ndarray(k, a)?;
    let parts = a.py().detach(|| gather::nonzero(&src)).py()?;
    let objects = parts
        .into_iter()
        .map(|p| k.wrap(a.py(), p))
        .collect::<PyResult<Vec<_>>>()?;
    PyTuple::new(a.py(), objects)
}

/// `take(a, indices, axis)`.
#[pyfunction]
#[pyo3(signature = (a, indices, axis=None))]
fn take<'py>(
    a: &Bound<'py, PyAny>,
    indices: &Bound<'py, PyAny>,
    axis: Option<i64>,
) -> PyResult<Bound<'py, PyAny>> {
    let k = known()?;
    let src = ndarray(k, a)?;
    let item = index_item(k, indices, true)?;
    let out = a.py().detach(|| gather::take(&src, item, axis)).py()?;
    wrap_result(k, a, &src, out)
}

fn choice(k: &KnownTypes, value: &Bound<'_, PyAny>) -> PyResult<Choice> {
    Ok(match crate::ufunc::operand(k, value)? {
        ember_array::ufunc::Operand::Array(a) => Choice::Array(a),
        ember_array::ufunc::Operand::Scalar(s, t) => Choice::Scalar(s, t),
    })
}

/// `where(condition, x, y)`: `condition` an `ember.ndarray`, `x` and `y` arrays or scalars.
#[pyfunction]
fn where_<'py>(
    condition: &Bound<'py, PyAny>,
    x: &Bound<'py, PyAny>,
    y: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let k = known()?;
    let c = ndarray(k, condition)?;
    let (x, y) = (choice(k, x)?, choice(k, y)?);
    let out = condition.py().detach(|| select::where_(&c, &x, &y)).py()?;
    k.wrap(condition.py(), out)
}

/// `sort_rows(a, rows)`: the stable permutation sorting each row of the C-contiguous `a`
/// (`rows` rows), as flat int64 indices.
#[pyfunction]
fn sort_rows<'py>(a: &Bound<'py, PyAny>, rows: usize) -> PyResult<Bound<'py, PyAny>> {
    let k = known()?;
    let src = ndarray(k, a)?;
    let out = a
        .py()
        .detach(|| ember_array::sort::sort_rows(&src, rows))
        .py()?;
    k.wrap(a.py(), out)
}

/// `sort_values(a)`: the elements of the C-contiguous `a` sorted (flat), with no permutation
/// to apply after; None where that sort is not planned (see `ember_array::sort::sort_values`).
#[pyfunction]
fn sort_values<'py>(a: &Bound<'py, PyAny>) -> PyResult<Option<Bound<'py, PyAny>>> {
    let k = known()?;
    let src = ndarray(k, a)?;
    let out = a
        .py()
        .detach(|| ember_array::sort::sort_values(&src))
        .py()?;
    out.map(|o| k.wrap(a.py(), o)).transpose()
}

/// `sort_short_rows(a, rows, values)`: the rows of the C-contiguous `a` sorted a block a
/// row (values, or int64 positions within each row); None where that sort is not planned.
#[pyfunction]
fn sort_short_rows<'py>(
    a: &Bound<'py, PyAny>,
    rows: usize,
    values: bool,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    let k = known()?;
    let src = ndarray(k, a)?;
    let out = a
        .py()
        .detach(|| ember_array::sort::block_rows::sort(&src, rows, values))
        .py()?;
    out.map(|o| k.wrap(a.py(), o)).transpose()
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    for f in [
        wrap_pyfunction!(sort_rows, m)?,
        wrap_pyfunction!(sort_short_rows, m)?,
        wrap_pyfunction!(sort_values, m)?,
        wrap_pyfunction!(register_index_converter, m)?,
        wrap_pyfunction!(getitem, m)?,
        wrap_pyfunction!(setitem, m)?,
        wrap_pyfunction!(nonzero, m)?,
        wrap_pyfunction!(take, m)?,
        wrap_pyfunction!(where_, m)?,
    ] {
        m.add_function(f)?;
    }
    Ok(())
}
