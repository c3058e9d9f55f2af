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

/// ember's settings.
#[derive(Clone, Debug)]
pub struct Config {
    /// `EMBER_BACKEND` (`auto` when unset).
    pub backend: Result<BackendChoice>,
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
}

impl Config {
    /// Reads the settings from a variable lookup (the environment, or a test's map).
    pub fn from_lookup(get: impl Fn(&str) -> Option<String>) -> Config {
        let backend = match get("EMBER_BACKEND").as_deref().map(str::trim) {
            None | Some("") | Some("auto") => Ok(BackendChoice::Auto),
            Some("cuda") => Ok(BackendChoice::Cuda),
            Some("opencl") | Some("cl") => Ok(BackendChoice::OpenCl),
            Some(other) => Err(Error::Value(format!(
                "EMBER_BACKEND={other:?} is not a backend; use cuda, opencl or auto"
            ))),
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
        let disk_cache = !matches!(
            get("EMBER_DISK_CACHE").as_deref(),
            Some("0") | Some("false") | Some("off")
        );
        let save_source = matches!(
            get("EMBER_CACHE_SAVE_SOURCE").as_deref(),
            Some("1") | Some("true") | Some("on")
        );
        let fusion = !matches!(
            get("EMBER_FUSION").as_deref(),
            Some("0") | Some("false") | Some("off")
        );
        let number = |name: &str, default: usize| {
            get(name)
                .and_then(|v| v.trim().parse::<usize>().ok())
                .unwrap_or(default)
        };
        Config {
            backend,
            cache_dir,
            disk_cache,
            save_source,
            fusion,
            fusion_min_size: number("EMBER_FUSION_MIN_SIZE", 1 << 16).max(1),
            fusion_after: number("EMBER_FUSION_AFTER", 2).clamp(1, u32::MAX as usize) as u32,
        }
    }

    /// The process's settings, read from the environment on first use.
    pub fn get() -> &'static Config {
        static CONFIG: OnceLock<Config> = OnceLock::new();
        CONFIG.get_or_init(|| Config::from_lookup(|k| std::env::var(k).ok()))
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
        let c = Config::from_lookup(lookup(&[("HOME", "/home/u")]));
        assert_eq!(c.backend.unwrap(), BackendChoice::Auto);
        assert_eq!(c.cache_dir, PathBuf::from("/home/u/.cache/ember"));
        assert!(c.disk_cache);
        assert!(c.fusion);
        assert_eq!((c.fusion_min_size, c.fusion_after), (65536, 2));
    }

    #[test]
    fn fusion_settings() {
        let c = Config::from_lookup(lookup(&[
            ("EMBER_FUSION", "off"),
            ("EMBER_FUSION_MIN_SIZE", "0"),
            ("EMBER_FUSION_AFTER", "5"),
        ]));
        assert!(!c.fusion);
        assert_eq!((c.fusion_min_size, c.fusion_after), (1, 5));
    }

    #[test]
    fn explicit_settings() {
        let c = Config::from_lookup(lookup(&[
            ("EMBER_BACKEND", "opencl"),
            ("EMBER_CACHE_DIR", "/tmp/x"),
            ("EMBER_DISK_CACHE", "0"),
        ]));
        assert_eq!(c.backend.unwrap(), BackendChoice::OpenCl);
        assert_eq!(c.cache_dir, PathBuf::from("/tmp/x"));
        assert!(!c.disk_cache);
    }

    #[test]
    fn bad_backend_names_choices() {
        let c = Config::from_lookup(lookup(&[("EMBER_BACKEND", "metal")]));
        let msg = c.backend.unwrap_err().to_string();
        assert!(
            msg.contains("metal") && msg.contains("cuda, opencl or auto"),
            "{msg}"
        );
    }
}
