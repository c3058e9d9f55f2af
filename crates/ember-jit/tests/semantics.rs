//! Python's semantics kept in C: floor division and modulo by Python's sign rule, negative
//! indices, `range` in both directions, `for`/`while` with `else`, and every operand
//! evaluated once and only where Python evaluates it.

mod common;

use common::*;

/// The C of device function `name` compiled alone for CUDA.
fn device_c(name: &str, args: &[&str]) -> String {
    let d = device(name, args, Cuda);
    function(&d.preamble, &d.name).to_string()
}

#[test]
fn floor_division_of_negative_integers_rounds_toward_minus_infinity() {
    let d = device("floor_div", &["int64", "int64"], Cuda);
    assert!(
        function(&d.preamble, &d.name).contains("return ember_floordiv_int64(v_a, v_b);"),
        "{}",
        d.preamble
    );
    let helper = function(&d.preamble, "ember_floordiv_int64");
    // C truncates toward zero: Python's quotient is one less when the signs differ.
    assert!(
        helper.contains("if ((a % b != 0) && ((a < 0) != (b < 0))) q -= 1;"),
        "{helper}"
    );
    // No trap on a zero divisor or on MIN // -1 (Numba's GPU error model).
    assert!(helper.contains("if (b == 0) return 0;"), "{helper}");
    assert!(
        helper.contains("if (b == -1) return (long long)(0 - (unsigned long long)a);"),
        "{helper}"
    );
}

#[test]
fn modulo_takes_the_sign_of_the_divisor() {
    let d = device("modulo", &["int64", "int64"], Cuda);
    let helper = function(&d.preamble, "ember_mod_int64");
    assert!(
        helper.contains("if (m != 0 && ((m < 0) != (b < 0))) m += b;"),
        "{helper}"
    );
    let d = device("modulo", &["float64", "float64"], Cuda);
    let helper = function(&d.preamble, "ember_mod_float64");
    assert!(helper.contains("double m = fmod(a, b);"), "{helper}");
    assert!(
        helper.contains("if ((b < 0) != (m < 0)) m += b;"),
        "{helper}"
    );
    // A zero remainder takes the divisor's sign: -0.0 for a negative divisor.
    assert!(helper.contains("m = copysign((double)0, b);"), "{helper}");
}

#[test]
fn unsigned_floor_division_needs_no_sign_correction() {
    let d = device("floor_div", &["uint64", "uint32"], Cuda);
    assert!(
        d.preamble.contains(
            "unsigned long long ember_floordiv_uint64(unsigned long long a, unsigned long long b) { return b == 0 ? 0 : a / b; }"
        ),
        "{}",
        d.preamble
    );
}

#[test]
fn true_division_converts_integers_to_double() {
    let body = device_c("true_div", &["int64", "int32"]);
    assert!(
        body.contains("return ((double)(v_a) / (double)(v_b));"),
        "{body}"
    );
}

#[test]
fn negative_indices_count_from_the_end() {
    let d = device("last_item", &["float32[::1]"], Cuda);
    let body = function(&d.preamble, &d.name);
    assert!(body.contains("ember_wrap("), "{body}");
    assert!(
        d.preamble.contains("return i < 0 ? i + n : i;"),
        "{}",
        d.preamble
    );
    let body = device_c("item_at", &["float32[:]", "int64"]);
    assert!(body.contains("ember_wrap(v_i, v_a.d.shape[0])"), "{body}");
}

#[test]
fn indices_that_cannot_be_negative_are_not_wrapped() {
    // Unsigned, and cuda.grid(1): never negative.
    let body = device_c("item_at", &["float32[:]", "uint32"]);
    assert!(!body.contains("ember_wrap"), "{body}");
    let src = cuda(
        "saxpy",
        &["float32[:]", "float32[:]", "float32[:]", "float32"],
    );
    assert!(!src.contains("ember_wrap"), "{src}");
    // Each index of a 2-d element is wrapped by its own dimension.
    let body = device_c("cell", &["int8[:, ::1]", "int32", "int32"]);
    assert!(
        body.contains("ember_wrap((long long)(v_i), v_a.d.shape[0])")
            && body.contains("ember_wrap((long long)(v_j), v_a.d.shape[1])"),
        "{body}"
    );
}

#[test]
fn range_with_a_negative_step_counts_down() {
    let body = device_c("count_down", &["int64"]);
    let head = body
        .lines()
        .find(|l| l.trim_start().starts_with("for ("))
        .unwrap_or_else(|| panic!("no loop in {body}"));
    // for i in range(n, 0, -1): from n while i > 0, by -1.
    assert!(head.contains(" = v_n; "), "{head}");
    assert!(head.contains(" > n") && head.contains(" -= 1)"), "{head}");
}

#[test]
fn range_with_a_variable_step_tests_its_sign() {
    let body = device_c("stepped", &["int64", "int64"]);
    let head = body
        .lines()
        .find(|l| l.trim_start().starts_with("for ("))
        .unwrap_or_else(|| panic!("no loop in {body}"));
    assert!(head.contains(" > 0 ? "), "{head}");
    assert!(head.contains(" < 0 && "), "{head}");
}

#[test]
fn for_else_runs_only_when_the_loop_did_not_break() {
    let body = device_c("find", &["float64[:]", "float64"]);
    let flag_set = body.find("broke").and_then(|_| body.find(" = 1;\n"));
    let brk = body.find("break;");
    assert!(flag_set.is_some() && flag_set < brk, "{body}");
    assert!(body.contains("if (!broke"), "{body}");
}

#[test]
fn while_else_runs_after_the_test_fails() {
    let body = device_c("loop_while", &["int64"]);
    let after_loop = &body[body.find("while (").expect("a while loop")..];
    assert!(after_loop.contains("if (!broke"), "{body}");
}

#[test]
fn integer_power_multiplies_by_squaring() {
    let src = cuda("int_power_kernel", &["int64[:]", "int32[:]"]);
    assert!(
        kernel_body(&src, "int_power_kernel").contains("ember_ipow_int64((long long)"),
        "{src}"
    );
    let helper = function(&src, "ember_ipow_int64");
    assert!(
        helper.contains("while (e) { if (e & 1) r *= x; x *= x; e >>= 1; }"),
        "{helper}"
    );
    // Negative exponents: 1 / b**n truncated, as Numba's integer power.
    assert!(helper.contains("if (e < 0) return b == 1 ? 1"), "{helper}");
}

#[test]
fn float_to_an_integer_power_stays_in_the_floats_type() {
    let body = device_c("power", &["float32", "int32"]);
    assert!(
        body.contains("return ember_ipow_float32(v_a, (long long)(v_b));"),
        "{body}"
    );
    let body = device_c("power", &["float64", "float64"]);
    assert!(body.contains("return pow(v_a, v_b);"), "{body}");
}

#[test]
fn signed_negation_wraps_at_the_operands_width() {
    // -int16(-32768) is -32768 (Numba), done without a cast NVRTC would fold away.
    let body = device_c("negate", &["int16"]);
    assert!(
        body.contains("65535UL") && body.contains("32768UL"),
        "{body}"
    );
}

#[test]
fn abs_of_an_integer_negates_in_the_unsigned_type() {
    let d = device("absolute", &["int64"], Cuda);
    assert!(
        d.preamble
            .contains("return x < 0 ? (long long)(0 - (unsigned long long)x) : x;"),
        "{}",
        d.preamble
    );
}

#[test]
fn round_is_round_half_to_even() {
    let body = device_c("rounded", &["float32"]);
    assert!(body.contains("return ((long long)(rintf(v_x)));"), "{body}");
}

#[test]
fn divmod_is_floor_division_and_modulo() {
    let body = device_c("div_and_mod", &["int64", "int64"]);
    assert!(
        body.contains("(ember_floordiv_int64(v_a, v_b), ember_mod_int64(v_a, v_b))"),
        "{body}"
    );
}

#[test]
fn np_maximum_propagates_nan() {
    let body = device_c("max_nan", &["float32", "float32"]);
    assert!(
        body.contains("((v_a) != (v_a) || (v_b) != (v_b) ? (v_a) + (v_b) : fmaxf(v_a, v_b))"),
        "{body}"
    );
}

#[test]
fn chained_comparisons_compare_each_pair_in_numbas_type() {
    let body = device_c("between", &["int32", "float32", "int64"]);
    assert!(
        body.contains("(((double)(v_a) < (double)(v_b)) && ((double)(v_b) < (double)(v_c)))"),
        "{body}"
    );
}

#[test]
fn or_returns_the_deciding_operand() {
    let body = device_c("either", &["int64", "float64"]);
    assert!(
        body.contains("return ((v_a != 0) ? (double)(v_a) : v_b);"),
        "{body}"
    );
}

#[test]
fn membership_in_a_tuple_compares_with_each_item() {
    let body = device_c("member", &["int64"]);
    assert!(
        body.contains("== t") && body.contains(".f0) || (v_x == ") && body.contains(".f2)))"),
        "{body}"
    );
}

#[test]
fn tuple_assignment_reads_every_value_before_writing() {
    let body = device_c("swap", &["int64", "int64"]);
    let made = body.find("_make(v_b, v_a)").expect("the tuple (b, a)");
    let first_write = body.find("v_a = t").expect("a = the tuple's item");
    assert!(made < first_write, "{body}");
}

// ---- each operand evaluated once, and only where Python evaluates it ----

#[test]
fn a_while_test_is_evaluated_before_every_iteration() {
    let body = device_c("escape_time", &["complex128", "complex128"]);
    // abs(z * z) needs a temporary: it must be computed inside the loop, not once before it.
    let lines: Vec<&str> = body.lines().map(str::trim).collect();
    let at = lines
        .iter()
        .position(|l| l.starts_with("while ("))
        .unwrap_or_else(|| panic!("no loop in {body}"));
    assert_eq!(lines[at], "while (1) {", "{body}");
    assert!(lines[at + 1].starts_with("ember_c128 t"), "{body}");
    assert!(
        lines[at + 2].starts_with("if (!(") && lines[at + 2].ends_with(")) break;"),
        "{body}"
    );
    assert!(
        !lines[..at].iter().any(|l| l.starts_with("ember_c128 t")),
        "{body}"
    );
}

#[test]
fn and_evaluates_its_right_operand_only_when_the_left_holds() {
    let src = cuda("guarded_complex_read", &["int64[:]", "complex128[:]"]);
    let body = kernel_body(&src, "guarded_complex_read");
    let guard = body
        .find("(v_i < (v_z.d.shape[0]))")
        .expect("the bound test");
    let read = body.find("v_z.data + v_i").expect("the read of z[i]");
    assert!(
        guard < read,
        "z[i] is read before i < z.size is tested:\n{body}"
    );
    assert!(body[guard..read].contains("if ("), "{body}");
}

#[test]
fn a_conditional_expression_evaluates_only_the_branch_taken() {
    let src = cuda("conditional_complex_read", &["float64[:]", "complex128[:]"]);
    let body = kernel_body(&src, "conditional_complex_read");
    let test = body
        .find("if ((v_i < (v_z.d.shape[0])))")
        .unwrap_or_else(|| panic!("no if on the test in {body}"));
    let read = body.find("v_z.data + v_i").expect("the read of z[i]");
    assert!(test < read, "{body}");
}

#[test]
fn a_chained_comparison_evaluates_its_middle_once() {
    let src = cuda("chained_draw", &["bool[:]", "uint64[:, :]"]);
    let body = kernel_body(&src, "chained_draw");
    assert_eq!(
        count(body, "ember_xoroshiro128p_uniform_float32("),
        1,
        "one draw, compared twice:\n{body}"
    );
}

#[test]
fn or_evaluates_the_deciding_operand_once() {
    let src = cuda("or_returns_operand", &["int64[:]", "int64[:]"]);
    let body = kernel_body(&src, "or_returns_operand");
    assert_eq!(
        count(body, "ember_atomic_add_int64_g("),
        1,
        "one atomic add, tested and returned:\n{body}"
    );
}
