//! `EMBER_CPU_SOURCE_HASH`: a hash of the sources that decide the machine code ember makes
//! for a Python function (this crate, the front end and typing, the dtype and ufunc tables).
//! Cache keys of compiled CPU code include it, so a rebuilt ember never runs code an older
//! build cached.

use std::path::{Path, PathBuf};

const SOURCES: [&str; 4] = ["ember-cpu", "ember-jit", "ember-codegen", "ember-core"];

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files(&path, out);
        } else {
            out.push(path);
        }
    }
}

fn main() {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut paths = Vec::new();
    for name in SOURCES {
        let src = crates.join(name).join("src");
        println!("cargo:rerun-if-changed={}", src.display());
        files(&src, &mut paths);
    }
    paths.sort();
    // FNV-1a over each file's name and contents: stable across builds and toolchains.
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut add = |bytes: &[u8]| {
        for b in bytes {
            hash = (hash ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3);
        }
    };
    for path in &paths {
        let name = path.strip_prefix(&crates).unwrap_or(path);
        add(name.to_string_lossy().as_bytes());
        add(&std::fs::read(path).unwrap_or_default());
    }
    println!("cargo:rustc-env=EMBER_CPU_SOURCE_HASH={hash:016x}");
}
