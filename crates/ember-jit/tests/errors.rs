//! Errors: a `JitError` naming the file, line, function and construct, with the offending
//! code underlined; wrong argument counts are `TypeError`s as in Python.

mod common;

use common::*;
use ember_core::Error;
use ember_jit::{compile_device, compile_kernel, Program};

/// The message's first line, and the two lines under it (the code and the carets).
fn parts(message: &str) -> (String, String, String) {
    let mut lines = message.lines();
    let first = lines.next().unwrap_or_default().to_string();
    let code = lines.next().unwrap_or_default().to_string();
    let carets = lines.next().unwrap_or_default().to_string();
    (first, code, carets)
}

/// The part of `code` the carets under it point at.
fn underlined(code: &str, carets: &str) -> String {
    let start = carets.find('^').expect("carets");
    let width = carets.matches('^').count();
    code.chars().skip(start).take(width).collect()
}

#[test]
fn an_unsupported_statement_is_named_with_its_file_and_line() {
    let m = kernel_error("uses_try", &["int64[:]"], Cuda);
    let (first, code, carets) = parts(&m);
    assert_eq!(
        first,
        format!(
            "kernels.py:{}: in kernel 'uses_try': a try statement is not supported in kernels",
            line_of("    try:")
        )
    );
    assert_eq!(code, "    try:");
    assert_eq!(underlined(&code, &carets), "try:");
}

#[test]
fn an_unsupported_expression_is_underlined() {
    let m = kernel_error("uses_list", &["int64[:]"], OpenCl);
    let (first, code, carets) = parts(&m);
    assert!(
        first.ends_with("in kernel 'uses_list': a list display [...] is not supported in kernels"),
        "{m}"
    );
    assert!(
        first.starts_with(&format!("kernels.py:{}:", line_of("xs = [1, 2, 3]"))),
        "{m}"
    );
    assert_eq!(underlined(&code, &carets), "[1, 2, 3]");
}

#[test]
fn print_of_an_array_is_refused() {
    let m = kernel_error("uses_print", &["int64[:]"], Cuda);
    assert!(
        m.contains("print() of array(int64, 1d, A) is not supported in kernels"),
        "{m}"
    );
}

#[test]
fn a_kernel_that_returns_a_value_is_refused() {
    let m = kernel_error("returns_value", &["int64[:]"], Cuda);
    assert!(
        m.contains("a kernel cannot return a value; write results into an array argument"),
        "{m}"
    );
}

#[test]
fn whole_array_arithmetic_says_to_index_elements() {
    let m = kernel_error(
        "whole_array_add",
        &["float32[:]", "float32[:]", "float32[:]"],
        Cuda,
    );
    assert!(
        m.contains("unsupported operand types for +: array(float32, 1d, A) and array(float32, 1d, A) (whole-array arithmetic is not available inside kernels: index the elements)"),
        "{m}"
    );
    let (_, code, carets) = parts(&m);
    assert_eq!(underlined(&code, &carets), "a + b");
}

#[test]
fn the_matmul_operator_is_refused() {
    let m = kernel_error(
        "matmul_operator",
        &["float32[:]", "float32[:]", "float32[:]"],
        Cuda,
    );
    assert!(
        m.contains("the @ operator is not supported in kernels; write the loop"),
        "{m}"
    );
}

#[test]
fn carets_line_up_under_non_ascii_names() {
    // Python's columns count UTF-8 bytes; the carets count characters.
    let m = kernel_error("non_ascii_names", &["int64[:]", "float32[:]"], Cuda);
    let (_, code, carets) = parts(&m);
    assert_eq!(code, "    out[0] = größe @ größe");
    assert_eq!(underlined(&code, &carets), "größe @ größe");
}

#[test]
fn is_comparisons_other_than_with_none_suggest_equality() {
    let m = kernel_error("is_comparison", &["int32[:]", "int32[:]"], Cuda);
    assert!(
        m.contains("'is' compares with None only in compiled code; compare values with =="),
        "{m}"
    );
}

#[test]
fn constant_arrays_are_read_only() {
    let m = kernel_error("writes_constant", &["float32[:]"], Cuda);
    assert!(m.contains("constant arrays are read-only"), "{m}");
    let (_, code, carets) = parts(&m);
    assert_eq!(underlined(&code, &carets), "c[0]");
}

#[test]
fn complex_floor_division_is_undefined() {
    let m = kernel_error(
        "complex_floor_div",
        &["complex128[:]", "complex128[:]", "complex128[:]"],
        Cuda,
    );
    assert!(
        m.contains("operator // is not defined for complex numbers"),
        "{m}"
    );
}

#[test]
fn too_many_indices_name_the_dimensions() {
    let m = kernel_error("too_many_indices", &["float32[:]", "float32[:, :]"], Cuda);
    assert!(m.contains("a 2-d array needs 2 indices, got 3"), "{m}");
}

#[test]
fn a_float_index_from_the_signature_is_a_type_error_in_the_kernel() {
    let m = kernel_error(
        "float_index",
        &["float32[:]", "float32[:]", "float64"],
        Cuda,
    );
    assert!(
        m.contains("array indices must be integers, got float64"),
        "{m}"
    );
    // The same kernel with an integer there compiles.
    kernel("float_index", &["float32[:]", "float32[:]", "int32"], Cuda);
}

#[test]
fn a_zero_range_step_is_underlined() {
    let m = kernel_error("range_zero_step", &["int64[:]"], Cuda);
    let (first, code, carets) = parts(&m);
    assert!(first.ends_with("range() arg 3 must not be zero"), "{m}");
    assert_eq!(code, "    for i in range(0, 10, 0):");
    assert_eq!(carets.find('^'), Some(code.rfind('0').unwrap()), "{m}");
}

#[test]
fn a_variable_keeps_one_kind_of_type() {
    let m = kernel_error("variable_changes_kind", &["int64[:]", "float32[:]"], Cuda);
    assert!(
        m.contains(
            "cannot unify int64 and array(float32, 1d, A) for 'v': a variable keeps one type"
        ),
        "{m}"
    );
}

#[test]
fn calling_a_local_variable_explains_what_can_be_called() {
    let m = kernel_error("calls_a_local", &["int64[:]", "int64"], Cuda);
    assert!(
        m.contains("'f' is a local variable, not a function: kernels call device functions"),
        "{m}"
    );
}

#[test]
fn shared_array_shapes_must_be_constants() {
    let m = kernel_error("shared_shape_not_constant", &["float32[:]", "int64"], Cuda);
    assert!(
        m.contains("the shape must be a constant integer or tuple of them"),
        "{m}"
    );
    let (_, code, carets) = parts(&m);
    assert_eq!(underlined(&code, &carets), "n");
}

#[test]
fn opencl_hoists_shared_arrays_of_device_functions_into_the_kernel() {
    // OpenCL declares `__local` arrays only at kernel scope: the kernel declares the device
    // function's array and passes it down as a pointer.
    let src = kernel("calls_shared_in_device", &["float32[:]"], OpenCl).source;
    assert!(src.contains("__local float ember_sh"), "{src}");
    assert!(src.contains("__local float* ember_sh"), "{src}");
    let src = cuda("calls_shared_in_device", &["float32[:]"]);
    assert!(src.contains("__shared__"), "{src}");
}

#[test]
fn a_variable_never_assigned_is_named() {
    let m = kernel_error("cyclic_assignment", &["int64[:]"], Cuda);
    let (first, _, _) = parts(&m);
    assert_eq!(
        first,
        format!(
            "kernels.py:{}: in kernel 'cyclic_assignment': variable 'b' is used before it is assigned a value",
            line_of("a = b  # noqa")
        )
    );
}

#[test]
fn atomics_name_the_dtypes_they_take() {
    let m = kernel_error("atomic_on_bytes", &["int8[:]"], Cuda);
    assert!(
        m.contains("cuda.atomic.add() does not support arrays of int8 (it takes int32, uint32, int64, uint64, float32 and float64)"),
        "{m}"
    );
}

#[test]
fn a_wrong_argument_count_is_a_type_error() {
    let err = compile_kernel(&program("saxpy"), &tys(&["float32[:]"]), Cuda).unwrap_err();
    match err {
        Error::Type(m) => assert!(
            m.contains("in kernel 'saxpy': takes 4 argument(s) (out, x, y, a), but 1 were given"),
            "{m}"
        ),
        other => panic!("expected a TypeError, got {other:?}"),
    }
}

#[test]
fn a_device_function_that_can_fall_off_its_end_is_refused() {
    let m = device_error("no_return_on_some_paths", &["int64"]);
    assert!(
        m.contains("no_return_on_some_paths() returns int64 on some paths but can reach its end without a return"),
        "{m}"
    );
}

#[test]
fn a_malformed_tree_is_reported_not_panicked_on() {
    let e = Program::from_json(r#"{"functions": [{"name": "f"}]}"#).unwrap_err();
    assert!(
        e.starts_with("malformed kernel tree from the front:"),
        "{e}"
    );
    let empty = Program::from_json(r#"{"functions": []}"#).unwrap();
    match compile_kernel(&empty, &[], Cuda) {
        Err(Error::Jit(m)) => assert!(m.contains("has no function"), "{m}"),
        other => panic!("{other:?}"),
    }
    assert!(compile_device(&program("add"), &tys(&["int64"]), Cuda).is_err());
}

#[test]
fn an_atomic_takes_a_number_not_an_array() {
    let m = kernel_error("atomic_adds_an_array", &["float32[:]", "float32[:]"], Cuda);
    assert!(
        m.contains(
            "cuda.atomic.add() combines the element with a number, got array(float32, 1d, A)"
        ),
        "{m}"
    );
    let (_, code, carets) = parts(&m);
    assert_eq!(underlined(&code, &carets), "x");
}

#[test]
fn complex_takes_numbers() {
    let m = device_error("make_complex", &["float32[:]", "float32"]);
    assert!(
        m.contains("complex() takes numbers, got array(float32, 1d, A)"),
        "{m}"
    );
    let m = device_error("make_complex", &["complex64", "float32"]);
    assert!(
        m.contains("complex() of complex parts is not supported"),
        "{m}"
    );
}
