//! `ember.ndarray`'s operators as native method descriptors. `a + b` goes from Python's
//! number slot straight to the ufunc: no Python frame, no argument parsing (the small-op hot
//! path). Operands the fast path does not take as they are (lists, foreign device arrays,
//! anything else) go to the Python method it stands in front of, which keeps NumPy's
//! `NotImplemented` and conversion rules in one place.

use std::ffi::CString;
use std::os::raw::c_int;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

use ember_array::ufunc::{self, Operand};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyComplex, PyFloat, PyInt, PyType};

use crate::errors::IntoPyResult;
use crate::launch_args::{known, KnownTypes};

/// How an operator calls its ufunc.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Form {
    /// `self <op> other`
    Forward,
    /// `other <op> self` (`__radd__`, ...)
    Reflected,
    /// `self <op>= other`: the result is written into `self`.
    InPlace,
    /// `<op> self`
    Unary,
}

struct Operator {
    ufunc: &'static ufunc::Ufunc,
    form: Form,
    /// The Python method this one stands in front of.
    fallback: Py<PyAny>,
}

/// Each native operator is its own C function (a method descriptor carries no data): the
/// function's number picks its slot here.
const SLOTS: usize = 48;
static OPERATORS: [OnceLock<Operator>; SLOTS] = [const { OnceLock::new() }; SLOTS];
static NEXT_SLOT: AtomicUsize = AtomicUsize::new(0);

/// An operand the fast path passes to the ufunc as it is; the rest go to the fallback.
fn direct(k: &KnownTypes, value: &Bound<'_, PyAny>) -> bool {
    k.is_ndarray(value)
        || value.is_exact_instance_of::<PyFloat>()
        || value.is_instance_of::<PyInt>() // bool included
        || value.is_exact_instance_of::<PyComplex>()
        || k.numpy_scalar(value).is_some()
}

fn call_operator<'py>(
    py: Python<'py>,
    op: &Operator,
    slf: &Bound<'py, PyAny>,
    other: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let k = known()?;
    let fast = k.is_ndarray(slf) && other.is_none_or(|o| direct(k, o));
    let fallback = || match other {
        Some(o) => op.fallback.bind(py).call1((slf, o)),
        None => op.fallback.bind(py).call1((slf,)),
    };
    if !fast {
        return fallback();
    }
    match native_operator(py, k, op, slf, other) {
        // Opaque operands (structured arrays compared with ==) are Python's to handle.
        Err(e)
            if e.is_instance_of::<pyo3::exceptions::PyTypeError>(py)
                && has_opaque(k, slf, other) =>
        {
            fallback()
        }
        Ok(result) if op.form != Form::InPlace => carry_face(py, k, slf, result),
        result => result,
    }
}

/// What passes a PyOpenCL array's queue and allocator on to the results of its operators
/// (`ember._ndarray_cl.carry`, registered at import).
static CARRY: OnceLock<Py<PyAny>> = OnceLock::new();

/// The result, given `source`'s PyOpenCL settings when it has any (as PyOpenCL's results
/// keep their first operand's queue and allocator).
fn carry_face<'py>(
    py: Python<'py>,
    k: &KnownTypes,
    source: &Bound<'py, PyAny>,
    result: Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    if let (Some(state), Some(carry)) = (k.face_state(source), CARRY.get()) {
        carry.bind(py).call1((&result, state))?;
    }
    Ok(result)
}

/// Registers `ember._ndarray_cl.carry(result, state)`.
#[pyfunction]
fn register_face_carry(carry: Py<PyAny>) {
    let _ = CARRY.set(carry);
}

/// Whether `slf` or `other` is an array of an opaque dtype (only asked after an error).
fn has_opaque(k: &KnownTypes, slf: &Bound<'_, PyAny>, other: Option<&Bound<'_, PyAny>>) -> bool {
    [Some(slf), other]
        .into_iter()
        .flatten()
        .any(|v| k.is_ndarray(v) && k.array_of(v).is_ok_and(|a| a.dtype().is_opaque()))
}

fn native_operator<'py>(
    py: Python<'py>,
    k: &KnownTypes,
    op: &Operator,
    slf: &Bound<'py, PyAny>,
    other: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    if let Some(result) = arrays_only(k, op, slf, other)? {
        return k.wrap(py, result);
    }
    let this = || -> PyResult<Operand> { Ok(Operand::Array(k.array_of(slf)?)) };
    let that = || crate::ufunc::operand(k, other.expect("a binary operator has an operand"));
    let inputs: smallvec::SmallVec<[Operand; 2]> = match op.form {
        Form::Forward | Form::InPlace => [this()?, that()?].into_iter().collect(),
        Form::Reflected => [that()?, this()?].into_iter().collect(),
        Form::Unary => [this()?].into_iter().collect(),
    };
    if op.form == Form::InPlace {
        crate::ufunc::apply_one(op.ufunc, &inputs, Some(k.array_of(slf)?))?;
        return Ok(slf.clone());
    }
    k.wrap(py, crate::ufunc::apply_one(op.ufunc, &inputs, None)?)
}

/// The quickest form, arrays on both sides and a new result: the arrays are borrowed from
/// their Python objects and `ufunc::apply_arrays` takes the call when it has its common form.
fn arrays_only(
    k: &KnownTypes,
    op: &Operator,
    slf: &Bound<'_, PyAny>,
    other: Option<&Bound<'_, PyAny>>,
) -> PyResult<Option<ember_array::Array>> {
    if op.form == Form::InPlace || other.is_some_and(|o| !k.is_ndarray(o)) {
        return Ok(None);
    }
    let this = k.native_of(slf)?;
    let that = other.map(|o| k.native_of(o)).transpose()?;
    let (x, y) = (&this.get().0, that.as_ref().map(|t| &t.get().0));
    let result = match (op.form, y) {
        (Form::Forward, Some(y)) => ufunc::apply_arrays(op.ufunc, &[x, y]),
        (Form::Reflected, Some(y)) => ufunc::apply_arrays(op.ufunc, &[y, x]),
        (Form::Unary, None) => ufunc::apply_arrays(op.ufunc, &[x]),
        _ => return Ok(None),
    };
    result.py()
}

/// The C entry of slot `S`. A method descriptor passes `self` apart and the arguments after
/// it: `[]` for a unary operator, `[other]` for a binary one.
unsafe extern "C" fn entry<const S: usize>(
    slf: *mut ffi::PyObject,
    args: *mut *mut ffi::PyObject,
    nargs: ffi::Py_ssize_t,
) -> *mut ffi::PyObject {
    // Called by Python, which holds the GIL.
    let py = unsafe { Python::assume_attached() };
    let outcome = catch_unwind(AssertUnwindSafe(|| -> PyResult<Bound<'_, PyAny>> {
        let op = OPERATORS[S]
            .get()
            .ok_or_else(|| pyo3::exceptions::PyRuntimeError::new_err("operator not registered"))?;
        let wanted = if op.form == Form::Unary { 0 } else { 1 };
        if nargs > wanted {
            // pow(a, b, modulo): Python's own message says what is unsupported.
            return Ok(py.NotImplemented().into_bound(py));
        }
        if nargs != wanted {
            return Err(pyo3::exceptions::PyTypeError::new_err(format!(
                "expected {wanted} argument(s), got {nargs}"
            )));
        }
        let slf = unsafe { Bound::from_borrowed_ptr(py, slf) };
        let other = (wanted == 1).then(|| unsafe { Bound::from_borrowed_ptr(py, *args) });
        call_operator(py, op, &slf, other.as_ref())
    }));
    let result = match outcome {
        Ok(r) => r,
        Err(_) => Err(pyo3::panic::PanicException::new_err(
            "ember's operator panicked: please report this",
        )),
    };
    match result {
        Ok(obj) => obj.into_ptr(),
        Err(e) => {
            e.restore(py);
            std::ptr::null_mut()
        }
    }
}

type Entry = unsafe extern "C" fn(
    *mut ffi::PyObject,
    *mut *mut ffi::PyObject,
    ffi::Py_ssize_t,
) -> *mut ffi::PyObject;

macro_rules! entries {
    ($($s:literal)*) => { [$(entry::<$s> as Entry),*] };
}
static ENTRIES: [Entry; SLOTS] = entries!(
    0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23
    24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47
);

/// A method for `ndarray` named `name` computing ufunc `id` in `form` ("forward",
/// "reflected", "inplace" or "unary"), in front of the Python method `fallback`. When every
/// slot is taken (a module imported again), `fallback` itself is returned.
#[pyfunction]
fn operator_method<'py>(
    py: Python<'py>,
    ndarray: &Bound<'py, PyType>,
    name: &str,
    id: usize,
    form: &str,
    fallback: Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let form = match form {
        "forward" => Form::Forward,
        "reflected" => Form::Reflected,
        "inplace" => Form::InPlace,
        "unary" => Form::Unary,
        _ => {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "unknown operator form {form:?}"
            )))
        }
    };
    let u = ufunc::resolve::by_id(id).py()?;
    let expected = if form == Form::Unary { 1 } else { 2 };
    if u.nin != expected || u.nout != 1 {
        return Err(pyo3::exceptions::PyValueError::new_err(format!(
            "ufunc {} takes {} input(s) and gives {} output(s): it is not a {} operator",
            u.name,
            u.nin,
            u.nout,
            if expected == 1 { "unary" } else { "binary" }
        )));
    }
    let slot = NEXT_SLOT.fetch_add(1, Ordering::Relaxed);
    if slot >= SLOTS {
        return Ok(fallback);
    }
    let op = Operator {
        ufunc: u,
        form,
        fallback: fallback.unbind(),
    };
    if OPERATORS[slot].set(op).is_err() {
        return Err(pyo3::exceptions::PyRuntimeError::new_err(
            "operator slot taken twice",
        ));
    }
    let name = CString::new(name)
        .map_err(|_| pyo3::exceptions::PyValueError::new_err("operator name has a NUL byte"))?;
    // The definition lives as long as the descriptor, which may live as long as the process.
    let def = Box::leak(Box::new(ffi::PyMethodDef {
        ml_name: name.into_raw(),
        ml_meth: ffi::PyMethodDefPointer {
            PyCFunctionFast: ENTRIES[slot],
        },
        ml_flags: ffi::METH_FASTCALL as c_int,
        ml_doc: std::ptr::null(),
    }));
    unsafe {
        let descr = ffi::PyDescr_NewMethod(ndarray.as_type_ptr(), def);
        Bound::from_owned_ptr_or_err(py, descr)
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(register_face_carry, m)?)?;
    m.add_function(wrap_pyfunction!(operator_method, m)?)
}
