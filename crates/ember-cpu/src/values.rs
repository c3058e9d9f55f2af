//! Values while lowering: each IR value as the Cranelift SSA values of its leaves, and each
//! variable as Cranelift variables of the same shape (the frontend builds the SSA form).

use cranelift_codegen::ir::{types, InstBuilder, Type, Value};
use cranelift_frontend::{FunctionBuilder, Variable};
use ember_core::DType;
use ember_jit::Ty;

use crate::abi::{leaves, Leaf};

/// The machine type of a leaf.
pub(crate) fn leaf_type(leaf: Leaf) -> Type {
    match leaf {
        Leaf::Number(d) | Leaf::Part(d) => number_type(d),
        Leaf::Address | Leaf::Extent => types::I64,
    }
}

/// The machine type of a number of `d` (bool: a byte holding 0 or 1).
pub(crate) fn number_type(d: DType) -> Type {
    match d {
        DType::Bool | DType::I8 | DType::U8 => types::I8,
        DType::I16 | DType::U16 => types::I16,
        DType::I32 | DType::U32 => types::I32,
        DType::F32 => types::F32,
        DType::F64 => types::F64,
        _ => types::I64,
    }
}

/// The machine types of a value of `ty`.
pub(crate) fn machine_types(ty: &Ty) -> Result<Vec<Type>, String> {
    Ok(leaves(ty)?.into_iter().map(leaf_type).collect())
}

/// An array: its first element's address, its shape and its byte strides.
#[derive(Clone, Debug)]
pub(crate) struct ArrayVal {
    pub data: Value,
    pub shape: Vec<Value>,
    pub strides: Vec<Value>,
}

/// A value.
#[derive(Clone, Debug)]
pub(crate) enum Val {
    /// A number (or bool).
    Number(Value),
    /// A complex number: real and imaginary parts.
    Complex(Value, Value),
    Array(ArrayVal),
    Tuple(Vec<Val>),
    /// No value (`None`).
    Unit,
}

impl Val {
    /// The single machine value of a number.
    pub fn number(&self) -> Result<Value, String> {
        match self {
            Val::Number(v) => Ok(*v),
            _ => Err("a number where the compiler expected one".into()),
        }
    }

    /// The parts of a complex number.
    pub fn complex(&self) -> Result<(Value, Value), String> {
        match self {
            Val::Complex(r, i) => Ok((*r, *i)),
            _ => Err("a complex number where the compiler expected one".into()),
        }
    }

    pub fn array(&self) -> Result<&ArrayVal, String> {
        match self {
            Val::Array(a) => Ok(a),
            _ => Err("an array where the compiler expected one".into()),
        }
    }

    /// The machine values, leaves in order.
    pub fn flatten(&self, out: &mut Vec<Value>) {
        match self {
            Val::Number(v) => out.push(*v),
            Val::Complex(r, i) => out.extend([*r, *i]),
            Val::Array(a) => {
                out.push(a.data);
                out.extend(&a.shape);
                out.extend(&a.strides);
            }
            Val::Tuple(items) => items.iter().for_each(|v| v.flatten(out)),
            Val::Unit => {}
        }
    }

    /// A value of `ty` from its leaves' machine values, taken in order.
    pub fn assemble(ty: &Ty, values: &mut impl Iterator<Item = Value>) -> Result<Val, String> {
        let mut next = || {
            values
                .next()
                .ok_or_else(|| String::from("fewer machine values than the type has leaves"))
        };
        Ok(match ty {
            Ty::Scalar(d) if d.is_complex() => Val::Complex(next()?, next()?),
            Ty::Scalar(_) => Val::Number(next()?),
            Ty::Array(a) => {
                let data = next()?;
                let shape = (0..a.ndim).map(|_| next()).collect::<Result<_, _>>()?;
                let strides = (0..a.ndim).map(|_| next()).collect::<Result<_, _>>()?;
                Val::Array(ArrayVal {
                    data,
                    shape,
                    strides,
                })
            }
            Ty::Tuple(items) => Val::Tuple(
                items
                    .iter()
                    .map(|t| Val::assemble(t, values))
                    .collect::<Result<_, _>>()?,
            ),
            Ty::None => Val::Unit,
            // An optional: its flag and its value, as a pair.
            Ty::Optional(t) => Val::Tuple(vec![Val::Number(next()?), Val::assemble(t, values)?]),
            other => return Err(format!("values of type {other}")),
        })
    }

    /// Zero of every leaf of `ty` (what a function returns after raising).
    pub fn zero(b: &mut FunctionBuilder<'_>, ty: &Ty) -> Result<Val, String> {
        let values: Vec<Value> = machine_types(ty)?
            .into_iter()
            .map(|t| zero_of(b, t))
            .collect();
        Val::assemble(ty, &mut values.into_iter())
    }
}

/// Zero of a machine type.
pub(crate) fn zero_of(b: &mut FunctionBuilder<'_>, t: Type) -> Value {
    if t == types::F32 {
        b.ins().f32const(0.0)
    } else if t == types::F64 {
        b.ins().f64const(0.0)
    } else {
        b.ins().iconst(t, 0)
    }
}

/// A variable (a Python local or a compiler temporary): one Cranelift variable per leaf.
#[derive(Clone, Debug)]
pub(crate) struct Slots {
    ty: Ty,
    vars: Vec<Variable>,
}

impl Slots {
    pub fn declare(b: &mut FunctionBuilder<'_>, ty: &Ty) -> Result<Slots, String> {
        let vars = machine_types(ty)?
            .into_iter()
            .map(|t| {
                let v = b.declare_var(t);
                // Defined on entry: a variable read on a path that never set it (Python
                // would raise UnboundLocalError; typing has refused most) reads zero.
                let z = zero_of(b, t);
                b.def_var(v, z);
                v
            })
            .collect();
        Ok(Slots {
            ty: ty.clone(),
            vars,
        })
    }

    pub fn ty(&self) -> &Ty {
        &self.ty
    }

    pub fn get(&self, b: &mut FunctionBuilder<'_>) -> Result<Val, String> {
        let values: Vec<Value> = self.vars.iter().map(|v| b.use_var(*v)).collect();
        Val::assemble(&self.ty, &mut values.into_iter())
    }

    pub fn set(&self, b: &mut FunctionBuilder<'_>, value: &Val) -> Result<(), String> {
        let mut values = Vec::new();
        value.flatten(&mut values);
        if values.len() != self.vars.len() {
            return Err(format!(
                "a value that does not fit a variable of type {}",
                self.ty
            ));
        }
        for (var, v) in self.vars.iter().zip(values) {
            b.def_var(*var, v);
        }
        Ok(())
    }
}
