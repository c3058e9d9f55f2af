//! Shared by the integration tests: the programs of `fixtures/kernels.py` as ember's front
//! wrote them (`fixtures/programs.jsonl`), and short ways to compile them.

#![allow(dead_code)] // each test file uses its own part

pub mod ir;

use std::collections::HashMap;
use std::sync::OnceLock;

use ember_codegen::Dialect;
use ember_core::Error;
use ember_jit::{
    compile_device, compile_kernel, parse_arg_type, DeviceSource, KernelSource, Program, Ty,
};

pub use ember_codegen::Dialect::{Cuda, OpenCl};

/// Each function's program JSON, by the function's name in `kernels.py`.
fn programs() -> &'static HashMap<String, String> {
    static PROGRAMS: OnceLock<HashMap<String, String>> = OnceLock::new();
    PROGRAMS.get_or_init(|| {
        let text = include_str!("../fixtures/programs.jsonl");
        text.lines()
            .filter(|l| !l.trim().is_empty())
            .map(|line| {
                let v: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
                let name = v["name"].as_str().expect("a name").to_string();
                (name, v["program"].to_string())
            })
            .collect()
    })
}

/// The program of function `name` of `kernels.py` (function 0 is `name` itself).
pub fn program(name: &str) -> Program {
    let json = programs().get(name).unwrap_or_else(|| {
        panic!(
            "no function '{name}' in fixtures/programs.jsonl: regenerate it with gen_programs.py"
        )
    });
    Program::from_json(json).expect("the front's JSON parses")
}

/// A type as Numba writes it: `float32`, `int64[:]`, `float32[:, ::1]`.
pub fn ty(text: &str) -> Ty {
    parse_arg_type(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

pub fn tys(texts: &[&str]) -> Vec<Ty> {
    texts.iter().map(|t| ty(t)).collect()
}

/// Kernel `name` compiled for argument types `args`.
pub fn kernel(name: &str, args: &[&str], dialect: Dialect) -> KernelSource {
    compile_kernel(&program(name), &tys(args), dialect)
        .unwrap_or_else(|e| panic!("kernel {name}({args:?}) on {dialect:?} failed: {e}"))
}

/// The CUDA C of kernel `name`.
pub fn cuda(name: &str, args: &[&str]) -> String {
    kernel(name, args, Cuda).source
}

/// The OpenCL C of kernel `name`.
pub fn opencl(name: &str, args: &[&str]) -> String {
    kernel(name, args, OpenCl).source
}

/// Device function `name` compiled alone for `args`.
pub fn device(name: &str, args: &[&str], dialect: Dialect) -> DeviceSource {
    compile_device(&program(name), &tys(args), dialect)
        .unwrap_or_else(|e| panic!("device function {name}({args:?}) failed: {e}"))
}

/// The return type device function `name` is inferred to have for `args`.
pub fn returns(name: &str, args: &[&str]) -> Ty {
    device(name, args, Cuda).ret
}

/// The `JitError` message compiling kernel `name` for `args` gives (panics on success or
/// on another kind of error).
pub fn kernel_error(name: &str, args: &[&str], dialect: Dialect) -> String {
    match compile_kernel(&program(name), &tys(args), dialect) {
        Ok(_) => panic!("kernel {name}({args:?}) compiled, but an error was expected"),
        Err(Error::Jit(m)) => m,
        Err(other) => panic!("kernel {name}: expected a JitError, got {other:?}"),
    }
}

/// The `JitError` message compiling device function `name` for `args` gives.
pub fn device_error(name: &str, args: &[&str]) -> String {
    match compile_device(&program(name), &tys(args), Cuda) {
        Ok(d) => panic!(
            "device function {name}({args:?}) compiled (returning {}), but an error was expected",
            d.ret
        ),
        Err(Error::Jit(m)) => m,
        Err(other) => panic!("device function {name}: expected a JitError, got {other:?}"),
    }
}

/// The C text of the function named `c_name` in `source`, from its head to its closing brace.
pub fn function<'s>(source: &'s str, c_name: &str) -> &'s str {
    let head = format!(" {c_name}(");
    let start = source
        .lines()
        .scan(0, |offset, line| {
            let here = *offset;
            *offset += line.len() + 1;
            Some((here, line))
        })
        .find(|(_, line)| line.contains(&head) && line.trim_end().ends_with('{'))
        .map(|(here, _)| here)
        .unwrap_or_else(|| panic!("no function {c_name} in:\n{source}"));
    let end = source[start..]
        .find("\n}\n")
        .map(|e| start + e + 3)
        .unwrap_or(source.len());
    &source[start..end]
}

/// How many times `needle` occurs in `haystack`.
pub fn count(haystack: &str, needle: &str) -> usize {
    haystack.matches(needle).count()
}

/// The line of `fixtures/kernels.py` containing `needle` (which must occur on one line only).
pub fn line_of(needle: &str) -> usize {
    let text = include_str!("../fixtures/kernels.py");
    let found: Vec<usize> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| l.contains(needle))
        .map(|(i, _)| i + 1)
        .collect();
    assert_eq!(
        found.len(),
        1,
        "'{needle}' is on lines {found:?} of kernels.py"
    );
    found[0]
}

/// The kernel's own function in `source` (its entry point, after the helpers and structs).
pub fn kernel_body<'s>(source: &'s str, name: &str) -> &'s str {
    function(source, &format!("ember_kernel_{name}"))
}
