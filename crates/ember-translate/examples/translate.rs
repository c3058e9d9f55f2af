//! Prints the OpenCL C translation of a CUDA C file: `cargo run -p ember-translate --example translate -- k.cu [name<T>...]`.
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: translate FILE.cu [NAME_EXPRESSION...]");
        std::process::exit(2);
    };
    let source = match std::fs::read_to_string(path) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(2);
        }
    };
    match ember_translate::translate(&source, &[], &args[1..]) {
        Ok(t) => {
            print!("{}", t.source);
            for k in t.kernels {
                eprintln!(
                    "kernel {} -> {} (dynamic shared: {})",
                    k.cuda, k.opencl, k.dynamic_shared
                );
            }
        }
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    }
}
