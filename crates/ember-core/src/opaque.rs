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
//!
//! A structured dtype also carries its [`Record`] layout (fields by name, offset and dtype,
//! as NumPy lays them out): what kernels read and write its fields by.

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
    record: Option<Record>,
}

/// The layout of a structured dtype: its fields in NumPy's order, at NumPy's offsets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    pub fields: Vec<Field>,
    /// Bytes per element.
    pub itemsize: usize,
    /// NumPy's `dtype.alignment` (1 for a packed layout).
    pub alignment: usize,
}

/// One field of a [`Record`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field {
    pub name: String,
    /// Bytes from the start of the element.
    pub offset: usize,
    /// The dtype of the field's values (a numeric dtype, or a registered record).
    pub dtype: crate::DType,
    /// Empty for a scalar; the shape of a nested array (`('h', 'f4', (3, 2))`).
    pub shape: Vec<usize>,
}

impl Record {
    /// The field called `name`.
    pub fn field(&self, name: &str) -> Option<&Field> {
        self.fields.iter().find(|f| f.name == name)
    }

    /// The alignment every field offset may rely on, for an element at an address aligned
    /// to the record's own size (an array's start): the largest power of two, up to 16,
    /// dividing both the itemsize and `offset`.
    pub fn alignment_at(&self, offset: usize) -> usize {
        let mut a = 16;
        while a > 1 && !(self.itemsize.is_multiple_of(a) && offset.is_multiple_of(a)) {
            a /= 2;
        }
        a
    }
}

static REGISTERED: Mutex<Vec<&'static Entry>> = Mutex::new(Vec::new());

impl Opaque {
    /// The opaque dtype called `name` (NumPy's `str(dtype)`), with array-interface type string
    /// `typestr` and `itemsize` bytes per element; registered on first use. Registering a name
    /// again with another layout is an error.
    pub fn register(name: &str, typestr: &str, itemsize: usize) -> Result<Opaque> {
        Opaque::register_entry(name, typestr, itemsize, None)
    }

    /// A structured dtype called `name`, with its field layout `record` (registered as
    /// [`Opaque::register`] registers).
    pub fn register_record(name: &str, typestr: &str, record: Record) -> Result<Opaque> {
        if let Some(f) = record.fields.iter().find(|f| {
            f.offset + f.dtype.itemsize() * f.shape.iter().product::<usize>() > record.itemsize
        }) {
            return Err(Error::Value(format!(
                "dtype {name}: field '{}' at offset {} runs past the element's {} bytes",
                f.name, f.offset, record.itemsize
            )));
        }
        let itemsize = record.itemsize;
        Opaque::register_entry(name, typestr, itemsize, Some(record))
    }

    fn register_entry(
        name: &str,
        typestr: &str,
        itemsize: usize,
        record: Option<Record>,
    ) -> Result<Opaque> {
        if itemsize == 0 {
            return Err(Error::Value(format!(
                "Unsupported dtype {name}: its elements have no bytes; give the size (e.g. 'V8')"
            )));
        }
        let mut table = REGISTERED.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(&e) = table.iter().find(|e| e.name == name) {
            if e.itemsize != itemsize
                || e.typestr != typestr
                || (record.is_some() && e.record != record)
            {
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
            record,
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

    /// The field layout of a structured dtype (`None` for other opaque dtypes).
    pub fn record(self) -> Option<&'static Record> {
        self.0.record.as_ref()
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
    fn a_record_keeps_its_fields_and_the_alignment_its_offsets_allow() {
        let field = |name: &str, offset, dtype| Field {
            name: name.into(),
            offset,
            dtype,
            shape: Vec::new(),
        };
        let record = Record {
            fields: vec![field("a", 0, DType::I32), field("b", 4, DType::F64)],
            itemsize: 12,
            alignment: 1,
        };
        let o = Opaque::register_record("[('a', '<i4'), ('b', '<f8')]", "|V12", record).unwrap();
        let r = o.record().unwrap();
        assert_eq!(r.field("b").unwrap().offset, 4);
        assert!(r.field("c").is_none());
        // Elements 12 bytes apart: offset 4 is only 4-aligned in every element.
        assert_eq!(r.alignment_at(4), 4);
        assert_eq!(r.alignment_at(0), 4);
        let bad = Record {
            fields: vec![field("a", 10, DType::I32)],
            itemsize: 12,
            alignment: 1,
        };
        let err = Opaque::register_record("bad", "|V12", bad)
            .unwrap_err()
            .to_string();
        assert!(err.contains("runs past"), "{err}");
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
