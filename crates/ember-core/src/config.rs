//! Configuration from the environment, read once per process.

use std::path::PathBuf;
use std::sync::OnceLock;

use crate::error::{Error, Result};

/// Which backend `EMBER_BACKEND` asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BackendChoice {
    /// CUDA GPU if one works, else an OpenCL GPU, else an OpenCL CPU device.
    Auto,
    Cuda,
    OpenCl,
}

impl BackendChoice {
    /// The value of `EMBER_BACKEND` that asks for it.
    pub fn name(self) -> &'static str {
        match self {
            BackendChoice::Auto => "auto",
            BackendChoice::Cuda => "cuda",
            BackendChoice::OpenCl => "opencl",
        }
    }
}

/// ember's settings. Every `EMBER_*` variable is checked when the settings are first read: a
/// value that is not one of the variable's values is an error naming both (never ignored).
#[derive(Clone, Debug)]
pub struct Config {
    /// `EMBER_BACKEND` (`auto` when unset).
    pub backend: BackendChoice,
    /// `EMBER_CACHE_DIR`, else `$XDG_CACHE_HOME/ember`, else `~/.cache/ember`.
    pub cache_dir: PathBuf,
    /// `EMBER_DISK_CACHE=0` turns the disk tier off.
    pub disk_cache: bool,
    /// `EMBER_CACHE_SAVE_SOURCE=1` writes each compiled kernel's source beside its cache entry
    /// (`<key>.cu` or `<key>.cl`), as CuPy's `CUPY_CACHE_SAVE_CUDA_SOURCE` does.
    pub save_source: bool,
    /// `EMBER_FUSION=0` turns automatic fusion of eager elementwise code off.
    pub fusion: bool,
    /// `EMBER_FUSION_MIN_SIZE`: results of fewer elements are computed at once (65536).
    pub fusion_min_size: usize,
    /// `EMBER_FUSION_AFTER`: an expression gets its own fused kernel the n-th time it is
    /// seen (2); before, it runs ufunc by ufunc on the kernels already compiled.
    pub fusion_after: u32,
    /// `EMBER_CHECKED=1`: kernels check their indices and raise at the first out-of-bounds
    /// access (generated, ElementwiseKernel and `@jit` kernels; slower, for debugging).
    pub checked: bool,
}

/// A yes/no variable: `1`/`true`/`on`/`yes` or `0`/`false`/`off`/`no` (any case); `default`
/// when unset or empty.
pub fn flag_from(name: &str, value: Option<&str>, default: bool) -> Result<bool> {
    match value.map(|v| v.trim().to_ascii_lowercase()).as_deref() {
        None | Some("") => Ok(default),
        Some("1" | "true" | "on" | "yes") => Ok(true),
        Some("0" | "false" | "off" | "no") => Ok(false),
        Some(_) => Err(Error::Value(format!(
            "{name}={:?} is not a yes/no setting; use 1, true, on, yes or 0, false, off, no",
            value.unwrap_or_default()
        ))),
    }
}

/// [`flag_from`] on the process's environment (for settings read outside [`Config`]).
pub fn flag(name: &str, default: bool) -> Result<bool> {
    flag_from(name, std::env::var(name).ok().as_deref(), default)
}

/// A whole number of at least `min`; `default` when unset or empty.
fn count_from(name: &str, value: Option<&str>, default: u64, min: u64, what: &str) -> Result<u64> {
    match value.map(str::trim) {
        None | Some("") => Ok(default),
        Some(v) => match v.parse::<u64>() {
            Ok(n) if n >= min => Ok(n),
            _ => Err(Error::Value(format!(
                "{name}={v:?} is not valid: it is {what}, a whole number of at least {min} (default {default})"
            ))),
        },
    }
}

impl Config {
    /// Reads the settings from a variable lookup (the environment, or a test's map).
    pub fn from_lookup(get: impl Fn(&str) -> Option<String>) -> Result<Config> {
        let backend = match get("EMBER_BACKEND").as_deref().map(str::trim) {
            None | Some("") | Some("auto") => BackendChoice::Auto,
            Some("cuda") => BackendChoice::Cuda,
            Some("opencl") | Some("cl") => BackendChoice::OpenCl,
            Some(other) => {
                return Err(Error::Value(format!(
                    "EMBER_BACKEND={other:?} is not a backend; use cuda, opencl or auto"
                )))
            }
        };
        let cache_dir = get("EMBER_CACHE_DIR")
            .filter(|s| !s.is_empty())
            .map(PathBuf::from)
            .or_else(|| {
                get("XDG_CACHE_HOME")
                    .filter(|s| !s.is_empty())
                    .map(|d| PathBuf::from(d).join("ember"))
            })
            .or_else(|| get("HOME").map(|h| PathBuf::from(h).join(".cache").join("ember")))
            .unwrap_or_else(|| std::env::temp_dir().join("ember-cache"));
        let flag = |name: &str, default| flag_from(name, get(name).as_deref(), default);
        let count = |name: &str, default, min, what| {
            count_from(name, get(name).as_deref(), default, min, what)
        };
        Ok(Config {
            backend,
            cache_dir,
            disk_cache: flag("EMBER_DISK_CACHE", true)?,
            save_source: flag("EMBER_CACHE_SAVE_SOURCE", false)?,
            fusion: flag("EMBER_FUSION", true)?,
            fusion_min_size: count(
                "EMBER_FUSION_MIN_SIZE",
                1 << 16,
                1,
                "the fewest elements a result needs to be fused",
            )? as usize,
            fusion_after: count(
                "EMBER_FUSION_AFTER",
                2,
                1,
                "the number of times an expression is seen before it gets its own kernel",
            )?
            .min(u32::MAX as u64) as u32,
            checked: flag("EMBER_CHECKED", false)?,
        })
    }

    /// The process's settings, read from the environment on first use; an invalid variable
    /// is an error at every use (the process keeps working for everything else).
    pub fn get() -> Result<&'static Config> {
        static CONFIG: OnceLock<Result<Config>> = OnceLock::new();
        CONFIG
            .get_or_init(|| Config::from_lookup(|k| std::env::var(k).ok()))
            .as_ref()
            .map_err(Clone::clone)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lookup<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |k| {
            pairs
                .iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn defaults() {
        let c = Config::from_lookup(lookup(&[("HOME", "/home/u")])).unwrap();
        assert_eq!(c.backend, BackendChoice::Auto);
        assert_eq!(c.cache_dir, PathBuf::from("/home/u/.cache/ember"));
        assert!(c.disk_cache);
        assert!(c.fusion);
        assert_eq!((c.fusion_min_size, c.fusion_after), (65536, 2));
        assert!(!c.checked);
    }

    #[test]
    fn fusion_settings() {
        let c = Config::from_lookup(lookup(&[
            ("EMBER_FUSION", "off"),
            ("EMBER_FUSION_MIN_SIZE", "1"),
            ("EMBER_FUSION_AFTER", "5"),
        ]))
        .unwrap();
        assert!(!c.fusion);
        assert_eq!((c.fusion_min_size, c.fusion_after), (1, 5));
    }

    #[test]
    fn explicit_settings() {
        let c = Config::from_lookup(lookup(&[
            ("EMBER_BACKEND", "opencl"),
            ("EMBER_CACHE_DIR", "/tmp/x"),
            ("EMBER_DISK_CACHE", "0"),
        ]))
        .unwrap();
        assert_eq!(c.backend, BackendChoice::OpenCl);
        assert_eq!(c.cache_dir, PathBuf::from("/tmp/x"));
        assert!(!c.disk_cache);
    }

    #[test]
    fn bad_backend_names_choices() {
        let c = Config::from_lookup(lookup(&[("EMBER_BACKEND", "metal")]));
        let msg = c.unwrap_err().to_string();
        assert!(
            msg.contains("metal") && msg.contains("cuda, opencl or auto"),
            "{msg}"
        );
    }

    #[test]
    fn bad_values_name_the_variable_and_its_values() {
        for (name, value, expect) in [
            (
                "EMBER_FUSION_MIN_SIZE",
                "lots",
                "a whole number of at least 1 (default 65536)",
            ),
            ("EMBER_FUSION_MIN_SIZE", "0", "at least 1"),
            ("EMBER_FUSION_AFTER", "-1", "at least 1 (default 2)"),
            (
                "EMBER_DISK_CACHE",
                "maybe",
                "use 1, true, on, yes or 0, false, off, no",
            ),
            ("EMBER_FUSION", "2", "not a yes/no setting"),
            ("EMBER_CACHE_SAVE_SOURCE", "y", "not a yes/no setting"),
            ("EMBER_CHECKED", "full", "not a yes/no setting"),
        ] {
            let e = Config::from_lookup(lookup(&[(name, value)])).unwrap_err();
            let msg = e.to_string();
            assert!(matches!(e, Error::Value(_)), "{name}: {e:?}");
            assert!(
                msg.starts_with(&format!("{name}={value:?}")) && msg.contains(expect),
                "{name}={value}: {msg}"
            );
        }
    }

    #[test]
    fn flags_accept_the_usual_spellings() {
        for (v, want) in [("1", true), ("TRUE", true), (" on ", true), ("yes", true)] {
            assert_eq!(flag_from("X", Some(v), false).unwrap(), want, "{v}");
        }
        for (v, want) in [
            ("0", false),
            ("False", false),
            ("off", false),
            ("no", false),
        ] {
            assert_eq!(flag_from("X", Some(v), true).unwrap(), want, "{v}");
        }
        assert!(flag_from("X", None, true).unwrap());
        assert!(!flag_from("X", Some(""), false).unwrap());
    }
}
