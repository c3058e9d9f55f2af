//! NumPy's `datetime64` and `timedelta64`: which opaque dtypes they are, and their units.
//!
//! Arrays hold them as opaque dtypes (registered under NumPy's name, `datetime64[D]`); kernels
//! compute on them as NumPy stores them: an int64 count of the unit (since 1970-01-01 for a
//! datetime), with [`NAT`] (the least int64) for "not a time".

use crate::error::Result;
use crate::opaque::Opaque;
use crate::DType;

/// NumPy's "not a time": the least int64.
pub const NAT: i64 = i64::MIN;

/// A point in time or a span of time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DateKind {
    /// `datetime64`
    Datetime,
    /// `timedelta64`
    Timedelta,
}

/// A datetime unit, by NumPy's code for it (years 0 ... attoseconds 13; 3 is unused, 14 is
/// the generic unit of a bare `datetime64`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Unit(u8);

/// Units by code: their names and the (next finer unit, how many of it make one) step.
const UNITS: [(&str, Option<(u8, i64)>); 15] = [
    ("Y", Some((1, 12))),
    ("M", None),
    ("W", Some((4, 7))),
    ("", None),
    ("D", Some((5, 24))),
    ("h", Some((6, 60))),
    ("m", Some((7, 60))),
    ("s", Some((8, 1000))),
    ("ms", Some((9, 1000))),
    ("us", Some((10, 1000))),
    ("ns", Some((11, 1000))),
    ("ps", Some((12, 1000))),
    ("fs", Some((13, 1000))),
    ("as", None),
    ("", None),
];

impl Unit {
    pub const YEARS: Unit = Unit(0);
    pub const MONTHS: Unit = Unit(1);
    pub const WEEKS: Unit = Unit(2);
    pub const DAYS: Unit = Unit(4);
    pub const GENERIC: Unit = Unit(14);

    /// The unit NumPy writes `name` (`"D"`, `"ms"`; `""` is the generic unit).
    pub fn named(name: &str) -> Option<Unit> {
        if name.is_empty() {
            return Some(Unit::GENERIC);
        }
        UNITS
            .iter()
            .position(|(n, _)| *n == name)
            .map(|c| Unit(c as u8))
    }

    /// NumPy's name of the unit (`""` for the generic unit).
    pub fn name(self) -> &'static str {
        UNITS[self.0 as usize].0
    }

    /// NumPy's code of the unit: finer units have larger codes.
    pub fn code(self) -> u8 {
        self.0
    }

    /// The exact integer factor from counts of `self` to counts of the finer unit `to`
    /// (1 from the generic unit); `None` where none exists (months to days, or `to` coarser).
    pub fn factor_to(self, to: Unit) -> Option<i64> {
        if self == Unit::GENERIC {
            return Some(1);
        }
        let (mut c, mut factor) = (self.0, 1i64);
        while c < to.0 {
            let (next, mult) = UNITS[c as usize].1?;
            c = next;
            factor = factor.checked_mul(mult)?;
        }
        (c == to.0).then_some(factor)
    }
}

impl DType {
    /// The kind and unit of a `datetime64`/`timedelta64` dtype (little-endian, of a plain
    /// unit: `datetime64[10s]` and big-endian ones are not computed on); `None` for others.
    pub fn datetime(self) -> Option<(DateKind, Unit)> {
        let DType::Opaque(o) = self else {
            return None;
        };
        let t = o.typestr();
        let (kind, rest) = if let Some(r) = t.strip_prefix("<M8") {
            (DateKind::Datetime, r)
        } else if let Some(r) = t.strip_prefix("<m8") {
            (DateKind::Timedelta, r)
        } else {
            return None;
        };
        let unit = match rest.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
            Some(u) if !u.is_empty() => Unit::named(u)?,
            Some(_) => return None,
            None if rest.is_empty() => Unit::GENERIC,
            None => return None,
        };
        Some((kind, unit))
    }

    /// The `datetime64`/`timedelta64` dtype of `unit`, registered as the Python layer
    /// registers NumPy's (`datetime64[D]`, `<M8[D]`).
    pub fn datetime_of(kind: DateKind, unit: Unit) -> Result<DType> {
        let (name, code) = match kind {
            DateKind::Datetime => ("datetime64", "M8"),
            DateKind::Timedelta => ("timedelta64", "m8"),
        };
        let (name, typestr) = match unit {
            Unit::GENERIC => (name.to_string(), format!("<{code}")),
            u => (
                format!("{name}[{}]", u.name()),
                format!("<{code}[{}]", u.name()),
            ),
        };
        Opaque::register(&name, &typestr, 8).map(DType::Opaque)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dtypes_round_trip_through_kind_and_unit() {
        let d = DType::datetime_of(DateKind::Datetime, Unit::DAYS).unwrap();
        assert_eq!(d.name(), "datetime64[D]");
        assert_eq!(d.typestr(), "<M8[D]");
        assert_eq!(d.datetime(), Some((DateKind::Datetime, Unit::DAYS)));
        let ns = Unit::named("ns").unwrap();
        let t = DType::datetime_of(DateKind::Timedelta, ns).unwrap();
        assert_eq!(t.name(), "timedelta64[ns]");
        assert_eq!(t.datetime(), Some((DateKind::Timedelta, ns)));
        let g = DType::datetime_of(DateKind::Timedelta, Unit::GENERIC).unwrap();
        assert_eq!(
            (g.name(), g.datetime()),
            ("timedelta64", Some((DateKind::Timedelta, Unit::GENERIC)))
        );
        assert_eq!(DType::I64.datetime(), None);
        let ten = Opaque::register("datetime64[10s]", "<M8[10s]", 8).unwrap();
        assert_eq!(DType::Opaque(ten).datetime(), None);
    }

    #[test]
    fn factors_are_numpys_exact_ones() {
        let u = |n| Unit::named(n).unwrap();
        assert_eq!(u("D").factor_to(u("s")), Some(86_400));
        assert_eq!(u("W").factor_to(u("D")), Some(7));
        assert_eq!(u("Y").factor_to(u("M")), Some(12));
        assert_eq!(u("M").factor_to(u("D")), None);
        assert_eq!(u("s").factor_to(u("D")), None);
        assert_eq!(u("s").factor_to(u("as")), Some(1_000_000_000_000_000_000));
        assert_eq!(Unit::GENERIC.factor_to(u("ms")), Some(1));
        assert_eq!(u("ms").name(), "ms");
        assert!(u("Y") < u("as"));
    }
}
