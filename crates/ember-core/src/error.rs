//! ember's one error type. The Python bindings map each variant to its own exception class.

use std::fmt;

/// Result with ember's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

/// What the memory pool held when an allocation failed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PoolStats {
    /// Bytes handed out to live arrays.
    pub used_bytes: usize,
    /// Bytes held from the device in all (live plus cached for reuse).
    pub total_bytes: usize,
    /// The pool's limit, if one was set.
    pub limit: Option<usize>,
}

/// A compilation that failed: everything needed to show the user why.
#[derive(Clone, Debug, PartialEq)]
pub struct CompileFailure {
    pub backend: String,
    /// The kernel or module's name.
    pub name: String,
    pub options: Vec<String>,
    /// The compiler's whole log.
    pub log: String,
    pub source: String,
}

/// A failed driver call.
#[derive(Clone, Debug, PartialEq)]
pub struct DriverFailure {
    pub backend: String,
    pub call: String,
    pub code: i64,
    /// The API's name of the code (`CUDA_ERROR_ILLEGAL_ADDRESS`).
    pub name: String,
    pub message: String,
    /// The last kernel launched on the device, which is often the one at fault.
    pub last_kernel: Option<String>,
}

/// Every failure ember reports.
#[derive(Clone, Debug, PartialEq)]
pub enum Error {
    /// Kernel source did not compile.
    Compile(Box<CompileFailure>),
    /// A driver call (CUDA or OpenCL) failed.
    Driver(Box<DriverFailure>),
    /// A backend, library or device is not there.
    BackendUnavailable { backend: String, reason: String },
    /// A device allocation failed even after the pool freed its cache.
    OutOfMemory {
        requested: usize,
        device: String,
        stats: PoolStats,
        detail: String,
    },
    /// A bad value (NumPy raises `ValueError`).
    Value(String),
    /// A bad type or dtype (NumPy raises `TypeError`).
    Type(String),
    /// An index out of range (NumPy raises `IndexError`).
    Index(String),
    /// An axis out of range for an array of `ndim` dimensions (NumPy raises `AxisError`, a
    /// `ValueError` and an `IndexError`); `prefix` names the argument (`"source"`, `"axis1"`).
    Axis {
        axis: i64,
        ndim: usize,
        prefix: Option<&'static str>,
    },
    /// A value that does not fit its type (NumPy raises `OverflowError`).
    Overflow(String),
    /// A launch shape the device cannot run (a block too large, a size of 0): the driver's
    /// invalid-value error, checked before the call (`LaunchConfigurationError`: PyCUDA's
    /// `LogicError` and a `ValueError`).
    LaunchConfig(String),
    /// A Python kernel uses something the kernel compiler does not support, or is badly
    /// typed: the message names the file, line and expression.
    Jit(String),
    /// A device call in a child `fork()`ed after ember opened its devices (the parent's
    /// contexts do not work there).
    /// The backend's title ("CUDA", "OpenCL"), for the message.
    Forked(&'static str),
    /// Memory or a stream from before the device's context was lost (a kernel fault) and
    /// replaced: the message says what was lost and why.
    DeviceReset(String),
    /// Checked mode found a kernel's index out of bounds (NumPy and Numba raise
    /// `IndexError`): the message names the kernel, the array, the index and where.
    OutOfBounds(String),
    /// Checked mode found a kernel's `raise` statement run: the Python layer raises the
    /// exception it names.
    Raised(Box<KernelRaise>),
}

/// A `raise` a checked kernel ran: the first thread's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelRaise {
    /// The number the kernel's front gave the exception (its class and arguments), for a
    /// `raise` statement; `None` for Python's own error named by `builtin` (class, message).
    pub exception: Option<usize>,
    pub builtin: Option<(String, String)>,
    /// The Python function, its file and the statement's line.
    pub function: String,
    pub file: String,
    pub line: u32,
    /// The thread (x, y, z) in its block, and the block in the grid.
    pub thread: [u32; 3],
    pub block: [u32; 3],
}

impl Error {
    /// A driver error for a call that returned `code`.
    pub fn driver(backend: &str, call: &str, code: i64, name: &str, message: &str) -> Error {
        Error::Driver(Box::new(DriverFailure {
            backend: backend.to_string(),
            call: call.to_string(),
            code,
            name: name.to_string(),
            message: message.to_string(),
            last_kernel: None,
        }))
    }

    /// A compile error.
    pub fn compile(
        backend: &str,
        name: &str,
        options: &[String],
        log: String,
        source: &str,
    ) -> Error {
        Error::Compile(Box::new(CompileFailure {
            backend: backend.to_string(),
            name: name.to_string(),
            options: options.to_vec(),
            log,
            source: source.to_string(),
        }))
    }

    /// Adds the last kernel launched to a driver error (a fault shows up at a later call).
    pub fn with_last_kernel(self, kernel: Option<String>) -> Error {
        match self {
            Error::Driver(mut d) if d.last_kernel.is_none() => {
                d.last_kernel = kernel;
                Error::Driver(d)
            }
            other => other,
        }
    }
}

fn fmt_bytes(n: usize) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = n as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{n} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Compile(c) => {
                let log = c.log.trim();
                write!(f, "{} compilation of {} failed", c.backend, c.name)?;
                if !log.is_empty() {
                    write!(f, ":\n{log}")?;
                }
                Ok(())
            }
            Error::Driver(d) => {
                write!(
                    f,
                    "{} call {} failed: {} ({}): {}",
                    d.backend, d.call, d.name, d.code, d.message
                )?;
                if let Some(k) = &d.last_kernel {
                    write!(f, " [last kernel launched: {k}]")?;
                }
                Ok(())
            }
            // "any": automatic choice found neither CUDA nor OpenCL.
            Error::BackendUnavailable { backend, reason } if backend == "any" => {
                write!(f, "no device found on any backend: {reason}")
            }
            Error::BackendUnavailable { backend, reason } => {
                write!(f, "the {backend} backend is not available: {reason}")
            }
            Error::OutOfMemory {
                requested,
                device,
                stats,
                detail,
            } => {
                write!(
                    f,
                    "out of memory allocating {} on {device}: pool has {} in use and {} held in all",
                    fmt_bytes(*requested),
                    fmt_bytes(stats.used_bytes),
                    fmt_bytes(stats.total_bytes)
                )?;
                if let Some(limit) = stats.limit {
                    write!(f, ", limit {}", fmt_bytes(limit))?;
                }
                if !detail.is_empty() {
                    write!(f, " ({detail})")?;
                }
                write!(f, "; free arrays you no longer need or raise the limit with get_default_memory_pool().set_limit(size=...)")
            }
            Error::Axis { axis, ndim, prefix } => {
                if let Some(p) = prefix {
                    write!(f, "{p}: ")?;
                }
                write!(
                    f,
                    "axis {axis} is out of bounds for array of dimension {ndim}"
                )
            }
            Error::Forked(backend) => write!(
                f,
                "{backend} initialized before forking: ember's devices were opened in the parent before this process was forked, and a forked child cannot use them (the GPU context and its threads stay with the parent); start worker processes with the 'spawn' method: multiprocessing.get_context('spawn') (or set_start_method('spawn'), or ProcessPoolExecutor(mp_context=...)), or fork before ember's first device call",
            ),
            Error::DeviceReset(m) | Error::OutOfBounds(m) => f.write_str(m),
            Error::Raised(r) => write!(
                f,
                "{} raised in function {} ({}, line {}), thread {:?} of block {:?}",
                r.builtin
                    .as_ref()
                    .map_or_else(|| format!("exception #{:?}", r.exception), |b| b.0.clone()),
                r.function,
                r.file,
                r.line,
                r.thread,
                r.block
            ),
            Error::Value(m)
            | Error::Type(m)
            | Error::Index(m)
            | Error::Overflow(m)
            | Error::LaunchConfig(m)
            | Error::Jit(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for Error {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn oom_message_has_stats_and_advice() {
        let e = Error::OutOfMemory {
            requested: 3 << 20,
            device: "pthread CPU".into(),
            stats: PoolStats {
                used_bytes: 1024,
                total_bytes: 4096,
                limit: Some(1 << 20),
            },
            detail: String::new(),
        };
        let s = e.to_string();
        assert!(
            s.contains("3.0 MiB") && s.contains("limit 1.0 MiB") && s.contains("set_limit"),
            "{s}"
        );
    }

    #[test]
    fn unavailable_backend_names_the_backend_or_says_none_has_a_device() {
        let cuda = Error::BackendUnavailable {
            backend: "CUDA".into(),
            reason: "no driver".into(),
        };
        assert_eq!(
            cuda.to_string(),
            "the CUDA backend is not available: no driver"
        );
        let none = Error::BackendUnavailable {
            backend: "any".into(),
            reason: "no CUDA device and no OpenCL device".into(),
        };
        assert_eq!(
            none.to_string(),
            "no device found on any backend: no CUDA device and no OpenCL device"
        );
    }

    #[test]
    fn axis_errors_read_as_numpy_s() {
        let plain = Error::Axis {
            axis: -4,
            ndim: 3,
            prefix: None,
        };
        assert_eq!(
            plain.to_string(),
            "axis -4 is out of bounds for array of dimension 3"
        );
        let named = Error::Axis {
            axis: 3,
            ndim: 3,
            prefix: Some("source"),
        };
        assert_eq!(
            named.to_string(),
            "source: axis 3 is out of bounds for array of dimension 3"
        );
    }

    #[test]
    fn last_kernel_is_added_once() {
        let e = Error::driver(
            "CUDA",
            "cuStreamSynchronize",
            700,
            "CUDA_ERROR_ILLEGAL_ADDRESS",
            "an illegal memory access",
        )
        .with_last_kernel(Some("scale".into()))
        .with_last_kernel(Some("other".into()));
        assert!(e.to_string().ends_with("[last kernel launched: scale]"));
    }
}
