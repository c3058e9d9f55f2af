//! `datetime64` and `timedelta64` in kernels: Numba's unit rules (`npdatetime_helpers`) and
//! the C helpers its lowering becomes. Values are int64 counts of their unit; NaT is the
//! least int64; products wrap as LLVM's do (computed unsigned in C, where a signed overflow
//! is undefined).

use ember_codegen::types::value_type;
use ember_codegen::Dialect;
use ember_core::datetime::Unit;
use ember_core::DType;

use crate::ast::CmpOp;
use crate::ir::DateOp;

/// Whether a timedelta of unit `src` converts safely to unit `dest` (Numba's
/// `can_cast_timedelta_units`: to a finer unit of the same family; from the generic unit).
pub fn can_cast_timedelta(src: Unit, dest: Unit) -> bool {
    if src == dest || src == Unit::GENERIC {
        return true;
    }
    if src > dest || dest == Unit::GENERIC {
        return false;
    }
    !(src <= Unit::MONTHS && dest > Unit::MONTHS)
}

/// The unit of a datetime combined with a timedelta (`+`, `-`), or `None` where Numba
/// refuses it (a year or month timedelta with a finer datetime).
pub fn combine_units(datetime: Unit, timedelta: Unit) -> Option<Unit> {
    if datetime == Unit::GENERIC {
        return Some(timedelta);
    }
    if timedelta == Unit::GENERIC {
        return Some(datetime);
    }
    if timedelta < Unit::WEEKS && datetime >= Unit::WEEKS {
        return None;
    }
    Some(datetime.max(timedelta))
}

/// The finer of two units (Numba's `get_best_unit`; the generic unit yields to the other).
pub fn best_unit(a: Unit, b: Unit) -> Unit {
    if a == Unit::GENERIC {
        return b;
    }
    if b == Unit::GENERIC {
        return a;
    }
    a.max(b)
}

/// The C name of a datetime operation's helper.
pub fn op_name(op: DateOp) -> String {
    match op {
        DateOp::Combine { sub: false } => "ember_dt_add".into(),
        DateOp::Combine { sub: true } => "ember_dt_sub".into(),
        DateOp::Compare(c) => format!("ember_dt_{}", compare_name(c)),
        DateOp::Calendar { months, weeks } => format!(
            "ember_dt_{}_{}",
            if weeks { "weeks" } else { "days" },
            if months { "M" } else { "Y" }
        ),
        DateOp::Scale(d) => format!("ember_td_mul_{}", d.name()),
        DateOp::Divide(d) => format!("ember_td_div_{}", d.name()),
        DateOp::Ratio => "ember_td_ratio".into(),
        DateOp::Neg => "ember_td_neg".into(),
        DateOp::Abs => "ember_td_abs".into(),
    }
}

fn compare_name(c: CmpOp) -> &'static str {
    match c {
        CmpOp::Eq => "eq",
        CmpOp::NotEq => "ne",
        CmpOp::Lt => "lt",
        CmpOp::LtE => "le",
        CmpOp::Gt => "gt",
        _ => "ge",
    }
}

/// The C definition of a datetime operation's helper in `dialect`.
pub fn source(op: DateOp, dialect: Dialect) -> String {
    let table = dialect.table();
    let dev = table.device_fn;
    let t = value_type(DType::I64, dialect);
    let u = value_type(DType::U64, dialect);
    let nat = format!("(({t})(-9223372036854775807 - 1))");
    let name = op_name(op);
    // Scaled by a unit factor, wrapping.
    let scaled = |x: &str, f: &str| format!("(({u}){x} * ({u}){f})");
    let body = match op {
        DateOp::Combine { sub } => format!(
            "({t} a, {t} fa, {t} b, {t} fb) {{ return (a == {nat} || b == {nat}) ? {nat} : ({t})({} {} {}); }}",
            scaled("a", "fa"),
            if sub { "-" } else { "+" },
            scaled("b", "fb"),
        ),
        DateOp::Compare(c) => {
            let symbol = match c {
                CmpOp::Eq => "==",
                CmpOp::NotEq => "!=",
                CmpOp::Lt => "<",
                CmpOp::LtE => "<=",
                CmpOp::Gt => ">",
                _ => ">=",
            };
            format!(
                "({t} a, {t} fa, {t} b, {t} fb) {{ return (a == {nat} || b == {nat}) ? {} : (({t}){} {symbol} ({t}){}); }}",
                u8::from(c == CmpOp::NotEq),
                scaled("a", "fa"),
                scaled("b", "fb"),
            )
        }
        // NumPy's get_datetimestruct_days (through Numba's year_to_days): days from
        // 1970-01-01 to January 1st of year 1970 + y.
        DateOp::Calendar {
            months: false,
            weeks: false,
        } => format!(
            "({t} y) {{\n  if (y == {nat}) return {nat};\n  {t} days = y * 365;\n  if (y >= 0) {{\n    {t} a = y + 1, b = a + 68, c = b + 300;\n    return days + a / 4 - b / 100 + c / 400;\n  }}\n  {t} a = y - 2, b = a - 28;\n  return days + a / 4 - b / 100 + b / 400;\n}}"
        ),
        DateOp::Calendar {
            months: true,
            weeks: false,
        } => format!(
            "({t} m) {{\n  if (m == {nat}) return {nat};\n  {t} y = m / 12, k = m % 12;\n  if (k < 0) {{ k += 12; y -= 1; }}\n  {t} year = y + 1970;\n  int leap = (year & 3) == 0 && (year % 100 != 0 || year % 400 == 0);\n  {t} before = (k * 367 + 5) / 12 - (k >= 2 ? 2 - leap : 0);\n  return {}(y) + before;\n}}",
            op_name(DateOp::Calendar {
                months: false,
                weeks: false
            })
        ),
        DateOp::Calendar { months, weeks: true } => format!(
            "({t} x) {{\n  if (x == {nat}) return {nat};\n  {t} d = {}(x);\n  return d >= 0 ? d / 7 : -((6 - d) / 7);\n}}",
            op_name(DateOp::Calendar {
                months,
                weeks: false
            })
        ),
        DateOp::Scale(DType::I64) => format!(
            "({t} td, {t} n) {{ return td == {nat} ? {nat} : ({t})(({u})td * ({u})n); }}"
        ),
        DateOp::Scale(d) => {
            let f = value_type(d, dialect);
            format!(
                "({t} td, {f} n) {{\n  if (td == {nat}) return {nat};\n  {f} v = ({f})td * n;\n  return v != v ? {nat} : ({t})v;\n}}"
            )
        }
        DateOp::Divide(DType::I64) => format!(
            "({t} td, {t} n) {{ return (td == {nat} || n == 0) ? {nat} : td / n; }}"
        ),
        DateOp::Divide(d) => {
            let f = value_type(d, dialect);
            format!(
                "({t} td, {f} n) {{\n  if (td == {nat} || n == 0 || n != n) return {nat};\n  {f} v = ({f})td / n;\n  return v != v ? {nat} : ({t})v;\n}}"
            )
        }
        DateOp::Ratio => format!(
            "({t} a, {t} fa, {t} b, {t} fb) {{ return (a == {nat} || b == {nat}) ? (double){} : (double)({t}){} / (double)({t}){}; }}",
            table.nan,
            scaled("a", "fa"),
            scaled("b", "fb"),
        ),
        DateOp::Neg => format!("({t} x) {{ return x == {nat} ? {nat} : ({t})(0 - ({u})x); }}"),
        DateOp::Abs => format!("({t} x) {{ return (x < 0 && x != {nat}) ? -x : x; }}"),
    };
    let ret = match op {
        DateOp::Compare(_) => "int",
        DateOp::Ratio => "double",
        _ => t,
    };
    format!("{dev} {ret} {name}{body}\n")
}

/// The helpers `op`'s helper calls (defined before it).
pub fn needs(op: DateOp) -> Vec<DateOp> {
    match op {
        DateOp::Calendar {
            months: true,
            weeks: false,
        } => vec![DateOp::Calendar {
            months: false,
            weeks: false,
        }],
        DateOp::Calendar {
            months,
            weeks: true,
        } => {
            let mut v = needs(DateOp::Calendar {
                months,
                weeks: false,
            });
            v.push(DateOp::Calendar {
                months,
                weeks: false,
            });
            v
        }
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u(n: &str) -> Unit {
        Unit::named(n).unwrap()
    }

    #[test]
    fn units_combine_as_numba_combines_them() {
        assert!(can_cast_timedelta(u("D"), u("s")));
        assert!(!can_cast_timedelta(u("s"), u("D")));
        assert!(!can_cast_timedelta(u("M"), u("D")));
        assert!(can_cast_timedelta(u("Y"), u("M")));
        assert!(can_cast_timedelta(Unit::GENERIC, u("ns")));
        assert_eq!(combine_units(u("D"), u("h")), Some(u("h")));
        assert_eq!(combine_units(u("ms"), u("D")), Some(u("ms")));
        assert_eq!(combine_units(u("D"), u("M")), None);
        assert_eq!(combine_units(u("M"), u("Y")), Some(u("M")));
        assert_eq!(best_unit(u("W"), u("D")), u("D"));
        assert_eq!(best_unit(Unit::GENERIC, u("D")), u("D"));
    }

    #[test]
    fn helpers_have_their_names_and_nat_checks() {
        let s = source(DateOp::Combine { sub: true }, Dialect::Cuda);
        assert!(s.contains("ember_dt_sub(long long a"), "{s}");
        assert!(s.contains("-9223372036854775807 - 1"), "{s}");
        let s = source(
            DateOp::Calendar {
                months: true,
                weeks: true,
            },
            Dialect::OpenCl,
        );
        assert!(
            s.contains("ember_dt_weeks_M(long x)") && s.contains("ember_dt_days_M(x)"),
            "{s}"
        );
        assert_eq!(
            needs(DateOp::Calendar {
                months: true,
                weeks: true
            })
            .len(),
            2
        );
    }
}
