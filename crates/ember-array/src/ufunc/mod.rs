//! NumPy's universal functions on ember arrays: type resolution as NumPy 2 does it (tables
//! generated from NumPy), broadcasting, `out=`, and one generated kernel per (ufunc, dtypes,
//! layout), cached.

pub mod deferred;
mod fast;
pub mod fused;

use ember_codegen::types::{cast, value_type};
use ember_codegen::{Cover, Param, Role, Snippets, UserMap};
use ember_core::dtype::Kind;
use ember_core::shape::{broadcast_shapes, format_shape};
use ember_core::{DType, Error, Result, Scalar};
use ember_runtime::{Device, Function};

use crate::array::Array;
use crate::user_kernel::map_plan::{self, Binding};
pub use ember_codegen::ufuncs::{expr, resolve, tables};
use ember_kernel::{compile_generated, dialect, scalar_param, KernelMemo, Rounding};
pub use resolve::{ufunc, OperandType, Ufunc};

/// An input of a ufunc call.
#[derive(Clone, Debug)]
pub enum Operand {
    Array(Array),
    /// A host value and how it takes part in type resolution.
    Scalar(Scalar, OperandType),
}

impl Operand {
    fn kind(&self) -> OperandType {
        match self {
            Operand::Array(a) => OperandType::Strong(a.dtype()),
            Operand::Scalar(_, t) => *t,
        }
    }
}

/// What a compiled ufunc kernel is specialised on (fixed-size: building one allocates
/// nothing, it is made on every call).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct KernelKey {
    ufunc: usize,
    /// Per input: the array's dtype, or `None` for a scalar parameter.
    inputs: [Option<DType>; 3],
    /// The loop, by its position in the ufunc's table.
    loop_index: usize,
    outputs: [Option<DType>; 2],
    ndim: usize,
    vector: bool,
    checked: bool,
    device: usize,
}

/// A ufunc's outputs (inline: one or two).
pub type Outputs = smallvec::SmallVec<[Array; 2]>;

/// The kind of Python scalar an operand is (`None`: an array or a NumPy scalar).
fn python_kind(t: &OperandType) -> Option<ember_core::dtype::Kind> {
    match t {
        OperandType::Weak(kind) => Some(*kind),
        OperandType::Strong(_) => None,
    }
}

/// The ufunc NumPy's float32/float64 `power` loops become for an exponent of one value (a
/// scalar): `square` for 2 and `sqrt` for 0.5, on a base already of the loop's type. The
/// numbers are pow's but for the square root's signs (`sqrt(-0.0)` is -0.0, `sqrt(-inf)`
/// NaN, as NumPy gives), and they cost a multiply or a square root, where a device's `pow`
/// costs far more (float64 on PoCL: 150 ns an element). NumPy's float16 loop has no such path.
fn scalar_power(u: &Ufunc, inputs: &[Operand], loop_type: DType) -> Result<Option<&'static Ufunc>> {
    if u.name != "power" || !matches!(loop_type, DType::F32 | DType::F64) {
        return Ok(None);
    }
    let (Some(Operand::Array(base)), Some(Operand::Scalar(exponent, _))) =
        (inputs.first(), inputs.get(1))
    else {
        return Ok(None);
    };
    if base.dtype() != loop_type {
        return Ok(None);
    }
    let name = match *exponent {
        Scalar::Float(2.0) | Scalar::Int(2) | Scalar::UInt(2) => "square",
        Scalar::Float(0.5) => "sqrt",
        _ => return Ok(None),
    };
    ember_codegen::ufuncs::resolve::ufunc(name).map(Some)
}

/// Applies `u` to `inputs`, writing into `out` where given (one slot per output), with
/// `dtype=` forcing the loop type. Returns the outputs.
pub fn apply(
    device: &'static Device,
    u: &'static Ufunc,
    inputs: &[Operand],
    out: &[Option<Array>],
    dtype: Option<DType>,
) -> Result<Outputs> {
    if inputs.len() != u.nin {
        return Err(Error::Type(format!(
            "{}() takes from {} to {} positional arguments but {} were given",
            u.name,
            u.nin,
            u.nin + u.nout,
            inputs.len()
        )));
    }
    ember_runtime::deferred::check()?;
    if out.iter().all(Option::is_none) && dtype.is_none() {
        let arrays: smallvec::SmallVec<[&Array; 3]> = inputs
            .iter()
            .filter_map(|op| match op {
                Operand::Array(a) => Some(a),
                Operand::Scalar(..) => None,
            })
            .collect();
        if arrays.len() == inputs.len() {
            if let Some(result) = fast::apply(u, &arrays)? {
                return Ok(std::iter::once(result).collect());
            }
        }
    }
    let kinds: smallvec::SmallVec<[OperandType; 3]> = inputs.iter().map(Operand::kind).collect();
    let found = resolve::find_loop(u, &kinds, dtype)?;
    let (loop_in, loop_out) = *found;
    if let Some(instead) = scalar_power(u, inputs, loop_in[0])? {
        return apply(device, instead, &inputs[..1], out, dtype);
    }
    // NumPy refuses integer powers with negative exponents; a scalar exponent is checked here
    // (an array of exponents would need a read of the device: its negative entries give 0).
    if u.name == "power"
        && loop_in[0].kind() != ember_core::dtype::Kind::Float
        && loop_in[0].kind() != ember_core::dtype::Kind::Complex
    {
        if let Some(Operand::Scalar(Scalar::Int(e), _)) = inputs.get(1) {
            if *e < 0 {
                return Err(Error::Value(
                    "Integers to negative integer powers are not allowed.".into(),
                ));
            }
        }
    }
    let device = inputs
        .iter()
        .find_map(|o| match o {
            Operand::Array(a) => Some(a.device()),
            Operand::Scalar(..) => None,
        })
        .unwrap_or(device);
    for op in inputs {
        if let Operand::Array(a) = op {
            if !std::ptr::eq(a.device(), device) {
                return Err(Error::Value(format!(
                    "operands of {} are on different devices ({} and {}); copy one with get()/asarray first",
                    u.name,
                    a.device().info().ordinal,
                    device.info().ordinal
                )));
            }
        }
    }
    let shapes: smallvec::SmallVec<[&[usize]; 3]> = inputs
        .iter()
        .filter_map(|o| match o {
            Operand::Array(a) => Some(a.shape()),
            Operand::Scalar(..) => None,
        })
        .collect();
    let mut shape = broadcast_shapes(&shapes)?;
    // Given outputs must hold the broadcast result (and may widen it, as NumPy allows).
    for (j, &loop_t) in loop_out.iter().enumerate() {
        if let Some(o) = out.get(j).and_then(Option::as_ref) {
            check_output(u, device, &shape, o, loop_t)?;
            shape = o.shape().to_vec();
        }
    }
    // An integer compared with a Python int beyond its range: NumPy 2 answers exactly, and the
    // answer is the same for every element.
    if let Some(answer) = out_of_range_comparison(u, loop_in, inputs) {
        let result = match out.first().and_then(Option::as_ref) {
            Some(o) => o.clone(),
            None => Array::empty(device, &shape, loop_out[0])?,
        };
        if result.size() > 0 {
            crate::creation::fill(&result, Scalar::Bool(answer))?;
        }
        return Ok(std::iter::once(result).collect());
    }
    // Scalars are checked now (a Python int out of the loop type's range raises here).
    for (k, op) in inputs.iter().enumerate() {
        if let Operand::Scalar(v, t) = op {
            scalar_param(*v, python_kind(t), loop_in[k])?;
        }
    }
    let mut outputs = Outputs::new();
    for (j, &loop_t) in loop_out.iter().enumerate() {
        outputs.push(match out.get(j).and_then(Option::as_ref) {
            Some(o) => o.clone(),
            None => Array::empty(device, &shape, loop_t)?,
        });
    }
    let n: usize = shape.iter().product();
    if n == 0 {
        return Ok(outputs);
    }
    let given_out = out.iter().any(Option::is_some);
    if !given_out && dtype.is_none() && deferred::wants(u, found, inputs, n) {
        // The kernel that computes it alone is compiled now: a compile error is raised here,
        // where eager code raises it, and the result can always be computed alone later.
        run_loop(device, u, found, inputs, &outputs, &shape, false)?;
        deferred::record(u, found, inputs, &outputs[0])?;
        return Ok(outputs);
    }
    run_loop(device, u, found, inputs, &outputs, &shape, true)?;
    Ok(outputs)
}

/// `u` over arrays alone (`u.nin` of them), without `out=` or `dtype=`, when the call has the
/// common form that skips resolution and planning (see `fast`); `None` otherwise, for
/// [`apply`] to take. The operators' path: the arrays are borrowed, not copied.
pub fn apply_arrays(u: &'static Ufunc, arrays: &[&Array]) -> Result<Option<Array>> {
    ember_runtime::deferred::check()?;
    fast::apply(u, arrays)
}

/// Launches `u`'s loop `found` over `inputs` into `outputs` (all of the broadcast `shape`,
/// which is not empty); with `launch` false, only makes sure its kernel is compiled.
fn run_loop(
    device: &'static Device,
    u: &'static Ufunc,
    found: &'static tables::Loop,
    inputs: &[Operand],
    outputs: &[Array],
    shape: &[usize],
    launch: bool,
) -> Result<()> {
    let (loop_in, _) = *found;
    let n: usize = shape.iter().product();
    // An input overlapping an output in another layout is read from a copy, as NumPy does.
    let mut copies: smallvec::SmallVec<[Option<Array>; 3]> = smallvec::SmallVec::new();
    for op in inputs {
        copies.push(match op {
            Operand::Array(a) if outputs.iter().any(|o| overlaps_differently(a, o)) => {
                Some(a.copy()?)
            }
            _ => None,
        });
    }
    let mut bindings: smallvec::SmallVec<[Binding; 4]> = smallvec::SmallVec::new();
    for (k, (op, copy)) in inputs.iter().zip(&copies).enumerate() {
        bindings.push(match (op, copy) {
            (_, Some(c)) => Binding::Array(c),
            (Operand::Array(a), None) => Binding::Array(a),
            (Operand::Scalar(v, t), None) => {
                Binding::Scalar(scalar_param(*v, python_kind(t), loop_in[k])?)
            }
        });
    }
    bindings.extend(outputs.iter().map(Binding::Array));
    let roles: smallvec::SmallVec<[Role; 4]> = (0..u.nin + u.nout)
        .map(|k| match (&bindings[k], k < u.nin) {
            (Binding::Scalar(_), _) => Role::Scalar,
            (_, true) => Role::Input,
            _ => Role::Output,
        })
        .collect();
    let layout = map_plan::plan_roles(shape, &roles, &bindings);
    let input_types = inputs.iter().map(|o| match o {
        Operand::Array(a) => Some(a.dtype()),
        Operand::Scalar(..) => None,
    });
    let output_types = outputs.iter().map(Array::dtype);
    let function = loop_kernel(device, u, found, input_types, output_types, &layout)?;
    if !launch {
        return Ok(());
    }
    let operand = |k: usize| match k < u.nin {
        true => format!("input {k} of ufunc '{}'", u.name),
        false => format!("output {} of ufunc '{}'", k - u.nin, u.name),
    };
    map_plan::launch(
        device,
        &function,
        n,
        &bindings,
        &layout,
        map_plan::Body::Generated,
        &operand,
    )
}

/// The compiled kernel of `u`'s loop `found` for inputs of these dtypes (`None`: a scalar
/// parameter), outputs of these dtypes and `layout`.
fn loop_kernel(
    device: &'static Device,
    u: &'static Ufunc,
    found: &'static tables::Loop,
    input_types: impl Iterator<Item = Option<DType>>,
    output_types: impl Iterator<Item = DType>,
    layout: &map_plan::MapPlan,
) -> Result<Function> {
    let mut key = KernelKey {
        ufunc: u.id,
        inputs: [None; 3],
        loop_index: u
            .loops
            .iter()
            .position(|l| std::ptr::eq(l, found))
            .unwrap_or(0),
        outputs: [None; 2],
        ndim: layout.loop_shape.len(),
        vector: layout.vector,
        checked: layout.checked,
        device: device.info().ordinal,
    };
    for (slot, t) in key.inputs.iter_mut().zip(input_types) {
        *slot = t;
    }
    for (slot, t) in key.outputs.iter_mut().zip(output_types) {
        *slot = Some(t);
    }
    kernel(device, u, key, layout)
}

/// The answer of comparison `u` when its integer loop meets a Python int beyond the loop
/// type's range (larger than every value, or smaller), else `None`.
fn out_of_range_comparison(u: &Ufunc, loop_in: &[DType], inputs: &[Operand]) -> Option<bool> {
    // Python ints are rare operands: looked for first, the name only then.
    let (k, value) = inputs.iter().enumerate().find_map(|(k, op)| match op {
        Operand::Scalar(v, OperandType::Weak(Kind::Int)) => Some((k, *v)),
        _ => None,
    })?;
    if !matches!(
        u.name,
        "equal" | "not_equal" | "less" | "less_equal" | "greater" | "greater_equal"
    ) {
        return None;
    }
    let dtype = loop_in[k];
    if !dtype.is_integer() {
        return None;
    }
    let (lo, hi) = dtype.int_bounds()?;
    let above = match value {
        Scalar::Int(i) if (i as i128) > hi => true,
        Scalar::UInt(v) if (v as i128) > hi => true,
        Scalar::Float(f) if f > 0.0 => true,
        Scalar::Int(i) if (i as i128) < lo => false,
        Scalar::Float(_) => false,
        _ => return None,
    };
    // As `array OP scalar`.
    let name = if k == 0 {
        expr::mirrored(u.name)
    } else {
        u.name
    };
    Some(match name {
        "equal" => false,
        "not_equal" => true,
        "less" | "less_equal" => above,
        _ => !above,
    })
}

fn check_output(
    u: &Ufunc,
    device: &Device,
    shape: &[usize],
    o: &Array,
    loop_t: DType,
) -> Result<()> {
    if !std::ptr::eq(o.device(), device) {
        return Err(Error::Value(format!(
            "the output of {} is on device {} but the inputs are on device {}",
            u.name,
            o.device().info().ordinal,
            device.info().ordinal
        )));
    }
    // NumPy checks the cast before the shape.
    if !resolve::can_cast_same_kind(loop_t, o.dtype()) {
        return Err(Error::Type(format!(
            "Cannot cast ufunc '{}' output from dtype('{}') to dtype('{}') with casting rule 'same_kind'",
            u.name,
            loop_t.name(),
            o.dtype().name()
        )));
    }
    let joint = broadcast_shapes(&[shape, o.shape()])?;
    if joint != o.shape() {
        return Err(Error::Value(format!(
            "non-broadcastable output operand with shape {} doesn't match the broadcast shape {}",
            format_shape(o.shape()),
            format_shape(&joint)
        )));
    }
    Ok(())
}

fn overlaps_differently(input: &Array, output: &Array) -> bool {
    std::sync::Arc::ptr_eq(input.buffer(), output.buffer())
        && (input.offset() != output.offset()
            || input.strides() != output.strides()
            || input.shape() != output.shape())
}

fn kernel(
    device: &'static Device,
    u: &Ufunc,
    key: KernelKey,
    layout: &map_plan::MapPlan,
) -> Result<Function> {
    static KERNELS: KernelMemo<KernelKey> = KernelMemo::new();
    KERNELS.get_or_compile(device, &key, || {
        let d = dialect(device);
        let mut spec = kernel_spec(
            u,
            key.loop_index,
            &key.inputs,
            &key.outputs,
            layout.loop_shape.len(),
            layout.vector,
            d,
        )?;
        spec.checked = layout.checked;
        spec.cover = layout.cover;
        compile_generated(
            device,
            &spec.source(d),
            &spec.common.name,
            &[],
            Rounding::Separate,
        )
    })
}

/// The kernel of ufunc `u`'s loop `loop_index` over inputs of these dtypes (`None`: a scalar
/// parameter) and outputs of these dtypes, for a layout of `ndim` strided axes (0: flat) with
/// or without vector loads.
pub fn kernel_spec(
    u: &Ufunc,
    loop_index: usize,
    inputs: &[Option<DType>],
    outputs: &[Option<DType>],
    ndim: usize,
    vector: bool,
    d: ember_codegen::Dialect,
) -> Result<UserMap> {
    let (loop_in, loop_outs) = *u
        .loops
        .get(loop_index)
        .ok_or_else(|| Error::Value(format!("ufunc '{}' has no loop {loop_index}", u.name)))?;
    // The kernel's parameters, named in0.., out0..: arrays keep their dtype, scalars come as
    // the loop's type.
    let mut params = Vec::with_capacity(u.nin + u.nout);
    for (k, input) in inputs.iter().take(u.nin).enumerate() {
        params.push(match input {
            Some(dtype) => Param {
                name: format!("in{k}"),
                dtype: *dtype,
                role: Role::Input,
            },
            None => Param {
                name: format!("in{k}"),
                dtype: loop_in[k],
                role: Role::Scalar,
            },
        });
    }
    for (j, dtype) in outputs.iter().take(u.nout).enumerate() {
        let dtype = dtype.ok_or_else(|| Error::Value("a ufunc output has no dtype".into()))?;
        params.push(Param {
            name: format!("out{j}"),
            dtype,
            role: Role::Output,
        });
    }
    let args: Vec<String> = params[..u.nin]
        .iter()
        .zip(loop_in)
        .map(|(p, &t)| cast(&p.name, p.dtype, t, d))
        .collect();
    let loop_out = loop_outs[0];
    let e = u.expression(loop_in, loop_out, &args, d)?;
    let out0 = params[u.nin].dtype;
    // C computes narrow integers in int: the result is the loop type's value first (int8
    // -(-128) is -128 and int16 products wrap) before any wider out= dtype sees it.
    let narrow = matches!(loop_out.kind(), Kind::Int | Kind::UInt) && loop_out.itemsize() < 4;
    let result = if narrow && loop_out != out0 {
        format!("(({})({}))", value_type(loop_out, d), e.code)
    } else {
        format!("({})", e.code)
    };
    let operation = format!("out0 = {}", cast(&result, loop_out, out0, d));
    Ok(UserMap {
        common: Snippets {
            name: format!("ember_{}", u.name),
            typedefs: Vec::new(),
            params,
            preamble: e.helpers,
        },
        operation,
        loop_prep: String::new(),
        after_loop: String::new(),
        ndim,
        vector,
        checked: false,
        cover: Cover::GridStride,
    })
}
