//! Functions of ember-jit's fixture programs (`crates/ember-jit/tests/fixtures/kernels.py`, as
//! the Python front wrote them) compiled for the host and called through the calling
//! convention, against the same computation written in Rust.

use std::collections::HashMap;

use ember_cpu::{compile, Arena, Builtin, CallContext, Fault, NativeFunction, Options};
use ember_jit::{parse_arg_type, type_host, Program};

fn program(name: &str) -> Program {
    let text = include_str!("../../ember-jit/tests/fixtures/programs.jsonl");
    let programs: HashMap<String, String> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let v: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
            (
                v["name"].as_str().expect("a name").to_string(),
                v["program"].to_string(),
            )
        })
        .collect();
    Program::from_json(&programs[name]).expect("the front's JSON parses")
}

/// Fixture `name` typed for argument types `args`: the tree, the typed IR and its entry.
fn typed(name: &str, args: &[&str]) -> (Program, ember_jit::IrProgram, usize) {
    let tree = program(name);
    let tys: Vec<_> = args
        .iter()
        .map(|t| parse_arg_type(t).expect("a type"))
        .collect();
    let (ir, entry) = type_host(&tree, &tys).expect("typing");
    (tree, ir, entry)
}

fn compiled(name: &str, args: &[&str]) -> NativeFunction {
    let (tree, ir, entry) = typed(name, args);
    compile(&tree, &ir, entry, &Options::default()).expect("compiling")
}

/// Calls `f` with argument words; the result words and the context after.
fn call(f: &NativeFunction, args: &[u64]) -> (Vec<u64>, CallContext) {
    let arena = Arena::new();
    let mut ctx = CallContext::with_arena(&arena);
    let mut results = vec![0u64; f.result_words];
    unsafe { f.call(&mut ctx, args, &mut results) };
    (results, ctx)
}

#[test]
fn integer_floor_division_and_modulo_follow_python() {
    let (div, modulo) = (
        compiled("floor_div", &["int64", "int64"]),
        compiled("modulo", &["int64", "int64"]),
    );
    for (a, b) in [
        (7i64, 2i64),
        (-7, 2),
        (7, -2),
        (-7, -2),
        (i64::MIN, -1),
        (i64::MIN, 3),
    ] {
        let q = call(&div, &[a as u64, b as u64]).0[0] as i64;
        let r = call(&modulo, &[a as u64, b as u64]).0[0] as i64;
        let want_q = if b == -1 {
            a.wrapping_neg()
        } else {
            a.div_euclid(b) - i64::from(b < 0 && a.rem_euclid(b) != 0)
        };
        assert_eq!(q, want_q, "{a} // {b}");
        assert_eq!(r, a.wrapping_sub(q.wrapping_mul(b)), "{a} % {b}");
    }
}

#[test]
fn a_zero_divisor_raises_instead_of_trapping() {
    let div = compiled("floor_div", &["int64", "int64"]);
    let (_, ctx) = call(&div, &[1, 0]);
    assert_eq!(
        Fault::from_code(ctx.status),
        Some(Fault::Builtin(Builtin::IntegerDivision))
    );
    let fdiv = compiled("true_div", &["float64", "float64"]);
    let (_, ctx) = call(&fdiv, &[1f64.to_bits(), 0f64.to_bits()]);
    assert_eq!(
        Fault::from_code(ctx.status),
        Some(Fault::Builtin(Builtin::Division))
    );
    let (out, ctx) = call(&fdiv, &[1f64.to_bits(), 4f64.to_bits()]);
    assert_eq!((ctx.status, f64::from_bits(out[0])), (0, 0.25));
}

#[test]
fn counted_loops_run() {
    let sum_to = compiled("sum_to", &["int64"]);
    for n in [0u64, 1, 10, 1000] {
        assert_eq!(call(&sum_to, &[n]).0[0], (0..n).sum::<u64>());
    }
    // A negative count runs no iteration.
    assert_eq!(call(&sum_to, &[(-5i64) as u64]).0[0], 0);
}

#[test]
fn arrays_are_read_and_written_through_their_strides() {
    // find(a, x): the first index of x in a, else -1; a strided view of every other element.
    let data: Vec<f64> = (0..20).map(|k| f64::from(k) * 1.5).collect();
    let find = compiled("find", &["float64[:]", "float64"]);
    let args = |x: f64| [data.as_ptr() as u64, 10, 16, x.to_bits()];
    assert_eq!(call(&find, &args(6.0)).0[0] as i64, 2); // data[4] is element 2 of the view
    assert_eq!(call(&find, &args(1.5)).0[0] as i64, -1); // data[1] is not in the view
    let mut row = vec![0i32; 7];
    let fill = compiled("fill_row", &["int32[::1]", "int32"]);
    call(
        &fill,
        &[row.as_mut_ptr() as u64, 7, 4, (-3i32) as u32 as u64],
    );
    assert_eq!(row, vec![-3; 7]);
}

/// `cache=True`: the code kept as bytes and linked again gives the same results, loops and
/// calls of C's math library included; bytes that are not a whole image are refused.
#[test]
fn a_kept_image_links_again_and_damaged_ones_are_refused() {
    let kept = |name: &str, args: &[&str]| {
        let (tree, ir, entry) = typed(name, args);
        let (fresh, image) =
            ember_cpu::compile_keeping(&tree, &ir, entry, &Options::default()).expect("compiling");
        let image = image.expect("this code can be kept");
        let loaded = ember_cpu::load(&image, &ir, entry)
            .expect("loading")
            .expect("the image links");
        (fresh, loaded, image, ir, entry)
    };
    let (fresh, loaded, _, _, _) = kept("sum_to", &["int64"]);
    for n in [0i64, 1, 5, 1000] {
        let (want, _) = call(&fresh, &[n as u64]);
        let (got, ctx) = call(&loaded, &[n as u64]);
        assert_eq!((ctx.status, &got), (0, &want), "sum_to({n})");
    }
    let (fresh, loaded, image, ir, entry) = kept("log_base", &["float64", "float64"]);
    for (x, b) in [(8.0f64, 2.0f64), (1e-300, 10.0), (5.5, 3.25)] {
        let args = [x.to_bits(), b.to_bits()];
        let want = f64::from_bits(call(&fresh, &args).0[0]);
        let got = f64::from_bits(call(&loaded, &args).0[0]);
        assert_eq!(got.to_bits(), want.to_bits(), "log({x}, {b})");
        assert_eq!(got, x.ln() / b.ln());
    }
    // Cut short, with a byte too many, or something else entirely.
    let refused = |bytes: &[u8]| {
        ember_cpu::load(bytes, &ir, entry)
            .expect("loading")
            .is_none()
    };
    assert!(refused(&image[..image.len() - 1]));
    let mut extra = image.clone();
    extra.push(0);
    assert!(refused(&extra));
    assert!(refused(b"not an image"));
}
