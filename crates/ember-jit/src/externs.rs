//! Device functions written in CUDA C (`cuda.declare_device(name, sig, link=...)`), as Numba
//! calls them: the linked sources compile with the kernel (one NVRTC program), and each
//! function is reached through a wrapper of the kernel's own types. Numba's ABI
//! (`int name(ret *out, args...)`, the status ignored) or the C ABI (`ret name(args...)`).

use ember_codegen::types::value_type;
use ember_codegen::Dialect;
use ember_core::DType;

use crate::ast::Extern;

/// The wrapper kernels call for the function `name`.
pub fn wrapper_name(name: &str) -> String {
    format!("ember_ext_{name}")
}

/// The function's declaration and its wrapper, in CUDA C, for argument dtypes `args` and
/// return dtype `ret` (`None`: void).
pub fn wrapper(e: &Extern, args: &[DType], ret: Option<DType>) -> String {
    let dialect = Dialect::Cuda;
    let dev = dialect.table().device_fn;
    let t = |d: DType| value_type(d, dialect).to_string();
    let params: Vec<String> = args.iter().map(|&d| t(d)).collect();
    let names: Vec<String> = (0..args.len()).map(|k| format!("a{k}")).collect();
    let typed: Vec<String> = params
        .iter()
        .zip(&names)
        .map(|(p, n)| format!("{p} {n}"))
        .collect();
    let rt = ret.map_or("void".to_string(), t);
    let wrapper = wrapper_name(&e.name);
    let name = &e.name;
    let (decl, body) = if e.abi == "c" {
        let call = format!("{name}({})", names.join(", "));
        let body = if ret.is_some() {
            format!("return {call};")
        } else {
            format!("{call};")
        };
        (format!("{rt} {name}({})", params.join(", ")), body)
    } else {
        let out = ret.map_or("void".to_string(), t);
        let mut decl_params = vec![format!("{out}*")];
        decl_params.extend(params.iter().cloned());
        let mut call_args = vec![if ret.is_some() { "&r" } else { "0" }.to_string()];
        call_args.extend(names.iter().cloned());
        let call = format!("{name}({});", call_args.join(", "));
        let body = match ret {
            Some(_) => format!("{rt} r; {call} return r;"),
            None => call,
        };
        (format!("int {name}({})", decl_params.join(", ")), body)
    };
    format!(
        "extern \"C\" __device__ {decl};\n{dev} {rt} {wrapper}({}) {{ {body} }}\n",
        typed.join(", ")
    )
}
