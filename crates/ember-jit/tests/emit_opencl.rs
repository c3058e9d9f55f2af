//! The OpenCL C the compiler writes from the same trees: address spaces, work-item functions,
//! and what OpenCL C 1.2 lacks (float atomics, complex operators) written out.

mod common;

use common::*;

const SAXPY: [&str; 4] = ["float32[::1]", "float32[:]", "float32[:]", "float32"];

#[test]
fn kernels_are_kernel_functions_taking_buffers_and_offsets() {
    let src = opencl("saxpy", &SAXPY);
    assert!(
        src.contains("__kernel void ember_kernel_saxpy(__global float* p_out, long p_out_o, ember_dims1 p_out_d, "),
        "{src}"
    );
    assert!(
        src.contains("v_out.data = (__global float*)(((__global char*)p_out) + p_out_o);"),
        "{src}"
    );
    assert!(
        !src.contains("__global__") && !src.contains("extern \"C\""),
        "{src}"
    );
}

#[test]
fn double_precision_is_enabled() {
    let src = opencl("saxpy", &SAXPY);
    assert!(
        src.contains("#pragma OPENCL EXTENSION cl_khr_fp64 : enable"),
        "{src}"
    );
}

#[test]
fn grid_is_the_global_id() {
    let src = opencl("saxpy", &SAXPY);
    assert!(src.contains("v_i = ((long)get_global_id(0));"), "{src}");
    let src = opencl(
        "add_2d",
        &["float64[:, :]", "float64[:, :]", "float64[:, :]"],
    );
    assert!(src.contains("((long)get_global_id(1))"), "{src}");
    let src = opencl("grid_stride", &["float64[:]", "float64[:]"]);
    assert!(
        src.contains("v_stride = ((long)get_global_size(0));"),
        "{src}"
    );
}

#[test]
fn thread_indices_are_work_item_functions() {
    let src = opencl("thread_indices", &["int32[:]"]);
    for call in [
        "(int)get_group_id(0)",
        "(int)get_local_size(0)",
        "(int)get_local_id(0)",
        "(int)get_num_groups(1)",
        "(int)get_local_size(2)",
    ] {
        assert!(src.contains(call), "{call} in {src}");
    }
    assert!(!src.contains("threadIdx"), "{src}");
}

#[test]
fn shared_arrays_are_local_memory_and_barriers_fence_it() {
    let src = opencl("block_sum", &["float32[::1]", "float32[::1]"]);
    let body = kernel_body(&src, "block_sum");
    let decl = body
        .lines()
        .find(|l| l.contains("[256]"))
        .unwrap_or_else(|| panic!("no shared array in {body}"));
    assert!(decl.trim_start().starts_with("__local float sh"), "{decl}");
    assert!(decl.contains("__attribute__((aligned(16)))"), "{decl}");
    assert_eq!(count(body, "barrier(CLK_LOCAL_MEM_FENCE)"), 2, "{body}");
    assert!(
        !src.contains("__shared__") && !src.contains("__syncthreads"),
        "{src}"
    );
    // A pointer into the array carries its address space.
    assert!(src.contains("__local float* data;"), "{src}");
}

#[test]
fn local_arrays_are_private_memory() {
    let src = opencl("local_scratch", &["float64[:]"]);
    let body = kernel_body(&src, "local_scratch");
    let decl = body
        .lines()
        .find(|l| l.contains("[4]"))
        .unwrap_or_else(|| panic!("no local array in {body}"));
    assert!(decl.trim_start().starts_with("double lo"), "{decl}");
    assert!(decl.contains("[4] __attribute__((aligned(16)));"), "{decl}");
}

#[test]
fn dynamic_shared_memory_arrives_as_a_local_pointer_and_its_size() {
    let src = opencl("dynamic_shared", &["float32[::1]"]);
    assert!(
        src.contains("__local ulong2* ember_dynamic_shared, long ember_dynamic_shared_bytes)"),
        "{src}"
    );
    assert!(src.contains("ember_dynamic_shared_bytes / 4"), "{src}");
}

#[test]
fn float_atomic_add_is_a_compare_and_swap_loop() {
    let src = opencl("block_sum", &["float32[::1]", "float32[::1]"]);
    let helper = function(&src, "ember_atomic_add_float32_g");
    assert!(
        helper.contains("atomic_cmpxchg((volatile __global uint*)q, assumed, as_uint(n))"),
        "{helper}"
    );
    assert!(helper.contains("float n = o + v;"), "{helper}");
    assert!(helper.contains("} while (assumed != old);"), "{helper}");
    assert!(!src.contains("atomicAdd"), "{src}");
}

#[test]
fn integer_atomics_are_native_and_64_bit_ones_enable_their_extension() {
    let src = opencl("histogram", &["int32[:]", "int64[:]"]);
    assert!(
        src.contains("return atomic_add((volatile __global int*)p, v);"),
        "{src}"
    );
    assert!(!src.contains("cl_khr_int64_base_atomics"), "{src}");
    let src = opencl("histogram", &["int64[:]", "int64[:]"]);
    assert!(
        src.contains("return atom_add((volatile __global long*)p, v);"),
        "{src}"
    );
    assert!(
        src.contains("#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable"),
        "{src}"
    );
}

#[test]
fn int64_constants_carry_the_l_suffix() {
    let src = opencl("block_sum", &["float32[::1]", "float32[::1]"]);
    assert!(src.contains("ember_floordiv_int64(v_s, 2L)"), "{src}");
    assert!(!kernel_body(&src, "block_sum").contains("LL"), "{src}");
}

#[test]
fn math_functions_are_overloaded_not_suffixed() {
    let src = opencl("float32_math", &["float32[:]", "float32[:]"]);
    let body = kernel_body(&src, "float32_math");
    assert!(body.contains("exp(") && body.contains("sin("), "{body}");
    assert!(!body.contains("expf("), "{body}");
}

#[test]
fn float16_loads_and_stores_go_through_vload_half() {
    let src = opencl("half_precision", &["float16[:]", "float16[:]"]);
    let body = kernel_body(&src, "half_precision");
    assert!(
        body.contains("vload_half(0, (__global const half*)"),
        "{body}"
    );
    assert!(
        body.contains("vstore_half_rte(ember_round_half(("),
        "{body}"
    );
}

#[test]
fn complex_products_and_quotients_call_defined_helpers() {
    let src = opencl(
        "complex_ops",
        &["complex128[:]", "complex128[:]", "complex128[:]"],
    );
    let body = kernel_body(&src, "complex_ops");
    // OpenCL C has no complex type: `*` and `/` on double2 would work element-wise. The
    // quotient is CPython's (Numba's), a helper of its own.
    for kind in ["cmul", "py_cdiv"] {
        let at = body
            .find(&format!("ember_{kind}"))
            .unwrap_or_else(|| panic!("no {kind} call in {body}"));
        let name: String = body[at..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        let head = &src[..src.find("__kernel void").unwrap()];
        assert!(
            head.contains(&format!(" {name}(ember_c128 a, ember_c128 b)")),
            "{name} is not defined before the kernel:\n{head}"
        );
    }
}

#[test]
fn constant_arrays_are_in_the_constant_address_space() {
    let src = opencl("constant_coeffs", &["float32[:]", "float32[:]"]);
    assert!(
        src.contains("__constant float ember_const0[3] = {1.0, 2.0, 3.0};"),
        "{src}"
    );
    assert!(src.contains("__constant float* data;"), "{src}");
}

#[test]
fn the_same_tree_gives_the_same_statements_in_both_dialects() {
    let (cu, cl) = (cuda("saxpy", &SAXPY), opencl("saxpy", &SAXPY));
    let lines = |s: &str| {
        s.lines()
            .filter(|l| l.starts_with("#line"))
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    assert_eq!(lines(&cu), lines(&cl));
    assert_eq!(
        kernel("saxpy", &SAXPY, Cuda).params,
        kernel("saxpy", &SAXPY, OpenCl).params
    );
}
