//! `print` as one device printf in each dialect, and device functions compiled to stand alone
//! (Numba's `compile(device=True)`).

mod common;

use common::*;
use ember_jit::{compile_device_entry, Abi};

#[test]
fn print_is_one_printf_with_numbas_formats_in_each_dialect() {
    let args = ["float32[::1]", "int64", "UniTuple(int32 x 2)"];
    let cu = cuda("prints", &args);
    let body = kernel_body(&cu, "prints");
    assert!(
        body.contains(r#"printf("%lld %f %s 100%% %llu (%lld, %lld) (%lld, %lld, %lld)\n", "#),
        "{body}"
    );
    assert!(body.contains(r#"? "True" : "False""#), "{body}");
    assert!(!cu.contains("#pragma clang"), "{cu}");
    // OpenCL C's printf has no `ll`, and PoCL reads a `%f` argument as a float (`%lf`, which
    // its clang would warn about).
    let cl = opencl("prints", &args);
    assert!(
        cl.contains("#pragma clang diagnostic ignored \"-Wformat\"\n"),
        "{cl}"
    );
    let body = kernel_body(&cl, "prints");
    assert!(
        body.contains(r#"printf("%ld %lf %s 100%% %lu (%ld, %ld) (%ld, %ld, %ld)\n", "#),
        "{body}"
    );
}

#[test]
fn print_of_more_than_32_items_prints_cudas_format_verbatim() {
    for source in [
        cuda("prints_too_many", &["int64[:]"]),
        opencl("prints_too_many", &["int64[:]"]),
    ] {
        let body = kernel_body(&source, "prints_too_many").to_string();
        let raw = vec!["%%lld"; 33].join(" ");
        assert!(body.contains(&format!("printf(\"{raw}\\n\")")), "{body}");
    }
}

#[test]
fn a_device_function_stands_alone_behind_an_extern_c_entry_by_each_abi() {
    let p = program("scaled_sum");
    let args = tys(&["float32", "float64"]);
    let (c, ret) = compile_device_entry(&p, &args, "scaled", Abi::C, None, false).unwrap();
    assert_eq!(ret.to_string(), "float64");
    assert!(
        c.contains("extern \"C\" __device__ double scaled(float a0, double a1) { return ember_fn0_scaled_sum(a0, a1); }"),
        "{c}"
    );
    let (numba, _) =
        compile_device_entry(&p, &args, "scaled", Abi::Numba, Some(ty("float32")), true).unwrap();
    assert!(
        numba.contains("extern \"C\" __device__ __forceinline__ int scaled(float* ret, float a0, double a1) { *ret = (float)(ember_fn0_scaled_sum(a0, a1)); return 0; }"),
        "{numba}"
    );
    let err = compile_device_entry(&p, &args, "scaled", Abi::C, Some(ty("float32[:]")), false)
        .unwrap_err();
    assert!(
        err.to_string().contains("the signature returns array"),
        "{err}"
    );
}
