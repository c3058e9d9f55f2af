//! Expressions: typing by Numba's rules and their C spelling.

use ember_codegen::types::{cast, value_type};
use ember_codegen::Dialect;
use ember_core::dtype::Kind;
use ember_core::DType;

use crate::ast::{BinOp, BoolOp, CmpOp, Expr, ExprKind, Span, UnaryOp};
use crate::error::{at, Fail, R};
use crate::function::{FnCompiler, Val};
use crate::helpers::Helper;
use crate::types::{arith, dtype_named, unify, ArrayTy, Layout, Space, Ty, BOOL, FLOAT64, INT64};

/// The value of an integer literal (or a negated one), if `e` is one.
pub fn int_literal(e: &Expr) -> Option<i64> {
    match &e.kind {
        ExprKind::Int { v } => v.parse().ok(),
        ExprKind::UnaryOp {
            op: UnaryOp::USub,
            operand,
        } => int_literal(operand).map(|v| -v),
        _ => None,
    }
}

/// The value of a constant integer expression (literals, tuples of them, and arithmetic on
/// them), for shapes of shared and local arrays.
pub fn const_ints(e: &Expr) -> Option<Vec<i64>> {
    match &e.kind {
        ExprKind::Tuple { elts } => elts.iter().map(const_int).collect::<Option<Vec<_>>>(),
        _ => const_int(e).map(|v| vec![v]),
    }
}

fn const_int(e: &Expr) -> Option<i64> {
    match &e.kind {
        ExprKind::Int { v } => v.parse().ok(),
        ExprKind::Typed { dtype, v }
            if dtype_named(dtype).is_some_and(|d| d.kind() != Kind::Float) =>
        {
            v.parse().ok()
        }
        ExprKind::UnaryOp {
            op: UnaryOp::USub,
            operand,
        } => const_int(operand).map(|v| -v),
        ExprKind::BinOp { op, left, right } => {
            let (a, b) = (const_int(left)?, const_int(right)?);
            match op {
                BinOp::Add => a.checked_add(b),
                BinOp::Sub => a.checked_sub(b),
                BinOp::Mult => a.checked_mul(b),
                BinOp::FloorDiv if b != 0 => Some(
                    a.div_euclid(b)
                        - if (a.rem_euclid(b) != 0) && b < 0 {
                            1
                        } else {
                            0
                        },
                ),
                BinOp::LShift if (0..63).contains(&b) => a.checked_shl(b as u32),
                _ => None,
            }
        }
        _ => None,
    }
}

impl FnCompiler<'_, '_> {
    fn int64_literal(&self, v: i64) -> String {
        let suffix = match self.c.dialect {
            Dialect::Cuda => "LL",
            Dialect::OpenCl => "L",
        };
        if v == i64::MIN {
            format!("(-9223372036854775807{suffix} - 1)")
        } else {
            format!("{v}{suffix}")
        }
    }

    pub(crate) fn float_literal(&self, x: f64, d: DType) -> String {
        let f32 = d == DType::F32 || d == DType::F16;
        if x.is_nan() {
            return if f32 { "(0.0f/0.0f)" } else { "(0.0/0.0)" }.into();
        }
        if x.is_infinite() {
            let inf = if f32 { "(1.0f/0.0f)" } else { "(1.0/0.0)" };
            return if x > 0.0 {
                inf.into()
            } else {
                format!("(-{inf})")
            };
        }
        let text = if f32 {
            format!("{:?}f", x as f32)
        } else {
            format!("{x:?}")
        };
        if x < 0.0 {
            format!("({text})")
        } else {
            text
        }
    }

    /// A literal of `dtype` with value `text` (as Python wrote it).
    fn typed_literal(&self, dtype: DType, text: &str, span: Span) -> R<Val> {
        let bad = || Fail::At(span, format!("'{text}' is not a {} value", dtype.name()));
        let code = match dtype.kind() {
            Kind::Float => {
                let x: f64 = parse_float(text).ok_or_else(bad)?;
                self.float_literal(x, dtype)
            }
            Kind::Bool => {
                let b = matches!(text, "True" | "true" | "1");
                format!("((unsigned char){})", b as u8)
            }
            Kind::Complex => {
                let (re, im) = text.split_once(',').ok_or_else(bad)?;
                let part = if dtype == DType::C64 {
                    DType::F32
                } else {
                    DType::F64
                };
                format!(
                    "ember_make_{}({}, {})",
                    dtype.name(),
                    self.float_literal(parse_float(re).ok_or_else(bad)?, part),
                    self.float_literal(parse_float(im).ok_or_else(bad)?, part)
                )
            }
            Kind::Int | Kind::UInt => {
                let v: i128 = text.parse().map_err(|_| bad())?;
                let t = value_type(dtype, self.c.dialect);
                if dtype == DType::U64 {
                    format!("(({t}){v}u)")
                } else if v < 0 {
                    format!("(({t})({}))", self.int64_literal(v as i64))
                } else {
                    format!("(({t}){v})")
                }
            }
        };
        let nonneg = !text.starts_with('-');
        Ok(Val::new(Ty::Scalar(dtype), code).nonneg(nonneg))
    }

    /// Types and writes `e`.
    pub(crate) fn expr(&mut self, e: &Expr) -> R<Val> {
        let span = e.span;
        match &e.kind {
            ExprKind::Int { v } => {
                let value: i128 = v
                    .parse()
                    .map_err(|_| Fail::At(span, format!("'{v}' is not an integer")))?;
                if let Ok(x) = i64::try_from(value) {
                    Ok(Val::new(INT64, self.int64_literal(x)).nonneg(x >= 0))
                } else if u64::try_from(value).is_ok() {
                    self.typed_literal(DType::U64, v, span)
                } else {
                    at(
                        span,
                        format!("integer {v} is too large for a kernel (at most 64 bits)"),
                    )
                }
            }
            ExprKind::Float { v } => {
                let x = parse_float(v)
                    .ok_or_else(|| Fail::At(span, format!("'{v}' is not a float")))?;
                Ok(Val::new(FLOAT64, self.float_literal(x, DType::F64)).nonneg(x >= 0.0))
            }
            ExprKind::Bool { v } => {
                Ok(Val::new(BOOL, format!("((unsigned char){})", *v as u8)).nonneg(true))
            }
            ExprKind::Complex { re, im } => {
                self.c.dtypes.insert(DType::C128);
                self.typed_literal(DType::C128, &format!("{re},{im}"), span)
            }
            ExprKind::Typed { dtype, v } => {
                let d = dtype_named(dtype).ok_or_else(|| {
                    Fail::At(
                        span,
                        format!("constant of dtype {dtype} is not supported in kernels"),
                    )
                })?;
                self.c.dtypes.insert(d);
                self.typed_literal(d, v, span)
            }
            ExprKind::Name { id } => self.load_var(id, span),
            ExprKind::Intrinsic { name } => self.intrinsic_value(name, span),
            ExprKind::Func { id } => at(
                span,
                format!(
                    "device function '{}' must be called here, not used as a value",
                    self.c.program.functions[*id].name
                ),
            ),
            ExprKind::Array { id } => self.const_array(*id, span),
            ExprKind::Attribute { value, attr } => {
                let v = self.expr(value)?;
                self.attribute(v, attr, span)
            }
            ExprKind::Subscript { value, index } => {
                // `a.shape[k]` reads the dimension without building the tuple.
                if let (ExprKind::Attribute { value: base, attr }, Some(k)) =
                    (&value.kind, int_literal(index))
                {
                    if attr == "shape" {
                        let arr = self.expr(base)?;
                        if let Ty::Array(a) = &arr.ty {
                            let a = a.clone();
                            let n = a.ndim as i64;
                            let k2 = if k < 0 { k + n } else { k };
                            if !(0..n).contains(&k2) {
                                return at(span, format!("tuple index {k} is out of range for the shape of a {n}-d array"));
                            }
                            return Ok(
                                Val::new(INT64, self.dim(&arr, &a, k2 as usize)).nonneg(true)
                            );
                        }
                    }
                }
                let v = self.expr(value)?;
                self.subscript(v, index, span)
            }
            ExprKind::Slice { .. } => at(span, "a slice is only allowed inside [...]"),
            ExprKind::BinOp { op, left, right } => {
                let (l, r) = (self.expr(left)?, self.expr(right)?);
                self.binop(*op, l, r, span)
            }
            ExprKind::UnaryOp { op, operand } => {
                let v = self.expr(operand)?;
                self.unary(*op, v, span)
            }
            ExprKind::BoolOp { op, values } => self.boolop(*op, values, span),
            ExprKind::Compare {
                left,
                ops,
                comparators,
            } => self.compare(left, ops, comparators, span),
            ExprKind::Call {
                func,
                args,
                keywords,
            } => self.call(func, args, keywords, span),
            ExprKind::IfExp { test, body, orelse } => {
                let t = self.truth(test)?;
                let (b, o) = (self.expr(body)?, self.expr(orelse)?);
                let ty = unify(&b.ty, &o.ty).ok_or_else(|| {
                    Fail::At(
                        span,
                        format!(
                            "the two branches give {} and {}, which do not unify",
                            b.ty, o.ty
                        ),
                    )
                })?;
                let (bc, oc) = (self.convert(&b, &ty, span)?, self.convert(&o, &ty, span)?);
                let nonneg = b.nonneg && o.nonneg;
                Ok(Val::new(ty, format!("({t} ? {bc} : {oc})")).nonneg(nonneg))
            }
            ExprKind::Tuple { elts } => {
                let mut vals = Vec::new();
                for x in elts {
                    vals.push(self.expr(x)?);
                }
                Ok(self.make_tuple(vals))
            }
            ExprKind::Unsupported { what } => {
                at(span, format!("{what} is not supported in kernels"))
            }
        }
    }

    /// A tuple value from its items.
    pub(crate) fn make_tuple(&mut self, vals: Vec<Val>) -> Val {
        let ty = Ty::Tuple(vals.iter().map(|v| v.ty.clone()).collect());
        let items_nonneg: Vec<bool> = vals.iter().map(|v| v.nonneg).collect();
        let name = self.c.c_type(&ty);
        let maker = format!("{name}_make");
        let dev = self.c.dialect.table().device_fn;
        let mut params = Vec::new();
        let mut body = String::new();
        for (i, v) in vals.iter().enumerate() {
            let ct = self.c.c_type(&v.ty);
            params.push(format!("{ct} a{i}"));
            body.push_str(&format!(" t.f{i} = a{i};"));
        }
        self.c.extra(format!(
            "{dev} {name} {maker}({}) {{ {name} t;{body} return t; }}\n",
            if params.is_empty() {
                "void".to_string()
            } else {
                params.join(", ")
            }
        ));
        let args: Vec<&str> = vals.iter().map(|v| v.code.as_str()).collect();
        let mut v = Val::new(ty, format!("{maker}({})", args.join(", ")));
        v.items_nonneg = items_nonneg;
        v
    }

    /// `v` converted to `ty` (scalars cast as Numba casts; tuples item by item).
    pub(crate) fn convert(&mut self, v: &Val, ty: &Ty, span: Span) -> R<String> {
        if v.ty == *ty {
            return Ok(v.code.clone());
        }
        match (&v.ty, ty) {
            (Ty::Scalar(from), Ty::Scalar(to)) => {
                self.c.dtypes.insert(*to);
                Ok(cast(&v.code, *from, *to, self.c.dialect))
            }
            (Ty::Tuple(a), Ty::Tuple(b)) if a.len() == b.len() => {
                let t = self.temp(v)?;
                let mut items = Vec::new();
                for (i, (x, y)) in a.clone().iter().zip(b.clone()).enumerate() {
                    let item = Val::new(x.clone(), format!("{}.f{i}", t.code));
                    let code = self.convert(&item, &y, span)?;
                    items.push(Val::new(y, code));
                }
                Ok(self.make_tuple(items).code)
            }
            (Ty::Array(a), Ty::Array(b))
                if a.dtype == b.dtype && a.ndim == b.ndim && a.space == b.space =>
            {
                // Only the layout differs: the C struct is the same.
                Ok(v.code.clone())
            }
            (from, to) => at(span, format!("cannot convert {from} to {to}")),
        }
    }

    fn scalar_of(&self, v: &Val, span: Span, what: &str) -> R<DType> {
        v.ty.scalar()
            .ok_or_else(|| Fail::At(span, format!("{what} needs numbers, got {}", v.ty)))
    }

    /// `l op r`.
    /// `l op r`; a float16 result is rounded to float16, as each float16 operation rounds.
    pub(crate) fn binop(&mut self, op: BinOp, l: Val, r: Val, span: Span) -> R<Val> {
        let v = self.binop_unrounded(op, l, r, span)?;
        Ok(self.round_half(v))
    }

    /// `v` rounded to float16 when it is a float16 value computed in float.
    pub(crate) fn round_half(&mut self, v: Val) -> Val {
        if v.ty != Ty::Scalar(DType::F16) {
            return v;
        }
        self.c.helpers.insert(Helper::RoundHalf);
        let nonneg = v.nonneg;
        Val::new(v.ty, format!("ember_round_half({})", v.code)).nonneg(nonneg)
    }

    fn binop_unrounded(&mut self, op: BinOp, l: Val, r: Val, span: Span) -> R<Val> {
        if op == BinOp::MatMult {
            return at(
                span,
                "the @ operator is not supported in kernels; write the loop",
            );
        }
        if let (Ty::Tuple(a), Ty::Tuple(b), BinOp::Add) = (&l.ty, &r.ty, op) {
            // Tuple concatenation.
            let (a, b) = (a.clone(), b.clone());
            let (lt, rt) = (self.temp(&l)?, self.temp(&r)?);
            let mut items = Vec::new();
            for (i, t) in a.into_iter().enumerate() {
                items.push(Val::new(t, format!("{}.f{i}", lt.code)));
            }
            for (i, t) in b.into_iter().enumerate() {
                items.push(Val::new(t, format!("{}.f{i}", rt.code)));
            }
            return Ok(self.make_tuple(items));
        }
        let what = format!("operator {}", op.symbol());
        let (a, b) = match (l.ty.scalar(), r.ty.scalar()) {
            (Some(a), Some(b)) => (a, b),
            _ => {
                return at(
                    span,
                    format!(
                        "unsupported operand types for {}: {} and {}{}",
                        op.symbol(),
                        l.ty,
                        r.ty,
                        if matches!(l.ty, Ty::Array(_)) || matches!(r.ty, Ty::Array(_)) {
                            " (whole-array arithmetic is not available inside kernels: index the elements)"
                        } else {
                            ""
                        }
                    ),
                )
            }
        };
        let _ = &what;
        let integral = |d: DType| matches!(d.kind(), Kind::Int | Kind::UInt | Kind::Bool);
        let complex = |d: DType| d.kind() == Kind::Complex;
        let nonneg = l.nonneg && r.nonneg;
        match op {
            BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor => {
                if !integral(a) || !integral(b) {
                    return at(
                        span,
                        format!(
                            "operator {} needs integers or booleans, got {} and {}",
                            op.symbol(),
                            l.ty,
                            r.ty
                        ),
                    );
                }
                let t = if a == DType::Bool && b == DType::Bool {
                    DType::Bool
                } else {
                    arith(a, b)
                };
                let (x, y) = (self.cast_to(&l, t), self.cast_to(&r, t));
                Ok(Val::new(Ty::Scalar(t), format!("({x} {} {y})", op.symbol())).nonneg(nonneg))
            }
            BinOp::LShift | BinOp::RShift => {
                if !integral(a) || !integral(b) {
                    return at(
                        span,
                        format!(
                            "operator {} needs integers, got {} and {}",
                            op.symbol(),
                            l.ty,
                            r.ty
                        ),
                    );
                }
                let t = if a.kind() == Kind::UInt {
                    DType::U64
                } else {
                    DType::I64
                };
                let (x, y) = (self.cast_to(&l, t), self.cast_to(&r, t));
                let nonneg = op == BinOp::RShift && l.nonneg;
                Ok(Val::new(Ty::Scalar(t), format!("({x} {} {y})", op.symbol())).nonneg(nonneg))
            }
            BinOp::Div => {
                let t = match arith(a, b) {
                    d if integral(d) => DType::F64,
                    d => d,
                };
                self.arith_op(&l, &r, t, "/", nonneg)
            }
            BinOp::Add | BinOp::Sub | BinOp::Mult => {
                let t = arith(a, b);
                let sym = op.symbol();
                if complex(t) && self.c.dialect == Dialect::OpenCl && op == BinOp::Mult {
                    self.c.helpers.insert(Helper::ComplexMulDiv(t));
                    let (x, y) = (self.cast_to(&l, t), self.cast_to(&r, t));
                    return Ok(Val::new(
                        Ty::Scalar(t),
                        format!("ember_cmul_{}({x}, {y})", t.name()),
                    ));
                }
                let nonneg = nonneg && op != BinOp::Sub;
                self.arith_op(&l, &r, t, sym, nonneg)
            }
            BinOp::FloorDiv | BinOp::Mod => {
                let t = arith(a, b);
                if complex(t) {
                    return at(
                        span,
                        format!(
                            "operator {} is not defined for complex numbers",
                            op.symbol()
                        ),
                    );
                }
                let (helper, name) = if op == BinOp::FloorDiv {
                    (Helper::FloorDiv(t), "floordiv")
                } else {
                    (Helper::Mod(t), "mod")
                };
                self.c.helpers.insert(helper);
                let (x, y) = (self.cast_to(&l, t), self.cast_to(&r, t));
                let nonneg = if op == BinOp::Mod { r.nonneg } else { nonneg };
                Ok(Val::new(
                    Ty::Scalar(t),
                    format!("ember_{name}_{}({x}, {y})", t.name()),
                )
                .nonneg(nonneg))
            }
            BinOp::Pow => self.power(l, r, a, b, span),
            BinOp::MatMult => unreachable!("rejected above"),
        }
    }

    fn arith_op(&mut self, l: &Val, r: &Val, t: DType, sym: &str, nonneg: bool) -> R<Val> {
        if t.kind() == Kind::Complex && sym == "/" && self.c.dialect == Dialect::OpenCl {
            self.c.helpers.insert(Helper::ComplexMulDiv(t));
            let (x, y) = (self.cast_to(l, t), self.cast_to(r, t));
            return Ok(Val::new(
                Ty::Scalar(t),
                format!("ember_cdiv_{}({x}, {y})", t.name()),
            ));
        }
        let (x, y) = (self.cast_to(l, t), self.cast_to(r, t));
        if t.kind() == Kind::Int && sym != "/" {
            // Numba's integers wrap; C's signed overflow is undefined, and compilers use that
            // (`a + a == 0` only for `a == 0`): compute in the unsigned type.
            let st = value_type(t, self.c.dialect);
            let u = value_type(t.unsigned_twin(), self.c.dialect);
            let code = format!("(({st})(({u}){x} {sym} ({u}){y}))");
            return Ok(Val::new(Ty::Scalar(t), code).nonneg(nonneg));
        }
        Ok(Val::new(Ty::Scalar(t), format!("({x} {sym} {y})")).nonneg(nonneg))
    }

    /// `v` as a value of dtype `t` (a scalar cast).
    pub(crate) fn cast_to(&mut self, v: &Val, t: DType) -> String {
        self.c.dtypes.insert(t);
        match v.ty.scalar() {
            Some(from) if from != t => cast(&v.code, from, t, self.c.dialect),
            _ => v.code.clone(),
        }
    }

    /// `l ** r` by Numba's rules: integers by squaring, float32 keeps float32 for an integer
    /// exponent, otherwise `pow` in the promoted type.
    fn power(&mut self, l: Val, r: Val, a: DType, b: DType, span: Span) -> R<Val> {
        let integral = |d: DType| matches!(d.kind(), Kind::Int | Kind::UInt | Kind::Bool);
        if integral(a) && integral(b) {
            let t = arith(a, b);
            self.c.helpers.insert(Helper::IntPow(t));
            let (x, y) = (self.cast_to(&l, t), self.cast_to(&r, t));
            return Ok(
                Val::new(Ty::Scalar(t), format!("ember_ipow_{}({x}, {y})", t.name()))
                    .nonneg(l.nonneg),
            );
        }
        if a.kind() == Kind::Complex || b.kind() == Kind::Complex {
            return at(span, "complex powers are not supported in kernels");
        }
        if integral(b) && matches!(a, DType::F32 | DType::F64) {
            // Numba multiplies by squaring (x ** 2 is exactly x * x), in the float's type.
            self.c.helpers.insert(Helper::IntPow(a));
            let e = self.cast_to(&r, DType::I64);
            let code = format!("ember_ipow_{}({}, {e})", a.name(), l.code);
            return Ok(Val::new(Ty::Scalar(a), code));
        }
        let t = arith(a, b);
        let (x, y) = (self.cast_to(&l, t), self.cast_to(&r, t));
        let f = self.math_name("pow", t);
        Ok(Val::new(Ty::Scalar(t), format!("{f}({x}, {y})")))
    }

    /// The C function for math function `name` on `t` (CUDA names float32 versions with an
    /// `f`; OpenCL overloads).
    pub(crate) fn math_name(&self, name: &str, t: DType) -> String {
        match (self.c.dialect, t) {
            (Dialect::Cuda, DType::F32 | DType::F16) => format!("{name}f"),
            _ => name.to_string(),
        }
    }

    fn unary(&mut self, op: UnaryOp, v: Val, span: Span) -> R<Val> {
        if op == UnaryOp::Not {
            let t = self.truth_of(&v, span)?;
            return Ok(Val::new(BOOL, format!("((unsigned char)!{t})")).nonneg(true));
        }
        let d = self.scalar_of(
            &v,
            span,
            &format!(
                "unary {}",
                match op {
                    UnaryOp::Invert => "~",
                    UnaryOp::USub => "-",
                    _ => "+",
                }
            ),
        )?;
        let wide = |d: DType| match d.kind() {
            Kind::UInt => DType::U64,
            Kind::Int | Kind::Bool => DType::I64,
            _ => d,
        };
        match op {
            UnaryOp::Invert => match d.kind() {
                Kind::Bool => {
                    Ok(Val::new(BOOL, format!("((unsigned char)!{})", v.code)).nonneg(true))
                }
                Kind::Int | Kind::UInt => {
                    // Inverted at the operand's width, then widened (Numba).
                    let t = value_type(d, self.c.dialect);
                    let inner = Val::new(Ty::Scalar(d), format!("(({t})~{})", v.code));
                    let w = wide(d);
                    Ok(Val::new(Ty::Scalar(w), self.cast_to(&inner, w)))
                }
                _ => at(
                    span,
                    format!("operator ~ needs integers or booleans, got {}", v.ty),
                ),
            },
            UnaryOp::USub => {
                let w = wide(d);
                if matches!(d.kind(), Kind::Int | Kind::UInt) {
                    // Negated at the operand's width, then widened (Numba): -uint8(1) is 255 and
                    // -int8(-128) is -128. The negation is unsigned 64-bit arithmetic (wraps by
                    // definition), then truncated.
                    let t = value_type(d, self.c.dialect);
                    let u64t = value_type(DType::U64, self.c.dialect);
                    let i64t = value_type(DType::I64, self.c.dialect);
                    let negated = format!("(({u64t})0 - ({u64t})({i64t})({}))", v.code);
                    let bits = 8 * d.itemsize();
                    if d.kind() == Kind::Int && bits < 64 {
                        // Signed: truncated and sign-extended by arithmetic, not by a cast:
                        // NVRTC 13 folds `(long long)(short)(0ULL - x)` into `-x` and gives
                        // 32768 for -int16(-32768) (hand-written CUDA C too).
                        let sign = 1u64 << (bits - 1);
                        let mask = (1u64 << bits) - 1;
                        let code = format!(
                            "(({i64t})(({negated} & ({u64t}){mask}UL) ^ ({u64t}){sign}UL) - ({i64t}){sign}L)"
                        );
                        return Ok(Val::new(Ty::Scalar(w), code));
                    }
                    let code = format!("(({t}){negated})");
                    let inner = Val::new(Ty::Scalar(d), code);
                    return Ok(Val::new(Ty::Scalar(w), self.cast_to(&inner, w)));
                }
                if d.kind() == Kind::Complex {
                    // CUDA's complex structs have no unary minus.
                    let z = self.temp(&v)?;
                    let code = format!("ember_make_{}(-({z}).x, -({z}).y)", d.name(), z = z.code);
                    return Ok(Val::new(v.ty.clone(), code));
                }
                let x = self.cast_to(&v, w);
                Ok(Val::new(Ty::Scalar(w), format!("(-{x})")))
            }
            _ => {
                let w = wide(d);
                Ok(Val::new(Ty::Scalar(w), self.cast_to(&v, w)).nonneg(v.nonneg))
            }
        }
    }

    fn boolop(&mut self, op: BoolOp, values: &[Expr], span: Span) -> R<Val> {
        let mut vals = Vec::new();
        for v in values {
            vals.push(self.expr(v)?);
        }
        let mut ty = vals[0].ty.clone();
        for v in &vals[1..] {
            ty = unify(&ty, &v.ty).ok_or_else(|| {
                Fail::At(
                    span,
                    format!(
                        "'{}' mixes {} and {}, which do not unify",
                        if op == BoolOp::And { "and" } else { "or" },
                        ty,
                        v.ty
                    ),
                )
            })?;
        }
        if ty == BOOL {
            let sym = if op == BoolOp::And { " && " } else { " || " };
            let parts: Vec<String> = vals.iter().map(|v| v.code.clone()).collect();
            return Ok(
                Val::new(BOOL, format!("((unsigned char)({}))", parts.join(sym))).nonneg(true),
            );
        }
        // Python returns the deciding operand: fold from the right.
        let mut code = self.convert(vals.last().unwrap_or(&vals[0]), &ty, span)?;
        for v in vals[..vals.len() - 1].iter().rev() {
            let t = self.truth_of(v, span)?;
            let c = self.convert(v, &ty, span)?;
            code = if op == BoolOp::And {
                format!("({t} ? {code} : {c})")
            } else {
                format!("({t} ? {c} : {code})")
            };
        }
        Ok(Val::new(ty, code))
    }

    fn compare(&mut self, left: &Expr, ops: &[CmpOp], comparators: &[Expr], span: Span) -> R<Val> {
        let mut parts = Vec::new();
        let mut l = self.expr(left)?;
        for (op, right) in ops.iter().zip(comparators) {
            let r = self.expr(right)?;
            parts.push(self.compare_two(*op, &l, &r, span)?);
            l = r;
        }
        let code = if parts.len() == 1 {
            parts.pop().unwrap_or_default()
        } else {
            format!("((unsigned char)({}))", parts.join(" && "))
        };
        Ok(Val::new(BOOL, code).nonneg(true))
    }

    fn compare_two(&mut self, op: CmpOp, l: &Val, r: &Val, span: Span) -> R<String> {
        if matches!(op, CmpOp::In | CmpOp::NotIn) {
            let Ty::Tuple(items) = &r.ty else {
                return at(
                    span,
                    format!("'in' in a kernel tests membership in a tuple, not {}", r.ty),
                );
            };
            let items = items.clone();
            let t = self.temp(r)?;
            let mut tests = Vec::new();
            for (i, ty) in items.into_iter().enumerate() {
                let item = Val::new(ty, format!("{}.f{i}", t.code));
                tests.push(self.compare_two(CmpOp::Eq, l, &item, span)?);
            }
            let any = if tests.is_empty() {
                "0".to_string()
            } else {
                tests.join(" || ")
            };
            return Ok(if op == CmpOp::In {
                format!("((unsigned char)({any}))")
            } else {
                format!("((unsigned char)!({any}))")
            });
        }
        if matches!(op, CmpOp::Is | CmpOp::IsNot) {
            return at(
                span,
                "'is' comparisons are not supported in kernels; use ==",
            );
        }
        let (a, b) = match (l.ty.scalar(), r.ty.scalar()) {
            (Some(a), Some(b)) => (a, b),
            _ => {
                if let (Ty::Tuple(x), Ty::Tuple(y)) = (&l.ty, &r.ty) {
                    if matches!(op, CmpOp::Eq | CmpOp::NotEq) {
                        if x.len() != y.len() {
                            return Ok(if op == CmpOp::Eq { "0" } else { "1" }.into());
                        }
                        let (x, y) = (x.clone(), y.clone());
                        let (lt, rt) = (self.temp(l)?, self.temp(r)?);
                        let mut tests = Vec::new();
                        for i in 0..x.len() {
                            let li = Val::new(x[i].clone(), format!("{}.f{i}", lt.code));
                            let ri = Val::new(y[i].clone(), format!("{}.f{i}", rt.code));
                            tests.push(self.compare_two(CmpOp::Eq, &li, &ri, span)?);
                        }
                        let all = if tests.is_empty() {
                            "1".to_string()
                        } else {
                            tests.join(" && ")
                        };
                        return Ok(if op == CmpOp::Eq {
                            format!("({all})")
                        } else {
                            format!("(!({all}))")
                        });
                    }
                }
                return at(
                    span,
                    format!("cannot compare {} and {} with {}", l.ty, r.ty, op.symbol()),
                );
            }
        };
        let integral = |d: DType| matches!(d.kind(), Kind::Int | Kind::UInt | Kind::Bool);
        // Numba compares int64 with uint64, and int32 with float32, as float64.
        let t = if integral(a)
            && integral(b)
            && (a.kind() == Kind::UInt) != (b.kind() == Kind::UInt)
            && (a.itemsize() == 8 || b.itemsize() == 8)
        {
            DType::F64
        } else {
            arith(a, b)
        };
        if t.kind() == Kind::Complex {
            if !matches!(op, CmpOp::Eq | CmpOp::NotEq) {
                return at(
                    span,
                    format!("complex numbers cannot be ordered with {}", op.symbol()),
                );
            }
            let (x, y) = (self.cast_to(l, t), self.cast_to(r, t));
            let eq = format!("(({x}).x == ({y}).x && ({x}).y == ({y}).y)");
            return Ok(if op == CmpOp::Eq {
                eq
            } else {
                format!("(!{eq})")
            });
        }
        let (x, y) = (self.cast_to(l, t), self.cast_to(r, t));
        Ok(format!("({x} {} {y})", op.symbol()))
    }

    fn attribute(&mut self, v: Val, attr: &str, span: Span) -> R<Val> {
        match (&v.ty, attr) {
            (Ty::Array(a), "shape") | (Ty::Array(a), "strides") => {
                let a = a.clone();
                let items: Vec<Val> = (0..a.ndim)
                    .map(|k| {
                        let code = if attr == "shape" {
                            self.dim(&v, &a, k)
                        } else {
                            self.stride(&v, &a, k)
                        };
                        Val::new(INT64, code).nonneg(attr == "shape")
                    })
                    .collect();
                Ok(self.make_tuple(items))
            }
            (Ty::Array(a), "size") => {
                let a = a.clone();
                let dims: Vec<String> = (0..a.ndim).map(|k| self.dim(&v, &a, k)).collect();
                let code = if dims.is_empty() {
                    self.int64_literal(1)
                } else {
                    format!("({})", dims.join(" * "))
                };
                Ok(Val::new(INT64, code).nonneg(true))
            }
            (Ty::Array(a), "T") => {
                let a = a.clone();
                self.transposed(&v, &a, span)
            }
            (Ty::Array(a), "ndim") => {
                Ok(Val::new(INT64, self.int64_literal(a.ndim as i64)).nonneg(true))
            }
            (Ty::Array(a), "itemsize") => {
                Ok(Val::new(INT64, self.int64_literal(a.dtype.itemsize() as i64)).nonneg(true))
            }
            (Ty::Scalar(d), "real") | (Ty::Scalar(d), "imag") if d.kind() == Kind::Complex => {
                let part = if *d == DType::C64 {
                    DType::F32
                } else {
                    DType::F64
                };
                let field = if attr == "real" { "x" } else { "y" };
                Ok(Val::new(Ty::Scalar(part), format!("({}).{field}", v.code)))
            }
            (Ty::Scalar(d), "real") => {
                Ok(Val::new(Ty::Scalar(*d), v.code.clone()).nonneg(v.nonneg))
            }
            (Ty::Scalar(d), "imag") => Ok(Val::new(
                Ty::Scalar(*d),
                format!("(({})0)", value_type(*d, self.c.dialect)),
            )
            .nonneg(true)),
            (t, _) => at(span, format!("{t} has no attribute '{attr}' in kernels")),
        }
    }

    /// Dimension `k` of array value `v`.
    pub(crate) fn dim(&self, v: &Val, a: &ArrayTy, k: usize) -> String {
        match &a.fixed {
            Some(shape) => self.int64_literal(shape[k]),
            None => format!("{}.d.shape[{k}]", v.code),
        }
    }

    /// Byte stride `k` of array value `v`.
    fn stride(&self, v: &Val, a: &ArrayTy, k: usize) -> String {
        match &a.fixed {
            Some(shape) => {
                let inner: i64 = shape[k + 1..].iter().product();
                self.int64_literal(inner * a.dtype.itemsize() as i64)
            }
            None => format!("{}.d.strides[{k}]", v.code),
        }
    }

    fn subscript(&mut self, v: Val, index: &Expr, span: Span) -> R<Val> {
        match v.ty.clone() {
            Ty::Array(a) => {
                let items = match &index.kind {
                    ExprKind::Tuple { elts } => elts.iter().collect::<Vec<_>>(),
                    _ => vec![index],
                };
                if items
                    .iter()
                    .any(|e| matches!(e.kind, ExprKind::Slice { .. }))
                    || items.len() < a.ndim
                {
                    return self.view(&v, &a, &items, span);
                }
                let mut idx = Vec::new();
                for e in &items {
                    idx.push(self.expr(e)?);
                }
                self.element(&v, &a, &idx, span)
            }
            Ty::Tuple(items) => {
                if let Some(k) = int_literal(index) {
                    let n = items.len() as i64;
                    let k2 = if k < 0 { k + n } else { k };
                    if !(0..n).contains(&k2) {
                        return at(
                            span,
                            format!("tuple index {k} is out of range for a tuple of {n}"),
                        );
                    }
                    return Ok(Val::new(
                        items[k2 as usize].clone(),
                        format!("{}.f{k2}", v.code),
                    ));
                }
                if let ExprKind::Slice { lower, upper, step } = &index.kind {
                    let n = items.len() as i64;
                    let get = |e: &Option<Box<Expr>>| e.as_deref().map(int_literal);
                    let (lo, hi, st) = (get(lower), get(upper), get(step));
                    if [lo, hi, st].iter().any(|x| matches!(x, Some(None))) {
                        return at(span, "a tuple slice in a kernel needs constant bounds");
                    }
                    let st = st.flatten().unwrap_or(1);
                    if st != 1 {
                        return at(span, "a tuple slice in a kernel takes step 1");
                    }
                    let clamp = |x: i64| if x < 0 { (x + n).max(0) } else { x.min(n) };
                    let (lo, hi) = (
                        clamp(lo.flatten().unwrap_or(0)),
                        clamp(hi.flatten().unwrap_or(n)),
                    );
                    let t = self.temp(&v)?;
                    let vals = (lo..hi.max(lo))
                        .map(|k| Val::new(items[k as usize].clone(), format!("{}.f{k}", t.code)))
                        .collect();
                    return Ok(self.make_tuple(vals));
                }
                let i = self.expr(index)?;
                if !i.ty.is_integral() {
                    return at(
                        span,
                        format!("tuple indices must be integers, not {}", i.ty),
                    );
                }
                if items.is_empty() || !items.iter().all(|t| *t == items[0]) {
                    return at(
                        span,
                        "a tuple with items of different types needs a constant index",
                    );
                }
                let get = self.tuple_getter(&v.ty);
                let n = items.len() as i64;
                let ic = self.cast_to(&i, DType::I64);
                self.c.helpers.insert(Helper::Wrap);
                Ok(Val::new(
                    items[0].clone(),
                    format!(
                        "{get}({}, ember_wrap({ic}, {}))",
                        v.code,
                        self.int64_literal(n)
                    ),
                ))
            }
            t => at(span, format!("a value of type {t} cannot be indexed")),
        }
    }

    /// The byte (A layout) or element (C layout) offset of element `idx` of `v`.
    fn offset(&mut self, v: &Val, a: &ArrayTy, idx: &[Val], span: Span) -> R<String> {
        let mut terms = Vec::new();
        for (k, i) in idx.iter().enumerate() {
            if !i.ty.is_integral() {
                return at(
                    span,
                    format!("array indices must be integers, got {}", i.ty),
                );
            }
            let n = self.dim(v, a, k);
            let mut ic = self.cast_to(i, DType::I64);
            let unsigned =
                i.ty.scalar()
                    .is_some_and(|d| matches!(d.kind(), Kind::UInt | Kind::Bool));
            if !i.nonneg && !unsigned {
                self.c.helpers.insert(Helper::Wrap);
                ic = format!("ember_wrap({ic}, {n})");
            }
            if a.fixed.is_some() {
                // Shared, local and constant arrays are small: 32-bit offsets are cheaper.
                ic = format!("(int)({ic})");
            }
            terms.push(ic);
        }
        if a.layout == Layout::C || a.fixed.is_some() {
            // Horner form over the dimensions: ((i0 * n1 + i1) * n2 + i2)...
            let mut code = String::new();
            for (k, t) in terms.iter().enumerate() {
                if k == 0 {
                    code = t.clone();
                } else {
                    let n = match &a.fixed {
                        Some(shape) => shape[k].to_string(),
                        None => self.dim(v, a, k),
                    };
                    code = format!("({code}) * {n} + {t}");
                }
            }
            Ok(if code.is_empty() { "0".into() } else { code })
        } else {
            let parts: Vec<String> = terms
                .iter()
                .enumerate()
                .map(|(k, t)| format!("{t} * {}", self.stride(v, a, k)))
                .collect();
            Ok(if parts.is_empty() {
                "0".into()
            } else {
                parts.join(" + ")
            })
        }
    }

    /// A pointer expression to element `index` of array `v`.
    pub(crate) fn element_pointer(
        &mut self,
        v: &Val,
        a: &ArrayTy,
        index: &Expr,
        span: Span,
    ) -> R<String> {
        let items = match &index.kind {
            ExprKind::Tuple { elts } => elts.iter().collect::<Vec<_>>(),
            _ => vec![index],
        };
        if items.len() != a.ndim
            || items
                .iter()
                .any(|e| matches!(e.kind, ExprKind::Slice { .. }))
        {
            return at(
                span,
                format!(
                    "an element of a {}-d array needs {} integer indices",
                    a.ndim, a.ndim
                ),
            );
        }
        let mut idx = Vec::new();
        for e in items {
            idx.push(self.expr(e)?);
        }
        self.pointer_at(v, a, &idx, span)
    }

    pub(crate) fn pointer_at(
        &mut self,
        v: &Val,
        a: &ArrayTy,
        idx: &[Val],
        span: Span,
    ) -> R<String> {
        let off = self.offset(v, a, idx, span)?;
        Ok(if a.layout == Layout::C || a.fixed.is_some() {
            format!("({}.data + {off})", v.code)
        } else {
            let q = self.c.qualifier(a.space);
            let elem = ember_codegen::types::storage_type(a.dtype, self.c.dialect);
            format!("(({q}{elem}*)(({q}char*){}.data + {off}))", v.code)
        })
    }

    /// Element `idx` of array `v`, as a value.
    pub(crate) fn element(&mut self, v: &Val, a: &ArrayTy, idx: &[Val], span: Span) -> R<Val> {
        if idx.len() != a.ndim {
            return at(
                span,
                format!(
                    "a {}-d array needs {} indices, got {}",
                    a.ndim,
                    a.ndim,
                    idx.len()
                ),
            );
        }
        let p = self.pointer_at(v, a, idx, span)?;
        self.c.dtypes.insert(a.dtype);
        let code = self.load_elem(a.dtype, a.space, &p);
        Ok(Val::new(Ty::Scalar(a.dtype), code))
    }

    /// Reads the element at pointer `p` in `space`.
    pub(crate) fn load_elem(&mut self, d: DType, space: Space, p: &str) -> String {
        match (d, self.c.dialect) {
            (DType::F16, Dialect::Cuda) => format!("ember_h2f(*{p})"),
            (DType::F16, Dialect::OpenCl) => {
                let q = self.c.qualifier(space);
                format!("vload_half(0, ({q}const half*){p})")
            }
            (DType::Bool, _) => format!("((unsigned char)(*{p} != 0))"),
            _ => format!("(*{p})"),
        }
    }

    /// The statement writing value `code` to the element at pointer `p` in `space`.
    pub(crate) fn store_elem(&mut self, d: DType, space: Space, p: &str, code: &str) -> String {
        match (d, self.c.dialect) {
            (DType::F16, Dialect::Cuda) => format!("*{p} = ember_f2h({code});"),
            (DType::F16, Dialect::OpenCl) => {
                let q = self.c.qualifier(space);
                format!("vstore_half_rte({code}, 0, ({q}half*){p});")
            }
            _ => format!("*{p} = {code};"),
        }
    }

    /// `v[items]` with slices or fewer indices than dimensions: a view.
    fn view(&mut self, v: &Val, a: &ArrayTy, items: &[&Expr], span: Span) -> R<Val> {
        if items.len() > a.ndim {
            return at(span, format!("too many indices for a {}-d array", a.ndim));
        }
        if a.fixed.is_some() {
            return at(
                span,
                "slicing shared, local or constant arrays is not supported; index their elements",
            );
        }
        let base = self.temp(v)?;
        let mut offset = Vec::new();
        let mut dims = Vec::new();
        for k in 0..a.ndim {
            let n = self.dim(&base, a, k);
            let s = self.stride(&base, a, k);
            match items.get(k).map(|e| &e.kind) {
                None => dims.push((n, s)),
                Some(ExprKind::Slice { lower, upper, step }) => {
                    let step_v = match step {
                        None => None,
                        Some(e) => Some(int_literal(e).ok_or_else(|| {
                            Fail::At(
                                e.span,
                                "the step of a slice in a kernel must be a constant".into(),
                            )
                        })?),
                    };
                    let st = step_v.unwrap_or(1);
                    if st == 0 {
                        return at(span, "slice step cannot be zero");
                    }
                    let lo = match lower {
                        Some(e) => Some(self.expr(e)?),
                        None => None,
                    };
                    let hi = match upper {
                        Some(e) => Some(self.expr(e)?),
                        None => None,
                    };
                    let lo = lo.map(|x| self.cast_to(&x, DType::I64));
                    let hi = hi.map(|x| self.cast_to(&x, DType::I64));
                    self.c.helpers.insert(Helper::Wrap);
                    // Python's slice bounds, clamped to [0, n] (or [-1, n-1] going backwards).
                    let (start, stop) = if st > 0 {
                        (
                            lo.map(|x| format!("ember_clamp(ember_wrap({x}, {n}), 0, {n})"))
                                .unwrap_or_else(|| "0".into()),
                            hi.map(|x| format!("ember_clamp(ember_wrap({x}, {n}), 0, {n})"))
                                .unwrap_or_else(|| n.clone()),
                        )
                    } else {
                        (
                            lo.map(|x| format!("ember_clamp(ember_wrap({x}, {n}), -1, {n} - 1)"))
                                .unwrap_or_else(|| format!("({n} - 1)")),
                            hi.map(|x| format!("ember_clamp(ember_wrap({x}, {n}), -1, {n} - 1)"))
                                .unwrap_or_else(|| "-1".into()),
                        )
                    };
                    self.c.helpers.insert(Helper::Clamp);
                    let len = if st > 0 {
                        format!(
                            "(({stop}) > ({start}) ? (({stop}) - ({start}) + {} ) / {st} : 0)",
                            st - 1
                        )
                    } else {
                        format!(
                            "(({start}) > ({stop}) ? (({start}) - ({stop}) + {} ) / {} : 0)",
                            -st - 1,
                            -st
                        )
                    };
                    offset.push(format!("({start}) * {s}"));
                    dims.push((len, format!("{s} * {st}")));
                }
                Some(_) => {
                    let i = self.expr(items[k])?;
                    if !i.ty.is_integral() {
                        return at(
                            items[k].span,
                            format!("array indices must be integers or slices, got {}", i.ty),
                        );
                    }
                    let ic = self.cast_to(&i, DType::I64);
                    self.c.helpers.insert(Helper::Wrap);
                    offset.push(format!("ember_wrap({ic}, {n}) * {s}"));
                }
            }
        }
        let ty = ArrayTy {
            dtype: a.dtype,
            ndim: dims.len(),
            layout: Layout::A,
            space: a.space,
            fixed: None,
        };
        let tyv = Ty::Array(ty.clone());
        let st = self.c.c_type(&tyv);
        let q = self.c.qualifier(a.space);
        let elem = ember_codegen::types::storage_type(a.dtype, self.c.dialect);
        let name = self.fresh("view");
        self.line(&format!("{st} {name};"));
        let off = if offset.is_empty() {
            "0".to_string()
        } else {
            offset.join(" + ")
        };
        self.line(&format!(
            "{name}.data = ({q}{elem}*)(({q}char*){}.data + {off});",
            base.code
        ));
        for (k, (n, s)) in dims.iter().enumerate() {
            self.line(&format!(
                "{name}.d.shape[{k}] = {n}; {name}.d.strides[{k}] = {s};"
            ));
        }
        Ok(Val::new(tyv, name))
    }

    /// `v.T`: a view with the axes reversed (a 0-d or 1-d array is itself).
    fn transposed(&mut self, v: &Val, a: &ArrayTy, span: Span) -> R<Val> {
        if a.ndim < 2 {
            return Ok(v.clone());
        }
        if a.fixed.is_some() {
            return at(
                span,
                "transposing shared, local or constant arrays is not supported; index them the other way round",
            );
        }
        let base = self.temp(v)?;
        let ty = ArrayTy {
            layout: Layout::A,
            ..a.clone()
        };
        let tyv = Ty::Array(ty);
        let st = self.c.c_type(&tyv);
        let name = self.fresh("view");
        self.line(&format!("{st} {name};"));
        self.line(&format!("{name}.data = {}.data;", base.code));
        for k in 0..a.ndim {
            let from = a.ndim - 1 - k;
            let (n, s) = (self.dim(&base, a, from), self.stride(&base, a, from));
            self.line(&format!(
                "{name}.d.shape[{k}] = {n}; {name}.d.strides[{k}] = {s};"
            ));
        }
        Ok(Val::new(tyv, name))
    }

    fn const_array(&mut self, id: usize, span: Span) -> R<Val> {
        let array = self
            .c
            .program
            .arrays
            .get(id)
            .ok_or_else(|| Fail::At(span, "unknown constant array".into()))?;
        let dtype = dtype_named(&array.dtype).ok_or_else(|| {
            Fail::At(
                span,
                format!("constant arrays of dtype {} are not supported", array.dtype),
            )
        })?;
        let shape: Vec<i64> = array.shape.iter().map(|&n| n as i64).collect();
        let name = format!("ember_const{id}");
        self.c.constants.insert(id, name.clone());
        self.c.dtypes.insert(dtype);
        let ty = crate::compiler::fixed_array(dtype, shape, Space::Const);
        let code = self.fixed_array_value(&ty, &name);
        Ok(Val::new(ty, code))
    }

    /// The value of a fixed-shape array whose elements start at C pointer `data`.
    pub(crate) fn fixed_array_value(&mut self, ty: &Ty, data: &str) -> String {
        let Ty::Array(a) = ty else {
            return String::new();
        };
        let st = self.c.c_type(ty);
        let maker = format!("{st}_at");
        let dev = self.c.dialect.table().device_fn;
        let q = self.c.qualifier(a.space);
        let elem = ember_codegen::types::storage_type(a.dtype, self.c.dialect);
        self.c.extra(format!(
            "{dev} {st} {maker}({q}{elem}* p) {{ {st} a; a.data = p; return a; }}\n"
        ));
        format!("{maker}({data})")
    }
}

/// Python's float text (`1.5`, `inf`, `-inf`, `nan`, `1e-07`) as an f64.
fn parse_float(text: &str) -> Option<f64> {
    match text.trim() {
        "inf" => Some(f64::INFINITY),
        "-inf" => Some(f64::NEG_INFINITY),
        "nan" | "-nan" => Some(f64::NAN),
        t => t.parse().ok(),
    }
}
