//! The typed IR's expressions: each node's type under Numba's rules, and the casts typing
//! puts on operands (read off device functions typed alone).

mod common;

use common::ir::*;
use ember_core::DType;
use ember_jit::ast::BoolOp;
use ember_jit::ir::{BinOp, CmpOp, Const, ExprKind, NanRule, UnaryOp};
use ember_jit::Ty;

#[test]
fn int32_plus_float32_adds_in_float64_with_both_operands_cast() {
    let e = ret("add", &["int32", "float32"]);
    let ExprKind::Binary(BinOp::Add, l, r) = &e.kind else {
        panic!("{e:?}")
    };
    assert_eq!(dtype(&e), DType::F64);
    assert_eq!((cast_from(l), cast_from(r)), (DType::I32, DType::F32));
}

#[test]
fn float32_plus_float32_stays_float32_without_casts() {
    let e = ret("add", &["float32", "float32"]);
    let ExprKind::Binary(BinOp::Add, l, r) = &e.kind else {
        panic!("{e:?}")
    };
    assert_eq!(dtype(&e), DType::F32);
    assert!(matches!(l.kind, ExprKind::Local(_)) && matches!(r.kind, ExprKind::Local(_)));
}

#[test]
fn small_integers_add_in_int64() {
    let e = ret("add", &["int8", "int16"]);
    let ExprKind::Binary(BinOp::Add, l, r) = &e.kind else {
        panic!("{e:?}")
    };
    assert_eq!(dtype(&e), DType::I64);
    assert_eq!((cast_from(l), cast_from(r)), (DType::I8, DType::I16));
}

#[test]
fn small_unsigned_integers_add_in_uint64() {
    assert_eq!(dtype(&ret("add", &["uint32", "uint8"])), DType::U64);
}

#[test]
fn int64_plus_uint64_is_int64_as_numba_types_it() {
    assert_eq!(dtype(&ret("add", &["uint64", "int64"])), DType::I64);
}

#[test]
fn complex64_plus_float64_is_complex128() {
    let e = ret("add", &["complex64", "float64"]);
    assert_eq!(dtype(&e), DType::C128);
    let ExprKind::Binary(_, l, r) = &e.kind else {
        panic!("{e:?}")
    };
    assert_eq!((cast_from(l), cast_from(r)), (DType::C64, DType::F64));
}

#[test]
fn true_division_of_integers_is_float64() {
    let e = ret("true_div", &["int64", "int64"]);
    assert!(matches!(e.kind, ExprKind::Binary(BinOp::Div, _, _)));
    assert_eq!(dtype(&e), DType::F64);
}

#[test]
fn floor_division_of_int32_is_int64() {
    let e = ret("floor_div", &["int32", "int32"]);
    assert!(matches!(e.kind, ExprKind::Binary(BinOp::FloorDiv, _, _)));
    assert_eq!(dtype(&e), DType::I64);
}

#[test]
fn modulo_of_float32_stays_float32() {
    let e = ret("modulo", &["float32", "float32"]);
    assert!(matches!(e.kind, ExprKind::Binary(BinOp::Mod, _, _)));
    assert_eq!(dtype(&e), DType::F32);
}

#[test]
fn integer_power_is_an_int64_power() {
    let e = ret("power", &["int32", "int32"]);
    assert!(matches!(e.kind, ExprKind::Binary(BinOp::Pow, _, _)));
    assert_eq!(dtype(&e), DType::I64);
}

#[test]
fn float32_to_an_integer_power_keeps_float32_with_an_int64_exponent() {
    let e = ret("power", &["float32", "int32"]);
    let ExprKind::Binary(BinOp::Pow, base, exp) = &e.kind else {
        panic!("{e:?}")
    };
    assert_eq!(dtype(&e), DType::F32);
    assert_eq!(dtype(base), DType::F32);
    assert_eq!((dtype(exp), cast_from(exp)), (DType::I64, DType::I32));
}

#[test]
fn float32_to_a_float64_power_is_float64() {
    assert_eq!(dtype(&ret("power", &["float32", "float64"])), DType::F64);
}

#[test]
fn shifting_an_unsigned_value_gives_uint64() {
    let e = ret("shift_left", &["uint8", "int32"]);
    assert!(matches!(e.kind, ExprKind::Binary(BinOp::LShift, _, _)));
    assert_eq!(dtype(&e), DType::U64);
}

#[test]
fn comparisons_are_bool_over_operands_in_their_common_type() {
    let e = ret("less", &["int32", "float64"]);
    let ExprKind::Compare(CmpOp::Lt, l, r) = &e.kind else {
        panic!("{e:?}")
    };
    assert_eq!(e.ty, scalar(DType::Bool));
    assert_eq!((dtype(l), cast_from(l)), (DType::F64, DType::I32));
    assert_eq!(dtype(r), DType::F64);
}

#[test]
fn int64_and_uint64_compare_as_float64() {
    let e = ret("less", &["int64", "uint64"]);
    let ExprKind::Compare(_, l, r) = &e.kind else {
        panic!("{e:?}")
    };
    assert_eq!((cast_from(l), cast_from(r)), (DType::I64, DType::U64));
    assert_eq!(dtype(l), DType::F64);
}

#[test]
fn a_chained_comparison_is_an_and_of_comparisons() {
    let e = ret("between", &["int32", "float32", "int64"]);
    let ExprKind::Logic(BoolOp::And, parts) = &e.kind else {
        panic!("{e:?}")
    };
    assert_eq!(parts.len(), 2);
    // int32 < float32 and float32 < int64 both compare as float64 (Numba).
    for p in parts {
        let ExprKind::Compare(CmpOp::Lt, l, _) = &p.kind else {
            panic!("{p:?}")
        };
        assert_eq!(dtype(l), DType::F64);
    }
}

#[test]
fn membership_in_a_tuple_is_any_of_equalities() {
    let e = ret("member", &["int64"]);
    let ExprKind::Any { items, negated } = &e.kind else {
        panic!("{e:?}")
    };
    assert!(!negated);
    assert_eq!(items.len(), 3);
    assert!(items
        .iter()
        .all(|i| matches!(i.kind, ExprKind::Compare(CmpOp::Eq, _, _))));
}

#[test]
fn negating_int16_negates_into_int64() {
    let e = ret("negate", &["int16"]);
    let ExprKind::Unary(UnaryOp::Neg, x) = &e.kind else {
        panic!("{e:?}")
    };
    assert_eq!((dtype(&e), dtype(x)), (DType::I64, DType::I16));
}

#[test]
fn negating_uint8_negates_at_its_width_then_widens_to_uint64() {
    let e = ret("negate", &["uint8"]);
    let ExprKind::Cast(inner) = &e.kind else {
        panic!("{e:?}")
    };
    assert_eq!(dtype(&e), DType::U64);
    assert!(matches!(inner.kind, ExprKind::Unary(UnaryOp::Neg, _)));
    assert_eq!(dtype(inner), DType::U8);
}

#[test]
fn float16_products_are_rounded_to_float16() {
    let k = ker("half_precision", &["float16[:]", "float16[:]"]);
    let rounded = find(entry(&k), |e| matches!(e.kind, ExprKind::RoundNarrow(_)));
    assert_eq!(rounded.len(), 1);
    let ExprKind::RoundNarrow(x) = &rounded[0].kind else {
        unreachable!()
    };
    assert!(matches!(x.kind, ExprKind::Binary(BinOp::Mult, _, _)));
    assert_eq!(dtype(x), DType::F16);
}

#[test]
fn sqrt_of_an_integer_is_a_float64_math_call() {
    let e = ret("sqrt_of", &["int64"]);
    let ExprKind::Math(name, args) = &e.kind else {
        panic!("{e:?}")
    };
    assert_eq!(name, &"sqrt");
    assert_eq!((dtype(&e), cast_from(&args[0])), (DType::F64, DType::I64));
}

#[test]
fn sqrt_of_float32_stays_float32() {
    let e = ret("sqrt_of", &["float32"]);
    assert!(matches!(e.kind, ExprKind::Math("sqrt", _)));
    assert_eq!(dtype(&e), DType::F32);
}

#[test]
fn log_with_a_base_divides_two_logs() {
    let e = ret("log_base", &["float32", "float32"]);
    let ExprKind::Binary(BinOp::Div, l, r) = &e.kind else {
        panic!("{e:?}")
    };
    assert!(matches!(l.kind, ExprKind::Math("log", _)));
    assert!(matches!(r.kind, ExprKind::Math("log", _)));
    assert_eq!(dtype(&e), DType::F32);
}

#[test]
fn np_maximum_propagates_nan() {
    let e = ret("max_nan", &["float64", "float64"]);
    assert!(matches!(
        e.kind,
        ExprKind::Extremum {
            max: true,
            rule: NanRule::Propagate,
            ..
        }
    ));
}

#[test]
fn python_min_of_int_and_float_is_float64_with_python_rule() {
    let e = ret("smallest", &["int32", "float64"]);
    assert!(matches!(
        e.kind,
        ExprKind::Extremum {
            max: false,
            rule: NanRule::Python,
            ..
        }
    ));
    assert_eq!(dtype(&e), DType::F64);
}

#[test]
fn isnan_of_an_integer_is_the_constant_false() {
    let e = ret("is_nan", &["int64"]);
    assert!(matches!(e.kind, ExprKind::Const(Const::Bool(false))));
    assert!(matches!(
        ret("is_nan", &["float32"]).kind,
        ExprKind::FloatTest("isnan", _)
    ));
}

#[test]
fn abs_of_complex128_is_float64() {
    let e = ret("absolute", &["complex128"]);
    assert!(matches!(e.kind, ExprKind::Abs(_)));
    assert_eq!(dtype(&e), DType::F64);
}

#[test]
fn complex_of_two_float32_is_complex64() {
    let e = ret("make_complex", &["float32", "float32"]);
    assert!(matches!(e.kind, ExprKind::Complex(_, Some(_))));
    assert_eq!(dtype(&e), DType::C64);
}

#[test]
fn real_part_of_complex64_is_float32() {
    let e = ret("real_part", &["complex64"]);
    assert!(matches!(e.kind, ExprKind::Part { imag: false, .. }));
    assert_eq!(dtype(&e), DType::F32);
}

#[test]
fn round_of_a_float_is_int64() {
    let e = ret("rounded", &["float64"]);
    assert!(matches!(e.kind, ExprKind::Round(_)));
    assert_eq!(dtype(&e), DType::I64);
}

#[test]
fn conversions_cast_truncate_and_test() {
    let e = ret("conversions", &["float32"]);
    let ExprKind::MakeTuple(items) = &e.kind else {
        panic!("{e:?}")
    };
    assert_eq!(cast_from(&items[0]), DType::F32);
    assert_eq!(dtype(&items[0]), DType::I64);
    // float() of a float keeps it.
    assert!(matches!(items[1].kind, ExprKind::Local(_)));
    assert!(matches!(items[2].kind, ExprKind::Bool(_)));
}

#[test]
fn a_pair_is_a_tuple_of_the_argument_types() {
    let e = ret("pair", &["int32", "float64"]);
    assert!(matches!(e.kind, ExprKind::MakeTuple(_)));
    assert_eq!(
        e.ty,
        Ty::Tuple(vec![scalar(DType::I32), scalar(DType::F64)])
    );
}

#[test]
fn shape_size_len_and_ndim_read_the_array() {
    let e = ret("shape_info", &["float32[:, :]"]);
    let ExprKind::MakeTuple(items) = &e.kind else {
        panic!("{e:?}")
    };
    let ExprKind::MakeTuple(shape) = &items[0].kind else {
        panic!("{:?}", items[0])
    };
    assert!(matches!(shape[1].kind, ExprKind::Dim(_, 1)));
    assert!(matches!(items[1].kind, ExprKind::Size(_)));
    assert!(matches!(items[2].kind, ExprKind::Dim(_, 0)));
    assert!(matches!(items[3].kind, ExprKind::Const(Const::Int(2))));
    assert!(shape.iter().all(|d| d.nonneg), "dimensions are >= 0");
}

#[test]
fn divmod_is_a_tuple_of_floor_division_and_modulo() {
    let e = ret("div_and_mod", &["int64", "int64"]);
    let ExprKind::MakeTuple(items) = &e.kind else {
        panic!("{e:?}")
    };
    assert!(matches!(
        items[0].kind,
        ExprKind::Binary(BinOp::FloorDiv, _, _)
    ));
    assert!(matches!(items[1].kind, ExprKind::Binary(BinOp::Mod, _, _)));
}

#[test]
fn or_of_int_and_float_selects_the_deciding_operand_as_float64() {
    let e = ret("either", &["int64", "float64"]);
    let ExprKind::Select(cond, then, other) = &e.kind else {
        panic!("{e:?}")
    };
    // `a or b`: a when a is true (tested as itself), else b.
    assert_eq!(dtype(cond), DType::I64);
    assert_eq!(cast_from(then), DType::I64);
    assert_eq!(dtype(other), DType::F64);
}
