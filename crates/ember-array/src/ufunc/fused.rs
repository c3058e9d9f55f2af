//! `ember.fuse`: a traced elementwise function becomes the body of one elementwise kernel.
//!
//! Python records what the function does to its parameters (ufunc calls, casts, `where`) as
//! steps; here each step's loop is resolved exactly as the ufunc call would resolve it (NEP 50:
//! Python scalars stay weak) and its C expression is the ufunc's own, so a fused function
//! computes what the same code computes eagerly, in one pass over memory.

use std::fmt::Write;

use ember_codegen::prelude::complex_prelude;
use ember_codegen::types::{cast, round_call, round_function, value_type};
use ember_codegen::{Cover, Dialect, Param, Role, Snippets, UserMap};
use ember_core::{DType, Error, Result};

use super::resolve::{find_loop, ufunc, OperandType};
pub(super) use crate::result_type::default_of;

/// A parameter of the fused kernel, named `in{k}`: an array of `dtype`, or a Python scalar
/// (`weak`) passed as `dtype` (bool, int64, float64 or complex128) whose kind alone counts.
#[derive(Clone, Copy, Debug)]
pub struct FusedParam {
    pub dtype: DType,
    pub weak: bool,
}

/// A value a step reads: a parameter, or an earlier step's result.
#[derive(Clone, Copy, Debug)]
pub enum Ref {
    Param(usize),
    Step(usize),
}

/// One operation of the traced function.
#[derive(Clone, Debug)]
pub enum Step {
    /// The ufunc called `name` on `args`.
    Ufunc { name: String, args: Vec<Ref> },
    /// `x.astype(to)`.
    Cast { arg: Ref, to: DType },
    /// `where(cond, x, y)`: the result type is NumPy's result type of `x` and `y`.
    Where { cond: Ref, x: Ref, y: Ref },
}

/// The kernel body: statements assigning `out0..`, the helper functions they call, and the
/// outputs' dtypes.
#[derive(Clone, Debug, PartialEq)]
pub struct FusedBody {
    pub operation: String,
    pub preamble: String,
    pub outputs: Vec<DType>,
}

/// A value in the body: its C name, dtype, and whether it is still a weak Python scalar.
#[derive(Clone)]
struct Value {
    code: String,
    dtype: DType,
    weak: bool,
}

impl Value {
    fn operand_type(&self) -> OperandType {
        if self.weak {
            OperandType::Weak(self.dtype.kind())
        } else {
            OperandType::Strong(self.dtype)
        }
    }
}

/// Builds the body of `steps` over `params`, returning `outputs`.
pub fn fused_body(
    params: &[FusedParam],
    steps: &[Step],
    outputs: &[Ref],
    dialect: Dialect,
) -> Result<FusedBody> {
    let mut values: Vec<Value> = Vec::with_capacity(steps.len());
    let mut body = String::new();
    let mut helpers: Vec<String> = Vec::new();
    let mut complex_values = false;
    let value_of = |values: &[Value], r: Ref| -> Result<Value> {
        match r {
            Ref::Param(k) => params
                .get(k)
                .map(|p| Value {
                    code: format!("in{k}"),
                    dtype: p.dtype,
                    weak: p.weak,
                })
                .ok_or_else(|| {
                    Error::Value(format!(
                        "fused step reads parameter {k}, which does not exist"
                    ))
                }),
            Ref::Step(j) => values.get(j).cloned().ok_or_else(|| {
                Error::Value(format!("fused step reads step {j} before it is computed"))
            }),
        }
    };
    for (j, step) in steps.iter().enumerate() {
        let (code, dtype, weak) = match step {
            Step::Ufunc { name, args } => {
                let u = ufunc(name)?;
                if u.nout != 1 {
                    return Err(Error::Type(format!(
                        "{name} has {} outputs; a fused function can call only ufuncs with one",
                        u.nout
                    )));
                }
                let ins: Vec<Value> = args
                    .iter()
                    .map(|&r| value_of(&values, r))
                    .collect::<Result<_>>()?;
                let kinds: Vec<OperandType> = ins.iter().map(Value::operand_type).collect();
                let (loop_in, loop_out) = *find_loop(u, &kinds, None)?;
                let codes: Vec<String> = ins
                    .iter()
                    .zip(loop_in)
                    .map(|(v, &t)| cast(&v.code, v.dtype, t, dialect))
                    .collect();
                let e = u.expression(loop_in, loop_out[0], &codes, dialect)?;
                add_helpers(&mut helpers, &e.helpers);
                // An operation on Python scalars alone gives a Python scalar (still weak).
                // Each step rounds on its own as eager code does: fused kernels are compiled
                // with `Rounding::Separate` (no multiply-add contraction across steps).
                (e.code, loop_out[0], ins.iter().all(|v| v.weak))
            }
            Step::Cast { arg, to } => {
                let v = value_of(&values, *arg)?;
                (cast(&v.code, v.dtype, *to, dialect), *to, false)
            }
            Step::Where { cond, x, y } => {
                let c = value_of(&values, *cond)?;
                let (x, y) = (value_of(&values, *x)?, value_of(&values, *y)?);
                let add = ufunc("add")?;
                let t = find_loop(add, &[x.operand_type(), y.operand_type()], None)?.0[0];
                let code = format!(
                    "({} ? {} : {})",
                    cast(&c.code, c.dtype, DType::Bool, dialect),
                    cast(&x.code, x.dtype, t, dialect),
                    cast(&y.code, y.dtype, t, dialect)
                );
                (code, t, x.weak && y.weak)
            }
        };
        // Narrow float values live in float: eager code rounds each result when it stores it,
        // so a fused step rounds it too.
        let code = if dtype.is_narrow() {
            add_helpers(
                &mut helpers,
                &round_function(dtype, dialect, "static __device__"),
            );
            round_call(dtype, &code)
        } else {
            code
        };
        if dtype.is_complex() && !complex_values {
            // A complex value where every operand may be real: the kernel's prelude would
            // lack the complex types.
            complex_values = true;
            helpers.insert(0, complex_prelude(dialect));
        }
        let _ = writeln!(body, "const {} _f{j} = {code};", value_type(dtype, dialect));
        values.push(Value {
            code: format!("_f{j}"),
            dtype,
            weak,
        });
    }
    let mut out_dtypes = Vec::with_capacity(outputs.len());
    for (k, &r) in outputs.iter().enumerate() {
        let v = value_of(&values, r)?;
        if matches!(r, Ref::Param(p) if params[p].weak) {
            return Err(Error::Type(format!(
                "output {k} of the fused function is a Python scalar parameter; return arrays (or expressions of them)"
            )));
        }
        // A weak result (Python scalars alone) takes NumPy's default type of its kind.
        let dtype = if v.weak {
            default_of(v.dtype.kind())
        } else {
            v.dtype
        };
        let _ = writeln!(body, "out{k} = {};", cast(&v.code, v.dtype, dtype, dialect));
        out_dtypes.push(dtype);
    }
    Ok(FusedBody {
        operation: body,
        preamble: helpers.concat(),
        outputs: out_dtypes,
    })
}

/// The elementwise kernel computing `steps` (the last one's value) over `params` (each with
/// whether it is an array, else a scalar parameter) into `out0` of dtype `output`, for a layout
/// of `ndim` strided axes (0: flat) with or without vector loads.
pub fn fused_map(
    params: &[(FusedParam, bool)],
    steps: &[Step],
    output: DType,
    ndim: usize,
    vector: bool,
    dialect: Dialect,
) -> Result<UserMap> {
    let fused: Vec<FusedParam> = params.iter().map(|(p, _)| *p).collect();
    let last = steps
        .len()
        .checked_sub(1)
        .ok_or_else(|| Error::Value("a fused expression needs at least one step".into()))?;
    let body = fused_body(&fused, steps, &[Ref::Step(last)], dialect)?;
    if body.outputs != [output] {
        return Err(Error::Value(format!(
            "the fused expression gives {:?} where the ufuncs gave {output}",
            body.outputs
        )));
    }
    let mut kernel_params: Vec<Param> = params
        .iter()
        .enumerate()
        .map(|(k, (p, array))| Param {
            name: format!("in{k}"),
            dtype: p.dtype,
            role: if *array { Role::Input } else { Role::Scalar },
        })
        .collect();
    kernel_params.push(Param {
        name: "out0".into(),
        dtype: output,
        role: Role::Output,
    });
    Ok(UserMap {
        common: Snippets {
            name: "ember_fused".into(),
            typedefs: Vec::new(),
            params: kernel_params,
            preamble: body.preamble,
        },
        operation: body.operation,
        loop_prep: String::new(),
        after_loop: String::new(),
        ndim,
        vector,
        checked: false,
        cover: Cover::GridStride,
    })
}

/// Adds each helper function in `text` (each starts with `static __device__`) once: two
/// ufuncs may need the same helper, and C refuses a second definition.
fn add_helpers(seen: &mut Vec<String>, text: &str) {
    let mut current = String::new();
    let flush = |current: &mut String, seen: &mut Vec<String>| {
        if !current.trim().is_empty() && !seen.contains(current) {
            seen.push(std::mem::take(current));
        }
        current.clear();
    };
    for line in text.split_inclusive('\n') {
        if line.starts_with("static __device__") {
            flush(&mut current, seen);
        }
        current.push_str(line);
    }
    flush(&mut current, seen);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn array(dtype: DType) -> FusedParam {
        FusedParam { dtype, weak: false }
    }

    fn weak(dtype: DType) -> FusedParam {
        FusedParam { dtype, weak: true }
    }

    fn call(name: &str, args: &[Ref]) -> Step {
        Step::Ufunc {
            name: name.into(),
            args: args.to_vec(),
        }
    }

    #[test]
    fn python_scalars_stay_weak_through_the_steps() {
        // (x * 10 + 2) with x float32 and Python ints: float32 all the way (NEP 50).
        let params = [array(DType::F32), weak(DType::I64), weak(DType::I64)];
        let steps = [
            call("multiply", &[Ref::Param(0), Ref::Param(1)]),
            call("add", &[Ref::Step(0), Ref::Param(2)]),
        ];
        let b = fused_body(&params, &steps, &[Ref::Step(1)], Dialect::Cuda).unwrap();
        assert_eq!(b.outputs, vec![DType::F32]);
        assert!(
            b.operation
                .contains("const float _f0 = (in0 * (float)(in1));"),
            "{}",
            b.operation
        );
        assert!(b.operation.ends_with("out0 = _f1;\n"), "{}", b.operation);
    }

    #[test]
    fn mixed_arrays_promote_as_numpy_does() {
        let params = [array(DType::I32), array(DType::F32)];
        let steps = [call("add", &[Ref::Param(0), Ref::Param(1)])];
        let b = fused_body(&params, &steps, &[Ref::Step(0)], Dialect::OpenCl).unwrap();
        assert_eq!(b.outputs, vec![DType::F64]);
    }

    #[test]
    fn shared_helpers_are_defined_once() {
        let params = [array(DType::F32), array(DType::F32)];
        let steps = [
            call("floor_divide", &[Ref::Param(0), Ref::Param(1)]),
            call("remainder", &[Ref::Step(0), Ref::Param(1)]),
        ];
        let b = fused_body(&params, &steps, &[Ref::Step(1)], Dialect::Cuda).unwrap();
        assert_eq!(
            b.preamble.matches("ember_floordiv_f(float a").count(),
            1,
            "{}",
            b.preamble
        );
        assert_eq!(
            b.preamble.matches("ember_fmod_floor_f(float a").count(),
            1,
            "{}",
            b.preamble
        );
    }

    #[test]
    fn where_takes_the_result_type_of_its_branches() {
        let params = [array(DType::F32), array(DType::I16), weak(DType::F64)];
        let steps = [
            call("greater", &[Ref::Param(0), Ref::Param(2)]),
            Step::Where {
                cond: Ref::Step(0),
                x: Ref::Param(1),
                y: Ref::Param(2),
            },
        ];
        let b = fused_body(&params, &steps, &[Ref::Step(1)], Dialect::Cuda).unwrap();
        // int16 with a Python float: float64, as np.result_type(int16_array, 1.5) says.
        assert_eq!(b.outputs, vec![DType::F64]);
    }

    #[test]
    fn a_scalar_parameter_cannot_be_an_output() {
        let params = [array(DType::F32), weak(DType::F64)];
        let err = fused_body(&params, &[], &[Ref::Param(1)], Dialect::Cuda).unwrap_err();
        assert!(err.to_string().contains("Python scalar parameter"), "{err}");
    }
}
