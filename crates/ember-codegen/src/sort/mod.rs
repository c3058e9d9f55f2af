//! Stable sorting of rows by least-significant-digit radix sort, 8 bits a pass.
//!
//! Each element gets an unsigned key whose order is NumPy's order of the values ([`keys_source`]:
//! signed integers with the sign bit flipped, floats by their bits with the negative ones
//! inverted, every NaN as the one largest value and -0.0 as 0.0; a complex number is two keys,
//! the imaginary part sorted first). Its flat index travels with it. One pass sorts by one
//! digit: [`count_source`] counts each tile's digits (a histogram per work-group), a scan of the
//! histograms (digit-major) gives every (digit, tile) its place, and [`scatter_source`] moves
//! the elements there, each one's rank among equal digits of its tile worked out in local
//! memory (so equal keys keep their order: the sort is stable). Rows are sorted together by
//! passes over the row number (the flat index divided by the row length) after the key passes.

pub mod block_rows;
pub mod cpu_rows;
pub mod onesweep;

use std::fmt::Write;

use ember_core::dtype::Kind;
use ember_core::DType;

use crate::dialect::Dialect;
use crate::prelude::prelude_for;
use crate::types::{load, storage_type};

/// Threads per work-group.
pub const BLOCK: usize = 256;
/// Rounds of `BLOCK` consecutive elements per work-group: a tile is `BLOCK * ROUNDS`.
pub const ROUNDS: usize = 8;
/// Values of one digit.
pub const RADIX: usize = 256;
/// Elements of a tile on a CPU device, where one work-item counts and moves a tile in order
/// (a work-group is a task on a core: no barriers, no ranking).
pub const CPU_TILE: usize = 1 << 16;

/// What a pass reads its digit from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Digits {
    /// 4-byte keys.
    Key32,
    /// 8-byte keys.
    Key64,
    /// The row number of the flat index (`idx / n`).
    Row,
    /// A 4-byte word per element looked up by its flat index (`lookup[idx]`): the class of a
    /// complex value (which of its parts are NaN), sorted on last.
    Lookup,
}

impl Digits {
    fn name(self) -> &'static str {
        match self {
            Digits::Key32 => "k32",
            Digits::Key64 => "k64",
            Digits::Row => "row",
            Digits::Lookup => "lookup",
        }
    }

    fn key_type(self, dialect: Dialect) -> &'static str {
        let words = dialect.table().atomics.words;
        match self {
            Digits::Key32 => words[0],
            Digits::Key64 => words[1],
            Digits::Row | Digits::Lookup => dialect.table().int64,
        }
    }
}

/// The key of `dtype` values: 4 or 8 bytes, one or two of them (complex: imaginary, then real).
/// What travels with the keys through the passes: the flat index (the permutation is the
/// answer: `argsort`, rows, complex values), or the value's own bits (`sort` of one row of
/// a 4- or 8-byte real dtype: the sorted bits are the answer, with no gather after).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Payload {
    Index,
    Bits32,
    Bits64,
}

impl Payload {
    fn c_type(self, dialect: Dialect) -> &'static str {
        let t = dialect.table();
        match self {
            Payload::Index => t.int64,
            Payload::Bits32 => t.atomics.words[0],
            Payload::Bits64 => t.atomics.words[1],
        }
    }

    fn suffix(self) -> &'static str {
        match self {
            Payload::Index => "",
            Payload::Bits32 => "_b32",
            Payload::Bits64 => "_b64",
        }
    }
}

pub fn key_digits(dtype: DType) -> (Digits, usize) {
    let wide = match dtype.kind() {
        Kind::Complex => dtype.itemsize() == 16,
        _ => dtype.itemsize() == 8,
    };
    let digits = if wide { Digits::Key64 } else { Digits::Key32 };
    (digits, if dtype.kind() == Kind::Complex { 2 } else { 1 })
}

/// Bits of a key that can differ (passes of 8 bits are needed over them).
pub fn key_bits(dtype: DType) -> usize {
    match dtype.kind() {
        Kind::Bool => 8,
        Kind::Int | Kind::UInt => 8 * dtype.itemsize(),
        Kind::Float if dtype.itemsize() == 8 => 64,
        Kind::Complex if dtype.itemsize() == 16 => 64,
        // float16/bfloat16 are keyed by their float32 value.
        _ => 32,
    }
}

fn param(
    dialect: Dialect,
    name: &str,
    ty: &str,
    writable: bool,
    params: &mut Vec<String>,
    fix: &mut String,
) {
    let t = dialect.table();
    let c = if writable { "" } else { "const " };
    params.push(format!("{}{c}{ty}* {name}", t.global));
    if let Some(line) = t.offset_pointer(name, ty, !writable, &format!("{name}_o")) {
        params.push(format!("long {name}_o"));
        fix.push_str(&line);
    }
}

/// The order-preserving unsigned key of a real value `v` of `dtype` (a value expression).
fn real_key(v: &str, dtype: DType, dialect: Dialect) -> String {
    let t = dialect.table();
    let [w32, w64] = t.atomics.words;
    let [(f32_bits, _), (f64_bits, _)] = t.atomics.float_bits;
    match dtype.kind() {
        Kind::Bool | Kind::UInt => format!("(({})({v}))", if dtype.itemsize() == 8 { w64 } else { w32 }),
        Kind::Int if dtype.itemsize() == 8 => format!("((({w64})({v})) ^ (({w64})1 << 63))"),
        // The sign bit of the value's own width flipped (only its bits are sorted on).
        Kind::Int => {
            let bits = 8 * dtype.itemsize();
            let mask = if bits == 32 { 0xFFFF_FFFFu64 } else { (1u64 << bits) - 1 };
            format!("(((({w32})(int)({v})) & 0x{mask:x}u) ^ 0x{:x}u)", 1u64 << (bits - 1))
        }
        _ if dtype.itemsize() == 8 => format!(
            "ember_fkey64({f64_bits}((isnan({v}) ? ({}) : (({v}) == 0 ? 0.0 : (double)({v})))))",
            t.nan
        ),
        _ => format!(
            "ember_fkey32({f32_bits}((isnan({v}) ? (float)({}) : (({v}) == 0 ? 0.0f : (float)({v})))))",
            t.nan
        ),
    }
}

fn float_key_helpers(dialect: Dialect) -> String {
    let t = dialect.table();
    let [w32, w64] = t.atomics.words;
    let dev = t.device_fn;
    format!(
        "{dev} {w32} ember_fkey32({w32} b) {{ return (b & 0x80000000u) ? ~b : (b | 0x80000000u); }}\n\
         {dev} {w64} ember_fkey64({w64} b) {{ return (b >> 63) ? ~b : (b | (({w64})1 << 63)); }}\n"
    )
}

/// The kernel writing each element's key(s) and flat index: `key0[i]` (the imaginary part's
/// for complex), `key1[i]` (the real part's), `idx[i] = i`.
pub fn keys_source(dialect: Dialect, dtype: DType, index: bool) -> String {
    let t = dialect.table();
    let i64t = t.int64;
    let (digits, count) = key_digits(dtype);
    let kt = digits.key_type(dialect);
    let (mut params, mut fix) = (Vec::new(), String::new());
    param(
        dialect,
        "x",
        storage_type(dtype, dialect),
        false,
        &mut params,
        &mut fix,
    );
    param(dialect, "key0", kt, true, &mut params, &mut fix);
    if count == 2 {
        param(dialect, "key1", kt, true, &mut params, &mut fix);
        param(
            dialect,
            "cls",
            t.atomics.words[0],
            true,
            &mut params,
            &mut fix,
        );
    }
    if index {
        param(dialect, "idx", i64t, true, &mut params, &mut fix);
    }
    params.push(format!("{i64t} total"));
    let name = keys_name(dtype, index);
    let mut s = prelude_for(dialect, [dtype]);
    s.push_str(&float_key_helpers(dialect));
    let _ = writeln!(s, "{} {name}({}) {{", t.kernel_prefix, params.join(", "));
    s.push_str(&fix);
    let _ = writeln!(s, "  const {i64t} i = {};", t.global_id);
    let _ = writeln!(s, "  if (i >= total) return;");
    let value = load(dtype, dialect, "x + i");
    if count == 2 {
        let part = if dtype == DType::C128 {
            DType::F64
        } else {
            DType::F32
        };
        let _ = writeln!(
            s,
            "  const {} v = {value};",
            crate::types::value_type(dtype, dialect)
        );
        let _ = writeln!(s, "  key0[i] = {};", real_key("v.y", part, dialect));
        let _ = writeln!(s, "  key1[i] = {};", real_key("v.x", part, dialect));
        // NumPy's complex order: no NaN, then NaN imaginary part, NaN real part, both NaN.
        let _ = writeln!(
            s,
            "  cls[i] = (isnan(v.x) ? 2u : 0u) + (isnan(v.y) ? 1u : 0u);"
        );
    } else {
        let _ = writeln!(
            s,
            "  const {} v = {value};",
            crate::types::value_type(dtype, dialect)
        );
        let _ = writeln!(s, "  key0[i] = {};", real_key("v", dtype, dialect));
    }
    if index {
        let _ = writeln!(s, "  idx[i] = i;");
    }
    s.push_str("}\n");
    s
}

/// A pass kernel's opening: the prelude, the signature (`params`, then the sizes every pass
/// takes: element count, digit shift, row length) and the pointer fix-ups.
fn open_pass(dialect: Dialect, name: &str, mut params: Vec<String>, fix: &str) -> String {
    let t = dialect.table();
    let i64t = t.int64;
    params.extend([
        format!("{i64t} total"),
        format!("{i64t} shift"),
        format!("{i64t} n"),
    ]);
    let mut s = prelude_for(dialect, []);
    let _ = writeln!(s, "{} {name}({}) {{", t.kernel_prefix, params.join(", "));
    s.push_str(fix);
    s
}

/// The digit of element `i` in a pass over `digits` (`shift` bits up).
fn digit(digits: Digits) -> &'static str {
    match digits {
        Digits::Row => "(int)(((idx_in[i] / n) >> shift) & 255)",
        Digits::Lookup => "(int)((lookup[idx_in[i]] >> shift) & 255)",
        _ => "(int)((key_in[i] >> shift) & 255)",
    }
}

/// Whether a pass's digits come from the flat index (no keys move).
fn from_index(digits: Digits) -> bool {
    matches!(digits, Digits::Row | Digits::Lookup)
}

fn local_increment(dialect: Dialect, target: &str) -> String {
    match dialect {
        Dialect::Cuda => format!("atomicAdd(&{target}, 1)"),
        Dialect::OpenCl => format!("atomic_inc(&{target})"),
    }
}

/// The kernel counting each tile's digits: `counts[d * tiles + g]`.
pub fn count_source(dialect: Dialect, digits: Digits, cpu: bool) -> String {
    let t = dialect.table();
    let i64t = t.int64;
    let (mut params, mut fix) = (Vec::new(), String::new());
    if from_index(digits) {
        param(dialect, "idx_in", i64t, false, &mut params, &mut fix);
        if digits == Digits::Lookup {
            param(
                dialect,
                "lookup",
                t.atomics.words[0],
                false,
                &mut params,
                &mut fix,
            );
        }
    } else {
        param(
            dialect,
            "key_in",
            digits.key_type(dialect),
            false,
            &mut params,
            &mut fix,
        );
    }
    param(dialect, "counts", i64t, true, &mut params, &mut fix);
    let mut s = open_pass(dialect, &count_name(digits, cpu), params, &fix);
    let (tid, group, tiles) = (t.local_id, t.group_id[0], t.num_groups[0]);
    if cpu {
        let _ = writeln!(
            s,
            "  {i64t} h[{RADIX}];\n  for (int d = 0; d < {RADIX}; ++d) h[d] = 0;"
        );
        let _ = writeln!(
            s,
            "  const {i64t} start = ({i64t}){group} * {CPU_TILE}, end = start + {CPU_TILE} < total ? start + {CPU_TILE} : total;"
        );
        let _ = writeln!(
            s,
            "  for ({i64t} i = start; i < end; ++i) h[{}] += 1;",
            digit(digits)
        );
        let _ = writeln!(
            s,
            "  for (int d = 0; d < {RADIX}; ++d) counts[({i64t})d * {tiles} + {group}] = h[d];\n}}"
        );
        return s;
    }
    let _ = writeln!(s, "  {} int hist[{RADIX}];", t.shared);
    let _ = writeln!(s, "  const int tid = {tid};");
    let _ = writeln!(
        s,
        "  for (int d = tid; d < {RADIX}; d += {BLOCK}) hist[d] = 0;"
    );
    let _ = writeln!(s, "  {};", t.barrier);
    let _ = writeln!(
        s,
        "  const {i64t} tile = ({i64t}){group} * {};",
        BLOCK * ROUNDS
    );
    let _ = writeln!(s, "  for (int r = 0; r < {ROUNDS}; ++r) {{");
    let _ = writeln!(s, "    const {i64t} i = tile + r * {BLOCK} + tid;");
    let _ = writeln!(
        s,
        "    if (i < total) {};",
        local_increment(dialect, &format!("hist[{}]", digit(digits)))
    );
    let _ = writeln!(s, "  }}");
    let _ = writeln!(s, "  {};", t.barrier);
    let _ = writeln!(s, "  for (int d = tid; d < {RADIX}; d += {BLOCK}) counts[({i64t})d * {tiles} + {group}] = hist[d];");
    s.push_str("}\n");
    s
}

/// The kernel moving each tile's elements to their places for this pass's digit: keys (and a
/// second key carried along for complex values) and flat indices.
pub fn scatter_source(
    dialect: Dialect,
    digits: Digits,
    carry: Option<Digits>,
    payload: Payload,
    cpu: bool,
) -> String {
    assert!(
        payload == Payload::Index || !from_index(digits),
        "digits read from the index need the index as the payload"
    );
    let t = dialect.table();
    let i64t = t.int64;
    let (mut params, mut fix) = (Vec::new(), String::new());
    let keyed = !from_index(digits);
    if keyed {
        param(
            dialect,
            "key_in",
            digits.key_type(dialect),
            false,
            &mut params,
            &mut fix,
        );
    }
    param(
        dialect,
        "idx_in",
        payload.c_type(dialect),
        false,
        &mut params,
        &mut fix,
    );
    if digits == Digits::Lookup {
        let words = dialect.table().atomics.words;
        param(dialect, "lookup", words[0], false, &mut params, &mut fix);
    }
    if let Some(c) = carry {
        param(
            dialect,
            "carry_in",
            c.key_type(dialect),
            false,
            &mut params,
            &mut fix,
        );
    }
    if keyed {
        param(
            dialect,
            "key_out",
            digits.key_type(dialect),
            true,
            &mut params,
            &mut fix,
        );
    }
    param(
        dialect,
        "idx_out",
        payload.c_type(dialect),
        true,
        &mut params,
        &mut fix,
    );
    if let Some(c) = carry {
        param(
            dialect,
            "carry_out",
            c.key_type(dialect),
            true,
            &mut params,
            &mut fix,
        );
    }
    param(dialect, "counts", i64t, false, &mut params, &mut fix);
    param(dialect, "inclusive", i64t, false, &mut params, &mut fix);
    let mut s = open_pass(
        dialect,
        &scatter_name(digits, carry, payload, cpu),
        params,
        &fix,
    );
    if cpu {
        // One work-item a tile, in order: each element takes its digit's next place.
        let (group, tiles) = (t.group_id[0], t.num_groups[0]);
        let _ = writeln!(
            s,
            "  {i64t} base[{RADIX}];\n  for (int d = 0; d < {RADIX}; ++d) {{ const {i64t} at = ({i64t})d * {tiles} + {group}; base[d] = inclusive[at] - counts[at]; }}"
        );
        let _ = writeln!(
            s,
            "  const {i64t} start = ({i64t}){group} * {CPU_TILE}, end = start + {CPU_TILE} < total ? start + {CPU_TILE} : total;"
        );
        let _ = writeln!(
            s,
            "  for ({i64t} i = start; i < end; ++i) {{\n    const {i64t} to = base[{}]++;",
            digit(digits)
        );
        if keyed {
            let _ = writeln!(s, "    key_out[to] = key_in[i];");
        }
        let _ = writeln!(s, "    idx_out[to] = idx_in[i];");
        if carry.is_some() {
            let _ = writeln!(s, "    carry_out[to] = carry_in[i];");
        }
        s.push_str("  }\n}\n");
        return s;
    }
    if let (Some(warp), None) = (&t.warp, carry) {
        staged_scatter(&mut s, dialect, warp, digits, payload);
        s.push_str("}\n");
        return s;
    }
    let (tid, group, tiles) = (t.local_id, t.group_id[0], t.num_groups[0]);
    let warps = BLOCK / 32;
    match &t.warp {
        // Each warp's counts of its round's digits, tagged with the round (no clearing).
        Some(_) => {
            let _ = writeln!(s, "  {} int wc[{warps}][{RADIX}];", t.shared);
        }
        None => {
            let _ = writeln!(s, "  {} int dig[{BLOCK}];", t.shared);
        }
    }
    let _ = writeln!(s, "  {} {i64t} base[{RADIX}];", t.shared);
    let _ = writeln!(s, "  {} int run[{RADIX}];", t.shared);
    let _ = writeln!(s, "  const int tid = {tid};");
    let _ = writeln!(s, "  for (int d = tid; d < {RADIX}; d += {BLOCK}) {{");
    let _ = writeln!(s, "    const {i64t} at = ({i64t})d * {tiles} + {group};");
    let _ = writeln!(s, "    base[d] = inclusive[at] - counts[at]; run[d] = 0;");
    if t.warp.is_some() {
        let _ = writeln!(s, "    for (int w = 0; w < {warps}; ++w) wc[w][d] = -1;");
    }
    let _ = writeln!(s, "  }}");
    let _ = writeln!(s, "  {};", t.barrier);
    let _ = writeln!(
        s,
        "  const {i64t} tile = ({i64t}){group} * {};",
        BLOCK * ROUNDS
    );
    let _ = writeln!(s, "  for (int r = 0; r < {ROUNDS}; ++r) {{");
    let _ = writeln!(s, "    const {i64t} i = tile + r * {BLOCK} + tid;");
    let _ = writeln!(s, "    const int d = i < total ? {} : -1;", digit(digits));
    // Stable: an element's rank among its round's equal digits is how many come before it.
    match &t.warp {
        Some(warp) => {
            // The lanes of its warp with its digit (a match), then the earlier warps' counts.
            let peers = warp.match_any.replace("{value}", "d");
            let count = |m: &str| warp.count.replace("{mask}", m);
            let _ = writeln!(
                s,
                "    const int lane = tid & 31, warp = tid >> 5;\n    const unsigned int peers = {peers};"
            );
            let _ = writeln!(
                s,
                "    if (d >= 0 && lane == {}) wc[warp][d] = (r << 16) | {};",
                warp.lowest.replace("{mask}", "peers"),
                count("peers")
            );
            let _ = writeln!(s, "    {};", t.barrier);
            let _ = writeln!(s, "    if (d >= 0) {{");
            let _ = writeln!(
                s,
                "      int rank = {};",
                count("peers & ((1u << lane) - 1u)")
            );
            let _ = writeln!(
                s,
                "      for (int w = 0; w < warp; ++w) {{ const int c = wc[w][d]; if ((c >> 16) == r) rank += c & 0xffff; }}"
            );
        }
        None => {
            let _ = writeln!(s, "    dig[tid] = d;");
            let _ = writeln!(s, "    {};", t.barrier);
            let _ = writeln!(s, "    if (d >= 0) {{");
            let _ = writeln!(s, "      int rank = 0;");
            let _ = writeln!(
                s,
                "      for (int j = 0; j < tid; ++j) rank += (dig[j] == d);"
            );
        }
    }
    let _ = writeln!(s, "      const {i64t} to = base[d] + run[d] + rank;");
    if keyed {
        let _ = writeln!(s, "      key_out[to] = key_in[i];");
    }
    let _ = writeln!(s, "      idx_out[to] = idx_in[i];");
    if carry.is_some() {
        let _ = writeln!(s, "      carry_out[to] = carry_in[i];");
    }
    let _ = writeln!(s, "    }}");
    let _ = writeln!(s, "    {};", t.barrier);
    let _ = writeln!(s, "    if (d >= 0) {};", local_increment(dialect, "run[d]"));
    let _ = writeln!(s, "    {};", t.barrier);
    let _ = writeln!(s, "  }}");
    s.push_str("}\n");
    s
}

/// The scatter with warp operations (CUDA), one key or none: each element's rank among its
/// tile's equal digits (warp matches, the earlier warps' round-tagged counts, the earlier
/// rounds' totals), then the tile sorted by digit in shared memory, then written out in that
/// order, so that each digit's run of elements goes out as consecutive stores (scattered
/// stores from registers measured 5 ms a pass of 2^26 on an H100).
fn staged_scatter(
    s: &mut String,
    dialect: Dialect,
    warp: &crate::dialect::Warp,
    digits: Digits,
    payload: Payload,
) {
    assert_eq!(
        BLOCK, RADIX,
        "the digit starts are scanned a digit a thread"
    );
    let t = dialect.table();
    let (i64t, sh, bar) = (t.int64, t.shared, t.barrier);
    let (tid, group, tiles) = (t.local_id, t.group_id[0], t.num_groups[0]);
    let keyed = !from_index(digits);
    let key_t = digits.key_type(dialect);
    let (tile, warps) = (BLOCK * ROUNDS, BLOCK / 32);
    if keyed {
        let _ = writeln!(s, "  {sh} {key_t} skey[{tile}];");
    }
    let pt = payload.c_type(dialect);
    let _ = writeln!(s, "  {sh} {pt} sidx[{tile}];");
    let _ = writeln!(s, "  {sh} unsigned char sdig[{tile}];");
    let _ = writeln!(s, "  {sh} int wc[{warps}][{RADIX}];");
    let _ = writeln!(s, "  {sh} {i64t} base[{RADIX}];");
    let _ = writeln!(s, "  {sh} int run[{RADIX}];");
    let _ = writeln!(s, "  {sh} int start[{RADIX}];");
    let _ = writeln!(
        s,
        "  const int tid = {tid}, lane = tid & 31, warp = tid >> 5;"
    );
    let _ = writeln!(s, "  {{ const {i64t} at = ({i64t})tid * {tiles} + {group};");
    let _ = writeln!(
        s,
        "    base[tid] = inclusive[at] - counts[at]; run[tid] = 0; for (int w = 0; w < {warps}; ++w) wc[w][tid] = -1; }}"
    );
    let _ = writeln!(s, "  {bar};");
    let _ = writeln!(s, "  const {i64t} tile = ({i64t}){group} * {tile};");
    let _ = writeln!(s, "  int dg[{ROUNDS}], rk[{ROUNDS}];");
    if keyed {
        let _ = writeln!(s, "  {key_t} kv[{ROUNDS}];");
    }
    let _ = writeln!(s, "  {pt} iv[{ROUNDS}];");
    let peers = warp.match_any.replace("{value}", "d");
    let lowest = warp.lowest.replace("{mask}", "peers");
    let count = |m: &str| warp.count.replace("{mask}", m);
    let _ = writeln!(
        s,
        "  #pragma unroll\n  for (int r = 0; r < {ROUNDS}; ++r) {{"
    );
    let _ = writeln!(s, "    const {i64t} i = tile + r * {BLOCK} + tid;");
    let _ = writeln!(s, "    const int d = i < total ? {} : -1;", digit(digits));
    let _ = writeln!(s, "    const unsigned int peers = {peers};");
    let _ = writeln!(s, "    const int leader = d >= 0 && lane == {lowest};");
    let _ = writeln!(
        s,
        "    if (leader) wc[warp][d] = (r << 16) | {};\n    {bar};",
        count("peers")
    );
    let _ = writeln!(
        s,
        "    int rank = {};",
        count("peers & ((1u << lane) - 1u)")
    );
    let _ = writeln!(
        s,
        "    if (d >= 0) {{ for (int w = 0; w < warp; ++w) {{ const int c = wc[w][d]; if ((c >> 16) == r) rank += c & 0xffff; }} rank += run[d];"
    );
    if keyed {
        let _ = write!(s, " kv[r] = key_in[i];");
    }
    let _ = writeln!(s, " iv[r] = idx_in[i]; }}");
    let _ = writeln!(s, "    dg[r] = d; rk[r] = rank;\n    {bar};");
    let _ = writeln!(
        s,
        "    if (leader) atomicAdd(&run[d], {});\n    {bar};\n  }}",
        count("peers")
    );
    // The tile's digit starts: an exclusive scan of its digit counts, a digit a thread.
    let _ = writeln!(s, "  const int mine = run[tid];");
    let _ = writeln!(
        s,
        "  for (int o = 1; o < {RADIX}; o <<= 1) {{ const int u = tid >= o ? run[tid - o] : 0; {bar}; run[tid] += u; {bar}; }}"
    );
    let _ = writeln!(s, "  start[tid] = run[tid] - mine;\n  {bar};");
    let _ = writeln!(
        s,
        "  #pragma unroll\n  for (int r = 0; r < {ROUNDS}; ++r) {{"
    );
    let _ = write!(
        s,
        "    if (dg[r] >= 0) {{ const int p = start[dg[r]] + rk[r];"
    );
    if keyed {
        let _ = write!(s, " skey[p] = kv[r];");
    }
    let _ = writeln!(
        s,
        " sidx[p] = iv[r]; sdig[p] = (unsigned char)dg[r]; }}\n  }}"
    );
    let _ = writeln!(s, "  {bar};");
    let _ = writeln!(
        s,
        "  const int len = total - tile < {tile} ? (int)(total - tile) : {tile};"
    );
    let _ = writeln!(
        s,
        "  for (int j = tid; j < len; j += {BLOCK}) {{ const int d = sdig[j]; const {i64t} to = base[d] + (j - start[d]);"
    );
    if keyed {
        let _ = write!(s, "    key_out[to] = skey[j];");
    }
    let _ = writeln!(s, " idx_out[to] = sidx[j]; }}");
}

pub fn scatter_name(digits: Digits, carry: Option<Digits>, payload: Payload, cpu: bool) -> String {
    let p = format!("{}{}", payload.suffix(), if cpu { "_cpu" } else { "" });
    match carry {
        Some(c) => format!("ember_sort_scatter_{}_{}{p}", digits.name(), c.name()),
        None => format!("ember_sort_scatter_{}{p}", digits.name()),
    }
}

pub fn keys_name(dtype: DType, index: bool) -> String {
    let suffix = if index { "" } else { "_only" };
    format!("ember_sort_keys_{}{suffix}", dtype.name())
}

pub fn count_name(digits: Digits, cpu: bool) -> String {
    let cpu = if cpu { "_cpu" } else { "" };
    format!("ember_sort_count_{}{cpu}", digits.name())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_order_floats_ints_and_complex_parts() {
        let cl = keys_source(Dialect::OpenCl, DType::F32, true);
        assert!(
            cl.contains("key0[i] = ember_fkey32(as_uint((isnan(v) ?"),
            "{cl}"
        );
        let cuda = keys_source(Dialect::Cuda, DType::I16, true);
        assert!(
            cuda.contains("key0[i] = ((((unsigned int)(int)(v)) & 0xffffu) ^ 0x8000u);"),
            "{cuda}"
        );
        let c = keys_source(Dialect::Cuda, DType::C128, true);
        assert!(
            c.contains("key0[i] = ember_fkey64(") && c.contains("v.y") && c.contains("key1[i]"),
            "{c}"
        );
        // C++ keywords are no parameter names (CUDA compiles C++).
        assert!(!c.contains(" class") && c.contains("cls[i] = "), "{c}");
        assert_eq!(key_digits(DType::C64), (Digits::Key32, 2));
        assert_eq!(key_bits(DType::U16), 16);
    }

    #[test]
    fn passes_count_and_scatter_stably_in_both_dialects() {
        let cuda = scatter_source(
            Dialect::Cuda,
            Digits::Key64,
            Some(Digits::Key64),
            Payload::Index,
            false,
        );
        // CUDA ranks with a warp match and the earlier warps' tagged counts; OpenCL counts
        // the equal digits before each element.
        assert!(
            cuda.contains("const unsigned int peers = __match_any_sync(0xffffffffu, d);"),
            "{cuda}"
        );
        assert!(
            cuda.contains("if ((c >> 16) == r) rank += c & 0xffff;"),
            "{cuda}"
        );
        let staged = scatter_source(Dialect::Cuda, Digits::Key32, None, Payload::Bits32, false);
        assert!(
            staged.contains("skey[p] = kv[r]; sidx[p] = iv[r];"),
            "{staged}"
        );
        assert!(
            staged.contains("const long long to = base[d] + (j - start[d]);"),
            "{staged}"
        );
        let cl = scatter_source(Dialect::OpenCl, Digits::Key32, None, Payload::Index, false);
        assert!(
            cl.contains("for (int j = 0; j < tid; ++j) rank += (dig[j] == d);"),
            "{cl}"
        );
        assert!(cuda.contains("carry_out[to] = carry_in[i];"), "{cuda}");
        assert!(cuda.contains("atomicAdd(&run[d], 1)"), "{cuda}");
        let cl = count_source(Dialect::OpenCl, Digits::Row, false);
        assert!(
            cl.contains("atomic_inc(&hist[(int)(((idx_in[i] / n) >> shift) & 255)])"),
            "{cl}"
        );
        let cpu = scatter_source(Dialect::OpenCl, Digits::Key32, None, Payload::Bits32, true);
        assert!(
            cpu.contains("const long to = base[(int)((key_in[i] >> shift) & 255)]++;")
                && !cpu.contains("barrier"),
            "{cpu}"
        );
        let row = scatter_source(Dialect::OpenCl, Digits::Row, None, Payload::Index, false);
        assert!(!row.contains("key_out"), "{row}");
    }
}
