//! Compiled kernels by spec and device: one compiled function per (kernel spec, device),
//! memoised so that a repeated operation costs a hash lookup, not a code generation and a
//! source hash.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Mutex, OnceLock};

use ember_codegen::Generated;
use ember_core::Result;
use ember_runtime::{Device, Function};

use crate::{compile_generated, dialect, Rounding};

/// Compiled kernels by spec, then device: keyed by the spec alone so a lookup borrows it
/// (the spec is cloned only when a kernel is first compiled).
pub struct KernelMemo<K>(OnceLock<Mutex<PerSpec<K>>>);

/// Spec -> (device, function) pairs.
type PerSpec<K> = HashMap<K, Vec<(usize, Function)>, rustc_hash::FxBuildHasher>;

impl<K: Hash + Eq + Clone> KernelMemo<K> {
    pub const fn new() -> Self {
        KernelMemo(OnceLock::new())
    }

    /// The function for `key` on `device`, compiled by `build` the first time.
    pub fn get_or_compile(
        &self,
        device: &'static Device,
        key: &K,
        build: impl FnOnce() -> Result<Function>,
    ) -> Result<Function> {
        let map = self.0.get_or_init(|| Mutex::new(HashMap::default()));
        let device_key = device as *const Device as usize;
        let found = map
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(key)
            .and_then(|per_device| {
                per_device
                    .iter()
                    .find(|(d, _)| *d == device_key)
                    .map(|(_, f)| f.clone())
            });
        if let Some(f) = found {
            return Ok(f);
        }
        let f = build()?;
        map.lock()
            .unwrap_or_else(|e| e.into_inner())
            .entry(key.clone())
            .or_default()
            .push((device_key, f.clone()));
        Ok(f)
    }
}

impl<K: Hash + Eq + Clone + Generated> KernelMemo<K> {
    /// The function of the generated kernel `spec` on `device`: its source in the device's
    /// dialect, compiled without options and with separate rounding, the first time.
    pub fn generated(&self, device: &'static Device, spec: &K) -> Result<Function> {
        self.get_or_compile(device, spec, || {
            compile_generated(
                device,
                &spec.source(dialect(device)),
                &spec.name(),
                &[],
                Rounding::Separate,
            )
        })
    }
}

impl<K: Hash + Eq + Clone> Default for KernelMemo<K> {
    fn default() -> Self {
        Self::new()
    }
}
