//! Stream compaction (`a[mask]`, `nonzero`): each work-group counts the true elements of its
//! chunk of the mask; after a scan of those counts, each work-group writes its selected elements
//! at its offset, its threads placed by a scan in shared memory. The mask is read twice and the
//! values once: no index array the size of the input is ever written.

use std::fmt::Write;

use ember_core::DType;

use crate::dialect::Dialect;
use crate::prelude::prelude_for;
use crate::types::storage_type;

/// Threads per work-group.
pub const BLOCK: usize = 256;
/// Consecutive mask elements per thread.
pub const ITEMS: usize = 16;

fn pointer_params(dialect: Dialect, params: &[(&str, String, bool)]) -> (Vec<String>, String) {
    let t = dialect.table();
    let mut out = Vec::new();
    let mut fix = String::new();
    for (name, ty, writable) in params {
        let c = if *writable { "" } else { "const " };
        out.push(format!("{}{c}{ty}* {name}", t.global));
        if let Some(line) = t.offset_pointer(name, ty, !*writable, &format!("{name}_o")) {
            out.push(format!("long {name}_o"));
            fix.push_str(&line);
        }
    }
    (out, fix)
}

fn head(dialect: Dialect) -> (&'static str, &'static str, &'static str) {
    let t = dialect.table();
    (t.int64, t.local_id, t.group_id[0])
}

/// The kernel counting each work-group's true elements: `counts[g]`.
pub fn count_source(dialect: Dialect) -> String {
    let t = dialect.table();
    let (i64t, tid, group) = head(dialect);
    let (mut params, fix) = pointer_params(
        dialect,
        &[
            ("mask", "unsigned char".into(), false),
            ("counts", i64t.into(), true),
        ],
    );
    params.push(format!("{i64t} n"));
    let mut s = prelude_for(dialect, []);
    let _ = writeln!(
        s,
        "{} ember_mask_count({}) {{",
        t.kernel_prefix,
        params.join(", ")
    );
    s.push_str(&fix);
    let _ = writeln!(s, "  {} {i64t} _s[{BLOCK}];", t.shared);
    let _ = writeln!(s, "  const int tid = {tid};");
    let _ = writeln!(
        s,
        "  const {i64t} base = {group} * {} + ({i64t})tid * {ITEMS};",
        BLOCK * ITEMS
    );
    let _ = writeln!(s, "  {i64t} c = 0;");
    let _ = writeln!(s, "  for (int k = 0; k < {ITEMS}; ++k) {{ {i64t} e = base + k; if (e < n && mask[e]) c += 1; }}");
    let _ = writeln!(s, "  _s[tid] = c;");
    let _ = writeln!(s, "  {};", t.barrier);
    let _ = writeln!(
        s,
        "  for (int w = {}; w > 0; w >>= 1) {{ if (tid < w) _s[tid] += _s[tid + w]; {}; }}",
        BLOCK / 2,
        t.barrier
    );
    let _ = writeln!(s, "  if (tid == 0) counts[{group}] = _s[0];");
    s.push_str("}\n");
    s
}

/// The kernel writing the selected elements (of `values`, or their flat indices when
/// `values` is `None`) to `out`; `inclusive` is the scan of the counts.
pub fn compact_source(dialect: Dialect, values: Option<DType>) -> String {
    let t = dialect.table();
    let (i64t, tid, group) = head(dialect);
    let out_type = match values {
        Some(d) => storage_type(d, dialect).to_string(),
        None => i64t.to_string(),
    };
    let mut list = vec![("mask", "unsigned char".to_string(), false)];
    if let Some(d) = values {
        list.push(("values", storage_type(d, dialect).to_string(), false));
    }
    list.push(("out", out_type, true));
    list.push(("counts", i64t.to_string(), false));
    list.push(("inclusive", i64t.to_string(), false));
    let (mut params, fix) = pointer_params(dialect, &list);
    params.push(format!("{i64t} n"));
    let name = match values {
        Some(d) => format!("ember_compact_{}", d.name()),
        None => "ember_compact_indices".to_string(),
    };
    let dtypes: Vec<DType> = values.into_iter().collect();
    let mut s = prelude_for(dialect, dtypes);
    let _ = writeln!(s, "{} {name}({}) {{", t.kernel_prefix, params.join(", "));
    s.push_str(&fix);
    let _ = writeln!(s, "  {} {i64t} _s[{BLOCK}];", t.shared);
    let _ = writeln!(s, "  const int tid = {tid};");
    let _ = writeln!(s, "  const {i64t} g = {group};");
    let _ = writeln!(
        s,
        "  const {i64t} base = g * {} + ({i64t})tid * {ITEMS};",
        BLOCK * ITEMS
    );
    let _ = writeln!(s, "  {i64t} c = 0;");
    let _ = writeln!(s, "  for (int k = 0; k < {ITEMS}; ++k) {{ {i64t} e = base + k; if (e < n && mask[e]) c += 1; }}");
    let _ = writeln!(s, "  _s[tid] = c;");
    let _ = writeln!(s, "  {};", t.barrier);
    // Inclusive scan of the threads' counts (Hillis-Steele).
    let _ = writeln!(s, "  for (int w = 1; w < {BLOCK}; w <<= 1) {{");
    let _ = writeln!(s, "    {i64t} v = tid >= w ? _s[tid - w] : 0;");
    let _ = writeln!(s, "    {};", t.barrier);
    let _ = writeln!(s, "    _s[tid] += v;");
    let _ = writeln!(s, "    {};", t.barrier);
    let _ = writeln!(s, "  }}");
    let _ = writeln!(s, "  {i64t} pos = inclusive[g] - counts[g] + _s[tid] - c;");
    let value = if values.is_some() { "values[e]" } else { "e" };
    let _ = writeln!(s, "  for (int k = 0; k < {ITEMS}; ++k) {{ {i64t} e = base + k; if (e < n && mask[e]) out[pos++] = {value}; }}");
    s.push_str("}\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_kernels_in_both_dialects() {
        let cl = compact_source(Dialect::OpenCl, Some(DType::F32));
        assert!(cl.contains("__kernel void ember_compact_float32(__global const unsigned char* mask, long mask_o"), "{cl}");
        assert!(cl.contains("out[pos++] = values[e];"), "{cl}");
        let cuda = count_source(Dialect::Cuda);
        assert!(cuda.contains("__shared__ long long _s[256];"), "{cuda}");
        assert!(compact_source(Dialect::Cuda, None).contains("out[pos++] = e;"));
    }
}
