//! `cache=True` for functions compiled for the CPU: each specialisation's machine code kept in
//! ember's disk cache, so another process loads it instead of compiling. The key is the
//! function's tree (with its callees and the globals it froze), the argument types, the options
//! that change the code, and the compiler's identity (this build of ember on this processor).

use std::sync::{Mutex, OnceLock};

use ember_cpu::{NativeFunction, Options};
use ember_jit::ir::IrProgram;
use ember_jit::{Program, Ty};
use ember_runtime::cache::{cache_key, CacheKey, DiskCache, Lookup};

/// Where a specialisation of a cached function came from.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Origin {
    /// Loaded from the disk cache.
    Hit,
    /// Compiled (and stored, where it could be).
    Miss,
}

/// The disk tier for one function, and what each specialisation found there.
pub(crate) struct HostCache {
    disk: DiskCache,
    /// (argument types, origin) per specialisation, in the order they were made.
    events: Mutex<Vec<(String, Origin)>>,
}

/// The compiler's identity, found once per process.
fn identity() -> Option<&'static str> {
    static IDENTITY: OnceLock<Option<String>> = OnceLock::new();
    IDENTITY
        .get_or_init(|| ember_cpu::code_identity().ok())
        .as_deref()
}

impl HostCache {
    /// The cache in ember's cache folder; `None` when `EMBER_DISK_CACHE=0` turns the disk
    /// tier off (the function is compiled in every process, as without `cache=True`).
    pub(crate) fn open() -> ember_core::Result<Option<HostCache>> {
        let config = ember_core::Config::get()?;
        Ok(config.disk_cache.then(|| HostCache {
            disk: DiskCache::new(&config.cache_dir),
            events: Mutex::new(Vec::new()),
        }))
    }

    /// The folder entries are written to.
    pub(crate) fn dir(&self) -> &std::path::Path {
        self.disk.dir()
    }

    /// The specialisation of `tree` (hashed as `tree_digest`) typed as `ir` for `args`: loaded
    /// from disk when an entry is there, else compiled and stored.
    pub(crate) fn compile(
        &self,
        tree: &Program,
        tree_digest: &CacheKey,
        ir: &IrProgram,
        entry: usize,
        args: &[Ty],
        options: &Options,
    ) -> ember_core::Result<NativeFunction> {
        let shown: Vec<String> = args.iter().map(Ty::to_string).collect();
        let shown = format!("({})", shown.join(", "));
        let record = |origin| {
            let mut events = self.events.lock().unwrap_or_else(|e| e.into_inner());
            events.push((shown.clone(), origin));
        };
        let Some(identity) = identity() else {
            record(Origin::Miss);
            return ember_cpu::compile(tree, ir, entry, options);
        };
        // Every field of the types (layout, alignment, read-only), not only their names.
        let types = format!("{args:?} {options:?}");
        let key = cache_key(&[
            b"ember-cpu",
            identity.as_bytes(),
            tree_digest,
            types.as_bytes(),
        ]);
        if let Lookup::Hit(image) = self.disk.get(&key) {
            if let Some(function) = ember_cpu::load(&image, ir, entry)? {
                record(Origin::Hit);
                return Ok(function);
            }
        }
        let (function, image) = ember_cpu::compile_keeping(tree, ir, entry, options)?;
        if let Some(image) = image {
            // A cache that cannot be written (read-only home, full disk) costs a compile later.
            let _ = self.disk.put(&key, &image);
        }
        record(Origin::Miss);
        Ok(function)
    }

    /// (argument types, whether loaded from disk) per specialisation made.
    pub(crate) fn events(&self) -> Vec<(String, bool)> {
        let events = self.events.lock().unwrap_or_else(|e| e.into_inner());
        events
            .iter()
            .map(|(s, o)| (s.clone(), *o == Origin::Hit))
            .collect()
    }
}

/// The digest of a function's tree, as its JSON.
pub(crate) fn tree_digest(json: &str) -> CacheKey {
    cache_key(&[json.as_bytes()])
}
