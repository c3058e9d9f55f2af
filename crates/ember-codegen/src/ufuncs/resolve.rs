//! Which loop a ufunc runs for given operands: exactly what NumPy 2 resolves, looked up in
//! tables generated from NumPy (tools/gen_ufunc_tables.py), Python scalars included as weak
//! operands (NEP 50).

use std::sync::OnceLock;

use ember_core::dtype::Kind;
use ember_core::{DType, Error, Result};

use crate::dialect::Dialect;

use super::expr::Expr;
use super::registry::{Call, UfuncRow, UFUNCS};
use super::tables::{self, Loop, OPERAND_TYPES, PROMOTE, SAFE_CAST, SAME_KIND_CAST};

/// A ufunc: its registry row, arity and NumPy's loops.
pub struct Ufunc {
    /// Position in the registry (a compact key for kernel caches).
    pub id: usize,
    pub name: &'static str,
    pub nin: usize,
    pub nout: usize,
    pub loops: &'static [Loop],
    /// NumPy's one-line summary of it.
    pub doc: &'static str,
    pub row: &'static UfuncRow,
    /// Loop index per combination of operand types (see `tables::UFUNCS`).
    table: &'static [u8],
}

impl std::fmt::Debug for Ufunc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "<ufunc '{}'>", self.name)
    }
}

impl Ufunc {
    /// The C expression of loop (`ins` -> `out`) over `args` (values of the loop's types).
    pub fn expression(
        &self,
        ins: &[DType],
        out: DType,
        args: &[String],
        dialect: Dialect,
    ) -> Result<Expr> {
        (self.row.body)(&Call {
            name: self.name,
            ins,
            out,
            args,
            dialect,
        })
    }
}

/// Every ufunc of the registry, with NumPy's loops (a row without them is refused by the
/// registry's tests).
pub fn all() -> &'static [Ufunc] {
    static ALL: OnceLock<Vec<Ufunc>> = OnceLock::new();
    ALL.get_or_init(|| {
        UFUNCS
            .iter()
            .filter_map(|row| {
                tables::UFUNCS
                    .iter()
                    .find(|t| t.0 == row.name)
                    .map(|t| (row, t))
            })
            .enumerate()
            .map(|(id, (row, &(name, nin, nout, loops, table, doc)))| Ufunc {
                id,
                name,
                nin,
                nout,
                loops,
                doc,
                row,
                table: table.as_bytes(),
            })
            .collect()
    })
}

/// The ufunc called `name` or one of its aliases (`mod` is `remainder`, `abs` is `absolute`,
/// as in NumPy).
pub fn ufunc(name: &str) -> Result<&'static Ufunc> {
    all()
        .iter()
        .find(|u| u.name == name || u.row.aliases.contains(&name))
        .ok_or_else(|| Error::Value(format!("ember has no ufunc named {name:?}")))
}

/// The ufunc with table position `id`.
pub fn by_id(id: usize) -> Result<&'static Ufunc> {
    all()
        .get(id)
        .ok_or_else(|| Error::Value(format!("no ufunc number {id}")))
}

/// What an operand contributes to type resolution.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OperandType {
    /// An array or NumPy scalar: its dtype counts in full.
    Strong(DType),
    /// A Python int, float or complex: only its kind counts (NEP 50).
    Weak(Kind),
}

pub fn can_cast_safely(from: DType, to: DType) -> bool {
    if from.is_opaque() || to.is_opaque() {
        return from == to;
    }
    SAFE_CAST[from.row()][to.row()]
}

/// NumPy's `promote_types(a, b)`. An opaque dtype promotes only with itself; with another
/// dtype the result is the opaque one, which the caller's cast check or computation refuses.
pub fn promote(a: DType, b: DType) -> DType {
    match (a, b) {
        _ if a == b => a,
        (DType::Opaque(_), _) => a,
        (_, DType::Opaque(_)) => b,
        _ => PROMOTE[a.row()][b.row()],
    }
}

fn type_code(t: OperandType) -> usize {
    match t {
        OperandType::Strong(d) => d.row(),
        OperandType::Weak(Kind::Bool | Kind::Opaque) => DType::Bool.row(),
        OperandType::Weak(Kind::Int | Kind::UInt) => DType::ALL.len(),
        OperandType::Weak(Kind::Float) => DType::ALL.len() + 1,
        OperandType::Weak(Kind::Complex) => DType::ALL.len() + 2,
    }
}

fn describe(t: &OperandType) -> String {
    match t {
        OperandType::Strong(d) => d.name().to_string(),
        OperandType::Weak(Kind::Int | Kind::UInt) => "Python int".into(),
        OperandType::Weak(Kind::Float) => "Python float".into(),
        OperandType::Weak(Kind::Complex) => "Python complex".into(),
        OperandType::Weak(Kind::Bool | Kind::Opaque) => "bool".into(),
    }
}

/// The loop `u` runs for operands of types `ops` (`dtype=` forces the loop's type).
pub fn find_loop(u: &Ufunc, ops: &[OperandType], dtype: Option<DType>) -> Result<&'static Loop> {
    if ops.len() != u.nin {
        return Err(Error::Type(format!(
            "{}() takes {} input(s), {} given",
            u.name,
            u.nin,
            ops.len()
        )));
    }
    let all_bool = ops.iter().all(|o| {
        matches!(
            o,
            OperandType::Strong(DType::Bool) | OperandType::Weak(Kind::Bool)
        )
    });
    if all_bool {
        match u.name {
            "subtract" => return Err(Error::Type("numpy boolean subtract, the `-` operator, is not supported, use the bitwise_xor, the `^` operator, or the logical_xor function instead.".into())),
            "negative" => return Err(Error::Type("The numpy boolean negative, the `-` operator, is not supported, use the `~` operator or the logical_not function instead.".into())),
            _ => {}
        }
    }
    let no_loop = || {
        Error::Type(format!(
            "ufunc '{}' did not contain a loop with signature matching types ({}){}",
            u.name,
            ops.iter().map(describe).collect::<Vec<_>>().join(", "),
            dtype.map_or(String::new(), |d| format!(" and dtype={}", d.name()))
        ))
    };
    if let Some(want) = dtype {
        // dtype= names the computation's type: the loop whose inputs are that type.
        return u
            .loops
            .iter()
            .find(|(ins, _)| ins.iter().all(|&t| t == want))
            .or_else(|| u.loops.iter().find(|(_, outs)| outs.first() == Some(&want)))
            .ok_or_else(no_loop);
    }
    if ops
        .iter()
        .any(|o| matches!(o, OperandType::Strong(d) if d.is_opaque()))
    {
        return Err(no_loop());
    }
    let index = ops
        .iter()
        .fold(0usize, |acc, &o| acc * OPERAND_TYPES + type_code(o));
    match u.table.get(index) {
        Some(&c) if c != b'.' => u.loops.get((c - b'0') as usize).ok_or_else(no_loop),
        _ => Err(no_loop()),
    }
}

/// NumPy's `same_kind` casting (what `out=` accepts).
pub fn can_cast_same_kind(from: DType, to: DType) -> bool {
    if from.is_opaque() || to.is_opaque() {
        return from == to;
    }
    SAME_KIND_CAST[from.row()][to.row()]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolve(name: &str, ops: &[OperandType]) -> (Vec<DType>, Vec<DType>) {
        let u = ufunc(name).unwrap();
        let (i, o) = find_loop(u, ops, None).unwrap();
        (i.to_vec(), o.to_vec())
    }

    #[test]
    fn loops_follow_numpy() {
        use OperandType::*;
        assert_eq!(resolve("sqrt", &[Strong(DType::I8)]).1, vec![DType::F16]);
        assert_eq!(resolve("sqrt", &[Strong(DType::I32)]).1, vec![DType::F64]);
        assert_eq!(
            resolve("add", &[Strong(DType::I8), Strong(DType::U8)]).1,
            vec![DType::I16]
        );
        assert_eq!(
            resolve("true_divide", &[Strong(DType::I8), Strong(DType::I8)]).1,
            vec![DType::F64]
        );
        assert_eq!(
            resolve("less", &[Strong(DType::F32), Strong(DType::I64)]).0,
            vec![DType::F64, DType::F64]
        );
    }

    #[test]
    fn python_scalars_are_weak() {
        use OperandType::*;
        assert_eq!(
            resolve("add", &[Strong(DType::I8), Weak(Kind::Int)]).1,
            vec![DType::I8]
        );
        assert_eq!(
            resolve("multiply", &[Strong(DType::F32), Weak(Kind::Float)]).1,
            vec![DType::F32]
        );
        assert_eq!(
            resolve("add", &[Strong(DType::I16), Weak(Kind::Float)]).1,
            vec![DType::F64]
        );
        assert_eq!(
            resolve("add", &[Strong(DType::F16), Weak(Kind::Complex)]).1,
            vec![DType::C64]
        );
        assert_eq!(
            resolve("add", &[Strong(DType::Bool), Weak(Kind::Int)]).1,
            vec![DType::I64]
        );
    }

    #[test]
    fn boolean_subtract_is_refused_like_numpy() {
        let u = ufunc("subtract").unwrap();
        let b = OperandType::Strong(DType::Bool);
        let err = find_loop(u, &[b, b], None).unwrap_err().to_string();
        assert!(err.contains("boolean subtract"), "{err}");
        let u = ufunc("sign").unwrap();
        assert!(find_loop(u, &[b], None).is_err());
    }
}
