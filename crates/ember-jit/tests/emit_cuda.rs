//! The CUDA C the compiler writes: entry points, thread geometry, memory spaces, atomics.

mod common;

use common::*;

const SAXPY: [&str; 4] = ["float32[::1]", "float32[:]", "float32[:]", "float32"];

#[test]
fn kernels_are_extern_c_global_functions() {
    let src = cuda("saxpy", &SAXPY);
    assert!(
        src.contains(
            "extern \"C\" __global__ void ember_kernel_saxpy(float* p_out, ember_dims1 p_out_d, "
        ),
        "{src}"
    );
    assert!(!src.contains("__kernel"), "{src}");
}

#[test]
fn arrays_only_read_are_const_restrict() {
    let src = cuda("saxpy", &SAXPY);
    assert!(src.contains("const float* __restrict__ p_x"), "{src}");
    assert!(src.contains("const float* __restrict__ p_y"), "{src}");
    // `out` is written: a plain pointer.
    assert!(!src.contains("const float* __restrict__ p_out"), "{src}");
}

#[test]
fn contiguous_arrays_index_by_element_and_strided_ones_by_byte() {
    let body = cuda("saxpy", &SAXPY);
    let body = kernel_body(&body, "saxpy");
    assert!(body.contains("*((v_out.data + v_i))"), "{body}");
    assert!(
        body.contains("(*((float*)((char*)v_x.data + v_i * v_x.d.strides[0])))"),
        "{body}"
    );
}

#[test]
fn grid_is_block_index_times_block_size_plus_thread_index() {
    let src = cuda("saxpy", &SAXPY);
    assert!(
        src.contains("v_i = ((long long)blockIdx.x * blockDim.x + threadIdx.x);"),
        "{src}"
    );
    let src = cuda(
        "add_2d",
        &["float64[:, :]", "float64[:, :]", "float64[:, :]"],
    );
    assert!(
        src.contains("((long long)blockIdx.y * blockDim.y + threadIdx.y)"),
        "{src}"
    );
}

#[test]
fn thread_indices_read_the_cuda_builtins_as_int() {
    let src = cuda("thread_indices", &["int32[:]"]);
    for builtin in [
        "(int)blockIdx.x",
        "(int)blockDim.x",
        "(int)threadIdx.x",
        "(int)gridDim.y",
        "(int)blockDim.z",
    ] {
        assert!(src.contains(builtin), "{builtin} in {src}");
    }
}

#[test]
fn gridsize_is_grid_dim_times_block_dim() {
    let src = cuda("grid_stride", &["float64[:]", "float64[:]"]);
    assert!(
        src.contains("v_stride = ((long long)gridDim.x * blockDim.x);"),
        "{src}"
    );
}

#[test]
fn math_on_float32_calls_the_f_suffixed_functions() {
    let src = cuda("float32_math", &["float32[:]", "float32[:]"]);
    assert!(src.contains("expf(") && src.contains("sinf("), "{src}");
    let src = cuda("float32_math", &["float64[:]", "float64[:]"]);
    assert!(src.contains("exp(") && !src.contains("expf("), "{src}");
}

#[test]
fn shared_arrays_are_shared_aligned_and_sized_at_compile_time() {
    let src = cuda("block_sum", &["float32[::1]", "float32[::1]"]);
    let body = kernel_body(&src, "block_sum");
    let decl = body
        .lines()
        .find(|l| l.contains("__shared__"))
        .unwrap_or_else(|| panic!("no shared array in {body}"));
    assert!(
        decl.trim_start()
            .starts_with("__shared__ __align__(16) float sh"),
        "{decl}"
    );
    assert!(decl.trim_end().ends_with("[256];"), "{decl}");
    assert_eq!(count(body, "__syncthreads()"), 2, "{body}");
}

#[test]
fn local_arrays_are_per_thread_and_aligned() {
    let src = cuda("local_scratch", &["float64[:]"]);
    let body = kernel_body(&src, "local_scratch");
    let decl = body
        .lines()
        .find(|l| l.contains("[4]"))
        .unwrap_or_else(|| panic!("no local array in {body}"));
    assert!(
        decl.trim_start().starts_with("__align__(16) double lo"),
        "{decl}"
    );
    assert!(!body.contains("__shared__"), "{body}");
}

#[test]
fn dynamic_shared_memory_is_the_extern_shared_array() {
    let src = cuda("dynamic_shared", &["float32[::1]"]);
    assert!(
        src.contains("extern __shared__ __align__(16) unsigned char ember_dynamic_shared[];"),
        "{src}"
    );
    assert!(src.contains("ember_dynamic_shared_size() / 4"), "{src}");
}

#[test]
fn int64_constants_carry_the_ll_suffix() {
    let src = cuda("block_sum", &["float32[::1]", "float32[::1]"]);
    assert!(src.contains("ember_floordiv_int64(v_s, 2LL)"), "{src}");
}

#[test]
fn signed_integer_arithmetic_is_done_unsigned_so_it_wraps() {
    let src = cuda("int_arith", &["int64[:]", "int64[:]", "int64[:]"]);
    let body = kernel_body(&src, "int_arith");
    assert!(body.contains("((long long)((unsigned long long)"), "{body}");
    // Unsigned arithmetic wraps by definition: written as it is.
    let src = cuda("int_arith", &["uint64[:]", "uint64[:]", "uint64[:]"]);
    assert!(!kernel_body(&src, "int_arith").contains("((long long)((unsigned long long)"));
}

#[test]
fn float16_is_stored_as_bits_and_computed_by_f16_instructions() {
    let src = cuda("half_precision", &["float16[:]", "float16[:]"]);
    let body = kernel_body(&src, "half_precision");
    // The elements' bits go to `mul.rn.f16` (rounded as NumPy rounds each operation, never
    // contracted) and its bits to memory: no conversion through float.
    assert!(
        body.contains("= ember_hmul_rn_b((*((unsigned short*)"),
        "{body}"
    );
    assert!(
        !body.contains("ember_h2f") && !body.contains("ember_f2h"),
        "{body}"
    );
    assert!(
        src.contains(r#"EMBER_HALF_OP2(hmul_rn, "mul.rn.f16", *)"#),
        "{src}"
    );
}

#[test]
fn constant_arrays_are_initialised_constant_memory() {
    let src = cuda("constant_coeffs", &["float32[:]", "float32[:]"]);
    assert!(
        src.contains("__constant__ float ember_const0[3] = {1.0, 2.0, 3.0};"),
        "{src}"
    );
}

#[test]
fn line_directives_name_the_python_file_and_line() {
    let src = cuda("saxpy", &SAXPY);
    let line = line_of("out[i] = a * x[i] + y[i]");
    assert!(
        src.contains(&format!("#line {line} \"kernels.py\"")),
        "{src}"
    );
}

#[test]
fn views_are_structs_with_their_own_shape_and_strides() {
    let src = cuda("slices", &["float64[:]", "float64[:, :]"]);
    let body = kernel_body(&src, "slices");
    // a.T swaps the axes of a view on the same data.
    assert!(
        body.contains("d.shape[0] = v_a.d.shape[1];")
            && body.contains("d.strides[1] = v_a.d.strides[0];"),
        "{body}"
    );
    // a[i, 1:] starts one element in, clamped to the dimension.
    assert!(
        body.contains("ember_clamp(ember_wrap(1LL, v_a.d.shape[1]), 0, v_a.d.shape[1])"),
        "{body}"
    );
}
