//! Operators and NumPy ufuncs with an array operand (`a * 2 + b`, `np.sqrt(a)`, `a > 0`,
//! `a += b`): a loop over the result's elements, as NumPy computes them.
//!
//! - Shapes broadcast: trailing axes line up and an axis of length 1 repeats. Any other
//!   mismatch raises NumPy's ValueError when the function runs.
//! - The result's dtype is that of NumPy's loop for the operands. A number that is Python's own
//!   type (int64, float64, complex128, bool) counts by its kind only (NEP 50), as a Python
//!   scalar does in the interpreter: `int8_array + 1` stays int8.
//! - Each element is the ufunc's, with NumPy's semantics (a zero divisor gives inf, NaN or 0
//!   instead of raising).

use ember_codegen::ufuncs::{find_loop, ufunc, OperandType, Ufunc};
use ember_core::dtype::Kind;
use ember_core::DType;

use crate::ast::{BinOp, CmpOp, Span, UnaryOp};
use crate::error::{at, Fail, R};
use crate::ir::{self, Const, ExprKind as K, Failure, Place, TempRole};
use crate::types::{ArrayTy, Layout, Ty, BOOL, INT64};
use crate::typing::{FnTyper, Val};

/// How NumPy's loop search sees each operand of `np.name()`: an array by its dtype, a number
/// by its kind when it is Python's own type (NEP 50).
fn operand_types(operands: &[&Val], name: &str, span: Span) -> R<Vec<OperandType>> {
    operands
        .iter()
        .map(|v| match &v.ty {
            Ty::Array(a) if crate::types::record_of(a.dtype).is_none() => {
                Ok(OperandType::Strong(a.dtype))
            }
            Ty::Scalar(d) => Ok(scalar_operand(*d)),
            t => at(
                span,
                format!("np.{name}() takes arrays of numbers and numbers, got {t}"),
            ),
        })
        .collect()
}

/// The ufunc an operator computes on arrays.
pub(crate) fn binop_ufunc(op: BinOp) -> &'static str {
    match op {
        BinOp::Add => "add",
        BinOp::Sub => "subtract",
        BinOp::Mult => "multiply",
        BinOp::Div => "divide",
        BinOp::FloorDiv => "floor_divide",
        BinOp::Mod => "remainder",
        BinOp::Pow => "power",
        BinOp::LShift => "left_shift",
        BinOp::RShift => "right_shift",
        BinOp::BitOr => "bitwise_or",
        BinOp::BitXor => "bitwise_xor",
        BinOp::BitAnd => "bitwise_and",
        BinOp::MatMult => "matmul",
    }
}

/// The ufunc a comparison computes on arrays (`None`: `in`, `is`).
pub(crate) fn compare_ufunc(op: CmpOp) -> Option<&'static str> {
    Some(match op {
        CmpOp::Eq => "equal",
        CmpOp::NotEq => "not_equal",
        CmpOp::Lt => "less",
        CmpOp::LtE => "less_equal",
        CmpOp::Gt => "greater",
        CmpOp::GtE => "greater_equal",
        _ => return None,
    })
}

/// The comparison ufuncs.
fn compare_ufunc_names() -> [&'static str; 6] {
    [
        "equal",
        "not_equal",
        "less",
        "less_equal",
        "greater",
        "greater_equal",
    ]
}

/// The least and greatest values of an integer dtype.
fn integer_range(d: DType) -> (i128, i128) {
    let bits = 8 * d.itemsize() as u32;
    if d.kind() == Kind::UInt {
        (0, (1i128 << bits) - 1)
    } else {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    }
}

/// The ufunc a unary operator computes on arrays (`None`: `not`).
pub(crate) fn unary_ufunc(op: UnaryOp) -> Option<&'static str> {
    match op {
        UnaryOp::USub => Some("negative"),
        UnaryOp::UAdd => Some("positive"),
        UnaryOp::Invert => Some("invert"),
        UnaryOp::Not => None,
    }
}

/// How a number takes part in choosing a ufunc's loop: Python's own types by kind only.
pub(super) fn scalar_operand(d: DType) -> OperandType {
    match d {
        DType::I64 | DType::F64 | DType::C128 | DType::Bool => OperandType::Weak(d.kind()),
        _ => OperandType::Strong(d),
    }
}

/// A number constant `v` as a constant of float dtype `t`, when it is exactly one.
fn float_constant(v: &Val, t: DType) -> Option<Val> {
    let x = match (&v.kind, t) {
        (_, DType::F32 | DType::F64) => match v.kind {
            K::Const(Const::Int(i)) if i.unsigned_abs() < 1 << 24 => i as f64,
            K::Const(Const::Float(x)) => x,
            _ => return None,
        },
        _ => return None,
    };
    let exact = t == DType::F64 || f64::from(x as f32) == x;
    exact.then(|| Val::constant(Ty::Scalar(t), Const::Float(x)))
}

/// One operand of an element-by-element loop: an array (read at the loop's indices, its axes
/// lined up with the last of the loop's) or a number (the same for every element).
struct Input {
    value: Val,
    array: Option<ArrayTy>,
    /// Per axis: the axis may have length 1 where the loop's is longer (else it is the loop's).
    repeats: Vec<bool>,
}

impl FnTyper<'_, '_> {
    /// True when an operation on `vals` is whole-array: a host function with an array operand.
    pub(crate) fn whole_array(&self, vals: &[&Val]) -> bool {
        self.c.host && vals.iter().any(|v| matches!(v.ty, Ty::Array(_)))
    }

    /// The ufunc `name` of `operands` into a new array.
    pub(crate) fn array_ufunc(&mut self, name: &str, operands: Vec<Val>, span: Span) -> R<Val> {
        self.ufunc_elements(name, operands, None, span)
    }

    /// `np.where(cond, x, y)` with an array among them: a new array of `x`'s element where
    /// `cond`'s is true (non-zero), else `y`'s, the three broadcast together. Its dtype is
    /// NumPy's `result_type(x, y)` (a Python number counting by its kind, NEP 50): the loop
    /// NumPy's `maximum` picks for `x` and `y`, whose loops are each type with itself.
    pub(crate) fn array_where(&mut self, operands: Vec<Val>, span: Span) -> R<Val> {
        let [cond, x, y] = <[Val; 3]>::try_from(operands).map_err(|_| {
            Fail::At(
                span,
                "np.where() takes a condition and two values (or the condition alone)".into(),
            )
        })?;
        let ops = operand_types(&[&x, &y], "where", span)?;
        if !matches!(cond.ty, Ty::Array(_) | Ty::Scalar(_)) {
            return at(
                span,
                format!(
                    "np.where()'s condition must be an array or a number, got {}",
                    cond.ty
                ),
            );
        }
        // A Python int outside the type raises NumPy's OverflowError (NumPy 2.5's where; before
        // it, NumPy cast it as C casts).
        let u = ufunc("maximum").map_err(|e| Fail::At(span, e.to_string()))?;
        let scalars = [&x, &y].map(|v| matches!(v.ty, Ty::Scalar(_)).then_some(v));
        let (ins, outs) = self.loop_with_python_ints(u, ops, &scalars, span)?;
        let (t, result) = (ins[0], outs[0]);
        let cond_dtype = match &cond.ty {
            Ty::Array(a) => a.dtype,
            Ty::Scalar(d) => *d,
            _ => unreachable!("checked above"),
        };
        self.c.uses.dtypes.extend([DType::Bool, t]);
        self.elements(
            vec![cond, x, y],
            &[cond_dtype, t, t],
            None,
            result,
            span,
            move |s, e| {
                let pick = s.cast_to(&e[0], DType::Bool);
                let (x, y) = (s.cast_to(&e[1], t), s.cast_to(&e[2], t));
                Ok(Val::new(
                    Ty::Scalar(result),
                    K::Select(pick.boxed(), x.boxed(), y.boxed()),
                ))
            },
        )
    }

    /// The ufunc `name` of `operands` stored into array `out` (`a += b`): the operands
    /// broadcast to `out`'s shape, the result cast to its dtype by NumPy's `same_kind` rule.
    pub(crate) fn array_ufunc_into(
        &mut self,
        name: &str,
        out: Val,
        operands: Vec<Val>,
        span: Span,
    ) -> R<()> {
        self.ufunc_elements(name, operands, Some(out), span)
            .map(|_| ())
    }

    fn ufunc_elements(
        &mut self,
        name: &str,
        operands: Vec<Val>,
        out: Option<Val>,
        span: Span,
    ) -> R<Val> {
        let u = ufunc(name).map_err(|e| Fail::At(span, e.to_string()))?;
        let ops = operand_types(&operands.iter().collect::<Vec<_>>(), u.name, span)?;
        let scalars: Vec<Option<&Val>> = operands
            .iter()
            .map(|v| matches!(v.ty, Ty::Scalar(_)).then_some(v))
            .collect();
        let (ins, outs) = self.loop_with_python_ints(u, ops, &scalars, span)?;
        let result = outs[0];
        if let Some(Ty::Array(o)) = out.as_ref().map(|o| &o.ty) {
            if !ember_codegen::ufuncs::resolve::can_cast_same_kind(result, o.dtype) {
                return at(
                    span,
                    format!(
                        "Cannot cast ufunc '{}' output from dtype('{}') to dtype('{}') with casting rule 'same_kind'",
                        u.name,
                        result.name(),
                        o.dtype.name()
                    ),
                );
            }
        }
        let row = u.row.name;
        let ins: &'static [DType] = ins;
        self.c.uses.dtypes.extend(ins.iter().copied());
        self.elements(operands, ins, out, result, span, move |s, elements| {
            let args = elements
                .iter()
                .zip(ins)
                .map(|(v, &t)| s.cast_to(v, t).expr())
                .collect();
            Ok(Val::new(
                Ty::Scalar(result),
                K::Ufunc {
                    name: row,
                    ins,
                    args,
                },
            ))
        })
    }

    /// NumPy's loop of `u` for operands `ops` (`scalars[k]`: operand k's value when it is a
    /// number), with NEP 50's rule for a Python int: a comparison compares its exact value,
    /// arithmetic needs it within the loop's integer type (NumPy's OverflowError), checked
    /// here for a constant and when the function runs otherwise.
    pub(super) fn loop_with_python_ints(
        &mut self,
        u: &Ufunc,
        mut ops: Vec<OperandType>,
        scalars: &[Option<&Val>],
        span: Span,
    ) -> R<(&'static [DType], &'static [DType])> {
        let &(ins, outs) = find_loop(u, &ops, None).map_err(|e| Fail::At(span, e.to_string()))?;
        let comparison = compare_ufunc_names().contains(&u.name);
        let mut exact = false;
        for (k, v) in scalars.iter().enumerate() {
            let (Some(v), OperandType::Weak(Kind::Int)) = (v, ops[k]) else {
                continue;
            };
            let d = ins[k];
            if !matches!(d.kind(), Kind::Int | Kind::UInt) || d == DType::I64 {
                continue;
            }
            if comparison {
                ops[k] = OperandType::Strong(DType::I64);
                exact = true;
                continue;
            }
            let (lo, hi) = integer_range(d);
            if let K::Const(Const::Int(c)) = v.kind {
                if i128::from(c) < lo || i128::from(c) > hi {
                    return at(
                        span,
                        format!("Python integer {c} out of bounds for {}", d.name()),
                    );
                }
                continue;
            }
            let bound = |x: i128| {
                let x = x.clamp(i64::MIN.into(), i64::MAX.into()) as i64;
                Val::constant(INT64, Const::Int(x))
            };
            let within = Val::new(
                BOOL,
                K::All {
                    items: vec![
                        Val::new(BOOL, K::Compare(CmpOp::GtE, v.boxed(), bound(lo).boxed())).expr(),
                        Val::new(BOOL, K::Compare(CmpOp::LtE, v.boxed(), bound(hi).boxed())).expr(),
                    ],
                    negated: false,
                },
            );
            self.require(within, Failure::PythonIntOutOfBounds { dtype: d }, &[v]);
        }
        if exact {
            let (ins, outs) =
                find_loop(u, &ops, None).map_err(|e| Fail::At(span, e.to_string()))?;
            return Ok((ins, outs));
        }
        Ok((ins, outs))
    }

    /// `v` converted element by element to `dtype` (`a.astype(t)`, `a.copy()`): a new array.
    pub(crate) fn array_cast(&mut self, v: Val, dtype: DType, span: Span) -> R<Val> {
        let Ty::Array(a) = &v.ty else {
            return at(span, format!("astype() of {}", v.ty));
        };
        let from = [a.dtype];
        self.elements(vec![v], &from, None, dtype, span, |s, elements| {
            Ok(s.cast_to(&elements[0], dtype))
        })
    }

    /// The loop over the elements of `out` (or of a new array of `result`, shaped as the
    /// operands broadcast) storing `element(operands' elements)`; numbers among the operands
    /// are converted to `ins` once, before it. The value is the array stored into.
    pub(super) fn elements(
        &mut self,
        operands: Vec<Val>,
        ins: &[DType],
        out: Option<Val>,
        result: DType,
        span: Span,
        element: impl Fn(&mut Self, Vec<Val>) -> R<Val>,
    ) -> R<Val> {
        let mut inputs = Vec::with_capacity(operands.len());
        for (v, &t) in operands.iter().zip(ins) {
            inputs.push(match &v.ty {
                Ty::Array(a) => Input {
                    value: self.temp(v)?,
                    array: Some(a.clone()),
                    repeats: vec![true; a.ndim],
                },
                _ => {
                    // A constant stays one (the back end sees `a ** 2` as squaring).
                    let value = match float_constant(v, t) {
                        Some(c) => c,
                        None => {
                            let c = self.cast_to(v, t);
                            self.temp(&c)?
                        }
                    };
                    Input {
                        value,
                        array: None,
                        repeats: Vec::new(),
                    }
                }
            });
        }
        let (target, target_ty) = match out {
            Some(o) => {
                let Ty::Array(oa) = o.ty.clone() else {
                    return at(span, format!("cannot store into {}", o.ty));
                };
                let o = self.temp(&o)?;
                for input in inputs.iter_mut() {
                    if let Some(a) = input.array.clone() {
                        let v = self.unaliased(&input.value, &a, &o, &oa, span)?;
                        if let Ty::Array(t) = &v.ty {
                            input.array = Some(t.clone());
                        }
                        input.value = v;
                    }
                }
                let dims: Vec<Val> = (0..oa.ndim).map(|k| self.dim(&o, &oa, k)).collect();
                self.broadcast_into(&mut inputs, &dims, span)?;
                (o, oa)
            }
            None => {
                let dims = self.broadcast(&mut inputs)?;
                let ty = Ty::Array(ArrayTy::global(result, dims.len(), Layout::C));
                self.c.register(&ty);
                let made = Val::new(
                    ty.clone(),
                    K::Alloc {
                        shape: dims.iter().map(Val::expr).collect(),
                        fill: None,
                    },
                );
                let Ty::Array(a) = ty else { unreachable!() };
                (self.temp(&made)?, a)
            }
        };
        let dims: Vec<Val> = (0..target_ty.ndim)
            .map(|k| self.dim(&target, &target_ty, k))
            .collect();
        // Where no axis repeats (the usual case: equal shapes) the loop indexes every input
        // as the result, which the back end can run on vector lanes; else axes of length 1
        // repeat their element.
        let mut plain = Vec::new();
        for input in &inputs {
            if let Some(a) = &input.array {
                let skip = dims.len() - a.ndim;
                for j in (0..a.ndim).filter(|&j| input.repeats[j]) {
                    plain.push(
                        self.equal(&self.dim(&input.value, a, j), &dims[skip + j])
                            .expr(),
                    );
                }
            }
        }
        let target_place = (&target, &target_ty);
        if plain.is_empty() {
            self.element_loops(&inputs, target_place, &dims, false, &element, span)?;
        } else {
            self.open_block();
            let fast = self.element_loops(&inputs, target_place, &dims, false, &element, span);
            let then = self.close_block();
            fast?;
            self.open_block();
            let general = self.element_loops(&inputs, target_place, &dims, true, &element, span);
            let orelse = self.close_block();
            general?;
            self.push(ir::Stmt::If {
                cond: Val::new(
                    BOOL,
                    K::All {
                        items: plain,
                        negated: false,
                    },
                )
                .expr(),
                negate: false,
                then,
                orelse,
            });
        }
        Ok(target)
    }

    /// The loops storing `element` of the inputs' elements into every element of `target`;
    /// `repeat`: axes of length 1 repeat (else every input is indexed as the target).
    #[allow(clippy::too_many_arguments)]
    fn element_loops(
        &mut self,
        inputs: &[Input],
        (target, target_ty): (&Val, &ArrayTy),
        dims: &[Val],
        repeat: bool,
        element: &impl Fn(&mut Self, Vec<Val>) -> R<Val>,
        span: Span,
    ) -> R<()> {
        self.nest_loops(dims, |s, index| {
            let mut elements = Vec::with_capacity(inputs.len());
            for input in inputs {
                let Some(a) = &input.array else {
                    elements.push(input.value.clone());
                    continue;
                };
                let skip = index.len() - a.ndim;
                let mut at = Vec::with_capacity(a.ndim);
                for j in 0..a.ndim {
                    let i = index[skip + j].clone();
                    at.push(if repeat && input.repeats[j] {
                        s.repeating_index(&input.value, a, j, &i)
                    } else {
                        i
                    });
                }
                elements.push(s.element(&input.value, a, &at, span)?);
            }
            let value = element(s, elements)?;
            let value = s.cast_to(&value, target_ty.dtype);
            let place = Place {
                array: target.boxed(),
                ty: target_ty.clone(),
                indices: index.iter().map(Val::expr).collect(),
            };
            s.c.uses.dtypes.insert(target_ty.dtype);
            s.push(ir::Stmt::Store {
                place,
                value: value.expr(),
            });
            Ok(())
        })
    }

    /// The shape the inputs broadcast to, each length evaluated once; checks that they do.
    /// An axis only one input has is that input's own, so it never repeats.
    fn broadcast(&mut self, inputs: &mut [Input]) -> R<Vec<Val>> {
        let nd = inputs
            .iter()
            .filter_map(|i| i.array.as_ref().map(|a| a.ndim))
            .max()
            .unwrap_or(0);
        let mut dims = Vec::with_capacity(nd);
        for k in 0..nd {
            // The inputs with an axis lined up with axis k of the result.
            let having: Vec<(usize, usize)> = inputs
                .iter()
                .enumerate()
                .filter_map(|(n, i)| {
                    let a = i.array.as_ref()?;
                    (a.ndim + k >= nd).then(|| (n, a.ndim + k - nd))
                })
                .collect();
            if having.len() == 1 {
                let (n, j) = having[0];
                inputs[n].repeats[j] = false;
            }
            let mut length: Option<Val> = None;
            for (n, j) in having {
                let a = inputs[n].array.clone().expect("an array input");
                let d = self.dim(&inputs[n].value, &a, j);
                let d = self.temp(&d)?;
                length = Some(match length {
                    None => d,
                    Some(m) => {
                        let fits = self.any_of(vec![
                            self.equal(&d, &m),
                            self.is_one(d.clone()),
                            self.is_one(m.clone()),
                        ]);
                        self.require(fits, Failure::Broadcast, &[&m, &d]);
                        let merged = Val::new(
                            INT64,
                            K::Select(self.is_one(d.clone()).boxed(), m.boxed(), d.boxed()),
                        )
                        .nonneg(true);
                        self.temp(&merged)?
                    }
                });
            }
            dims.push(length.expect("an array has each axis up to nd"));
        }
        Ok(dims)
    }

    /// Checks that the inputs broadcast to `dims` (an output's shape, which does not change).
    fn broadcast_into(&mut self, inputs: &mut [Input], dims: &[Val], span: Span) -> R<()> {
        let nd = dims.len();
        for input in inputs.iter_mut() {
            let Some(a) = input.array.clone() else {
                continue;
            };
            if a.ndim > nd {
                return at(
                    span,
                    format!(
                        "an array of {} dimensions cannot be stored into one of {nd}",
                        a.ndim
                    ),
                );
            }
            for j in 0..a.ndim {
                let d = self.dim(&input.value, &a, j);
                let n = &dims[nd - a.ndim + j];
                let fits = self.any_of(vec![self.equal(&d, n), self.is_one(d.clone())]);
                self.require(fits, Failure::BroadcastInto, &[&d, n]);
            }
        }
        Ok(())
    }

    /// `for i0 in range(dims[0]): for i1 ...: body(i0, i1, ...)`, the lengths evaluated once
    /// before the loops (C order: the last axis innermost).
    pub(crate) fn nest_loops(
        &mut self,
        dims: &[Val],
        body: impl FnOnce(&mut Self, &[Val]) -> R<()>,
    ) -> R<()> {
        let mut stops = Vec::with_capacity(dims.len());
        for d in dims {
            stops.push(self.temp(d)?);
        }
        let counters: Vec<ir::Temp> = dims.iter().map(|_| self.fresh(TempRole::Index)).collect();
        let index: Vec<Val> = counters
            .iter()
            .map(|&t| Val::new(INT64, K::Temp(t)).nonneg(true))
            .collect();
        self.c.register(&INT64);
        self.open_block();
        let made = body(self, &index);
        let mut block = self.close_block();
        made?;
        for (t, n) in counters.iter().zip(&stops).rev() {
            block = vec![ir::Stmt::For {
                index: *t,
                ty: DType::I64,
                start: Val::constant(INT64, Const::Count(0)).expr(),
                stop: n.expr(),
                step: ir::Step::One,
                body: block,
                parallel: false,
            }];
        }
        for s in block {
            self.push(s);
        }
        Ok(())
    }

    /// NumPy's error `failure` unless `cond`; `details` name the lengths in its message.
    pub(crate) fn require(&mut self, cond: Val, failure: Failure, details: &[&Val]) {
        self.push(ir::Stmt::Require {
            cond: cond.expr(),
            failure,
            details: details.iter().map(|d| d.expr()).collect(),
        });
    }

    /// Index `i` along axis `j` of array `v` broadcast to a longer axis: an axis of length 1
    /// repeats its one element.
    pub(crate) fn repeating_index(&self, v: &Val, a: &ArrayTy, j: usize, i: &Val) -> Val {
        let one = self.is_one(self.dim(v, a, j));
        Val::new(
            INT64,
            K::Select(
                one.boxed(),
                Val::constant(INT64, Const::Count(0)).boxed(),
                i.boxed(),
            ),
        )
        .nonneg(true)
    }

    fn is_one(&self, n: Val) -> Val {
        self.equal(&n, &Val::constant(INT64, Const::Int(1)))
    }

    fn equal(&self, a: &Val, b: &Val) -> Val {
        Val::new(BOOL, K::Compare(CmpOp::Eq, a.boxed(), b.boxed())).nonneg(true)
    }

    fn any_of(&self, tests: Vec<Val>) -> Val {
        Val::new(
            BOOL,
            K::Any {
                items: tests.iter().map(Val::expr).collect(),
                negated: false,
            },
        )
        .nonneg(true)
    }
}
