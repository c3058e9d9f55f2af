//! Rows sorted a block a row on CUDA: the row's keys stay in registers and shared memory
//! through every 8-bit radix pass (ranked as the onesweep passes rank a tile: warp ballots,
//! per-warp digit counts, a scan of the 256 digits), so a row is read once and written once.
//! The flat position travels with each key; the sorted values are read back through it, so
//! they keep their bits (-0.0 beside 0.0, NaN payloads) and the sort is stable.

use std::fmt::Write;

use ember_core::dtype::Kind;
use ember_core::DType;

use super::{float_key_helpers, key_bits, key_digits, param, real_key, Digits};
use crate::dialect::Dialect;
use crate::prelude::prelude_for;
use crate::types::{load, storage_type, value_type};

/// The block shape for rows of `n` elements of `dtype`: (threads, keys a thread), or `None`
/// where such rows are not sorted here (longer than a block's shared memory holds, complex).
pub fn shape(dtype: DType, n: usize) -> Option<(usize, usize)> {
    let real = matches!(
        dtype.kind(),
        Kind::Bool | Kind::Int | Kind::UInt | Kind::Float
    );
    let limit = if key_digits(dtype).0 == Digits::Key64 {
        4096
    } else {
        8192
    };
    if !real || n == 0 || n > limit {
        return None;
    }
    // A thread a digit needs 256 threads; 512 for the longest rows keep 16 keys a thread.
    let threads = if n > 4096 { 512 } else { 256 };
    let items = n.div_ceil(threads).next_power_of_two();
    Some((threads, items))
}

/// Bytes of dynamic shared memory: the staged keys and their positions.
pub fn stage_bytes(dtype: DType, threads: usize, items: usize) -> usize {
    let key = if key_digits(dtype).0 == Digits::Key64 {
        8
    } else {
        4
    };
    threads * items * (key + 4)
}

pub fn name(dtype: DType, values: bool, threads: usize, items: usize) -> String {
    let what = if values { "values" } else { "index" };
    format!("ember_block_sort_{}_{what}_{threads}x{items}", dtype.name())
}

/// The kernel sorting row `blockIdx.x` of `x` (rows of `n`) into `out`: the values
/// (`values`), or each one's int64 position in its row.
pub fn source(
    dialect: Dialect,
    dtype: DType,
    values: bool,
    threads: usize,
    items: usize,
) -> String {
    let t = dialect.table();
    let warp = t
        .warp
        .as_ref()
        .expect("block row sorts are planned only where the dialect has warp operations");
    let (i64t, sh, bar) = (t.int64, t.shared, t.barrier);
    let w32 = t.atomics.words[0];
    let kt = t.atomics.words[usize::from(key_digits(dtype).0 == Digits::Key64)];
    let st = storage_type(dtype, dialect);
    let out_t = if values { st } else { i64t };
    let (mut params, mut fix) = (Vec::new(), String::new());
    param(dialect, "x", st, false, &mut params, &mut fix);
    param(dialect, "out", out_t, true, &mut params, &mut fix);
    params.push(format!("{i64t} n_in"));
    let mut s = prelude_for(dialect, [dtype]);
    s.push_str(&float_key_helpers(dialect));
    let bounds = warp
        .launch_bounds
        .replace("{threads}", &threads.to_string())
        .replace("{blocks}", "1");
    let _ = writeln!(
        s,
        "{} {bounds} {}({}) {{",
        t.kernel_prefix,
        name(dtype, values, threads, items),
        params.join(", ")
    );
    s.push_str(&fix);
    let warps = threads / 32;
    let tile = threads * items;
    let _ = writeln!(
        s,
        "  extern {sh} __align__(16) unsigned char ember_stage[];\n  {kt}* skey = ({kt}*)ember_stage;\n  {w32}* sidx = ({w32}*)(skey + {tile});"
    );
    let _ = writeln!(s, "  {sh} int wh[{warps}][256];\n  {sh} int wsum[{warps}];");
    let _ = writeln!(
        s,
        "  const int tid = {}, lane = tid & 31, warp = tid >> 5, n = (int)n_in;",
        t.local_id
    );
    let _ = writeln!(
        s,
        "  const {i64t} row = ({i64t}){} * n;\n  const int wbase = warp * {};",
        t.group_id[0],
        32 * items
    );
    // A warp's 32 * items consecutive keys, lane-striped; past the row's end the largest key.
    let _ = writeln!(s, "  {kt} k[{items}]; {w32} ix[{items}]; int pos[{items}];");
    let _ = writeln!(
        s,
        "  #pragma unroll\n  for (int i = 0; i < {items}; ++i) {{\n    const int p = wbase + i * 32 + lane;\n    ix[i] = p;"
    );
    let _ = writeln!(
        s,
        "    if (p < n) {{ const {} v = {}; k[i] = {}; }} else k[i] = ~({kt})0;\n  }}",
        value_type(dtype, dialect),
        load(dtype, dialect, "x + row + p"),
        real_key("v", dtype, dialect)
    );
    let up = warp.up.replace("{value}", "sc").replace("{lane}", "o");
    let _ = writeln!(
        s,
        "  for (int shift = 0; shift < {}; shift += 8) {{",
        key_bits(dtype)
    );
    let _ = writeln!(
        s,
        "    for (int e = tid; e < {}; e += {threads}) (&wh[0][0])[e] = 0;\n    {bar};",
        warps * 256
    );
    // Ranks among the warp's earlier keys of the digit (stable), as the onesweep passes.
    super::onesweep::warp_ranks(&mut s, dialect, items, "(int)((k[i] >> shift) & 255)");
    let _ = writeln!(s, "    {bar};");
    // A thread a digit: the warps' offsets within the digit, then the digit's start.
    let _ = writeln!(s, "    int cnt = 0;");
    let _ = writeln!(
        s,
        "    if (tid < 256) for (int w = 0; w < {warps}; ++w) {{ const int c = wh[w][tid]; wh[w][tid] = cnt; cnt += c; }}"
    );
    let _ = writeln!(
        s,
        "    int sc = cnt;\n    if (tid < 256) {{ for (int o = 1; o < 32; o <<= 1) {{ const int u = {up}; if (lane >= o) sc += u; }} if (lane == 31) wsum[warp] = sc; }}\n    {bar};"
    );
    let _ = writeln!(
        s,
        "    if (tid < 256) {{ for (int w = 0; w < warp; ++w) sc += wsum[w]; for (int w = 0; w < {warps}; ++w) wh[w][tid] += sc - cnt; }}\n    {bar};"
    );
    let _ = writeln!(
        s,
        "    #pragma unroll\n    for (int i = 0; i < {items}; ++i) {{ const int p = pos[i] + wh[warp][(int)((k[i] >> shift) & 255)]; skey[p] = k[i]; sidx[p] = ix[i]; }}\n    {bar};"
    );
    let _ = writeln!(
        s,
        "    #pragma unroll\n    for (int i = 0; i < {items}; ++i) {{ const int p = wbase + i * 32 + lane; k[i] = skey[p]; ix[i] = sidx[p]; }}\n  }}"
    );
    let write = if values {
        "out[row + p] = x[row + ix[i]];"
    } else {
        "out[row + p] = (long long)ix[i];"
    };
    let _ = writeln!(
        s,
        "  #pragma unroll\n  for (int i = 0; i < {items}; ++i) {{ const int p = wbase + i * 32 + lane; if (p < n) {write} }}\n}}"
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_rank_every_pass_in_shared_memory() {
        assert_eq!(shape(DType::F32, 1024), Some((256, 4)));
        assert_eq!(shape(DType::F32, 8192), Some((512, 16)));
        assert_eq!(shape(DType::F64, 8192), None);
        assert_eq!(shape(DType::C64, 64), None);
        let s = source(Dialect::Cuda, DType::F32, true, 256, 4);
        assert!(
            s.contains("for (int shift = 0; shift < 32; shift += 8)"),
            "{s}"
        );
        assert!(s.contains("out[row + p] = x[row + ix[i]];"), "{s}");
        let s = source(Dialect::Cuda, DType::I8, false, 256, 1);
        assert!(
            s.contains("shift < 8;") && s.contains("(long long)ix[i]"),
            "{s}"
        );
    }
}
