//! Bindings of `ember_array::shape`: reshape, ravel, copies in an order, axis moves,
//! broadcasting, joining and splitting. Arrays arrive as `ember.ndarray` objects and views
//! go back as `ember.ndarray` objects whose `base` is the owner of the memory.

use std::sync::Arc;

use ember_array::result_type::Casting;
use ember_array::shape::reshape as plan;
use ember_array::shape::{axes, broadcast, join, Order};
use ember_array::Array;
use ember_core::DType;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};

use crate::errors::IntoPyResult;
use crate::launch_args::{known, KnownTypes};

/// `result` as an `ember.ndarray`: a view of `parent` when it shares its memory.
pub(crate) fn wrap_result<'py>(
    k: &KnownTypes,
    parent: &Bound<'py, PyAny>,
    source: &Array,
    result: Array,
) -> PyResult<Bound<'py, PyAny>> {
    if Arc::ptr_eq(source.buffer(), result.buffer()) {
        k.wrap_view(parent.py(), result, parent)
    } else {
        k.wrap(parent.py(), result)
    }
}

/// The array of an `ember.ndarray` argument.
fn array_of(k: &KnownTypes, obj: &Bound<'_, PyAny>) -> PyResult<Array> {
    if !k.is_ndarray(obj) {
        return Err(PyTypeError::new_err(format!(
            "expected an ember.ndarray, got {}",
            obj.get_type().name()?
        )));
    }
    k.array_of(obj)
}

/// Integers from an int or a sequence of ints (each through `__index__`, as NumPy reads
/// shapes and axes).
pub(crate) fn ints(obj: &Bound<'_, PyAny>) -> PyResult<Vec<i64>> {
    if let Ok(i) = obj.extract::<i64>() {
        return Ok(vec![i]);
    }
    match obj.try_iter() {
        Ok(items) => items.map(|x| x?.extract::<i64>()).collect(),
        // Not a sequence: the integer conversion's own error says why.
        Err(_) => obj.extract::<i64>().map(|i| vec![i]),
    }
}

/// The integers of a method's `*args`: `f(2, 3)`, `f((2, 3))` or `f([2, 3])`.
fn int_args(args: &Bound<'_, PyTuple>) -> PyResult<Vec<i64>> {
    if args.len() == 1 {
        return ints(&args.get_item(0)?);
    }
    args.iter().map(|x| x.extract::<i64>()).collect()
}

fn order(text: Option<&str>) -> PyResult<Order> {
    Order::parse(text).py()
}

/// `a.reshape(*shape, order=, copy=)` and `reshape(a, shape, ...)`.
#[pyfunction]
#[pyo3(signature = (a, shape, order_=None, copy=None))]
fn reshape<'py>(
    a: &Bound<'py, PyAny>,
    shape: &Bound<'py, PyTuple>,
    order_: Option<&str>,
    copy: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let k = known()?;
    let copy = match copy {
        None => None,
        Some(c) if c.is_none() => None,
        Some(c) if c.is_instance_of::<pyo3::types::PyString>() => {
            return Err(pyo3::exceptions::PyValueError::new_err(
                "strings are not allowed for 'copy' keyword. Use True/False/None instead.",
            ))
        }
        Some(c) => Some(c.is_truthy()?),
    };
    if shape.is_empty() {
        return Err(PyTypeError::new_err(
            "reshape() takes exactly 1 argument (0 given)",
        ));
    }
    let src = array_of(k, a)?;
    let requested = int_args(shape)?;
    let out = plan::reshape(&src, &requested, order(order_)?, copy).py()?;
    wrap_result(k, a, &src, out)
}

/// `ravel(a, order)`: a view when the elements already lie in that order.
#[pyfunction]
#[pyo3(signature = (a, order_=None))]
fn ravel<'py>(a: &Bound<'py, PyAny>, order_: Option<&str>) -> PyResult<Bound<'py, PyAny>> {
    let k = known()?;
    let src = array_of(k, a)?;
    let out = plan::ravel(&src, order(order_)?).py()?;
    wrap_result(k, a, &src, out)
}

/// `a.flatten(order)`: always a copy.
#[pyfunction]
#[pyo3(signature = (a, order_=None))]
fn flatten<'py>(a: &Bound<'py, PyAny>, order_: Option<&str>) -> PyResult<Bound<'py, PyAny>> {
    let k = known()?;
    let src = array_of(k, a)?;
    k.wrap(a.py(), plan::flatten(&src, order(order_)?).py()?)
}

/// A copy laid out in `order` (C, F, A or K).
#[pyfunction]
#[pyo3(signature = (a, order_=None))]
fn copy_in_order<'py>(a: &Bound<'py, PyAny>, order_: Option<&str>) -> PyResult<Bound<'py, PyAny>> {
    let k = known()?;
    let src = array_of(k, a)?;
    let order = order(order_)?.for_array(&src);
    let out = a
        .py()
        .detach(|| ember_array::shape::copy::copy_in_order(&src, order))
        .py()?;
    k.wrap(a.py(), out)
}

/// `a.transpose(*axes)`: `()`, `(None,)`, `(1, 0)` or `((1, 0),)`.
#[pyfunction]
fn transpose<'py>(
    a: &Bound<'py, PyAny>,
    axes: &Bound<'py, PyTuple>,
) -> PyResult<Bound<'py, PyAny>> {
    let k = known()?;
    let src = array_of(k, a)?;
    let list = match axes.len() {
        0 => None,
        1 if axes.get_item(0)?.is_none() => None,
        _ => Some(int_args(axes)?),
    };
    let layout = axes::transpose(&ember_array::shape::Layout::of(&src), list.as_deref()).py()?;
    let out = ember_array::shape::view(&src, &layout, 0).py()?;
    k.wrap_view(a.py(), out, a)
}

#[pyfunction]
fn swapaxes<'py>(a: &Bound<'py, PyAny>, axis1: i64, axis2: i64) -> PyResult<Bound<'py, PyAny>> {
    let k = known()?;
    let src = array_of(k, a)?;
    let layout = axes::swapaxes(&ember_array::shape::Layout::of(&src), axis1, axis2).py()?;
    k.wrap_view(a.py(), ember_array::shape::view(&src, &layout, 0).py()?, a)
}

#[pyfunction]
fn moveaxis<'py>(
    a: &Bound<'py, PyAny>,
    source: &Bound<'py, PyAny>,
    destination: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let k = known()?;
    let src = array_of(k, a)?;
    let layout = axes::moveaxis(
        &ember_array::shape::Layout::of(&src),
        &ints(source)?,
        &ints(destination)?,
    )
    .py()?;
    k.wrap_view(a.py(), ember_array::shape::view(&src, &layout, 0).py()?, a)
}

/// `squeeze(a, axis)`: `axis` None, an int, or a tuple of ints.
#[pyfunction]
#[pyo3(signature = (a, axis=None))]
fn squeeze<'py>(
    a: &Bound<'py, PyAny>,
    axis: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let k = known()?;
    let src = array_of(k, a)?;
    let list;
    let which = match axis {
        None => axes::SqueezeAxes::All,
        Some(x) => match x.extract::<i64>() {
            Ok(i) => axes::SqueezeAxes::One(i),
            Err(_) => {
                list = ints(x)?;
                axes::SqueezeAxes::Many(&list)
            }
        },
    };
    let layout = axes::squeeze(&ember_array::shape::Layout::of(&src), which).py()?;
    k.wrap_view(a.py(), ember_array::shape::view(&src, &layout, 0).py()?, a)
}

/// `expand_dims(a, axis)`: `axis` an int or a sequence of ints.
#[pyfunction]
fn expand_dims<'py>(
    a: &Bound<'py, PyAny>,
    axis: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let k = known()?;
    let src = array_of(k, a)?;
    let shape = axes::expand_dims_shape(src.shape(), &ints(axis)?).py()?;
    let requested: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
    let out = plan::reshape(&src, &requested, Order::C, None).py()?;
    wrap_result(k, a, &src, out)
}

/// The shape arrays of the given shapes (ints or sequences) broadcast to.
#[pyfunction]
#[pyo3(signature = (*shapes))]
fn broadcast_shapes(shapes: &Bound<'_, PyTuple>) -> PyResult<Vec<usize>> {
    let mut dims = Vec::with_capacity(shapes.len());
    for s in shapes.iter() {
        dims.push(broadcast::requested_shape(&ints(&s)?).py()?);
    }
    let views: Vec<&[usize]> = dims.iter().map(|d| d.as_slice()).collect();
    Ok(broadcast::broadcast_shapes(&views).py()?.to_vec())
}

#[pyfunction]
fn broadcast_to<'py>(
    a: &Bound<'py, PyAny>,
    shape: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let k = known()?;
    let src = array_of(k, a)?;
    let out = broadcast::broadcast_array(&src, &ints(shape)?).py()?;
    k.wrap_view(a.py(), out, a)
}

fn arrays(k: &KnownTypes, list: &Bound<'_, PyAny>) -> PyResult<Vec<Array>> {
    list.try_iter()?.map(|x| array_of(k, &x?)).collect()
}

fn dtype_of(name: Option<&str>) -> PyResult<Option<DType>> {
    name.map(DType::from_name).transpose().py()
}

/// `concatenate(arrays, axis, out=, dtype=, casting=)` of ember arrays.
#[pyfunction]
#[pyo3(signature = (arrays_, axis, out=None, dtype=None, casting="same_kind"))]
fn concatenate<'py>(
    py: Python<'py>,
    arrays_: &Bound<'py, PyAny>,
    axis: Option<i64>,
    out: Option<&Bound<'py, PyAny>>,
    dtype: Option<&str>,
    casting: &str,
) -> PyResult<Bound<'py, PyAny>> {
    joined(py, arrays_, out, dtype, casting, |inputs, target, d, c| {
        join::concatenate(inputs, axis, target, d, c)
    })
}

/// `stack(arrays, axis, out=, dtype=, casting=)` of ember arrays.
#[pyfunction]
#[pyo3(signature = (arrays_, axis, out=None, dtype=None, casting="same_kind"))]
fn stack<'py>(
    py: Python<'py>,
    arrays_: &Bound<'py, PyAny>,
    axis: i64,
    out: Option<&Bound<'py, PyAny>>,
    dtype: Option<&str>,
    casting: &str,
) -> PyResult<Bound<'py, PyAny>> {
    joined(py, arrays_, out, dtype, casting, |inputs, target, d, c| {
        join::stack(inputs, axis, target, d, c)
    })
}

/// Reads a join's arguments, runs `join` without the GIL, and returns `out` or the new array.
fn joined<'py>(
    py: Python<'py>,
    arrays_: &Bound<'py, PyAny>,
    out: Option<&Bound<'py, PyAny>>,
    dtype: Option<&str>,
    casting: &str,
    join: impl FnOnce(&[Array], Option<&Array>, Option<DType>, Casting) -> ember_core::Result<Array>
        + Send,
) -> PyResult<Bound<'py, PyAny>> {
    let k = known()?;
    let inputs = arrays(k, arrays_)?;
    let target = out.map(|o| array_of(k, o)).transpose()?;
    let (d, c) = (dtype_of(dtype)?, Casting::parse(casting).py()?);
    let result = py.detach(|| join(&inputs, target.as_ref(), d, c)).py()?;
    match out {
        Some(o) => Ok(o.clone()),
        None => k.wrap(py, result),
    }
}

/// The views `array_split` (`equal`: `split`) cuts `a` into along `axis`:
/// `indices_or_sections` is a sequence of indices or a number of sections.
#[pyfunction]
fn split<'py>(
    a: &Bound<'py, PyAny>,
    indices_or_sections: &Bound<'py, PyAny>,
    axis: i64,
    equal: bool,
) -> PyResult<Bound<'py, PyList>> {
    let k = known()?;
    let src = array_of(k, a)?;
    let axis = join::split_axis(src.ndim(), axis).py()?;
    let indices: Option<Vec<i64>> = match indices_or_sections.len() {
        Ok(_) => Some(ints(indices_or_sections)?),
        Err(_) => None,
    };
    let cuts = match &indices {
        Some(list) => join::Cuts::Indices(list),
        // NumPy reads a number of sections with int().
        None => join::Cuts::Sections(indices_or_sections.call_method0("__int__")?.extract()?),
    };
    let bounds = join::split_bounds(src.shape()[axis], cuts, equal).py()?;
    let pieces = PyList::empty(a.py());
    for (start, stop) in bounds {
        let piece = ember_array::shape::join::piece(&src, axis, start, stop).py()?;
        pieces.append(k.wrap_view(a.py(), piece, a)?)?;
    }
    Ok(pieces)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    for f in [
        wrap_pyfunction!(reshape, m)?,
        wrap_pyfunction!(ravel, m)?,
        wrap_pyfunction!(flatten, m)?,
        wrap_pyfunction!(copy_in_order, m)?,
        wrap_pyfunction!(transpose, m)?,
        wrap_pyfunction!(swapaxes, m)?,
        wrap_pyfunction!(moveaxis, m)?,
        wrap_pyfunction!(squeeze, m)?,
        wrap_pyfunction!(expand_dims, m)?,
        wrap_pyfunction!(broadcast_shapes, m)?,
        wrap_pyfunction!(broadcast_to, m)?,
        wrap_pyfunction!(concatenate, m)?,
        wrap_pyfunction!(stack, m)?,
        wrap_pyfunction!(split, m)?,
    ] {
        m.add_function(f)?;
    }
    Ok(())
}
