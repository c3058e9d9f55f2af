//! NVRTC: CUDA C to cubin for one architecture.
//!
//! Compiling to cubin for the device's own arch (not PTX) means a newer NVRTC than the driver
//! still produces code the driver loads.

use std::ffi::{c_char, CString};

use cudarc::nvrtc::{result, sys};
use ember_core::{Error, Result};

use super::loader;

fn unavailable() -> Error {
    let tried: Vec<String> = loader::search()
        .attempts
        .iter()
        .filter(|a| a.library == "libnvrtc")
        .map(loader::Attempt::line)
        .collect();
    Error::BackendUnavailable {
        backend: "CUDA".into(),
        reason: format!(
            "NVRTC (libnvrtc.so) was not found, so CUDA C cannot be compiled; install it with `pip install nvidia-cuda-nvrtc` or the CUDA toolkit, or set CUDA_PATH. Tried:\n{}",
            tried.join("\n")
        ),
    }
}

/// Makes sure NVRTC is loaded.
pub fn ensure() -> Result<()> {
    let found = loader::search().nvrtc_found && unsafe { sys::is_culib_present() };
    found.then_some(()).ok_or_else(unavailable)
}

/// NVRTC's (major, minor) version.
pub fn version() -> Result<(i32, i32)> {
    ensure()?;
    let (mut major, mut minor) = (0, 0);
    unsafe { sys::nvrtcVersion(&mut major, &mut minor) }
        .result()
        .map_err(|e| {
            Error::driver(
                "NVRTC",
                "nvrtcVersion",
                e.0 as i64,
                &format!("{e:?}"),
                "could not read NVRTC's version",
            )
        })?;
    Ok((major, minor))
}

fn nvrtc_error(call: &str, e: result::NvrtcError) -> Error {
    Error::driver(
        "NVRTC",
        call,
        e.0 as i64,
        &format!("{:?}", e.0),
        "NVRTC call failed",
    )
}

/// What NVRTC produced.
pub struct CubinOutput {
    pub cubin: Vec<u8>,
    /// The mangled name of each requested name expression, in order.
    pub lowered_names: Vec<String>,
    /// Compiled with relocatable device code: must be linked (with the device runtime)
    /// before it loads.
    pub relocatable: bool,
}

/// Whether `source` launches kernels from the device (dynamic parallelism), which needs
/// relocatable device code and the device runtime.
pub fn launches_from_device(source: &str) -> bool {
    source.contains("<<<")
}

fn wants_relocatable(options: &[String]) -> bool {
    options.iter().any(|o| {
        matches!(
            o.as_str(),
            "-rdc=true" | "--relocatable-device-code=true" | "-dc" | "--device-c"
        )
    })
}

/// Compiles CUDA C `source` to a cubin for `arch` (`"sm_90"`). Any architecture option in
/// `options` is replaced by `arch`.
pub fn compile_cubin(source: &str, name: &str, arch: &str, options: &[String]) -> Result<Vec<u8>> {
    compile(source, name, arch, options, &[]).map(|out| out.cubin)
}

/// Compiles CUDA C `source` for `arch`, also lowering `name_expressions` (C++ template
/// instances such as `"scale<float>"`) to the names the module knows them by. Source that
/// launches kernels from the device is compiled as relocatable code.
pub fn compile(
    source: &str,
    name: &str,
    arch: &str,
    options: &[String],
    name_expressions: &[String],
) -> Result<CubinOutput> {
    ensure()?;
    let (csrc, cname) = program_texts(source, name)?;
    let mut opts = options_for(arch, options)?;
    let relocatable = wants_relocatable(&opts) || launches_from_device(source);
    if relocatable && !wants_relocatable(&opts) {
        opts.push("-rdc=true".into());
    }
    let expressions = name_expressions
        .iter()
        .map(|e| {
            CString::new(e.as_str())
                .map_err(|_| Error::Value(format!("name expression {e:?} contains a NUL byte")))
        })
        .collect::<Result<Vec<_>>>()?;
    let prog = create_program(&csrc, &cname)?;
    let outcome = (|| {
        for e in &expressions {
            unsafe { sys::nvrtcAddNameExpression(prog, e.as_ptr()) }
                .result()
                .map_err(|e| nvrtc_error("nvrtcAddNameExpression", e))?;
        }
        if unsafe { result::compile_program(prog, &opts) }.is_err() {
            return Err(Error::compile(
                "CUDA",
                name,
                &opts,
                program_log(prog),
                source,
            ));
        }
        let mut lowered_names = Vec::with_capacity(expressions.len());
        for (e, text) in expressions.iter().zip(name_expressions) {
            let mut out: *const c_char = std::ptr::null();
            unsafe { sys::nvrtcGetLoweredName(prog, e.as_ptr(), &mut out) }
                .result()
                .map_err(|_| {
                    Error::Value(format!(
                        "NVRTC could not find the name expression {text:?} in the compiled code; is it a __global__ function (template) defined in the source?"
                    ))
                })?;
            let lowered = unsafe { std::ffi::CStr::from_ptr(out) };
            lowered_names.push(lowered.to_string_lossy().into_owned());
        }
        Ok(CubinOutput {
            cubin: cubin(prog)?,
            lowered_names,
            relocatable,
        })
    })();
    unsafe {
        let _ = result::destroy_program(prog);
    }
    outcome
}

fn program_texts(source: &str, name: &str) -> Result<(CString, CString)> {
    let csrc = CString::new(source)
        .map_err(|_| Error::Value("kernel source contains a NUL byte".into()))?;
    let cname = CString::new(format!("{name}.cu"))
        .map_err(|_| Error::Value("kernel name contains a NUL byte".into()))?;
    Ok((csrc, cname))
}

/// `-I` for the toolkit's device headers (`cuda_fp16.h`, ...) beside the libraries ember
/// searches (`include` next to the toolkit's `lib64`, pip's `nvidia/cu13/include`), so that CUDA
/// C including them compiles as with nvcc. Pip's NVRTC comes without them.
fn header_dirs() -> &'static [String] {
    static DIRS: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    DIRS.get_or_init(|| {
        let mut dirs: Vec<String> = Vec::new();
        for lib in loader::toolkit_dirs() {
            let Some(root) = lib.parent() else { continue };
            let include = root.join("include");
            let shown = format!("-I{}", include.display());
            if include.join("cuda_fp16.h").is_file() && !dirs.contains(&shown) {
                dirs.push(shown);
            }
        }
        dirs
    })
}

/// `options` for `arch`: any architecture option in them is replaced by it; the toolkit's
/// header folders follow the user's own `-I`s.
fn options_for(arch: &str, options: &[String]) -> Result<Vec<String>> {
    let mut opts = vec![format!("--gpu-architecture={arch}")];
    let mut skip_next = false;
    for o in options {
        if std::mem::take(&mut skip_next) {
            continue;
        }
        if o == "-arch" || o == "--gpu-architecture" {
            skip_next = true;
            continue;
        }
        if o.starts_with("-arch=") || o.starts_with("--gpu-architecture=") {
            continue;
        }
        if o.contains('\0') {
            return Err(Error::Value(format!(
                "compile option {o:?} contains a NUL byte"
            )));
        }
        opts.push(o.clone());
    }
    opts.extend(header_dirs().iter().cloned());
    Ok(opts)
}

/// Compiles CUDA C `source` to PTX for virtual architecture `arch` (`"compute_90"`), to read
/// what NVRTC makes of it (tests check which instructions generated code compiles to; Numba's
/// `compile_ptx` and `inspect_asm`).
pub fn compile_ptx(source: &str, name: &str, arch: &str, options: &[String]) -> Result<String> {
    compile_with(source, name, arch, options, |prog| {
        unsafe { result::get_ptx(prog) }
            .map(|chars| c_text(&chars))
            .map_err(|e| nvrtc_error("nvrtcGetPTX", e))
    })
}

/// Compiles CUDA C `source` to LTO-IR (NVVM's link-time-optimisation form, for nvJitLink) for
/// `arch` (`"compute_90"`); `-dlto` is added to `options`.
pub fn compile_ltoir(source: &str, name: &str, arch: &str, options: &[String]) -> Result<Vec<u8>> {
    let mut opts = options.to_vec();
    if !opts.iter().any(|o| o == "-dlto" || o == "--dlink-time-opt") {
        opts.push("-dlto".into());
    }
    compile_with(source, name, arch, &opts, |prog| {
        let mut size = 0usize;
        unsafe { sys::nvrtcGetLTOIRSize(prog, &mut size) }
            .result()
            .map_err(|e| nvrtc_error("nvrtcGetLTOIRSize", e))?;
        let mut bytes = vec![0u8; size];
        unsafe { sys::nvrtcGetLTOIR(prog, bytes.as_mut_ptr() as *mut c_char) }
            .result()
            .map_err(|e| nvrtc_error("nvrtcGetLTOIR", e))?;
        Ok(bytes)
    })
}

/// Creates the program with the headers ember supplies (`cuComplex.h`, the same text the
/// OpenCL translation includes): NVRTC from pip comes without the CUDA toolkit's headers.
fn create_program(csrc: &CString, cname: &CString) -> Result<sys::nvrtcProgram> {
    let headers = ember_translate::headers::device_headers();
    let texts = headers
        .iter()
        .map(|(_, t)| CString::new(*t))
        .collect::<std::result::Result<Vec<_>, _>>()
        .map_err(|_| Error::Value("a supplied header contains a NUL byte".into()))?;
    let names = headers
        .iter()
        .map(|(n, _)| CString::new(*n))
        .collect::<std::result::Result<Vec<_>, _>>()
        .map_err(|_| Error::Value("a supplied header's name contains a NUL byte".into()))?;
    let text_ptrs: Vec<*const std::ffi::c_char> = texts.iter().map(|c| c.as_ptr()).collect();
    let name_ptrs: Vec<*const std::ffi::c_char> = names.iter().map(|c| c.as_ptr()).collect();
    let mut prog = std::mem::MaybeUninit::uninit();
    // SAFETY: every pointer is to a NUL-terminated string alive for the call; NVRTC copies them.
    unsafe {
        sys::nvrtcCreateProgram(
            prog.as_mut_ptr(),
            csrc.as_ptr(),
            cname.as_ptr(),
            headers.len() as std::ffi::c_int,
            text_ptrs.as_ptr(),
            name_ptrs.as_ptr(),
        )
    }
    .result()
    .map_err(|e| nvrtc_error("nvrtcCreateProgram", e))?;
    // SAFETY: nvrtcCreateProgram succeeded, so it wrote the program.
    Ok(unsafe { prog.assume_init() })
}

/// Compiles `source` for `arch` and reads the result with `read`; the program is destroyed
/// either way.
fn compile_with<T>(
    source: &str,
    name: &str,
    arch: &str,
    options: &[String],
    read: impl FnOnce(sys::nvrtcProgram) -> Result<T>,
) -> Result<T> {
    ensure()?;
    let (csrc, cname) = program_texts(source, name)?;
    let opts = options_for(arch, options)?;
    let prog = create_program(&csrc, &cname)?;
    let outcome = if unsafe { result::compile_program(prog, &opts) }.is_err() {
        Err(Error::compile(
            "CUDA",
            name,
            &opts,
            program_log(prog),
            source,
        ))
    } else {
        read(prog)
    };
    unsafe {
        let _ = result::destroy_program(prog);
    }
    outcome
}

fn program_log(prog: sys::nvrtcProgram) -> String {
    unsafe { result::get_program_log(prog) }
        .map(|chars| c_text(&chars))
        .unwrap_or_default()
}

/// NVRTC's NUL-terminated text (a log, PTX) as a string.
fn c_text(chars: &[std::ffi::c_char]) -> String {
    let bytes: Vec<u8> = chars
        .iter()
        .take_while(|&&c| c != 0)
        .map(|&c| c as u8)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

fn cubin(prog: sys::nvrtcProgram) -> Result<Vec<u8>> {
    let mut size = 0usize;
    unsafe { sys::nvrtcGetCUBINSize(prog, &mut size) }
        .result()
        .map_err(|e| nvrtc_error("nvrtcGetCUBINSize", e))?;
    if size == 0 {
        return Err(Error::Value("NVRTC produced no cubin: name a real architecture such as sm_90, not a virtual one like compute_90".into()));
    }
    let mut bytes = vec![0u8; size];
    unsafe { sys::nvrtcGetCUBIN(prog, bytes.as_mut_ptr() as *mut c_char) }
        .result()
        .map_err(|e| nvrtc_error("nvrtcGetCUBIN", e))?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Needs NVRTC (CI installs pip's nvidia-cuda-nvrtc and sets EMBER_REQUIRE_NVRTC=1).
    #[test]
    fn compiles_cuda_c_to_cubin_for_sm90() {
        if ensure().is_err() && std::env::var("EMBER_REQUIRE_NVRTC").as_deref() != Ok("1") {
            eprintln!("NVRTC not found; set EMBER_REQUIRE_NVRTC=1 to make this a failure");
            return;
        }
        let src = "extern \"C\" __global__ void scale(float* x, float a, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] *= a; }";
        let cubin = compile_cubin(src, "scale", "sm_90", &[]).expect("NVRTC compile");
        assert_eq!(&cubin[..4], b"\x7fELF", "a cubin is an ELF file");
        let err = compile_cubin("__global__ void broken( { }", "broken", "sm_90", &[]).unwrap_err();
        match err {
            Error::Compile(c) => assert!(c.log.contains("error"), "{}", c.log),
            other => panic!("expected a compile error, got {other:?}"),
        }
    }
}
