//! Finding CUDA's libraries without `LD_LIBRARY_PATH`.
//!
//! Each library is looked for in `CUDA_PATH`/`CUDA_HOME`, `/usr/local/cuda*`, the `nvidia/*/lib`
//! folders of pip's CUDA wheels, then by the system loader. The first file that loads is opened
//! with `RTLD_GLOBAL`, so cudarc's later load by soname finds the same library. Every attempt
//! is recorded for `ember info`.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

/// One place a library was looked for, and what happened there.
#[derive(Clone, Debug)]
pub struct Attempt {
    pub library: &'static str,
    pub location: String,
    /// `Ok(())` when it loaded; otherwise why not.
    pub outcome: Result<(), String>,
}

impl Attempt {
    /// The attempt as a line of a "Tried:" list in an error message.
    pub fn line(&self) -> String {
        let outcome = self.outcome.as_ref().err().map_or("loaded", String::as_str);
        format!("  {}: {outcome}", self.location)
    }
}

static PYTHON_DIRS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Adds Python's package folders (`site-packages`), searched for pip's `nvidia/*/lib`. The
/// Python package calls this at import, before any library is loaded.
pub fn add_python_dirs(dirs: impl IntoIterator<Item = PathBuf>) {
    let mut known = PYTHON_DIRS.lock().unwrap_or_else(|e| e.into_inner());
    for d in dirs {
        if !known.contains(&d) {
            known.push(d);
        }
    }
}

fn sorted_glob(parent: &Path, prefix: &str) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(parent)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .filter(|e| e.file_name().to_string_lossy().starts_with(prefix))
                .map(|e| e.path())
                .collect()
        })
        .unwrap_or_default();
    // Newest version first (cuda-13.0 before cuda-12.8).
    found.sort();
    found.reverse();
    found
}

fn toolkit_lib_dirs(root: &Path) -> Vec<PathBuf> {
    let mut dirs = vec![root.join("lib64"), root.join("lib")];
    dirs.extend(
        sorted_glob(&root.join("targets"), "")
            .into_iter()
            .map(|t| t.join("lib")),
    );
    dirs
}

/// Folders searched for toolkit libraries (NVRTC, cuBLAS, the device runtime), in order.
pub fn toolkit_dirs() -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    for var in ["CUDA_PATH", "CUDA_HOME"] {
        if let Some(root) = std::env::var_os(var).filter(|v| !v.is_empty()) {
            dirs.extend(toolkit_lib_dirs(Path::new(&root)));
        }
    }
    for root in sorted_glob(Path::new("/usr/local"), "cuda") {
        dirs.extend(toolkit_lib_dirs(&root));
    }
    let mut site: Vec<PathBuf> = PYTHON_DIRS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone();
    if let Some(venv) = std::env::var_os("VIRTUAL_ENV") {
        for lib in sorted_glob(&Path::new(&venv).join("lib"), "python3") {
            site.push(lib.join("site-packages"));
        }
    }
    for sp in site {
        dirs.extend(
            sorted_glob(&sp.join("nvidia"), "")
                .into_iter()
                .map(|d| d.join("lib")),
        );
    }
    let mut unique = Vec::new();
    for d in dirs {
        if d.is_dir() && !unique.contains(&d) {
            unique.push(d);
        }
    }
    unique
}

fn open_global(path: &str) -> Result<libloading::Library, String> {
    use libloading::os::unix::{Library, RTLD_GLOBAL, RTLD_NOW};
    unsafe { Library::open(Some(path), RTLD_NOW | RTLD_GLOBAL) }
        .map(libloading::Library::from)
        .map_err(|e| e.to_string())
}

/// Loads the first of `sonames` found in `dirs`.
fn find_in_dirs(
    library: &'static str,
    sonames: &[&str],
    dirs: &[PathBuf],
    attempts: &mut Vec<Attempt>,
) -> bool {
    for dir in dirs {
        let present: Vec<PathBuf> = sonames
            .iter()
            .map(|s| dir.join(s))
            .filter(|p| p.exists())
            .collect();
        if present.is_empty() {
            attempts.push(Attempt {
                library,
                location: dir.display().to_string(),
                outcome: Err(format!("no {} here", sonames.join(" or "))),
            });
        }
        for path in present {
            let shown = path.display().to_string();
            match open_global(&shown) {
                Ok(lib) => {
                    std::mem::forget(lib); // stays loaded for the life of the process
                    attempts.push(Attempt {
                        library,
                        location: shown,
                        outcome: Ok(()),
                    });
                    return true;
                }
                Err(e) => attempts.push(Attempt {
                    library,
                    location: shown,
                    outcome: Err(e),
                }),
            }
        }
    }
    false
}

/// Loads the first of `sonames` the system loader finds.
fn find_by_loader(library: &'static str, sonames: &[&str], attempts: &mut Vec<Attempt>) -> bool {
    for soname in sonames {
        let location = format!("{soname} (system loader)");
        match open_global(soname) {
            Ok(lib) => {
                std::mem::forget(lib);
                attempts.push(Attempt {
                    library,
                    location,
                    outcome: Ok(()),
                });
                return true;
            }
            Err(e) => attempts.push(Attempt {
                library,
                location,
                outcome: Err(e),
            }),
        }
    }
    false
}

/// What was found of each library, searched once per process.
#[derive(Clone, Debug)]
pub struct Search {
    pub driver_found: bool,
    pub nvrtc_found: bool,
    pub attempts: Vec<Attempt>,
}

/// Looks for the driver and NVRTC (once) and preloads what it finds.
pub fn search() -> &'static Search {
    static SEARCH: OnceLock<Search> = OnceLock::new();
    SEARCH.get_or_init(|| {
        let mut attempts = Vec::new();
        // The driver comes with the NVIDIA driver, not the toolkit (whose lib64/stubs holds a
        // stub that must never be loaded): the loader first, then where containers mount it.
        let driver_dirs: Vec<PathBuf> = ["/usr/local/nvidia/lib64", "/usr/lib/wsl/lib"]
            .iter()
            .map(PathBuf::from)
            .filter(|d| d.is_dir())
            .collect();
        let driver_found = find_by_loader("libcuda", &["libcuda.so.1"], &mut attempts)
            || find_in_dirs("libcuda", &["libcuda.so.1"], &driver_dirs, &mut attempts);
        let nvrtc = ["libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"];
        let nvrtc_found = find_in_dirs("libnvrtc", &nvrtc, &toolkit_dirs(), &mut attempts)
            || find_by_loader("libnvrtc", &nvrtc, &mut attempts);
        Search {
            driver_found,
            nvrtc_found,
            attempts,
        }
    })
}

/// What was found of cuBLAS: searched on first use only, since loading it (hundreds of MB with
/// cuBLASLt) is a cost a program without matrix products should not pay.
#[derive(Clone, Debug)]
pub struct BlasSearch {
    pub found: bool,
    pub attempts: Vec<Attempt>,
}

/// Looks for cuBLAS (once) and preloads it, cuBLASLt (which it needs) first.
pub fn search_cublas() -> &'static BlasSearch {
    static SEARCH: OnceLock<BlasSearch> = OnceLock::new();
    SEARCH.get_or_init(|| {
        let mut attempts = Vec::new();
        let dirs = toolkit_dirs();
        let lt = ["libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so"];
        let _ = find_in_dirs("libcublasLt", &lt, &dirs, &mut attempts)
            || find_by_loader("libcublasLt", &lt, &mut attempts);
        let blas = ["libcublas.so.13", "libcublas.so.12", "libcublas.so"];
        let found = find_in_dirs("libcublas", &blas, &dirs, &mut attempts)
            || find_by_loader("libcublas", &blas, &mut attempts);
        BlasSearch { found, attempts }
    })
}

/// What was found of cuFFT (searched on first use, as cuBLAS).
pub fn search_cufft() -> &'static BlasSearch {
    static SEARCH: OnceLock<BlasSearch> = OnceLock::new();
    SEARCH.get_or_init(|| {
        let mut attempts = Vec::new();
        let fft = ["libcufft.so.12", "libcufft.so.11", "libcufft.so"];
        let found = find_in_dirs("libcufft", &fft, &toolkit_dirs(), &mut attempts)
            || find_by_loader("libcufft", &fft, &mut attempts);
        BlasSearch { found, attempts }
    })
}

/// What was found of NVTX (NVIDIA's ranges for Nsight), searched on first use: CUDA 13's
/// `libnvtx3interop` (the toolkit, pip's `nvidia/cu13/lib`), else CUDA 12's `libnvToolsExt`,
/// in the toolkit's and pip's folders, then through the system loader.
pub fn search_nvtx() -> &'static BlasSearch {
    static SEARCH: OnceLock<BlasSearch> = OnceLock::new();
    SEARCH.get_or_init(|| {
        let mut attempts = Vec::new();
        let nvtx = NVTX_SONAMES;
        let found = find_in_dirs("NVTX", &nvtx, &toolkit_dirs(), &mut attempts)
            || find_by_loader("NVTX", &nvtx, &mut attempts);
        BlasSearch { found, attempts }
    })
}

/// NVTX's libraries, newest first.
pub const NVTX_SONAMES: [&str; 3] = [
    "libnvtx3interop.so.1",
    "libnvToolsExt.so.1",
    "libnvToolsExt.so",
];

/// What was found of cuSOLVER (searched on first use, as cuBLAS). cuSOLVER links cuBLAS,
/// cuBLASLt, cuSPARSE and (from CUDA 12) nvJitLink: those are preloaded first, so that pip's
/// per-library folders, which the loader does not search, serve its dependencies too. CUDA
/// 13's cuSOLVER keeps soname 12, CUDA 12's has 11.
pub fn search_cusolver() -> &'static BlasSearch {
    static SEARCH: OnceLock<BlasSearch> = OnceLock::new();
    SEARCH.get_or_init(|| {
        let blas = search_cublas();
        let mut attempts = blas.attempts.clone();
        let dirs = toolkit_dirs();
        let jit = [
            "libnvJitLink.so.13",
            "libnvJitLink.so.12",
            "libnvJitLink.so",
        ];
        let _ = find_in_dirs("libnvJitLink", &jit, &dirs, &mut attempts)
            || find_by_loader("libnvJitLink", &jit, &mut attempts);
        let sparse = ["libcusparse.so.12", "libcusparse.so.11", "libcusparse.so"];
        let _ = find_in_dirs("libcusparse", &sparse, &dirs, &mut attempts)
            || find_by_loader("libcusparse", &sparse, &mut attempts);
        let solver = ["libcusolver.so.12", "libcusolver.so.11", "libcusolver.so"];
        let found = find_in_dirs("libcusolver", &solver, &dirs, &mut attempts)
            || find_by_loader("libcusolver", &solver, &mut attempts);
        BlasSearch {
            found: found && blas.found,
            attempts,
        }
    })
}
