//! Checked mode on the device (`EMBER_CHECKED=1`, `@jit(boundscheck=True)`): kernels compiled
//! with index checks record the first out-of-bounds access in a small *fault record* and go
//! on without touching memory outside their arrays; the launch layer reads the record after
//! the launch and raises. Kernels compiled without checks are unchanged (zero cost).
//!
//! The record is one buffer of [`RECORD_BYTES`] per device, passed as the kernel's last
//! parameter `ember_fault_rec` (32-bit words):
//!
//! | words  | what                                                                  |
//! |--------|-----------------------------------------------------------------------|
//! | 0      | 0 while clear; the failing site's number + 1, set once by compare-and-swap |
//! | 2..4   | the index (int64)                                                      |
//! | 4..6   | the extent it was checked against (int64)                              |
//! | 6..12  | the block (work-group) and thread (work-item) ids, x y z each          |
//! | 16..32 | scratch: where a redirected access reads or writes instead             |
//!
//! A *site* is one checked index of one access in the source (the caller numbers them and
//! keeps what each means: the array, the axis, the line).

use crate::dialect::Dialect;
use crate::prelude::guarded;

/// Bytes of the fault record.
pub const RECORD_BYTES: usize = 128;
/// The word of the record where the scratch area starts.
pub const SCRATCH_WORD: usize = 16;
/// The name of the record's parameter in checked kernels.
pub const RECORD: &str = "ember_fault_rec";

/// The device functions checked code calls, for `dialect`:
/// - `ember_fault(rec, site, index, extent)` records a fault (the first one only);
/// - `ember_chk(i, n, site, rec)`: `i` when `0 <= i < n`, else records and gives 0 (for
///   fixed-size shared and local arrays, where element 0 always exists);
/// - `ember_chkw(...)`: the same after Python's wrap of a negative index;
/// - `ember_chkg(i, n, site, rec, &bad)`/`ember_chkgw`: as `ember_chk`, also setting `bad`,
///   after which `ember_pick(p, &bad, rec)` gives the scratch area instead of `p` (global
///   memory: an array there may be empty).
pub fn prelude(dialect: Dialect) -> String {
    let t = dialect.table();
    let (g, i64t, dev) = (t.global, t.int64, t.device_fn);
    let (u32t, u64t) = (t.atomics.words[0], t.atomics.words[1]);
    let cas = t.atomics.cas[0]
        .replace("{q}", g.trim_end())
        .replace("{p}", "rec")
        .replace("{old}", "0u")
        .replace("{new}", "site + 1u");
    let ids: Vec<String> = (0..3)
        .flat_map(|k| [t.axis(t.block_idx, k), t.axis(t.thread_idx, k)])
        .collect();
    let text = format!(
        "{dev} void ember_fault({g}{u32t}* rec, {u32t} site, {i64t} index, {i64t} extent) {{
  if ({cas} == 0u) {{
    (({g}{i64t}*)rec)[1] = index;
    (({g}{i64t}*)rec)[2] = extent;
    rec[6] = {b0}; rec[7] = {b1}; rec[8] = {b2};
    rec[9] = {t0}; rec[10] = {t1}; rec[11] = {t2};
  }}
}}
{dev} {i64t} ember_chk({i64t} i, {i64t} n, {u32t} site, {g}{u32t}* rec) {{
  if (({u64t})i < ({u64t})n) return i;
  ember_fault(rec, site, i, n);
  return 0;
}}
{dev} {i64t} ember_chkw({i64t} i, {i64t} n, {u32t} site, {g}{u32t}* rec) {{
  const {i64t} w = i < 0 ? i + n : i;
  if (({u64t})w < ({u64t})n) return w;
  ember_fault(rec, site, i, n);
  return 0;
}}
{dev} {i64t} ember_chkg({i64t} i, {i64t} n, {u32t} site, {g}{u32t}* rec, int* bad) {{
  if (({u64t})i < ({u64t})n) return i;
  ember_fault(rec, site, i, n);
  *bad = 1;
  return 0;
}}
{dev} {i64t} ember_chkgw({i64t} i, {i64t} n, {u32t} site, {g}{u32t}* rec, int* bad) {{
  const {i64t} w = i < 0 ? i + n : i;
  if (({u64t})w < ({u64t})n) return w;
  ember_fault(rec, site, i, n);
  *bad = 1;
  return 0;
}}
{dev} {g}char* ember_pick({g}char* p, int* bad, {g}{u32t}* rec) {{
  if (*bad) {{ *bad = 0; return ({g}char*)(rec + {SCRATCH_WORD}); }}
  return p;
}}
",
        b0 = ids[0],
        t0 = ids[1],
        b1 = ids[2],
        t1 = ids[3],
        b2 = ids[4],
        t2 = ids[5],
    );
    guarded("EMBER_PRELUDE_CHECKED", &text)
}

/// The record's parameter as a device function declares it.
pub fn record_param(dialect: Dialect) -> String {
    let t = dialect.table();
    format!("{}{}* {RECORD}", t.global, t.atomics.words[0])
}

/// The record's parameters as a kernel declares them: the pointer, and on OpenCL the
/// buffer's offset every buffer argument comes with (always 0 here).
pub fn record_kernel_params(dialect: Dialect) -> Vec<String> {
    let t = dialect.table();
    let mut params = vec![record_param(dialect)];
    if t.buffer_offsets {
        params.push(format!("{} {RECORD}_o", t.int64));
    }
    params
}

/// `code` with every `name[expr]` of an array in `arrays` (name, C element type with its
/// qualifiers, the variable holding its element count, site) rewritten to a checked access:
/// `(*ember_at_<name>(name, expr, count, site, rec))` — see [`accessor`]. Brackets nest;
/// a name that is part of a longer identifier or a member (`s.x[0]`) is left alone.
pub fn rewrite_indexing(code: &str, arrays: &[(&str, &str, u32)]) -> String {
    let bytes = code.as_bytes();
    let mut out = String::with_capacity(code.len() + 32);
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if is_ident_start(c) && (i == 0 || !is_ident(bytes[i - 1]) && bytes[i - 1] != b'.') {
            let start = i;
            while i < bytes.len() && is_ident(bytes[i]) {
                i += 1;
            }
            let word = &code[start..i];
            let mut j = i;
            while j < bytes.len() && bytes[j].is_ascii_whitespace() {
                j += 1;
            }
            let arrow = start >= 2 && &code[start - 2..start] == "->";
            match arrays.iter().find(|(n, ..)| *n == word) {
                Some(&(name, count, site)) if !arrow && j < bytes.len() && bytes[j] == b'[' => {
                    if let Some(close) = matching(bytes, j) {
                        let inner = rewrite_indexing(&code[j + 1..close], arrays);
                        out.push_str(&format!(
                            "(*ember_at_{name}({name}, ({inner}), {count}, {site}u, {RECORD}))"
                        ));
                        i = close + 1;
                        continue;
                    }
                    out.push_str(word);
                }
                _ => out.push_str(word),
            }
            continue;
        }
        out.push(c as char);
        i += 1;
    }
    out
}

/// The checked accessor of array `name` whose elements have C type `elem` (qualifiers
/// included, as `const float`): a pointer to element `i`, or to the scratch area after
/// recording a fault.
pub fn accessor(dialect: Dialect, name: &str, elem: &str) -> String {
    let t = dialect.table();
    let (g, i64t, dev) = (t.global, t.int64, t.device_fn);
    let u32t = t.atomics.words[0];
    format!(
        "{dev} {g}{elem}* ember_at_{name}({g}{elem}* p, {i64t} i, {i64t} n, {u32t} site, {g}{u32t}* rec) {{
  if (({u64t})i < ({u64t})n) return p + i;
  ember_fault(rec, site, i, n);
  return ({g}{elem}*)(rec + {SCRATCH_WORD});
}}
",
        u64t = t.atomics.words[1]
    )
}

fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_'
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// The index of the `]` closing the `[` at `open`.
fn matching(bytes: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (k, &c) in bytes.iter().enumerate().skip(open) {
        match c {
            b'[' | b'(' => depth += 1,
            b']' | b')' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return (c == b']').then_some(k);
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rewrites_each_access_of_the_named_arrays() {
        let arrays = [("x", "_x_size", 0), ("y", "_y_size", 1)];
        assert_eq!(
            rewrite_indexing("y[i] = x[idx[i]] + x [ (i+1) % 3 ];", &arrays),
            "(*ember_at_y(y, (i), _y_size, 1u, ember_fault_rec)) = \
             (*ember_at_x(x, (idx[i]), _x_size, 0u, ember_fault_rec)) + \
             (*ember_at_x(x, ( (i+1) % 3 ), _x_size, 0u, ember_fault_rec));"
        );
    }

    #[test]
    fn nested_accesses_are_rewritten_inside_out() {
        let arrays = [("x", "nx", 4)];
        assert_eq!(
            rewrite_indexing("x[x[0]]", &arrays),
            "(*ember_at_x(x, ((*ember_at_x(x, (0), nx, 4u, ember_fault_rec))), nx, 4u, ember_fault_rec))"
        );
    }

    #[test]
    fn other_names_members_and_unbalanced_brackets_are_left_alone() {
        let arrays = [("x", "nx", 0)];
        for code in ["xx[1]", "s.x[1]", "p->x[1]", "x_[2]", "x + 1", "x[(1]"] {
            assert_eq!(rewrite_indexing(code, &arrays), code);
        }
    }

    #[test]
    fn the_prelude_is_written_in_each_dialect() {
        let cuda = prelude(Dialect::Cuda);
        assert!(cuda.contains("atomicCAS(rec, 0u, site + 1u)"));
        assert!(cuda.contains("blockIdx.x") && cuda.contains("threadIdx.z"));
        let cl = prelude(Dialect::OpenCl);
        assert!(cl.contains("atomic_cmpxchg((volatile __global uint*)rec, 0u, site + 1u)"));
        assert!(cl.contains("get_group_id(2)"));
    }
}
