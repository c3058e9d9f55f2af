//! The translation's text where it matters: memories of pointers, hoisted shared arrays, the
//! dynamic shared parameter, template instances, helpers for atomics OpenCL lacks, and errors
//! naming the line. (Running the result is the Python tests' job, on PoCL and on GPUs.)

use ember_translate::translate;

fn opencl(src: &str) -> String {
    match translate(src, &[], &[]) {
        Ok(t) => t.source,
        Err(e) => panic!("translation failed: {e}"),
    }
}

fn error(src: &str) -> (u32, String) {
    match translate(src, &[], &[]) {
        Ok(t) => panic!("expected an error, got:\n{}", t.source),
        Err(e) => (e.line, e.message),
    }
}

#[test]
fn kernel_pointers_are_global_and_indices_keep_cudas_unsigned_type() {
    let out = opencl("extern \"C\" __global__ void k(const float* __restrict__ x, float* y) { y[threadIdx.x] = x[blockIdx.y]; }");
    assert!(
        out.contains("__kernel void k(__global const float* x, __global float* y)"),
        "{out}"
    );
    assert!(
        out.contains("((uint)get_local_id(0))") && out.contains("((uint)get_group_id(1))"),
        "{out}"
    );
}

#[test]
fn device_functions_are_specialised_per_memory_of_their_pointers() {
    let src = "__device__ float first(const float* p) { return p[0]; }\n\
               __global__ void k(float* x) { __shared__ float s[4]; s[0] = first(x); x[1] = first(s); }";
    let out = opencl(src);
    assert!(
        out.contains("float first_sg(__global const float* p)"),
        "{out}"
    );
    assert!(
        out.contains("float first_sl(__local const float* p)"),
        "{out}"
    );
    assert!(out.contains("__local float s[4];"), "{out}");
}

#[test]
fn a_pointer_declared_without_a_value_learns_its_memory_from_its_assignment() {
    let out = opencl("__global__ void k(float* x, int n) { float* p; p = x + n; p[0] = 1.0f; }");
    assert!(out.contains("__global float* p;"), "{out}");
}

#[test]
fn extern_shared_memory_is_a_last_local_parameter() {
    let t = translate(
        "__global__ void k(float* x) { extern __shared__ int buf[]; buf[0] = 1; x[0] = buf[0]; }",
        &[],
        &[],
    )
    .expect("translates");
    assert!(
        t.source.contains("__local uint4* ember_dynamic_shared)"),
        "{}",
        t.source
    );
    assert!(
        t.source
            .contains("__local int* buf = (__local int*)ember_dynamic_shared;"),
        "{}",
        t.source
    );
    assert!(t.kernels[0].dynamic_shared);
}

#[test]
fn templates_are_instantiated_by_name_expression() {
    let src = "template <typename T> __global__ void fill(T* out, T v) { out[threadIdx.x] = v; }";
    let t = translate(
        src,
        &[],
        &["fill<double>".into(), "fill<unsigned int>".into()],
    )
    .expect("translates");
    let names: Vec<_> = t
        .kernels
        .iter()
        .map(|k| (k.cuda.as_str(), k.opencl.as_str()))
        .collect();
    assert_eq!(
        names,
        [
            ("fill<double>", "fill__double"),
            ("fill<unsigned int>", "fill__uint")
        ]
    );
    assert!(
        t.source
            .contains("__kernel void fill__uint(__global uint* out, uint v)"),
        "{}",
        t.source
    );
}

#[test]
fn float_atomic_add_is_a_compare_and_swap_loop() {
    let out =
        opencl("__global__ void k(float* x, int* c) { atomicAdd(x, 1.0f); atomicAdd(c, 2); }");
    assert!(
        out.contains("float ember_atomic_add_float_g(volatile __global float* p, float v)"),
        "{out}"
    );
    assert!(
        out.contains("atomic_cmpxchg(w, seen, as_uint(next))"),
        "{out}"
    );
    assert!(
        out.contains("atomic_add((volatile __global int*)(c), (int)(2))"),
        "{out}"
    );
}

#[test]
fn three_element_vectors_keep_cudas_size() {
    let out = opencl("__global__ void k(float3* v) { v[0] = make_float3(1.0f, 2.0f, 3.0f); }");
    assert!(
        out.contains("typedef struct { float x, y, z; } ember_float3;"),
        "{out}"
    );
    assert!(out.contains("__global ember_float3* v"), "{out}");
}

#[test]
fn names_opencl_reserves_are_renamed() {
    let out = opencl("__device__ float dot(float a, float b) { return a * b; }\n__global__ void k(float* local) { local[0] = dot(local[1], 2.0f); }");
    assert!(out.contains("float ember_u_dot(float a, float b)"), "{out}");
    assert!(out.contains("__global float* ember_u_local"), "{out}");
}

#[test]
fn errors_name_the_line_of_the_users_source() {
    assert_eq!(
        error("__global__ void k(float* x) {\n  x[0] = nope;\n}").0,
        2
    );
    let (line, message) =
        error("__global__ void k(int* x) {\n\n  x[0] = __ballot_sync(~0u, 1);\n}");
    assert_eq!(line, 3);
    assert!(message.contains("warp intrinsics"), "{message}");
    let (line, message) = error("#include <thrust/sort.h>\n__global__ void k() {}");
    assert_eq!(line, 1);
    assert!(message.contains("cuComplex.h"), "{message}");
    let (line, message) = error("__global__ void k(float** x) {}");
    assert_eq!(line, 1);
    assert!(message.contains("pointer to a pointer"), "{message}");
}

#[test]
fn a_kernel_launched_by_a_kernel_runs_as_loops_in_the_launching_thread() {
    let src = "__global__ void child(float* x) { x[blockIdx.x * blockDim.x + threadIdx.x] += 1.0f; }\n\
               __global__ void parent(float* x, int n) { dim3 b(32); child<<<n / 32, b>>>(x); cudaDeviceSynchronize(); }";
    let out = opencl(src);
    assert!(
        out.contains("child_thread_sg_grid((uint)((n / 32)), 1U, 1U, (b).x, (b).y, (b).z, x)"),
        "{out}"
    );
    assert!(
        out.contains("x[((ember_blockIdx_x * ember_blockDim_x) + ember_threadIdx_x)]"),
        "{out}"
    );
    let (line, message) = error("__global__ void child(float* x) {\n  __syncthreads();\n}\n__global__ void parent(float* x) { child<<<1, 1>>>(x); }");
    assert_eq!(line, 2);
    assert!(
        message.contains("launched by a kernel and uses __syncthreads"),
        "{message}"
    );
}

#[test]
fn value_template_parameters_size_arrays_and_fold_into_the_code() {
    let src = "template <typename T, int N> __global__ void k(T* x) { __shared__ T s[N * 2]; s[threadIdx.x] = x[0]; if (N > 4) x[0] = s[N]; }\n\
               template <int M> __device__ int twice() { return 2 * M; }\n\
               template <int N> __global__ void j(int* y) { y[0] = twice<N + 1>(); }";
    let t = translate(src, &[], &["k<float, 8>".into(), "j<3>".into()]).expect("translates");
    assert!(
        t.source
            .contains("__kernel void k__float__8(__global float* x)"),
        "{}",
        t.source
    );
    assert!(t.source.contains("__local float s[16];"), "{}", t.source);
    assert!(t.source.contains("int twice__4()"), "{}", t.source);
    let err = translate(src, &[], &["k<float>".into()]).expect_err("one argument short");
    assert!(
        err.message.contains("no template k with 1"),
        "{}",
        err.message
    );
}

#[test]
fn shared_arrays_of_device_functions_are_allocated_by_the_kernel_and_passed_down() {
    let src = "__device__ float corner() { __shared__ float t[4][4]; t[threadIdx.y][threadIdx.x] = 1.0f; __syncthreads(); return t[3][3]; }\n\
               __device__ float twice() { return 2.0f * corner(); }\n\
               __global__ void k(float* x) { x[0] = twice(); }";
    let out = opencl(src);
    assert!(
        out.contains("__local float ember_shared_corner_t[4][4];"),
        "{out}"
    );
    assert!(
        out.contains("float twice(__local float (*ember_shared_corner_t)[4])"),
        "{out}"
    );
    assert!(out.contains("twice(ember_shared_corner_t)"), "{out}");
}

#[test]
fn volatile_pointers_stay_volatile() {
    let out = opencl("__global__ void k(int* x) { volatile int* flag = (volatile int*)x; while (*flag == 0) {} }");
    assert!(
        out.contains("__global volatile int* flag = ((__global volatile int*)x);"),
        "{out}"
    );
}

#[test]
fn constant_memory_the_host_fills_is_a_buffer_passed_to_its_readers() {
    let src = "__constant__ float c[4];\n__constant__ int k;\n__device__ float f(int i) { return c[i] * k; }\n\
               __global__ void reads(float* x) { x[0] = f(1); }\n__global__ void ignores(float* x) { x[0] = 1.0f; }";
    let t = translate(src, &[], &[]).expect("translates");
    assert_eq!(
        t.constants,
        [
            ("c".to_string(), vec![0; 16]),
            ("k".to_string(), vec![0; 4])
        ]
    );
    let reads = t
        .kernels
        .iter()
        .find(|k| k.cuda == "reads")
        .expect("kernel");
    assert_eq!(reads.constants, ["c", "k"]);
    assert!(t
        .kernels
        .iter()
        .find(|k| k.cuda == "ignores")
        .is_some_and(|k| k.constants.is_empty()));
    assert!(t.source.contains("__kernel void reads(__global float* x, __constant const float* c, __constant const int* k)"), "{}", t.source);
    assert!(t.source.contains("return (c[i] * (*k));"), "{}", t.source);
}

#[test]
fn counting_barriers_count_in_a_local_int_the_kernel_allocates() {
    let src = "__device__ int any_positive(float v) { return __syncthreads_or(v > 0); }\n\
               __device__ float block_total(float v) { __shared__ float total; if (threadIdx.x == 0) total = 0;\n\
               __syncthreads(); atomicAdd(&total, v); __syncthreads(); return total; }\n\
               extern \"C\" __global__ void k(const float* x, int* out) {\n\
               out[0] = __syncthreads_count(x[threadIdx.x] > 0) + any_positive(x[0]) + (int)block_total(x[0]); }";
    let out = opencl(src);
    // One counter, allocated by the kernel as an array of one and passed down as a pointer.
    assert_eq!(
        out.matches("__local int ember_shared_ember_vote[1];")
            .count(),
        1,
        "{out}"
    );
    assert!(
        out.contains("__local int* ember_shared_ember_vote)"),
        "{out}"
    );
    assert!(out.contains("ember_syncthreads_count(((x[((uint)get_local_id(0))] > 0)) != 0, ember_shared_ember_vote)"), "{out}");
    // A single __shared__ value of a device function is reached through its pointer.
    assert!(
        out.contains("__local float ember_shared_block_total_total[1];"),
        "{out}"
    );
    assert!(
        out.contains("((*ember_shared_block_total_total) = 0)"),
        "{out}"
    );
}

#[test]
fn halves_compute_in_floats_rounded_and_live_in_memory_as_halves() {
    let src = "#include <cuda_fp16.h>\n\
               extern \"C\" __global__ void k(const __half* x, __half* y, __half s) {\n\
               int i = threadIdx.x; __half a = __hmul(x[i], s); y[i] = a + x[i]; y[i] += s; }";
    let out = opencl(src);
    // The user's memory holds halves, read and written whole; a half by value arrives as bits.
    assert!(
        out.contains(
            "__kernel void k(__global const half* x, __global half* y, ember_half ember_raw_s)"
        ),
        "{out}"
    );
    assert!(
        out.contains("float s = vload_half(0, (const half*)&ember_raw_s);"),
        "{out}"
    );
    // Every half operation is rounded to half; the intrinsics are cuda_fp16.h's, in CUDA C.
    assert!(
        out.contains("vstore_half_rte(ember_round_half((a + vload_half(i, x))), i, y);"),
        "{out}"
    );
    assert!(
        out.contains("vstore_half_rte(ember_round_half((vload_half(i, y) + s)), i, y);"),
        "{out}"
    );
    assert!(out.contains("return ember_round_half((a * b));"), "{out}");
    // A struct with a half field would not keep CUDA's layout.
    let (line, message) = error("struct P { __half v; };\n__global__ void k(P* p) { }");
    assert_eq!(line, 1);
    assert!(
        message.contains("a __half field (v) is not translated"),
        "{message}"
    );
}

#[test]
fn device_variables_are_module_buffers_with_their_initial_bytes() {
    let src = "__device__ int hits;\n__device__ float w[3] = {0.5f, -2};\n\
               __device__ void hit() { atomicAdd(&hits, 1); }\n\
               extern \"C\" __global__ void k(float* y) { hit(); y[threadIdx.x] *= w[threadIdx.x % 3]; }";
    let t = translate(src, &[], &[]).expect("translates");
    let mut w = 0.5f32.to_le_bytes().to_vec();
    w.extend((-2.0f32).to_le_bytes());
    w.extend([0; 4]);
    assert_eq!(
        t.constants,
        [("hits".to_string(), vec![0; 4]), ("w".to_string(), w)]
    );
    // Writable global memory, passed after the kernel's own arguments and down to `hit`.
    assert!(
        t.source
            .contains("__kernel void k(__global float* y, __global int* hits, __global float* w)"),
        "{}",
        t.source
    );
    assert!(
        t.source.contains("void hit(__global int* hits)"),
        "{}",
        t.source
    );
    let (_, message) =
        error("__device__ float f = sqrtf(2.0f);\n__global__ void k(float* y) { y[0] = f; }");
    assert!(
        message.contains("its initialiser must be numbers"),
        "{message}"
    );
}

#[test]
fn explicit_specializations_replace_the_templates_instance() {
    let out = opencl(
        "template <int N> __device__ float ipow(float x) { return x * ipow<N - 1>(x); }\n\
         template <> __device__ float ipow<0>(float) { return 1.0f; }\n\
         extern \"C\" __global__ void k(float* y) { y[0] = ipow<2>(y[0]); }",
    );
    assert!(out.contains("return (x * ipow__1_o0(x));"), "{out}");
    assert!(out.contains("return (x * ipow_o1(x));"), "{out}");
    assert!(
        out.contains("float ipow_o1(float ember_unnamed_0) {\n#line 2\n    return 1.0f;"),
        "{out}"
    );
}

#[test]
fn constexpr_functions_are_evaluated_where_a_constant_is_needed() {
    let out = opencl(
        "__host__ __device__ constexpr int taps(int r) { return 2 * r + 1; }\n\
         template <int K> __device__ float first(const float* v) { return v[K - 1]; }\n\
         extern \"C\" __global__ void k(float* y) { constexpr int R = 2; float v[taps(R)];\n\
         v[0] = y[0]; y[1] = first<taps(1)>(v); }",
    );
    assert!(out.contains("float v[5];"), "{out}");
    assert!(out.contains("first__3_sp(v)"), "{out}");
}

#[test]
fn deep_products_and_sums_translate_each_operand_once() {
    // Horner's rule 30 deep: translating an operand twice per level would take 2^30 steps.
    let mut e = "x".to_string();
    for k in 0..30 {
        e = format!("({e} * x + {k}.0f)");
    }
    let out = opencl(&format!(
        "extern \"C\" __global__ void k(float* y) {{ float x = y[0]; y[1] = {e}; }}"
    ));
    assert!(out.contains("((((x * x) + 0.0f) * x) + 1.0f)"), "{out}");
}
