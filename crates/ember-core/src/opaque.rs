//! Opaque dtypes: element types ember arrays hold but nothing computes on.
//!
//! NumPy's `datetime64`, `timedelta64`, structured and void dtypes reach the device through the
//! CUDA array interface (cuDF's datetime columns), NumPy arrays and `empty`/`zeros`, as in CuPy.
//! An array of one keeps its layout and bytes: it can be viewed, reshaped, indexed by slices,
//! copied and brought back to the host, and viewed as a numeric dtype to compute on. Every
//! computation refuses it.
//!
//! The numeric dtypes are a closed table; opaque ones are open-ended (`'V10'`, any structured
//! layout), so each distinct one is registered once, by the name the Python layer gives it,
//! and lives for the rest of the process. That keeps [`DType`](crate::DType) `Copy` and cheap.

use std::sync::Mutex;

use crate::error::{Error, Result};

/// One registered opaque dtype (compared by identity: each name is registered once).
#[derive(Clone, Copy, Debug)]
pub struct Opaque(&'static Entry);

#[derive(Debug)]
struct Entry {
    id: usize,
    name: &'static str,
    typestr: &'static str,
    itemsize: usize,
}

static REGISTERED: Mutex<Vec<&'static Entry>> = Mutex::new(Vec::new());

impl Opaque {
    /// The opaque dtype called `name` (NumPy's `str(dtype)`), with array-interface type string
    /// `typestr` and `itemsize` bytes per element; registered on first use. Registering a name
    /// again with another layout is an error.
    pub fn register(name: &str, typestr: &str, itemsize: usize) -> Result<Opaque> {
        if itemsize == 0 {
            return Err(Error::Value(format!(
                "Unsupported dtype {name}: its elements have no bytes; give the size (e.g. 'V8')"
            )));
        }
        let mut table = REGISTERED.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(&e) = table.iter().find(|e| e.name == name) {
            if e.itemsize != itemsize || e.typestr != typestr {
                return Err(Error::Value(format!(
                    "dtype {name} is already known with {} bytes ({}), not {itemsize} ({typestr})",
                    e.itemsize, e.typestr
                )));
            }
            return Ok(Opaque(e));
        }
        let entry = Box::leak(Box::new(Entry {
            id: table.len(),
            name: Box::leak(name.into()),
            typestr: Box::leak(typestr.into()),
            itemsize,
        }));
        table.push(entry);
        Ok(Opaque(entry))
    }

    /// The registered opaque dtype called `name`, if any.
    pub fn named(name: &str) -> Option<Opaque> {
        let table = REGISTERED.lock().unwrap_or_else(|e| e.into_inner());
        table.iter().find(|e| e.name == name).map(|&e| Opaque(e))
    }

    /// NumPy's name of the dtype (`"datetime64[ns]"`, `"[('f0', '<i4'), ('f1', '<f8')]"`).
    pub fn name(self) -> &'static str {
        self.0.name
    }

    /// The array-interface type string (`"<M8[ns]"`, `"|V12"`).
    pub fn typestr(self) -> &'static str {
        self.0.typestr
    }

    /// Bytes per element.
    pub fn itemsize(self) -> usize {
        self.0.itemsize
    }
}

impl PartialEq for Opaque {
    fn eq(&self, other: &Opaque) -> bool {
        self.0.id == other.0.id
    }
}

impl Eq for Opaque {}

impl std::hash::Hash for Opaque {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.id.hash(state)
    }
}

impl PartialOrd for Opaque {
    fn partial_cmp(&self, other: &Opaque) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Opaque {
    fn cmp(&self, other: &Opaque) -> std::cmp::Ordering {
        self.0.id.cmp(&other.0.id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::DType;

    #[test]
    fn registered_once_and_found_by_name() {
        let a = Opaque::register("datetime64[us]", "<M8[us]", 8).unwrap();
        let b = Opaque::register("datetime64[us]", "<M8[us]", 8).unwrap();
        assert_eq!(a, b);
        assert_eq!(
            DType::from_name("datetime64[us]").unwrap(),
            DType::Opaque(a)
        );
        assert_eq!(DType::Opaque(a).itemsize(), 8);
        assert_eq!(DType::Opaque(a).typestr(), "<M8[us]");
        let c = Opaque::register("|V12", "|V12", 12).unwrap();
        assert_ne!(a, c);
    }

    #[test]
    fn a_name_keeps_its_layout_and_empty_elements_are_refused() {
        Opaque::register("|V3", "|V3", 3).unwrap();
        let err = Opaque::register("|V3", "|V3", 4).unwrap_err().to_string();
        assert!(err.contains("already known with 3 bytes"), "{err}");
        let err = Opaque::register("|V0", "|V0", 0).unwrap_err().to_string();
        assert!(err.contains("Unsupported dtype"), "{err}");
    }
}
