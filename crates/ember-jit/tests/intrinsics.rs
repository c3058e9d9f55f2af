//! Numba's device API and the math functions, in each dialect: barriers, fences, warp
//! queries, atomics, random numbers, constant arrays, `math` and NumPy scalar functions.

mod common;

use common::*;

#[test]
fn syncthreads_is_the_dialects_block_barrier() {
    let args = ["float32[::1]"];
    assert!(
        kernel_body(&cuda("dynamic_shared", &args), "dynamic_shared")
            .contains("(void)(__syncthreads());")
    );
    assert!(
        kernel_body(&opencl("dynamic_shared", &args), "dynamic_shared")
            .contains("(void)(barrier(CLK_LOCAL_MEM_FENCE));")
    );
}

#[test]
fn fences_map_to_threadfence_or_mem_fence() {
    let cu = cuda("fences", &["int32[:]"]);
    let body = kernel_body(&cu, "fences");
    for f in [
        "__threadfence()",
        "__threadfence_block()",
        "__threadfence_system()",
    ] {
        assert!(body.contains(f), "{f} in {body}");
    }
    let cl = opencl("fences", &["int32[:]"]);
    let body = kernel_body(&cl, "fences");
    assert_eq!(count(body, "mem_fence(CLK_GLOBAL_MEM_FENCE)"), 2, "{body}");
    assert_eq!(
        count(
            body,
            "mem_fence(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE)"
        ),
        1,
        "{body}"
    );
}

#[test]
fn warp_queries_read_the_lane_and_a_warp_of_32() {
    let cu = cuda("warp_info", &["int64[:]"]);
    assert!(cu.contains("mov.u32 %0, %%laneid;"), "{cu}");
    let body = kernel_body(&cu, "warp_info");
    assert!(
        body.contains("ember_laneid()") && body.contains("(long long)(32)"),
        "{body}"
    );
    assert!(body.contains("__syncwarp(0xffffffffu)"), "{body}");
    // OpenCL 1.2 has no warps: the lane from the local id, and syncwarp waits for the group.
    let cl = opencl("warp_info", &["int64[:]"]);
    assert!(cl.contains("get_local_id(0)) & 31;"), "{cl}");
    assert!(kernel_body(&cl, "warp_info").contains("barrier(CLK_LOCAL_MEM_FENCE)"));
}

#[test]
fn float_atomic_add_is_native_on_cuda() {
    let src = cuda("block_sum", &["float32[::1]", "float32[::1]"]);
    assert!(
        src.contains(
            "float ember_atomic_add_float32_g(float* p, float v) { return atomicAdd(p, v); }"
        ),
        "{src}"
    );
}

#[test]
fn int64_atomic_add_goes_through_the_unsigned_instruction_on_cuda() {
    let src = cuda("histogram", &["int64[:]", "int64[:]"]);
    assert!(
        src.contains("return (long long)atomicAdd((unsigned long long*)p, (unsigned long long)v);"),
        "{src}"
    );
    // The index is an element read from another array: it may be negative, so it wraps.
    assert!(
        kernel_body(&src, "histogram").contains("ember_wrap("),
        "{src}"
    );
}

#[test]
fn float_atomic_max_is_a_compare_and_swap_loop_in_both_dialects() {
    let cu = cuda("atomic_max_float", &["float64[:]", "float64[:]"]);
    let helper = function(&cu, "ember_atomic_max_float64_g");
    assert!(
        helper.contains("atomicCAS(q, assumed, (unsigned long long)__double_as_longlong(n))"),
        "{helper}"
    );
    // Numba's float max: a NaN on either side keeps memory as it is.
    assert!(helper.contains("double n = v > o ? v : o;"), "{helper}");
    let cl = opencl("atomic_max_float", &["float64[:]", "float64[:]"]);
    let helper = function(&cl, "ember_atomic_max_float64_g");
    assert!(
        helper.contains("atom_cmpxchg((volatile __global ulong*)q, assumed, as_ulong(n))"),
        "{helper}"
    );
}

#[test]
fn compare_and_swap_returns_the_old_value() {
    let cu = cuda("atomic_cas", &["int32[:]"]);
    assert!(
        cu.contains("int ember_atomic_cas_int32_g(int* p, int expected, int v) { return (int)(atomicCAS((unsigned int*)p, (unsigned int)(expected), (unsigned int)(v))); }"),
        "{cu}"
    );
    let cl = opencl("atomic_cas", &["int32[:]"]);
    assert!(
        cl.contains("atomic_cmpxchg((volatile __global uint*)"),
        "{cl}"
    );
}

#[test]
fn random_draws_use_the_xoroshiro_prelude_on_the_threads_state() {
    for src in [
        cuda("random_draws", &["float32[:]", "uint64[:, :]"]),
        opencl("random_draws", &["float32[:]", "uint64[:, :]"]),
    ] {
        let body = kernel_body(&src, "random_draws");
        assert!(
            body.contains("ember_xoroshiro128p_uniform_float32("),
            "{body}"
        );
        let head = &src[..src.find(body).unwrap()];
        assert!(
            head.contains("ember_xoroshiro128p_uniform_float32("),
            "not defined:\n{head}"
        );
    }
}

#[test]
fn const_array_like_reads_the_global_array() {
    let src = cuda("constant_coeffs", &["float32[:]", "float32[:]"]);
    let body = kernel_body(&src, "constant_coeffs");
    assert!(body.contains("= ember_arr0_at(ember_const0);"), "{body}");
    // Fixed shapes index with the shape compiled in, in 32 bits.
    assert!(body.contains("(v_c.data + (int)(2LL))"), "{body}");
}

#[test]
fn numpy_scalars_and_global_constants_are_inlined_with_their_types() {
    let src = cuda("global_constants", &["float64[:]"]);
    assert!(
        kernel_body(&src, "global_constants").contains("((double)(16LL) * (double)((float)(0.5)))"),
        "{src}"
    );
}

#[test]
fn math_tests_of_integers_are_constants() {
    let d = device("is_nan", &["int64"], Cuda);
    assert!(function(&d.preamble, &d.name).contains("return ((unsigned char)0);"));
    let d = device("is_nan", &["float32"], OpenCl);
    assert!(function(&d.preamble, &d.name).contains("(isnan(v_x) != 0)"));
}

#[test]
fn a_logarithm_with_a_base_divides_logarithms() {
    let d = device("log_base", &["float64", "float64"], OpenCl);
    assert!(function(&d.preamble, &d.name).contains("return (log(v_x) / log(v_b));"));
}
