//! The disk tier of the kernel cache, and the key every tier shares.
//!
//! An entry is `MAGIC | key | payload length (u64 LE) | SHA-256 of payload | payload`, written
//! to a temporary file and renamed into place, so a reader sees a whole entry or none. A read
//! whose key, checksum or length does not match deletes the entry and reports it damaged: the
//! kernel is recompiled, never trusted. (The key inside the entry catches a file copied or
//! renamed under another key's name, whose checksum alone is fine.)

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use sha2::{Digest, Sha256};

const MAGIC: &[u8; 8] = b"EMBERK2\n";
const HEADER: usize = 8 + 32 + 8 + 32;

/// A cache key: SHA-256 over everything that decides the binary.
pub type CacheKey = [u8; 32];

/// Hashes the parts of a key, each length-prefixed so that no two lists collide.
pub fn cache_key(parts: &[&[u8]]) -> CacheKey {
    let mut h = Sha256::new();
    for part in parts {
        h.update((part.len() as u64).to_le_bytes());
        h.update(part);
    }
    h.finalize().into()
}

fn hex(key: &CacheKey) -> String {
    key.iter().map(|b| format!("{b:02x}")).collect()
}

/// Counters of where compiled modules came from.
#[derive(Default, Debug)]
pub struct CacheStats {
    pub memory_hits: AtomicU64,
    pub disk_hits: AtomicU64,
    pub compiles: AtomicU64,
    pub corrupt: AtomicU64,
}

impl CacheStats {
    pub fn bump(counter: &AtomicU64) {
        counter.fetch_add(1, Ordering::Relaxed);
    }

    /// (memory hits, disk hits, compiles, corrupt entries)
    pub fn snapshot(&self) -> (u64, u64, u64, u64) {
        (
            self.memory_hits.load(Ordering::Relaxed),
            self.disk_hits.load(Ordering::Relaxed),
            self.compiles.load(Ordering::Relaxed),
            self.corrupt.load(Ordering::Relaxed),
        )
    }
}

/// What a read found.
#[derive(Debug, PartialEq, Eq)]
pub enum Lookup {
    Hit(Vec<u8>),
    Miss,
    /// The entry was damaged and has been removed.
    Corrupt,
}

/// Compiled binaries on disk, one file per key.
#[derive(Clone, Debug)]
pub struct DiskCache {
    dir: PathBuf,
}

impl DiskCache {
    /// A cache in `root/kernels`.
    pub fn new(root: &Path) -> DiskCache {
        DiskCache {
            dir: root.join("kernels"),
        }
    }

    /// The folder entries live in.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Path of the entry for `key`.
    pub fn path(&self, key: &CacheKey) -> PathBuf {
        self.dir.join(format!("{}.bin", hex(key)))
    }

    /// Writes `source` beside the entry for `key` with extension `ext`, for reading (it is
    /// never read back).
    pub fn save_source(&self, key: &CacheKey, ext: &str, source: &str) -> std::io::Result<()> {
        std::fs::create_dir_all(&self.dir)?;
        std::fs::write(self.dir.join(format!("{}.{ext}", hex(key))), source)
    }

    /// Reads and checks the entry for `key`.
    pub fn get(&self, key: &CacheKey) -> Lookup {
        let path = self.path(key);
        let Ok(bytes) = fs::read(&path) else {
            return Lookup::Miss;
        };
        match decode(&bytes, key) {
            Some(payload) => Lookup::Hit(payload.to_vec()),
            None => {
                let _ = fs::remove_file(&path);
                Lookup::Corrupt
            }
        }
    }

    /// Stores `payload` under `key`. Failure to write (read-only home, full disk) only costs
    /// a recompilation later, so it is reported to the caller to ignore or log.
    pub fn put(&self, key: &CacheKey, payload: &[u8]) -> std::io::Result<()> {
        fs::create_dir_all(&self.dir)?;
        let tmp = self.dir.join(format!(
            ".{}.{}.{:?}.tmp",
            hex(key),
            std::process::id(),
            std::thread::current().id()
        ));
        // One write of the whole entry. No fsync: it costs milliseconds on the compile path, and
        // an entry a crash left torn fails its checksum and is rebuilt.
        let digest: [u8; 32] = Sha256::digest(payload).into();
        let mut entry = Vec::with_capacity(HEADER + payload.len());
        entry.extend_from_slice(MAGIC);
        entry.extend_from_slice(key);
        entry.extend_from_slice(&(payload.len() as u64).to_le_bytes());
        entry.extend_from_slice(&digest);
        entry.extend_from_slice(payload);
        fs::File::create(&tmp)?.write_all(&entry)?;
        fs::rename(&tmp, self.path(key)).inspect_err(|_| {
            let _ = fs::remove_file(&tmp);
        })
    }

    /// (entries, bytes) on disk.
    pub fn size(&self) -> (usize, u64) {
        let Ok(entries) = fs::read_dir(&self.dir) else {
            return (0, 0);
        };
        entries
            .filter_map(|e| e.ok())
            .filter(|e| e.path().extension().is_some_and(|x| x == "bin"))
            .fold((0, 0), |(n, b), e| {
                (n + 1, b + e.metadata().map(|m| m.len()).unwrap_or(0))
            })
    }
}

/// The payload of an entry if it is whole and filed under `key`.
fn decode<'a>(bytes: &'a [u8], key: &CacheKey) -> Option<&'a [u8]> {
    if bytes.len() < HEADER || &bytes[..8] != MAGIC || bytes[8..40] != key[..] {
        return None;
    }
    let len = u64::from_le_bytes(bytes[40..48].try_into().ok()?) as usize;
    let payload = &bytes[HEADER..];
    if payload.len() != len {
        return None;
    }
    let digest: [u8; 32] = Sha256::digest(payload).into();
    (digest[..] == bytes[48..80]).then_some(payload)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_cache(tag: &str) -> DiskCache {
        let root =
            std::env::temp_dir().join(format!("ember-cache-test-{tag}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        DiskCache::new(&root)
    }

    #[test]
    fn keys_separate_their_parts() {
        assert_ne!(cache_key(&[b"ab", b"c"]), cache_key(&[b"a", b"bc"]));
        assert_eq!(cache_key(&[b"x"]), cache_key(&[b"x"]));
    }

    #[test]
    fn put_then_get() {
        let cache = temp_cache("hit");
        let key = cache_key(&[b"kernel"]);
        assert_eq!(cache.get(&key), Lookup::Miss);
        cache.put(&key, b"binary bytes").unwrap();
        assert_eq!(cache.get(&key), Lookup::Hit(b"binary bytes".to_vec()));
        assert_eq!(cache.size().0, 1);
    }

    #[test]
    fn corrupt_entries_are_removed() {
        let cache = temp_cache("corrupt");
        let key = cache_key(&[b"k2"]);
        cache.put(&key, b"0123456789").unwrap();
        let path = cache.path(&key);
        let mut bytes = fs::read(&path).unwrap();
        let last = bytes.len() - 1;
        bytes[last] ^= 0xff;
        fs::write(&path, &bytes).unwrap();
        assert_eq!(cache.get(&key), Lookup::Corrupt);
        assert!(!path.exists());
        // Truncated entries too.
        cache.put(&key, b"0123456789").unwrap();
        fs::write(&path, &fs::read(&path).unwrap()[..20]).unwrap();
        assert_eq!(cache.get(&key), Lookup::Corrupt);
    }

    #[test]
    fn an_entry_filed_under_another_key_is_removed_not_trusted() {
        let cache = temp_cache("swapped");
        let (a, b) = (cache_key(&[b"kernel a"]), cache_key(&[b"kernel b"]));
        cache.put(&a, b"binary of a").unwrap();
        cache.put(&b, b"binary of b").unwrap();
        // b's file replaced by a's: whole, with a good checksum, but not b's.
        fs::copy(cache.path(&a), cache.path(&b)).unwrap();
        assert_eq!(cache.get(&b), Lookup::Corrupt);
        assert!(!cache.path(&b).exists());
        assert_eq!(cache.get(&a), Lookup::Hit(b"binary of a".to_vec()));
    }

    #[test]
    fn entries_of_the_previous_format_are_rebuilt() {
        let cache = temp_cache("old-format");
        let key = cache_key(&[b"k3"]);
        let payload = b"old";
        let mut old = b"EMBERK1\n".to_vec();
        old.extend_from_slice(&(payload.len() as u64).to_le_bytes());
        old.extend_from_slice(&<[u8; 32]>::from(Sha256::digest(payload)));
        old.extend_from_slice(payload);
        fs::create_dir_all(cache.dir()).unwrap();
        fs::write(cache.path(&key), old).unwrap();
        assert_eq!(cache.get(&key), Lookup::Corrupt);
    }
}
