//! Rows sorted a work-item a row on a CPU device: each work-item (a task on a core) runs an
//! LSD radix sort of its row, 8 bits a pass, in order (no barriers), its keys and their
//! positions alternating between two scratch buffers; passes where the row has one digit
//! are skipped. The sorted values are read back through the positions (bits kept, stable).

use std::fmt::Write;

use ember_core::DType;

use super::{float_key_helpers, key_bits, key_digits, param, real_key, Digits};
use crate::dialect::Dialect;
use crate::prelude::prelude_for;
use crate::types::{load, storage_type, value_type};

/// The key word type of `dtype`: 4- or 8-byte.
pub fn key_dtype(dtype: DType) -> DType {
    if key_digits(dtype).0 == Digits::Key64 {
        DType::U64
    } else {
        DType::U32
    }
}

pub fn name(dtype: DType, values: bool) -> String {
    let what = if values { "values" } else { "index" };
    format!("ember_cpu_row_sort_{}_{what}", dtype.name())
}

/// The kernel sorting row `get_global_id(0)` of `x` (rows of `n`) into `out` (the values,
/// or each one's int64 position in its row), with scratch keys `ka`, `kb` and positions
/// `ia`, `ib` (each as long as `x`).
pub fn source(dialect: Dialect, dtype: DType, values: bool) -> String {
    let t = dialect.table();
    let i64t = t.int64;
    let w32 = t.atomics.words[0];
    let kt = t.atomics.words[usize::from(key_digits(dtype).0 == Digits::Key64)];
    let st = storage_type(dtype, dialect);
    let (mut params, mut fix) = (Vec::new(), String::new());
    param(dialect, "x", st, false, &mut params, &mut fix);
    param(
        dialect,
        "out",
        if values { st } else { i64t },
        true,
        &mut params,
        &mut fix,
    );
    for k in ["ka", "kb"] {
        param(dialect, k, kt, true, &mut params, &mut fix);
    }
    for i in ["ia", "ib"] {
        param(dialect, i, w32, true, &mut params, &mut fix);
    }
    params.push(format!("{i64t} n"));
    let mut s = prelude_for(dialect, [dtype]);
    s.push_str(&float_key_helpers(dialect));
    let _ = writeln!(
        s,
        "{} {}({}) {{",
        t.kernel_prefix,
        name(dtype, values),
        params.join(", ")
    );
    s.push_str(&fix);
    let g = t.global;
    let _ = writeln!(s, "  const {i64t} row = {} * n;", t.global_id);
    let _ = writeln!(
        s,
        "  {g}{kt}* k0 = ka + row; {g}{kt}* k1 = kb + row; {g}{w32}* i0 = ia + row; {g}{w32}* i1 = ib + row;"
    );
    let _ = writeln!(
        s,
        "  for ({i64t} j = 0; j < n; ++j) {{ const {} v = {}; k0[j] = {}; i0[j] = ({w32})j; }}",
        value_type(dtype, dialect),
        load(dtype, dialect, "x + row + j"),
        real_key("v", dtype, dialect)
    );
    let _ = writeln!(s, "  {w32} h[256];");
    let _ = writeln!(
        s,
        "  for (int shift = 0; shift < {}; shift += 8) {{",
        key_bits(dtype)
    );
    let _ = writeln!(s, "    for (int d = 0; d < 256; ++d) h[d] = 0;");
    let _ = writeln!(
        s,
        "    for ({i64t} j = 0; j < n; ++j) h[(k0[j] >> shift) & 255] += 1;"
    );
    // A digit held by the whole row: the pass keeps the order.
    let _ = writeln!(
        s,
        "    {w32} at = 0; int one = 0;\n    for (int d = 0; d < 256; ++d) {{ const {w32} c = h[d]; one |= c == ({w32})n; h[d] = at; at += c; }}\n    if (one) continue;"
    );
    let _ = writeln!(
        s,
        "    for ({i64t} j = 0; j < n; ++j) {{ const {kt} k = k0[j]; const {w32} to = h[(k >> shift) & 255]++; k1[to] = k; i1[to] = i0[j]; }}"
    );
    let _ = writeln!(
        s,
        "    {{ {g}{kt}* tk = k0; k0 = k1; k1 = tk; {g}{w32}* ti = i0; i0 = i1; i1 = ti; }}\n  }}"
    );
    let write = if values {
        "out[row + j] = x[row + i0[j]];".to_string()
    } else {
        format!("out[row + j] = ({i64t})i0[j];")
    };
    let _ = writeln!(s, "  for ({i64t} j = 0; j < n; ++j) {write}\n}}");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_work_item_sorts_its_row_and_skips_passes_of_one_digit() {
        let s = source(Dialect::OpenCl, DType::F32, true);
        assert!(s.contains("if (one) continue;"), "{s}");
        assert!(s.contains("out[row + j] = x[row + i0[j]];"), "{s}");
        let s = source(Dialect::OpenCl, DType::I64, false);
        assert!(
            s.contains("shift < 64;") && s.contains("(long)i0[j]"),
            "{s}"
        );
    }
}
