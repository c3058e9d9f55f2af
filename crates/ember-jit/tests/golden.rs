//! A golden dump: the source (or the error) of every fixture function for a list of
//! signatures, as a kernel, a device function and coarsened kernels, in both dialects. Run it
//! before and after a change to the compiler and diff the two directories:
//!
//! ```text
//! EMBER_JIT_GOLDEN_DIR=/tmp/before cargo test --release -p ember-jit --test golden -- --ignored
//! ```
//!
//! The signatures are `fixtures/golden_signatures.tsv` (or the file `EMBER_JIT_GOLDEN_SIGS`
//! names): one `name<TAB>type|type|...` per line, in Numba's type spellings: the calls of the
//! other tests (a few with no arguments, which check the argument-count error), and each of
//! them with one argument's dtype replaced by every other dtype.

mod common;

use std::fmt::Write;

use common::*;
use ember_jit::{compile_device, compile_kernel_coarse, Plan};

fn dump(dir: &std::path::Path, key: &str, text: String) {
    let file: String = key
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._-".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    std::fs::write(dir.join(file), text).expect("the golden directory is writable");
}

#[test]
#[ignore = "writes a golden dump where EMBER_JIT_GOLDEN_DIR says"]
fn golden_dump() {
    let Ok(dir) = std::env::var("EMBER_JIT_GOLDEN_DIR") else {
        return;
    };
    let dir = std::path::PathBuf::from(dir);
    std::fs::create_dir_all(&dir).expect("a golden directory");
    let sigs = match std::env::var("EMBER_JIT_GOLDEN_SIGS") {
        Ok(path) => std::fs::read_to_string(path).expect("a signature list"),
        Err(_) => include_str!("fixtures/golden_signatures.tsv").to_string(),
    };
    for line in sigs.lines().filter(|l| !l.trim().is_empty()) {
        let (name, args) = line.split_once('\t').unwrap_or((line, ""));
        let args: Vec<&str> = args.split('|').filter(|a| !a.is_empty()).collect();
        let program = program(name);
        let types = tys(&args);
        for (dialect, dn) in [(Cuda, "cuda"), (OpenCl, "opencl")] {
            let key = format!("{name}({}).{dn}", args.join(","));
            for plan in [None, Some("x2"), Some("x4a"), Some("y2")] {
                let p = plan.and_then(Plan::parse);
                let text = match compile_kernel_coarse(&program, &types, dialect, p.as_ref(), true)
                {
                    Ok(k) => {
                        let mut s = String::new();
                        let _ = writeln!(
                            s,
                            "name {}\nparams {:?}\ncoarse {:?}",
                            k.name, k.params, k.coarse
                        );
                        s + &k.source
                    }
                    Err(e) => format!("ERR {e:?}\n"),
                };
                dump(
                    &dir,
                    &format!("{key}.kernel.{}", plan.unwrap_or("plain")),
                    text,
                );
            }
            let text = match compile_device(&program, &types, dialect) {
                Ok(d) => format!("name {}\nret {}\n{}", d.name, d.ret, d.preamble),
                Err(e) => format!("ERR {e:?}\n"),
            };
            dump(&dir, &format!("{key}.device"), text);
        }
    }
}
