//! Type inference: the types Numba gives each expression, read off the return type of device
//! functions compiled alone, the C types of variables, and the parameter slots of kernels.

mod common;

use common::*;
use ember_core::DType;
use ember_jit::{
    compile_kernel, parse_arg_type, parse_signature, ArrayTy, Layout, ParamSlot, Space, Ty,
};

fn scalar(d: DType) -> Ty {
    Ty::Scalar(d)
}

#[test]
fn int64_plus_float32_is_float64() {
    assert_eq!(returns("add", &["int64", "float32"]), scalar(DType::F64));
}

#[test]
fn integer_arithmetic_widens_to_64_bits() {
    assert_eq!(returns("add", &["int32", "int32"]), scalar(DType::I64));
    assert_eq!(returns("add", &["int8", "int16"]), scalar(DType::I64));
    // Both unsigned: unsigned 64-bit; signed with unsigned: signed (Numba's NBEP 1).
    assert_eq!(returns("add", &["uint32", "uint8"]), scalar(DType::U64));
    assert_eq!(returns("add", &["uint64", "int64"]), scalar(DType::I64));
    assert_eq!(returns("add", &["bool", "bool"]), scalar(DType::I64));
}

#[test]
fn float32_keeps_its_width_only_with_small_integers() {
    assert_eq!(returns("add", &["float32", "float32"]), scalar(DType::F32));
    assert_eq!(returns("add", &["float32", "int16"]), scalar(DType::F32));
    assert_eq!(returns("add", &["float32", "uint8"]), scalar(DType::F32));
    assert_eq!(returns("add", &["float32", "int32"]), scalar(DType::F64));
    assert_eq!(returns("add", &["float32", "uint16"]), scalar(DType::F64));
}

#[test]
fn complex_promotion_follows_numpy() {
    assert_eq!(
        returns("add", &["complex64", "float32"]),
        scalar(DType::C64)
    );
    assert_eq!(
        returns("add", &["complex64", "float64"]),
        scalar(DType::C128)
    );
    assert_eq!(returns("add", &["complex64", "int32"]), scalar(DType::C128));
}

#[test]
fn element_of_int32_array_plus_one_is_int64() {
    assert_eq!(returns("first_plus_one", &["int32[:]"]), scalar(DType::I64));
    assert_eq!(
        returns("first_plus_one", &["float32[::1]"]),
        scalar(DType::F64)
    );
}

#[test]
fn true_division_of_integers_is_float64() {
    assert_eq!(returns("true_div", &["int64", "int64"]), scalar(DType::F64));
    assert_eq!(
        returns("true_div", &["int32", "float32"]),
        scalar(DType::F64)
    );
    assert_eq!(
        returns("true_div", &["float32", "float32"]),
        scalar(DType::F32)
    );
}

#[test]
fn floor_division_and_modulo_keep_integers() {
    assert_eq!(
        returns("floor_div", &["int32", "int32"]),
        scalar(DType::I64)
    );
    assert_eq!(
        returns("floor_div", &["float32", "float64"]),
        scalar(DType::F64)
    );
    assert_eq!(returns("modulo", &["uint8", "uint8"]), scalar(DType::U64));
    assert_eq!(
        returns("modulo", &["float32", "float32"]),
        scalar(DType::F32)
    );
}

#[test]
fn power_types_follow_numba() {
    assert_eq!(returns("power", &["int32", "int32"]), scalar(DType::I64));
    // An integer exponent keeps a float32 base's type; a float exponent promotes.
    assert_eq!(returns("power", &["float32", "int32"]), scalar(DType::F32));
    assert_eq!(
        returns("power", &["float32", "float64"]),
        scalar(DType::F64)
    );
    assert_eq!(returns("square", &["float32"]), scalar(DType::F32));
    assert_eq!(returns("square", &["int16"]), scalar(DType::I64));
}

#[test]
fn shifts_are_64_bit_in_the_left_operands_signedness() {
    assert_eq!(
        returns("shift_left", &["int32", "int32"]),
        scalar(DType::I64)
    );
    assert_eq!(
        returns("shift_left", &["uint8", "int32"]),
        scalar(DType::U64)
    );
}

#[test]
fn comparisons_are_bool() {
    assert_eq!(returns("less", &["int32", "float64"]), scalar(DType::Bool));
    assert_eq!(
        returns("between", &["int32", "float32", "int64"]),
        scalar(DType::Bool)
    );
    assert_eq!(returns("member", &["int64"]), scalar(DType::Bool));
}

#[test]
fn negation_widens_integers_and_keeps_floats() {
    assert_eq!(returns("negate", &["int16"]), scalar(DType::I64));
    assert_eq!(returns("negate", &["uint8"]), scalar(DType::U64));
    assert_eq!(returns("negate", &["bool"]), scalar(DType::I64));
    assert_eq!(returns("negate", &["float32"]), scalar(DType::F32));
}

#[test]
fn math_functions_keep_float32_and_take_integers_as_float64() {
    assert_eq!(returns("sqrt_of", &["float32"]), scalar(DType::F32));
    assert_eq!(returns("sqrt_of", &["int64"]), scalar(DType::F64));
    assert_eq!(returns("sqrt_of", &["float16"]), scalar(DType::F16));
    assert_eq!(
        returns("log_base", &["float32", "float32"]),
        scalar(DType::F32)
    );
    assert_eq!(
        returns("log_base", &["float32", "float64"]),
        scalar(DType::F64)
    );
    assert_eq!(returns("is_nan", &["int64"]), scalar(DType::Bool));
}

#[test]
fn a_variable_assigned_int_and_float_unifies_to_float64() {
    assert_eq!(returns("int_then_float", &["bool"]), scalar(DType::F64));
    let src = device("int_then_float", &["bool"], Cuda).preamble;
    assert!(src.contains("double v_r = 0;"), "{src}");
}

#[test]
fn returns_of_int_and_float_unify_to_float64() {
    assert_eq!(
        returns("returns_int_or_float", &["int64"]),
        scalar(DType::F64)
    );
}

#[test]
fn tuples_keep_each_items_type() {
    assert_eq!(
        returns("pair", &["int32", "float32"]),
        Ty::Tuple(vec![scalar(DType::I32), scalar(DType::F32)])
    );
    assert_eq!(
        returns("div_and_mod", &["int64", "int64"]),
        Ty::Tuple(vec![scalar(DType::I64), scalar(DType::I64)])
    );
}

#[test]
fn builtin_conversions_type_as_numba() {
    // int() of a float is int64; float() keeps a float's width; bool() is bool.
    assert_eq!(
        returns("conversions", &["float32"]),
        Ty::Tuple(vec![
            scalar(DType::I64),
            scalar(DType::F32),
            scalar(DType::Bool)
        ])
    );
    assert_eq!(
        returns("conversions", &["int16"]),
        Ty::Tuple(vec![
            scalar(DType::I16),
            scalar(DType::F64),
            scalar(DType::Bool)
        ])
    );
    assert_eq!(returns("as_float32", &["int64"]), scalar(DType::F32));
    assert_eq!(returns("rounded", &["float32"]), scalar(DType::I64));
}

#[test]
fn complex_values_build_and_split_by_part_width() {
    assert_eq!(
        returns("make_complex", &["float32", "float32"]),
        scalar(DType::C64)
    );
    assert_eq!(
        returns("make_complex", &["float32", "float64"]),
        scalar(DType::C128)
    );
    assert_eq!(returns("real_part", &["complex64"]), scalar(DType::F32));
    assert_eq!(returns("absolute", &["complex128"]), scalar(DType::F64));
}

#[test]
fn min_of_mixed_kinds_promotes() {
    assert_eq!(
        returns("smallest", &["int32", "float32"]),
        scalar(DType::F64)
    );
    assert_eq!(returns("smallest", &["int32", "int64"]), scalar(DType::I64));
}

#[test]
fn array_attributes_are_int64() {
    let i64t = scalar(DType::I64);
    assert_eq!(
        returns("shape_info", &["float32[:, :]"]),
        Ty::Tuple(vec![
            Ty::Tuple(vec![i64t.clone(), i64t.clone()]),
            i64t.clone(),
            i64t.clone(),
            i64t
        ])
    );
}

#[test]
fn element_type_is_the_arrays_dtype() {
    assert_eq!(
        returns("item_at", &["float32[:]", "int64"]),
        scalar(DType::F32)
    );
    assert_eq!(
        returns("cell", &["int8[:, ::1]", "int32", "int32"]),
        scalar(DType::I8)
    );
}

#[test]
fn range_over_int32_gives_an_int32_loop_variable() {
    let src = device("sum_to", &["int32"], Cuda).preamble;
    assert!(src.contains("for (int i"), "{src}");
    let src = device("sum_to", &["int64"], Cuda).preamble;
    assert!(src.contains("for (long long i"), "{src}");
    assert_eq!(returns("sum_to", &["int32"]), scalar(DType::I64));
}

#[test]
fn parameter_slots_follow_the_arguments() {
    let k = kernel(
        "saxpy",
        &["float32[::1]", "float32[:]", "float64[:]", "float32"],
        Cuda,
    );
    assert_eq!(
        k.params,
        vec![
            ParamSlot::Array { arg: 0, ndim: 1 },
            ParamSlot::Array { arg: 1, ndim: 1 },
            ParamSlot::Array { arg: 2, ndim: 1 },
            ParamSlot::Scalar {
                arg: 3,
                dtype: DType::F32
            },
        ]
    );
    assert_eq!(k.name, "ember_kernel_saxpy");
    assert!(k.coarse.is_none());
    let k = kernel(
        "add_2d",
        &["float32[:, ::1]", "float32[:, :]", "int16[:, :]"],
        OpenCl,
    );
    let ndims: Vec<usize> = k
        .params
        .iter()
        .map(|p| match p {
            ParamSlot::Array { ndim, .. } => *ndim,
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(ndims, vec![2, 2, 2]);
}

#[test]
fn dynamic_shared_memory_is_a_parameter_only_on_opencl() {
    let cl = kernel("dynamic_shared", &["float32[::1]"], OpenCl);
    assert_eq!(
        cl.params,
        vec![
            ParamSlot::Array { arg: 0, ndim: 1 },
            ParamSlot::DynamicShared
        ]
    );
    let cu = kernel("dynamic_shared", &["float32[::1]"], Cuda);
    assert_eq!(cu.params, vec![ParamSlot::Array { arg: 0, ndim: 1 }]);
}

#[test]
fn kernels_take_tuples_of_scalars_item_by_item() {
    // Passed by value, one parameter per scalar (depth first).
    let nested = ty("Tuple(int64, UniTuple(float32 x 2))");
    let k = compile_kernel(&program("does_nothing"), &[nested], Cuda).unwrap();
    assert_eq!(
        k.params,
        vec![
            ParamSlot::Item {
                arg: 0,
                item: 0,
                dtype: DType::I64
            },
            ParamSlot::Item {
                arg: 0,
                item: 1,
                dtype: DType::F32
            },
            ParamSlot::Item {
                arg: 0,
                item: 2,
                dtype: DType::F32
            },
        ]
    );
    assert!(k.source.contains("v_x.f1.f0 = p_x_1;"), "{}", k.source);
    // Arrays travel as arrays: data, then shape and strides.
    let arrays = Ty::Tuple(vec![ty("int64"), ty("float32[:]")]);
    let k = compile_kernel(&program("does_nothing"), &[arrays], Cuda).unwrap();
    assert_eq!(
        k.params,
        vec![
            ParamSlot::Item {
                arg: 0,
                item: 0,
                dtype: DType::I64
            },
            ParamSlot::ItemArray {
                arg: 0,
                item: 0,
                ndim: 1
            },
        ]
    );
    let nested = Ty::Tuple(vec![ty("int64"), Ty::Tuple(vec![])]);
    assert!(compile_kernel(&program("does_nothing"), &[nested], Cuda).is_ok());
}

#[test]
fn argument_types_parse_as_numba_writes_them() {
    assert_eq!(
        parse_arg_type("f8[:, :, ::1]"),
        Ok(Ty::Array(ArrayTy::global(DType::F64, 3, Layout::C)))
    );
    assert_eq!(
        parse_arg_type(" uint8[:] "),
        Ok(Ty::Array(ArrayTy::global(DType::U8, 1, Layout::A)))
    );
    assert_eq!(parse_arg_type("intp"), Ok(scalar(DType::I64)));
    assert_eq!(parse_arg_type("boolean"), Ok(scalar(DType::Bool)));
    match parse_arg_type("float32[:]") {
        Ok(Ty::Array(a)) => assert_eq!((a.space, a.fixed), (Space::Global, None)),
        other => panic!("{other:?}"),
    }
}

#[test]
fn malformed_argument_types_say_what_is_wrong() {
    let e = parse_arg_type("float32[:").unwrap_err();
    assert!(e.contains("without its ']'"), "{e}");
    let e = parse_arg_type("float32[:, ::1, :]").unwrap_err();
    assert!(e.contains("'::1' for the last"), "{e}");
    let e = parse_arg_type("float128").unwrap_err();
    assert!(e.contains("'float128' is not a type ember knows"), "{e}");
}

#[test]
fn signatures_give_the_return_and_argument_types() {
    let (ret, args) = parse_signature("float64(float64, int32[:, ::1])").unwrap();
    assert_eq!(ret, Some(scalar(DType::F64)));
    assert_eq!(
        args,
        vec![
            scalar(DType::F64),
            Ty::Array(ArrayTy::global(DType::I32, 2, Layout::C))
        ]
    );
    assert_eq!(
        parse_signature("(int32)").unwrap(),
        (None, vec![scalar(DType::I32)])
    );
    assert_eq!(parse_signature("void()").unwrap(), (None, vec![]));
    let e = parse_signature("float32").unwrap_err();
    assert!(e.contains("has no argument list"), "{e}");
}

#[test]
fn complex_of_a_complex_is_the_value_itself() {
    assert_eq!(returns("as_complex", &["complex64"]), scalar(DType::C64));
    let d = device("as_complex", &["complex64"], Cuda);
    assert!(d.preamble.contains("  return v_z;\n"), "{}", d.preamble);
}
