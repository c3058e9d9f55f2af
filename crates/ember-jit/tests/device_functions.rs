//! Device functions: specialised per argument types, emitted callees first, called with
//! positional and keyword arguments, taking and returning arrays and tuples.

mod common;

use common::*;
use ember_core::DType;
use ember_jit::{compile_device, Ty};

/// Where the C function `name` is defined in `source`.
fn defined_at(source: &str, name: &str) -> usize {
    source
        .find(function(source, name))
        .expect("the function is in the source")
}

#[test]
fn callees_are_emitted_before_their_callers() {
    let src = cuda("calls_scale_twice", &["float64[:]", "float32[:]"]);
    let twice = defined_at(&src, "ember_fn0_scale_twice");
    let kernel = defined_at(&src, "ember_kernel_calls_scale_twice");
    // scale(float32, int64) and scale(float64, int64): two specialisations, both before.
    let scales = [
        defined_at(&src, "ember_fn0_scale"),
        defined_at(&src, "ember_fn1_scale"),
    ];
    assert!(scales.iter().all(|&s| s < twice) && twice < kernel, "{src}");
    assert!(
        function(&src, "ember_fn0_scale_twice")
            .contains("return ember_fn1_scale(ember_fn0_scale(v_x, 2LL), 3LL);"),
        "{src}"
    );
}

#[test]
fn each_argument_type_signature_gets_its_own_specialisation() {
    let src = cuda(
        "calls_scale_with_two_types",
        &["float64[:]", "float32[:]", "int32"],
    );
    assert!(
        src.contains("static __device__ __forceinline__ double ember_fn0_scale(float p_x, double p_factor) {"),
        "{src}"
    );
    assert!(
        src.contains("static __device__ __forceinline__ long long ember_fn1_scale(int p_x, long long p_factor) {"),
        "{src}"
    );
    // The int64 result is converted where the float64 sum needs it.
    assert!(
        src.contains("+ (double)(ember_fn1_scale(v_n, 2LL))"),
        "{src}"
    );
}

#[test]
fn keyword_arguments_bind_by_name() {
    let src = cuda("calls_with_keyword", &["float64[:]", "float64[:]"]);
    let body = kernel_body(&src, "calls_with_keyword");
    // scale(factor=3.0, x=x[i]) calls scale(x[i], 3.0).
    assert!(body.contains("= ember_fn0_scale((*((double*)"), "{body}");
    assert!(body.contains("strides[0]))), 3.0);"), "{body}");
}

#[test]
fn argument_mistakes_are_reported_like_python() {
    let m = kernel_error(
        "calls_with_unknown_keyword",
        &["float64[:]", "float64[:]"],
        Cuda,
    );
    assert!(
        m.contains("scale() got an unexpected keyword argument 'scale_by'"),
        "{m}"
    );
    let m = kernel_error(
        "calls_with_missing_argument",
        &["float64[:]", "float64[:]"],
        Cuda,
    );
    assert!(m.contains("scale() is missing argument 'factor'"), "{m}");
}

#[test]
fn arrays_pass_to_device_functions_as_views_they_can_write() {
    let src = cuda("calls_fill_row", &["float32[:, ::1]"]);
    assert!(
        src.contains("static __device__ __forceinline__ void ember_fn0_fill_row(ember_arr0 p_row, double p_value) {"),
        "{src}"
    );
    assert!(
        function(&src, "ember_fn0_fill_row").contains("= (float)(v_value);"),
        "{src}"
    );
    // Written through the view: the kernel's array is not declared read-only.
    assert!(src.contains("(float* p_a, ember_dims2 p_a_d)"), "{src}");
}

#[test]
fn tuples_return_as_structs_and_unpack_into_stores() {
    let src = cuda(
        "calls_min_max",
        &["float32[:]", "float32[:]", "float32[:]", "float32[:]"],
    );
    assert!(
        src.contains("typedef struct { float f0; float f1; } ember_tup0;"),
        "{src}"
    );
    let body = kernel_body(&src, "calls_min_max");
    assert_eq!(count(body, "ember_fn0_min_max("), 1, "called once:\n{body}");
    assert!(body.contains(".f0;") && body.contains(".f1;"), "{body}");
}

#[test]
fn recursion_errors_name_the_call_chain() {
    // ping's return type comes only through pong, which calls ping back: the same typing
    // error on both back ends (OpenCL's own refusal comes once a recursion types).
    for dialect in [Cuda, OpenCl] {
        let m = kernel_error("calls_recursion", &["int64[:]"], dialect);
        assert!(
            m.contains("in device function 'ping': the return type of ping() is not known where it is called back (call chain: ping -> pong -> ping)"),
            "{m}"
        );
    }
}

#[test]
fn a_device_function_compiles_alone_for_vectorize() {
    let d = compile_device(&program("add"), &tys(&["float32", "float32"]), OpenCl).unwrap();
    assert_eq!(d.name, "ember_fn0_add");
    assert_eq!(d.ret, Ty::Scalar(DType::F32));
    assert!(
        d.preamble
            .contains("static inline float ember_fn0_add(float p_a, float p_b) {"),
        "{}",
        d.preamble
    );
    assert!(!d.preamble.contains("__kernel"), "{}", d.preamble);
}

#[test]
fn device_functions_are_inline_in_both_dialects() {
    let cu = device("scale", &["float64", "int64"], Cuda).preamble;
    assert!(
        cu.contains("static __device__ __forceinline__ double ember_fn0_scale("),
        "{cu}"
    );
    let cl = device("scale", &["float64", "int64"], OpenCl).preamble;
    assert!(cl.contains("static inline double ember_fn0_scale("), "{cl}");
}
