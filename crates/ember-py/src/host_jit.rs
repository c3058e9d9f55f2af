//! `@ember.njit` functions called from Python: the specialisation is found from a few bytes
//! per argument (no typing on a call), the arguments are packed into a block of words, the
//! machine code runs with the GIL released, and a raise becomes its Python exception.

use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use ember_core::dtype::Kind;
use ember_core::{DType, Error};
use ember_cpu::{Fault, NativeFunction};
use ember_jit::{ArrayTy, Layout, Program, Ty};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyComplex, PyFloat, PyInt, PyList, PyTuple};
use smallvec::SmallVec;

use crate::errors::IntoPyResult;
use crate::host_cache::{tree_digest, HostCache};
use crate::launch_args::known;
use crate::numpy_view::{host_view, HostView};
use ember_runtime::cache::CacheKey;

/// The bytes that tell argument types apart.
type Key = SmallVec<[u8; 16]>;

/// One compiled specialisation.
struct Spec {
    key: Key,
    function: NativeFunction,
    /// Per argument: whether the function may write its elements.
    writes: Vec<bool>,
}

struct State {
    /// The function's tree, the exceptions its `raise` statements name and the tree's digest
    /// (for the disk cache), once made.
    program: Option<(Arc<Program>, Py<PyList>, CacheKey)>,
    specs: Vec<Arc<Spec>>,
    /// Compiled for declared signatures only: a call converts its arguments to one of them.
    frozen: bool,
}

/// The native half of `ember.njit`'s dispatcher (the Python class derives from it).
#[pyclass(name = "HostFunction", module = "ember._ember", subclass, frozen)]
pub struct HostFunction {
    /// `front()` returns `(tree JSON, exceptions)`: run on first need, so names defined after
    /// the function resolve, as in Numba.
    front: OnceLock<Py<PyAny>>,
    name: OnceLock<String>,
    options: OnceLock<ember_cpu::Options>,
    /// `cache=True`: the disk tier specialisations are kept in.
    cache: OnceLock<HostCache>,
    /// The Python function's positional parameters: a call passing another number (or any
    /// keyword) is bound to the signature in Python first (`_bind`), defaults filled in.
    params: OnceLock<usize>,
    state: Mutex<State>,
}

fn lock(m: &Mutex<State>) -> MutexGuard<'_, State> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// An argument, read once per call.
enum Arg<'py> {
    Bool(bool),
    Int(i64),
    UInt(u64),
    Float(f64),
    Complex(f64, f64),
    /// A NumPy scalar of this dtype.
    Typed(DType, Bound<'py, PyAny>),
    Array(HostView),
    Tuple(Vec<Arg<'py>>),
    /// `None` (Numba's `none` type: an omitted optional argument).
    None,
}

fn read_arg<'py>(value: &Bound<'py, PyAny>, depth: usize) -> PyResult<Arg<'py>> {
    let known = known()?;
    if value.is_none() {
        return Ok(Arg::None);
    }
    if value.is_instance_of::<PyBool>() {
        return Ok(Arg::Bool(value.is_truthy()?));
    }
    if value.is_instance_of::<PyInt>() {
        return Ok(match value.extract::<i64>() {
            Ok(i) => Arg::Int(i),
            Err(_) => Arg::UInt(value.extract::<u64>().map_err(|_| {
                pyo3::exceptions::PyOverflowError::new_err(format!(
                    "int too large to convert: {value} does not fit in 64 bits"
                ))
            })?),
        });
    }
    if value.is_instance_of::<PyFloat>() {
        return Ok(Arg::Float(value.extract()?));
    }
    if let Ok(c) = value.cast::<PyComplex>() {
        if !known.is_host_array(value) && known.numpy_scalar(value).is_none() {
            return Ok(Arg::Complex(c.real(), c.imag()));
        }
    }
    if let Some(d) = known.numpy_scalar(value) {
        return Ok(Arg::Typed(d, value.clone()));
    }
    if known.is_host_array(value) || is_subclass_of_ndarray(value)? {
        return host_view(value)
            .map(Arg::Array)
            .map_err(PyTypeError::new_err);
    }
    if let Ok(t) = value.cast::<PyTuple>() {
        if depth < 8 {
            return Ok(Arg::Tuple(
                t.iter()
                    .map(|v| read_arg(&v, depth + 1))
                    .collect::<PyResult<_>>()?,
            ));
        }
    }
    if known.is_ndarray(value) {
        return Err(PyTypeError::new_err(
            "an ember.ndarray lives on the device: functions compiled for the CPU take NumPy arrays (pass x.get())",
        ));
    }
    Err(PyTypeError::new_err(format!(
        "functions compiled for the CPU take numbers, NumPy arrays and tuples of them, not {}",
        value.get_type().name()?
    )))
}

fn is_subclass_of_ndarray(value: &Bound<'_, PyAny>) -> PyResult<bool> {
    let np = value.py().import("numpy")?.getattr("ndarray")?;
    value.is_instance(&np)
}

impl Arg<'_> {
    /// Appends the bytes that tell this argument's type apart.
    fn key(&self, out: &mut Key) {
        match self {
            Arg::Bool(_) => out.push(1),
            Arg::Int(_) => out.push(2),
            Arg::UInt(_) => out.push(3),
            Arg::Float(_) => out.push(4),
            Arg::Complex(..) => out.push(5),
            Arg::Typed(d, _) => out.extend([6, d.row() as u8]),
            Arg::Array(v) => out.extend([
                7,
                v.dtype.row() as u8,
                v.ndim as u8,
                u8::from(v.c_contiguous),
            ]),
            Arg::Tuple(items) => {
                out.extend([8, items.len() as u8]);
                items.iter().for_each(|a| a.key(out));
            }
            Arg::None => out.push(9),
        }
    }

    /// Numba's type of the argument.
    fn ty(&self) -> Ty {
        match self {
            Arg::Bool(_) => Ty::Scalar(DType::Bool),
            Arg::Int(_) => Ty::Scalar(DType::I64),
            Arg::UInt(_) => Ty::Scalar(DType::U64),
            Arg::Float(_) => Ty::Scalar(DType::F64),
            Arg::Complex(..) => Ty::Scalar(DType::C128),
            Arg::Typed(d, _) => Ty::Scalar(*d),
            Arg::Array(v) => Ty::Array(ArrayTy::global(
                v.dtype,
                v.ndim,
                if v.c_contiguous { Layout::C } else { Layout::A },
            )),
            Arg::Tuple(items) => Ty::Tuple(items.iter().map(Arg::ty).collect()),
            Arg::None => Ty::None,
        }
    }

    /// Whether the argument converts to a parameter of type `ty` (a declared signature):
    /// numbers to numbers except floats to integers and complex to real, arrays of the same
    /// dtype and dimensions (a C-contiguous parameter only from a C-contiguous array).
    fn fits(&self, ty: &Ty) -> bool {
        match (self, ty) {
            (Arg::None, Ty::None | Ty::Optional(_)) => true,
            (a, Ty::Optional(t)) => a.fits(t),
            (Arg::None, _) => false,
            (Arg::Array(v), Ty::Array(a)) => {
                v.dtype == a.dtype && v.ndim == a.ndim && (a.layout == Layout::A || v.c_contiguous)
            }
            (Arg::Tuple(items), Ty::Tuple(tys)) => {
                items.len() == tys.len() && items.iter().zip(tys).all(|(a, t)| a.fits(t))
            }
            (Arg::Array(_) | Arg::Tuple(_), _) => false,
            (a, Ty::Scalar(d)) => {
                let from = a.ty().scalar().map(|s| s.kind());
                match d.kind() {
                    Kind::Complex => true,
                    Kind::Float => from != Some(Kind::Complex),
                    _ => !matches!(from, Some(Kind::Float | Kind::Complex)),
                }
            }
            _ => false,
        }
    }

    /// Appends the argument's words for a parameter of type `ty`.
    fn pack(&self, ty: &Ty, out: &mut SmallVec<[u64; 16]>) -> PyResult<()> {
        match (self, ty) {
            (Arg::Array(v), Ty::Array(_)) => {
                out.push(v.data as u64);
                out.extend(v.shape().iter().map(|&n| n as u64));
                out.extend(v.strides().iter().map(|&s| s as u64));
            }
            (Arg::Tuple(items), Ty::Tuple(tys)) => {
                for (a, t) in items.iter().zip(tys) {
                    a.pack(t, out)?;
                }
            }
            (Arg::None, Ty::None) => {}
            // An optional parameter: whether it holds a value, then the value (zeros for None).
            (Arg::None, Ty::Optional(t)) => {
                let words = ember_cpu::abi::leaves(t)
                    .map_err(PyTypeError::new_err)?
                    .len();
                out.extend(std::iter::repeat_n(0, 1 + words));
            }
            (a, Ty::Optional(t)) => {
                out.push(1);
                a.pack(t, out)?;
            }
            (a, Ty::Scalar(d)) => a.pack_number(*d, out)?,
            _ => {
                return Err(PyTypeError::new_err(format!(
                    "an argument does not fit {ty}"
                )))
            }
        }
        Ok(())
    }

    fn pack_number(&self, d: DType, out: &mut SmallVec<[u64; 16]>) -> PyResult<()> {
        // The value as (real, imaginary, exact integer if it is one).
        let (re, im, int): (f64, f64, Option<i128>) = match self {
            Arg::Bool(b) => (f64::from(u8::from(*b)), 0.0, Some(i128::from(*b))),
            Arg::Int(i) => (*i as f64, 0.0, Some(i128::from(*i))),
            Arg::UInt(u) => (*u as f64, 0.0, Some(i128::from(*u))),
            Arg::Float(f) => (*f, 0.0, None),
            Arg::Complex(r, i) => (*r, *i, None),
            Arg::Typed(t, v) => match t.kind() {
                Kind::Complex => {
                    let c = v.call_method0("__complex__")?.cast_into::<PyComplex>()?;
                    (c.real(), c.imag(), None)
                }
                Kind::Float => (v.extract::<f64>()?, 0.0, None),
                Kind::UInt => {
                    let u = v.extract::<u64>()?;
                    (u as f64, 0.0, Some(i128::from(u)))
                }
                _ => {
                    let i = v.extract::<i64>()?;
                    (i as f64, 0.0, Some(i128::from(i)))
                }
            },
            _ => {
                return Err(PyTypeError::new_err(
                    "an array or tuple where a number goes",
                ))
            }
        };
        match d.kind() {
            Kind::Complex if d == DType::C64 => out.extend([
                u64::from((re as f32).to_bits()),
                u64::from((im as f32).to_bits()),
            ]),
            Kind::Complex => out.extend([re.to_bits(), im.to_bits()]),
            Kind::Float if d == DType::F32 => out.push(u64::from((re as f32).to_bits())),
            Kind::Float => out.push(re.to_bits()),
            Kind::Bool => out.push(u64::from(re != 0.0 || im != 0.0)),
            // C's conversion: integers keep their low bits.
            _ => out.push(int.unwrap_or(re as i128) as u64),
        }
        Ok(())
    }
}

/// The Python value of a result of type `ty` from its words.
fn result_value<'py>(
    py: Python<'py>,
    ty: &Ty,
    words: &mut impl Iterator<Item = u64>,
    owners: &mut Owners<'_, 'py>,
) -> PyResult<Bound<'py, PyAny>> {
    if let Ty::Array(a) = ty {
        let data = words.next().unwrap_or(0) as usize;
        let shape: Vec<i64> = (0..a.ndim)
            .map(|_| words.next().unwrap_or(0) as i64)
            .collect();
        let strides: Vec<i64> = (0..a.ndim)
            .map(|_| words.next().unwrap_or(0) as i64)
            .collect();
        if let Some(same) = owners.argument(data, a.dtype, &shape, &strides) {
            return Ok(same);
        }
        let owner = owners.owner(py, data)?;
        let interface = pyo3::types::PyDict::new(py);
        interface.set_item("version", 3)?;
        interface.set_item("typestr", a.dtype.typestr())?;
        interface.set_item("shape", PyTuple::new(py, &shape)?)?;
        interface.set_item("strides", PyTuple::new(py, &strides)?)?;
        // Views of a read-only argument stay read-only.
        let read_only = owner
            .getattr("flags")
            .and_then(|f| f.getattr("writeable"))
            .map(|w| !w.is_truthy().unwrap_or(true))
            .unwrap_or(false);
        interface.set_item("data", (data, read_only))?;
        let memory = Bound::new(
            py,
            ReturnedArray {
                interface: interface.unbind(),
                _owner: owner.unbind(),
            },
        )?;
        return py.import("numpy")?.getattr("asarray")?.call1((memory,));
    }
    if let Ty::Optional(t) = ty {
        if words.next().unwrap_or(0) != 0 {
            return result_value(py, t, words, owners);
        }
        let skipped = ember_cpu::abi::leaves(t).map_or(0, |l| l.len());
        words.take(skipped).for_each(drop);
        return Ok(py.None().into_bound(py));
    }
    let mut next = || words.next().unwrap_or(0);
    Ok(match ty {
        Ty::Scalar(d) => match d.kind() {
            Kind::Bool => PyBool::new(py, next() != 0).to_owned().into_any(),
            Kind::Int => (next() as i64).into_pyobject(py)?.into_any(),
            Kind::UInt => next().into_pyobject(py)?.into_any(),
            Kind::Float if *d == DType::F32 => f64::from(f32::from_bits(next() as u32))
                .into_pyobject(py)?
                .into_any(),
            Kind::Float => f64::from_bits(next()).into_pyobject(py)?.into_any(),
            Kind::Complex if *d == DType::C64 => {
                let re = f64::from(f32::from_bits(next() as u32));
                let im = f64::from(f32::from_bits(next() as u32));
                PyComplex::from_doubles(py, re, im).into_any()
            }
            _ => {
                let re = f64::from_bits(next());
                let im = f64::from_bits(next());
                PyComplex::from_doubles(py, re, im).into_any()
            }
        },
        Ty::Tuple(items) => {
            let values = items
                .iter()
                .map(|t| result_value(py, t, words, owners))
                .collect::<PyResult<Vec<_>>>()?;
            PyTuple::new(py, values)?.into_any()
        }
        _ => py.None().into_bound(py),
    })
}

/// Whether values of `ty` can come back to Python.
fn returnable(ty: &Ty) -> bool {
    match ty {
        Ty::Scalar(_) | Ty::None => true,
        Ty::Array(a) => a.fixed.is_none() && a.space == ember_jit::Space::Global,
        Ty::Tuple(items) => items.iter().all(returnable),
        Ty::Optional(t) => returnable(t),
        _ => false,
    }
}

/// An argument's object, with the byte range its elements span if it is an array.
struct ArgMemory<'py> {
    /// The bytes its elements span.
    range: (usize, usize),
    /// Its first element's address, dtype, shape and byte strides.
    layout: (usize, DType, Vec<i64>, Vec<i64>),
    array: Bound<'py, PyAny>,
}

/// The memory of the arrays in argument `a` (Python object `obj`), tuples' items included:
/// where a returned array may live.
fn arg_memory_of<'py>(
    a: &Arg<'py>,
    obj: Bound<'py, PyAny>,
    out: &mut SmallVec<[ArgMemory<'py>; 4]>,
) {
    match a {
        Arg::Array(v) => out.push(ArgMemory {
            range: memory_range(v),
            layout: (
                v.data as usize,
                v.dtype,
                v.shape().iter().map(|&n| n as i64).collect(),
                v.strides().iter().map(|&s| s as i64).collect(),
            ),
            array: obj,
        }),
        Arg::Tuple(items) => {
            for (k, item) in items.iter().enumerate() {
                if let Ok(o) = obj.get_item(k) {
                    arg_memory_of(item, o, out);
                }
            }
        }
        _ => {}
    }
}

/// Whether a result of type `t` holds an array (whose memory must be found an owner).
fn returns_arrays(t: &Ty) -> bool {
    match t {
        Ty::Array(_) => true,
        Ty::Tuple(items) => items.iter().any(returns_arrays),
        Ty::Optional(t) => returns_arrays(t),
        _ => false,
    }
}

/// Memory an array the function returns may live in: a block of the call's arena (taken out
/// of it, owned by Python from then on) or an argument's array.
struct Owners<'a, 'py> {
    arena: &'a ember_cpu::Arena,
    args: &'a [ArgMemory<'py>],
    /// Blocks already handed to Python: (start, end, owner).
    taken: Vec<(usize, usize, Py<PyAny>)>,
}

impl<'a, 'py> Owners<'a, 'py> {
    /// For a result without arrays: nothing to own.
    fn none(arena: &'a ember_cpu::Arena) -> Self {
        Owners {
            arena,
            args: &[],
            taken: Vec::new(),
        }
    }

    /// The Python object keeping the memory at `address` alive.
    /// The argument array that is exactly this array (the same elements in the same layout):
    /// a function that returns an argument returns that object, as Numba's does.
    fn argument(
        &self,
        data: usize,
        dtype: DType,
        shape: &[i64],
        strides: &[i64],
    ) -> Option<Bound<'py, PyAny>> {
        self.args
            .iter()
            .find(|m| {
                let (d, t, s, st) = &m.layout;
                *d == data && *t == dtype && s == shape && st == strides
            })
            .map(|m| m.array.clone())
    }

    fn owner(&mut self, py: Python<'py>, address: usize) -> PyResult<Bound<'py, PyAny>> {
        if let Some((_, _, o)) = self
            .taken
            .iter()
            .find(|(s, e, _)| address >= *s && address < *e)
        {
            return Ok(o.bind(py).clone());
        }
        if let Some(block) = self.arena.take_containing(address) {
            let (start, end) = (block.address(), block.address() + block.size().max(1));
            let owner = Bound::new(py, HostBlock { _block: block })?.into_any();
            self.taken.push((start, end, owner.clone().unbind()));
            return Ok(owner);
        }
        if let Some(m) = self
            .args
            .iter()
            .find(|m| address >= m.range.0 && address <= m.range.1)
        {
            return Ok(m.array.clone());
        }
        Err(pyo3::exceptions::PyRuntimeError::new_err(
            "a returned array's memory belongs to neither an argument nor the call (please report this)",
        ))
    }
}

/// The memory of arrays made by a compiled function and returned: freed when NumPy lets go.
#[pyclass(name = "HostBlock", module = "ember._ember", frozen)]
struct HostBlock {
    _block: ember_cpu::Block,
}

/// What `numpy.asarray` reads to make a returned array: its `__array_interface__`, and the
/// object that owns the memory (NumPy keeps this one as the array's base).
#[pyclass(name = "ReturnedArray", module = "ember._ember", frozen)]
struct ReturnedArray {
    interface: Py<pyo3::types::PyDict>,
    _owner: Py<PyAny>,
}

#[pymethods]
impl ReturnedArray {
    #[getter]
    fn __array_interface__(&self, py: Python<'_>) -> Py<pyo3::types::PyDict> {
        self.interface.clone_ref(py)
    }
}

/// The lowest and highest byte address an argument's elements reach.
fn memory_range(v: &HostView) -> (usize, usize) {
    let (mut lo, mut hi) = (0i64, 0i64);
    for (&n, &s) in v.shape().iter().zip(v.strides()) {
        if n == 0 {
            return (v.data as usize, v.data as usize);
        }
        let reach = (n as i64 - 1) * s as i64;
        if reach < 0 {
            lo += reach;
        } else {
            hi += reach;
        }
    }
    let base = v.data as i64;
    (
        (base + lo) as usize,
        (base + hi + v.dtype.itemsize() as i64) as usize,
    )
}

impl HostFunction {
    fn name(&self) -> &str {
        self.name.get().map_or("<function>", String::as_str)
    }

    /// The function's tree, made by the front once, and its digest.
    fn program(&self, py: Python<'_>) -> PyResult<(Arc<Program>, Py<PyList>, CacheKey)> {
        if let Some((p, e, d)) = &lock(&self.state).program {
            return Ok((p.clone(), e.clone_ref(py), *d));
        }
        let front = self
            .front
            .get()
            .ok_or_else(|| PyValueError::new_err("the function was not set up"))?;
        let made = front.call0(py)?;
        let (json, exceptions): (String, Bound<'_, PyList>) = made.bind(py).extract()?;
        let program = Arc::new(Program::from_json(&json).map_err(Error::Jit).py()?);
        let digest = tree_digest(&json);
        let mut state = lock(&self.state);
        state.program = Some((program.clone(), exceptions.clone().unbind(), digest));
        Ok((program, exceptions.unbind(), digest))
    }

    /// Compiles the function for argument types `args`.
    fn specialise(&self, py: Python<'_>, key: Key, args: &[Ty]) -> PyResult<Arc<Spec>> {
        let (program, _, digest) = self.program(py)?;
        let name = self.name().to_string();
        let options = *self.options.get().unwrap_or(&ember_cpu::Options::default());
        let cache = self.cache.get();
        let spec = py
            .detach(|| -> ember_core::Result<Spec> {
                let (ir, entry) = ember_jit::type_host(&program, args)?;
                let ret = &ir.functions[entry].ret;
                if !returnable(ret) {
                    return Err(Error::Jit(format!(
                        "{name}() returns {ret}: functions compiled for the CPU return numbers, arrays, tuples of them or None"
                    )));
                }
                let writes = ir.function_writes(entry);
                let function = match cache {
                    Some(c) => c.compile(&program, &digest, &ir, entry, args, &options)?,
                    None => ember_cpu::compile(&program, &ir, entry, &options)?,
                };
                Ok(Spec {
                    key,
                    function,
                    writes,
                })
            })
            .py()?;
        let spec = Arc::new(spec);
        lock(&self.state).specs.push(spec.clone());
        Ok(spec)
    }

    /// The specialisation for `args` (compiled now if there is none and compiling is allowed).
    fn find(&self, py: Python<'_>, args: &[Arg<'_>]) -> PyResult<Arc<Spec>> {
        let mut key = Key::new();
        args.iter().for_each(|a| a.key(&mut key));
        let frozen = {
            let state = lock(&self.state);
            if let Some(s) = state.specs.iter().find(|s| s.key == key) {
                return Ok(s.clone());
            }
            if state.frozen {
                let fitting = state.specs.iter().find(|s| {
                    s.function.args.len() == args.len()
                        && args.iter().zip(&s.function.args).all(|(a, t)| a.fits(t))
                });
                if let Some(s) = fitting {
                    return Ok(s.clone());
                }
            }
            state.frozen
        };
        if frozen {
            let shown: Vec<String> = args.iter().map(|a| a.ty().to_string()).collect();
            return Err(PyTypeError::new_err(format!(
                "No matching definition for argument type(s) {}",
                shown.join(", ")
            )));
        }
        let tys: Vec<Ty> = args.iter().map(Arg::ty).collect();
        self.specialise(py, key, &tys)
    }

    fn raise_fault(&self, py: Python<'_>, status: i64, detail: [i64; 2]) -> PyErr {
        match Fault::from_code(status) {
            Some(Fault::Raised(n)) => {
                let made = (|| -> PyResult<PyErr> {
                    let (_, exceptions, _) = self.program(py)?;
                    let (cls, args): (Bound<'_, PyAny>, Bound<'_, PyTuple>) =
                        exceptions.bind(py).get_item(n)?.extract()?;
                    Ok(PyErr::from_value(cls.call1(args)?))
                })();
                made.unwrap_or_else(|e| e)
            }
            Some(Fault::Builtin(b)) => {
                let (class, message) = b.message(detail);
                // Python's own, or a module's (`numpy.exceptions.AxisError`).
                let (module, name) = class.rsplit_once('.').unwrap_or(("builtins", class));
                match py
                    .import(module)
                    .and_then(|m| m.getattr(name))
                    .and_then(|c| c.call1((message,)))
                {
                    Ok(e) => PyErr::from_value(e),
                    Err(e) => e,
                }
            }
            None => PyValueError::new_err(format!(
                "{}() was called with fewer arguments than it was compiled for",
                self.name()
            )),
        }
    }
}

#[pymethods]
impl HostFunction {
    #[new]
    #[pyo3(signature = (*_args, **_kwargs))]
    fn new(_args: &Bound<'_, PyTuple>, _kwargs: Option<&Bound<'_, pyo3::types::PyDict>>) -> Self {
        HostFunction {
            front: OnceLock::new(),
            name: OnceLock::new(),
            options: OnceLock::new(),
            cache: OnceLock::new(),
            params: OnceLock::new(),
            state: Mutex::new(State {
                program: None,
                specs: Vec::new(),
                frozen: false,
            }),
        }
    }

    /// Sets the front (returning the tree JSON and the exceptions list), the name, the
    /// options that change the code (`parallel`...) and whether specialisations are kept in
    /// the disk cache.
    #[pyo3(signature = (front, name, parallel=false, boundscheck=false, fastmath=false, cache=false, numpy_errors=false, params=usize::MAX))]
    #[allow(clippy::too_many_arguments)]
    fn _setup(
        &self,
        front: Py<PyAny>,
        name: String,
        parallel: bool,
        boundscheck: bool,
        fastmath: bool,
        cache: bool,
        numpy_errors: bool,
        params: usize,
    ) -> PyResult<()> {
        let _ = self.params.set(params);
        let _ = self.options.set(ember_cpu::Options {
            parallel,
            boundscheck,
            fastmath,
            numpy_errors,
        });
        if cache {
            if let Some(c) = HostCache::open().py()? {
                let _ = self.cache.set(c);
            }
        }
        self.front
            .set(front)
            .map_err(|_| PyValueError::new_err("the function is already set up"))?;
        let _ = self.name.set(name);
        Ok(())
    }

    /// Compiles for a declared signature (`"float64(float64, int64[:])"`); after the first,
    /// calls convert their arguments to a declared one instead of compiling new ones.
    fn _compile_signature(&self, py: Python<'_>, signature: &str) -> PyResult<()> {
        let (ret, args) = ember_jit::parse_signature(signature).map_err(PyTypeError::new_err)?;
        let mut key = Key::new();
        key.push(0); // declared: never equal to a call's key
        key.extend(signature.bytes().take(14));
        let spec = self.specialise(py, key, &args)?;
        if let Some(r) = ret {
            if r != spec.function.ret {
                // Numba converts the result to the declared type; ember says so instead.
                if !(matches!(r, Ty::Scalar(_)) && matches!(spec.function.ret, Ty::Scalar(_))) {
                    return Err(crate::errors::to_py(Error::Jit(format!(
                        "{}() returns {} but its signature declares {r}",
                        self.name(),
                        spec.function.ret
                    ))));
                }
            }
        }
        lock(&self.state).frozen = true;
        Ok(())
    }

    /// The type the function returns for arguments of the types `signature` lists (Numba's
    /// tuple form, `"(float64, int64)"`), compiling that specialisation if there is none; calls
    /// stay free to compile others (a `@vectorize` ufunc types its function so).
    fn _return_type(&self, py: Python<'_>, signature: &str) -> PyResult<String> {
        let (_, args) = ember_jit::parse_signature(signature).map_err(PyTypeError::new_err)?;
        let known = lock(&self.state)
            .specs
            .iter()
            .find(|s| s.function.args == args)
            .cloned();
        let spec = match known {
            Some(s) => s,
            None => {
                let mut key = Key::new();
                key.push(0); // declared: never equal to a call's key
                key.extend(signature.bytes().take(14));
                self.specialise(py, key, &args)?
            }
        };
        Ok(spec.function.ret.to_string())
    }

    /// `cache=True`: the cache folder, and (argument types, loaded from disk) per
    /// specialisation made; `None` without the disk cache.
    #[getter]
    fn _cache_events(&self) -> Option<(String, Vec<(String, bool)>)> {
        let c = self.cache.get()?;
        Some((c.dir().display().to_string(), c.events()))
    }

    /// Numba's `signatures`: the argument types of each specialisation.
    #[getter]
    fn _specialisations(&self) -> Vec<String> {
        lock(&self.state)
            .specs
            .iter()
            .map(|s| {
                let args: Vec<String> = s.function.args.iter().map(|t| t.to_string()).collect();
                format!("({})", args.join(", "))
            })
            .collect()
    }

    #[pyo3(signature = (*args, **kwargs))]
    fn __call__<'py>(
        slf: &Bound<'py, Self>,
        py: Python<'py>,
        args: &Bound<'py, PyTuple>,
        kwargs: Option<&Bound<'py, pyo3::types::PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let this = slf.get();
        let params = this.params.get().copied().unwrap_or(usize::MAX);
        let keywords = kwargs.is_some_and(|k| !k.is_empty());
        if keywords || (params != usize::MAX && args.len() != params) {
            let bound = slf.call_method1("_bind", (args, kwargs))?;
            return this.run(py, bound.cast::<PyTuple>()?);
        }
        this.run(py, args)
    }
}

impl HostFunction {
    /// Calls the compiled function with `args`, one per parameter.
    fn run<'py>(&self, py: Python<'py>, args: &Bound<'py, PyTuple>) -> PyResult<Bound<'py, PyAny>> {
        // Pushed one by one: collecting a PyResult builds the vector elsewhere and copies it.
        let mut read: SmallVec<[Arg<'py>; 4]> = SmallVec::new();
        for a in args.iter() {
            read.push(read_arg(&a, 0)?);
        }
        let spec = self.find(py, &read)?;
        let f = &spec.function;
        let mut words: SmallVec<[u64; 16]> = SmallVec::new();
        for (k, (a, t)) in read.iter().zip(&f.args).enumerate() {
            if let Arg::Array(v) = a {
                if !v.writeable && spec.writes.get(k).copied().unwrap_or(false) {
                    return Err(PyValueError::new_err(format!(
                        "{}() writes to argument {k}, a read-only array: assignment destination is read-only (pass a writeable array, or a copy)",
                        self.name()
                    )));
                }
            }
            a.pack(t, &mut words)?;
        }
        let mut results: SmallVec<[u64; 4]> = smallvec::smallvec![0; f.result_words];
        // The arrays stay alive through `args`; the code touches nothing else of Python's.
        let words_ref = &words[..];
        let results_ref = &mut results[..];
        let arena = ember_cpu::Arena::new();
        let mut ctx = ember_cpu::CallContext::with_arena(&arena);
        let ctx_ref = &mut ctx;
        if f.may_run_long {
            without_gil(|| unsafe { f.call(ctx_ref, words_ref, results_ref) });
        } else {
            unsafe { f.call(ctx_ref, words_ref, results_ref) };
        }
        if ctx.status != 0 {
            return Err(self.raise_fault(py, ctx.status, ctx.detail));
        }
        if !returns_arrays(&f.ret) {
            let mut words = results.into_iter();
            return result_value(py, &f.ret, &mut words, &mut Owners::none(&arena));
        }
        let mut arg_memory: SmallVec<[ArgMemory<'py>; 4]> = SmallVec::new();
        for (a, obj) in read.iter().zip(args.iter()) {
            arg_memory_of(a, obj, &mut arg_memory);
        }
        let mut owners = Owners {
            arena: &arena,
            args: &arg_memory,
            taken: Vec::new(),
        };
        result_value(py, &f.ret, &mut results.into_iter(), &mut owners)
    }
}

/// Runs `work` with the GIL released (`nogil`, on for every call that may take long). The interpreter's own pair of calls:
/// pyo3's `detach` costs 0.25 µs more per call (measured), the whole budget of a scalar
/// call. `work` touches no Python object and cannot unwind (compiled code reports faults in
/// its context), so the GIL is always taken back.
fn without_gil<T>(work: impl FnOnce() -> T) -> T {
    let state = unsafe { pyo3::ffi::PyEval_SaveThread() };
    let result = work();
    unsafe { pyo3::ffi::PyEval_RestoreThread(state) };
    result
}

/// `print(...)` in compiled functions: Python writes the line (floats as `repr` writes them,
/// to whatever `sys.stdout` is now), as Numba's CPU print does.
fn print_with_python(line: &[ember_cpu::PrintPiece<'_>]) {
    // The caller let the GIL go with the interpreter's own call (see `without_gil`), which
    // pyo3 does not see, so `Python::attach` would think it still held: take it back the
    // interpreter's way (from any thread: a prange worker too).
    let state = unsafe { pyo3::ffi::PyGILState_Ensure() };
    let py = unsafe { Python::assume_attached() };
    {
        let text = ember_cpu::line_text(
            line,
            |v| {
                PyFloat::new(py, v)
                    .str()
                    .map_or_else(|_| v.to_string(), |s| s.to_string_lossy().into_owned())
            },
            |re, im| {
                PyComplex::from_doubles(py, re, im).str().map_or_else(
                    |_| format!("({re}{im:+}j)"),
                    |s| s.to_string_lossy().into_owned(),
                )
            },
        );
        let printed = py
            .import("builtins")
            .and_then(|b| b.getattr("print"))
            .and_then(|print| {
                let kwargs = pyo3::types::PyDict::new(py);
                kwargs.set_item("end", "")?;
                print.call((text,), Some(&kwargs))
            });
        if let Err(e) = printed {
            e.write_unraisable(py, None);
        }
    }
    unsafe { pyo3::ffi::PyGILState_Release(state) };
}

/// How many threads `prange` loops started in this thread use (Numba's `get_num_threads`).
#[pyfunction]
fn get_num_threads() -> usize {
    ember_cpu::num_threads()
}

/// Sets how many threads `prange` loops started in this thread use (Numba's `set_num_threads`).
#[pyfunction]
fn set_num_threads(n: i64) -> PyResult<()> {
    ember_cpu::set_num_threads(n).map_err(PyValueError::new_err)
}

/// The threads of the pool `prange` loops run on, the caller's included.
#[pyfunction]
fn pool_threads() -> usize {
    ember_cpu::pool_threads()
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    ember_cpu::set_printer(print_with_python);
    m.add_function(wrap_pyfunction!(get_num_threads, m)?)?;
    m.add_function(wrap_pyfunction!(set_num_threads, m)?)?;
    m.add_function(wrap_pyfunction!(pool_threads, m)?)?;
    m.add_class::<HostBlock>()?;
    m.add_class::<ReturnedArray>()?;
    m.add_class::<HostFunction>()
}
