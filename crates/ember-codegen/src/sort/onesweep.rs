//! The single-pass ("onesweep") radix sort of one row on CUDA (Adinets and Merrill, 2022).
//!
//! One kernel ([`histogram_source`]) reads the row once and counts the digits of every pass;
//! then each pass is one kernel ([`pass_source`]): a block takes the next tile (a ticket),
//! ranks its keys by digit (warp ballots find equal digits), publishes its digit counts,
//! learns how many elements of each digit the tiles before it hold by a decoupled look-back
//! (a thread a digit), and writes its keys out through shared memory in digit order, so each
//! digit's run goes out as consecutive stores. Keys move alone where they decode back to the values
//! (integers; floats with no -0.0 and no NaN but the canonical one); otherwise the values'
//! bits or the flat indices (`argsort`) travel with them.

use std::fmt::Write;

use ember_core::dtype::Kind;
use ember_core::DType;

use super::{float_key_helpers, key_bits, key_digits, param, real_key, Digits};
use crate::dialect::Dialect;
use crate::prelude::prelude_for;
use crate::types::{load, storage_type, value_type};

/// The shape of a pass's work.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Tuning {
    /// Threads of a block (at least 256: a thread a digit).
    pub threads: usize,
    /// Keys a thread ranks.
    pub items: usize,
    /// Blocks a multiprocessor should hold (a register budget).
    pub blocks: usize,
    /// Predecessors' counts a digit's thread reads at once in the look-back.
    pub window: usize,
}

impl Tuning {
    /// Keys of a tile.
    pub fn tile(self) -> usize {
        self.threads * self.items
    }
}

/// Measured on an H100 (float32 keys, 2^28 sort / 2^26 argsort, Gkeys/s): 384 threads of 20
/// keys, 2 blocks a multiprocessor, 39.5 / 27.5, beside 384 x 12 x 3 blocks 36.9 / 24.6,
/// 512 x 12 x 2 38.0 / 26.9, 512 x 16 x 2 40.0 / 26.4, 256 x 16 x 4 37.6 / 21.5 (CUB's tile on
/// this GPU is 384 x 23).
pub const TUNING: Tuning = Tuning {
    threads: 384,
    items: 20,
    blocks: 2,
    window: 16,
};
/// Blocks of the histogram kernel (each strides over the row), and their threads.
pub const HISTOGRAM_BLOCKS: usize = 1024;
pub const HISTOGRAM_THREADS: usize = 256;
/// The status bits of a tile's published count (the count below them): its own count only,
/// or the inclusive prefix of the tiles up to it. A pass over more elements than the count
/// bits hold is not planned ([`fits`]).
const AGGREGATE: u32 = 1 << 30;
const PREFIX: u32 = 1 << 31;

/// What travels with the keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Carry {
    /// Nothing: the last pass writes the keys decoded to values.
    Nothing,
    /// The values' bits (floats whose keys do not decode back to them).
    Bits,
    /// The flat indices, as 32 bits; the last pass writes them as int64.
    Index,
}

/// Whether a row of `total` elements of `dtype` is sorted by these kernels.
pub fn fits(dtype: DType, total: usize) -> bool {
    let real = match dtype.kind() {
        Kind::Bool | Kind::Int | Kind::UInt => true,
        Kind::Float => matches!(dtype.itemsize(), 4 | 8),
        _ => false,
    };
    real && total < AGGREGATE as usize
}

/// Passes of 8 bits a key of `dtype` needs.
pub fn passes(dtype: DType) -> usize {
    key_bits(dtype) / 8
}

fn key_type(dtype: DType, dialect: Dialect) -> &'static str {
    let t = dialect.table();
    t.atomics.words[usize::from(key_digits(dtype).0 == Digits::Key64)]
}

/// The value of `dtype` whose key is `k` (the inverse of [`real_key`] where it is one).
fn decode(k: &str, dtype: DType, dialect: Dialect) -> String {
    let t = dialect.table();
    let [(_, from32), (_, from64)] = t.atomics.float_bits;
    let st = storage_type(dtype, dialect);
    match dtype.kind() {
        Kind::Bool | Kind::UInt => format!("(({st})({k}))"),
        Kind::Int => format!(
            "(({st})({k} ^ {}))",
            if dtype.itemsize() == 8 {
                "(1ull << 63)".to_string()
            } else {
                format!("0x{:x}u", 1u64 << (8 * dtype.itemsize() - 1))
            }
        ),
        _ if dtype.itemsize() == 8 => {
            format!("{from64}((({k}) >> 63) ? (({k}) ^ (1ull << 63)) : ~({k})))")
        }
        _ => format!("{from32}((({k}) >> 31) ? (({k}) ^ 0x80000000u) : ~({k}))"),
    }
}

/// The bits of a float value `v` of `dtype`, as the key's word type.
fn bits(v: &str, dtype: DType, dialect: Dialect) -> String {
    let [(to32, _), (to64, _)] = dialect.table().atomics.float_bits;
    if dtype.itemsize() == 8 {
        format!("{to64}({v})")
    } else {
        format!("{to32}({v})")
    }
}

/// Whether keys of `dtype` decode back to every value (else [`Carry::Bits`] may be needed).
pub fn always_decodes(dtype: DType) -> bool {
    dtype.kind() != Kind::Float
}

pub fn histogram_name(dtype: DType) -> String {
    format!("ember_onesweep_histogram_{}", dtype.name())
}

/// The kernel counting the digits of every pass: `counts[pass * 256 + digit]` (zeroed
/// before, 8-byte counts), and `counts[passes * 256]` set to 1 where a float's key does not
/// decode back to its bits.
pub fn histogram_source(dialect: Dialect, dtype: DType) -> String {
    assert!(
        dialect.table().warp.is_some(),
        "onesweep sorts are planned on CUDA only"
    );
    let t = dialect.table();
    let (i64t, sh, bar) = (t.int64, t.shared, t.barrier);
    let (kt, vt) = (key_type(dtype, dialect), value_type(dtype, dialect));
    let w64 = t.atomics.words[1];
    let p = passes(dtype);
    let (mut params, mut fix) = (Vec::new(), String::new());
    param(
        dialect,
        "x",
        storage_type(dtype, dialect),
        false,
        &mut params,
        &mut fix,
    );
    param(dialect, "counts", w64, true, &mut params, &mut fix);
    params.push(format!("{i64t} total"));
    let mut s = prelude_for(dialect, [dtype]);
    s.push_str(&float_key_helpers(dialect));
    let name = histogram_name(dtype);
    let _ = writeln!(s, "{} {name}({}) {{", t.kernel_prefix, params.join(", "));
    s.push_str(&fix);
    let _ = writeln!(s, "  {sh} unsigned int h[{}];", p * 256);
    let _ = writeln!(s, "  const int tid = {};", t.local_id);
    let _ = writeln!(
        s,
        "  for (int e = tid; e < {}; e += {}) h[e] = 0;\n  {bar};",
        p * 256,
        HISTOGRAM_THREADS
    );
    let _ = writeln!(s, "  int odd = 0;");
    // Four elements a step, their loads in flight together.
    let _ = writeln!(
        s,
        "  const {i64t} step = {};\n  for ({i64t} i0 = {}; i0 < total; i0 += 4 * step) {{",
        t.global_size, t.global_id
    );
    let _ = writeln!(s, "    {vt} vs[4];\n    #pragma unroll\n    for (int u = 0; u < 4; ++u) if (i0 + u * step < total) vs[u] = {};", load(dtype, dialect, "x + i0 + u * step"));
    let _ = writeln!(s, "    #pragma unroll\n    for (int u = 0; u < 4; ++u) {{\n      if (i0 + u * step >= total) break;\n      const {vt} v = vs[u];");
    let _ = writeln!(s, "      const {kt} k = {};", real_key("v", dtype, dialect));
    for pass in 0..p {
        let _ = writeln!(
            s,
            "      atomicAdd(&h[{}u + (unsigned int)((k >> {}) & 255)], 1u);",
            pass * 256,
            8 * pass
        );
    }
    if !always_decodes(dtype) {
        let _ = writeln!(
            s,
            "      odd |= {} != {};",
            bits(&decode("k", dtype, dialect), dtype, dialect),
            bits("v", dtype, dialect)
        );
    }
    let _ = writeln!(s, "    }}");
    let _ = writeln!(s, "  }}");
    let _ = writeln!(
        s,
        "  if (__syncthreads_or(odd) && tid == 0) counts[{}] = 1;",
        p * 256
    );
    let _ = writeln!(
        s,
        "  for (int e = tid; e < {}; e += {}) if (h[e]) atomicAdd(&counts[e], ({w64})h[e]);\n}}",
        p * 256,
        HISTOGRAM_THREADS
    );
    s
}

/// Statements setting `pm` to the lanes of the warp whose 8-bit digit equals `d`'s: eight
/// ballots, one a bit (as CUB's `MatchAny`), each taken by every lane.
fn digit_peers(warp: &crate::dialect::Warp, d: &str) -> String {
    let ballot = warp.ballot.replace("{pred}", "bit");
    format!(
        "unsigned int pm = 0xffffffffu;\n    #pragma unroll\n    for (int b = 0; b < 8; ++b) {{ const int bit = ({d} >> b) & 1; const unsigned int m = {ballot}; pm &= bit ? m : ~m; }}"
    )
}

/// The loop setting `pos[i]` to each of a thread's `items` keys `k[i]` (lane-striped over
/// its warp's run) the number of the warp's earlier keys with the same digit (stable ranks):
/// the lowest lane of a digit's peers adds their number to the warp's count `wh[warp][d]`
/// and hands the count before to them; each adds the peers in lanes before it.
pub(super) fn warp_ranks(s: &mut String, dialect: Dialect, items: usize, digit: &str) {
    let warp = dialect
        .table()
        .warp
        .as_ref()
        .expect("warp ranks are planned only where the dialect has warp operations");
    let count = |m: &str| warp.count.replace("{mask}", m);
    let from = warp
        .from
        .replace("{value}", "old")
        .replace("{lane}", "leader");
    let _ = writeln!(
        s,
        "  #pragma unroll\n  for (int i = 0; i < {items}; ++i) {{"
    );
    let _ = writeln!(
        s,
        "    const int d = {digit};\n    {}\n    const int leader = {};",
        digit_peers(warp, "d"),
        warp.lowest.replace("{mask}", "pm")
    );
    let _ = writeln!(
        s,
        "    int old = 0;\n    if (lane == leader) old = atomicAdd(&wh[warp][d], {});\n    pos[i] = {from} + {};\n  }}",
        count("pm"),
        count("pm & ((1u << lane) - 1u)")
    );
}

/// Bytes of dynamic shared memory a pass's block stages its tile in.
pub fn stage_bytes(dtype: DType, carry: Carry, tuning: Tuning) -> usize {
    let wide =
        key_digits(dtype).0 == Digits::Key64 || (carry == Carry::Bits && dtype.itemsize() == 8);
    tuning.tile() * if wide { 8 } else { 4 }
}

/// The place of a pass among a sort's passes: the first reads the row's values (and makes
/// their keys), the last writes the answer (values or int64 indices); a pass can be both.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Stage {
    pub first: bool,
    pub last: bool,
}

pub fn pass_name(dtype: DType, carry: Carry, stage: Stage, tuning: Tuning) -> String {
    let tuned = if tuning == TUNING {
        String::new()
    } else {
        format!(
            "_t{}x{}x{}x{}",
            tuning.threads, tuning.items, tuning.blocks, tuning.window
        )
    };
    format!(
        "ember_onesweep_{}_{}{}{}{tuned}",
        dtype.name(),
        match carry {
            Carry::Nothing => "keys",
            Carry::Bits => "bits",
            Carry::Index => "index",
        },
        if stage.first { "_first" } else { "" },
        if stage.last { "_last" } else { "" },
    )
}

/// One pass: `key_in` (the values, for the first pass) to `key_out`, the carried words
/// `carry_in` to `carry_out`; the last pass writes `out` instead. `counts` are the pass's 256
/// digit counts; `look` the tiles' published counts (`tiles * 256` words, then the ticket
/// counter), zeroed before.
pub fn pass_source(
    dialect: Dialect,
    dtype: DType,
    carry: Carry,
    stage: Stage,
    tuning: Tuning,
) -> String {
    let Tuning {
        threads,
        items,
        blocks,
        window,
    } = tuning;
    let tile_keys = tuning.tile();
    let t = dialect.table();
    let warp = t
        .warp
        .as_ref()
        .expect("onesweep passes are planned only where the dialect has warp operations");
    let (i64t, sh, bar) = (t.int64, t.shared, t.barrier);
    let [w32, w64] = t.atomics.words;
    let kt = key_type(dtype, dialect);
    let st = storage_type(dtype, dialect);
    let wide_key = kt == w64;
    let carry_t = match carry {
        Carry::Bits if dtype.itemsize() == 8 => w64,
        _ => w32,
    };
    let stage_t = if wide_key || carry_t == w64 { w64 } else { w32 };
    let out_t = if carry == Carry::Index { i64t } else { st };
    let (mut params, mut fix) = (Vec::new(), String::new());
    let key_in_t = if stage.first { st } else { kt };
    for (name, ty, writable) in [
        ("key_in", key_in_t, false),
        ("key_out", kt, true),
        ("out", out_t, true),
        ("carry_in", carry_t, false),
        ("carry_out", carry_t, true),
        ("counts", w64, false),
        ("look", w32, true),
    ] {
        param(dialect, name, ty, writable, &mut params, &mut fix);
    }
    params.push(format!("{i64t} total_in"));
    params.push(format!("{i64t} shift_in"));
    let mut s = prelude_for(dialect, [dtype]);
    s.push_str(&float_key_helpers(dialect));
    let name = pass_name(dtype, carry, stage, tuning);
    let bounds = warp
        .launch_bounds
        .replace("{threads}", &threads.to_string())
        .replace("{blocks}", &blocks.to_string());
    let _ = writeln!(
        s,
        "{} {bounds} {name}({}) {{",
        t.kernel_prefix,
        params.join(", ")
    );
    s.push_str(&fix);
    // Positions are 32-bit: a row of 2^30 or more is not planned here.
    let _ = writeln!(
        s,
        "  const int total = (int)total_in, shift = (int)shift_in;"
    );
    let warps = threads / 32;
    // The staged tile in dynamic shared memory ([`stage_bytes`]: more than a static array
    // may hold).
    let _ = writeln!(
        s,
        "  extern {sh} __align__(16) unsigned char ember_stage[];\n  {stage_t}* stage = ({stage_t}*)ember_stage;"
    );
    let _ = writeln!(s, "  {sh} int wh[{warps}][256];");
    let _ = writeln!(s, "  {sh} int tstart[256];");
    let _ = writeln!(s, "  {sh} int gbase[256];");
    let _ = writeln!(s, "  {sh} int wsum[{warps}];");
    let _ = writeln!(s, "  {sh} int gsum[{warps}];");
    let _ = writeln!(s, "  {sh} unsigned int ticket;");
    let _ = writeln!(
        s,
        "  const int tid = {}, lane = tid & 31, warp = tid >> 5;",
        t.local_id
    );
    let _ = writeln!(
        s,
        "  volatile {w32}* status = ({w32}*)look;\n  const int tiles = {};",
        t.num_groups[0]
    );
    // The ticket: tiles are taken in the order blocks start, so every tile looked back on
    // has started (and publishes its counts before it waits on anything).
    let _ = writeln!(
        s,
        "  if (tid == 0) ticket = atomicAdd(&look[tiles * 256], 1u);"
    );
    let _ = writeln!(
        s,
        "  for (int e = tid; e < {}; e += {threads}) (&wh[0][0])[e] = 0;\n  {bar};",
        warps * 256
    );
    let _ = writeln!(s, "  const int tile = ticket;");
    let _ = writeln!(
        s,
        "  const int first = tile * {tile_keys}, wbase = first + warp * {};",
        32 * items
    );
    let digit = |k: &str| format!("(int)(({k} >> shift) & 255)");
    // Keys, a warp's 32 * items consecutive ones, lane-striped (coalesced loads); past the
    // row's end the largest key, which ranks after every real one.
    let _ = writeln!(s, "  {kt} k[{items}]; int pos[{items}];");
    // All of a thread's loads first, in flight together.
    let _ = writeln!(
        s,
        "  #pragma unroll\n  for (int i = 0; i < {items}; ++i) {{"
    );
    let _ = writeln!(s, "    const int at = wbase + i * 32 + lane;");
    if stage.first {
        let _ = writeln!(
            s,
            "    if (at < total) {{ const {} v = {}; k[i] = {}; }} else k[i] = ~({kt})0;\n  }}",
            value_type(dtype, dialect),
            load(dtype, dialect, "key_in + at"),
            real_key("v", dtype, dialect)
        );
    } else {
        let _ = writeln!(s, "    k[i] = at < total ? key_in[at] : ~({kt})0;\n  }}");
    }
    warp_ranks(&mut s, dialect, items, &digit("k[i]"));
    let _ = writeln!(s, "  {bar};");
    // A thread a digit: the tile's count (published at once, so later tiles can look back
    // past it), each warp's offset among the tile's keys of the digit, and the exclusive
    // scans of the tile's and the whole row's digit counts.
    let _ = writeln!(s, "  int cnt = 0; int all = 0;");
    let _ = writeln!(s, "  if (tid < 256) {{");
    let _ = writeln!(
        s,
        "    for (int w = 0; w < {warps}; ++w) {{ const int c = wh[w][tid]; wh[w][tid] = cnt; cnt += c; }}"
    );
    let _ = writeln!(
        s,
        "    status[tile * 256 + tid] = (tile == 0 ? 0x{PREFIX:x}u : 0x{AGGREGATE:x}u) | (unsigned int)cnt;"
    );
    let _ = writeln!(s, "    all = (int)counts[tid];\n  }}");
    let up = |v: &str| warp.up.replace("{value}", v).replace("{lane}", "o");
    let _ = writeln!(s, "  int xc = cnt; int xa = all;");
    let _ = writeln!(
        s,
        "  for (int o = 1; o < 32; o <<= 1) {{ const int u = {}; const int ua = {}; if (lane >= o) {{ xc += u; xa += ua; }} }}",
        up("xc"),
        up("xa")
    );
    let _ = writeln!(
        s,
        "  if (tid < 256 && lane == 31) {{ wsum[warp] = xc; gsum[warp] = xa; }}\n  {bar};"
    );
    // The warps' offsets become places in the tile.
    let _ = writeln!(s, "  int goff = 0;");
    let _ = writeln!(
        s,
        "  if (tid < 256) {{ for (int w = 0; w < warp; ++w) {{ xc += wsum[w]; xa += gsum[w]; }} tstart[tid] = xc - cnt; goff = xa - all; for (int w = 0; w < {warps}; ++w) wh[w][tid] += xc - cnt; }}\n  {bar};"
    );
    let _ = writeln!(
        s,
        "  #pragma unroll\n  for (int i = 0; i < {items}; ++i) {{"
    );
    let _ = writeln!(
        s,
        "    pos[i] += wh[warp][{}];\n    stage[pos[i]] = k[i];\n  }}",
        digit("k[i]")
    );
    // The look-back: the elements of the digit in the tiles before this one.
    let _ = writeln!(s, "  if (tid < 256) {{");
    let _ = writeln!(s, "    int before = 0;");
    let _ = writeln!(s, "    if (tile > 0) {{");
    // `window` predecessors read at once (independent loads), taken in order until one holds
    // its inclusive prefix; a count not yet published is read again.
    let _ = writeln!(
        s,
        "      for (int q = tile - 1; ; ) {{\n        unsigned int w[{window}];\n        #pragma unroll\n        for (int u = 0; u < {window}; ++u) w[u] = q - u >= 0 ? status[(q - u) * 256 + tid] : 0x{PREFIX:x}u;"
    );
    // (Unrolled with no early exit: an array indexed by a loop variable would live in local
    // memory.)
    let _ = writeln!(
        s,
        "        int seen = 0, state = 0;\n        #pragma unroll\n        for (int u = 0; u < {window}; ++u) if (state == 0) {{ if (!(w[u] & 0x{:x}u)) state = 2; else {{ before += w[u] & 0x{:x}u; seen += 1; if (w[u] & 0x{PREFIX:x}u) state = 1; }} }}\n        if (state == 1) break;\n        q -= seen;\n      }}",
        PREFIX | AGGREGATE,
        AGGREGATE - 1
    );
    let _ = writeln!(
        s,
        "      status[tile * 256 + tid] = 0x{PREFIX:x}u | (unsigned int)(before + cnt);\n    }}"
    );
    let _ = writeln!(
        s,
        "    gbase[tid] = goff + before - tstart[tid];\n  }}\n  {bar};"
    );
    // Out in the tile's digit order: element j of the staged tile goes to gbase[its digit] + j.
    let _ = writeln!(
        s,
        "  const int len = total - first < {tile_keys} ? (int)(total - first) : {tile_keys};"
    );
    let decoded = decode("kk", dtype, dialect);
    let keys_out = match (carry, stage.last) {
        (_, false) => "key_out[to] = kk;".to_string(),
        (Carry::Index, true) => String::new(),
        (_, true) => format!("out[to] = {decoded};"),
    };
    let _ = writeln!(s, "  int dj[{items}];");
    let _ = writeln!(
        s,
        "  #pragma unroll\n  for (int m = 0; m < {items}; ++m) {{"
    );
    let _ = writeln!(
        s,
        "    const int j = tid + m * {threads};\n    const {kt} kk = ({kt})stage[j];\n    dj[m] = {};",
        digit("kk")
    );
    if keys_out.is_empty() {
        let _ = writeln!(s, "  }}");
    } else {
        let _ = writeln!(
            s,
            "    if (j < len) {{ const int to = gbase[dj[m]] + j; {keys_out} }}\n  }}"
        );
    }
    if carry != Carry::Nothing {
        // The carried words through the same places.
        let _ = writeln!(s, "  {bar};");
        let _ = writeln!(
            s,
            "  #pragma unroll\n  for (int i = 0; i < {items}; ++i) {{"
        );
        let _ = writeln!(s, "    const int at = wbase + i * 32 + lane;");
        let word = match (carry, stage.first) {
            (Carry::Index, true) => format!("({carry_t})at"),
            (Carry::Bits, true) => format!("((const {carry_t}*)key_in)[at]"),
            _ => "carry_in[at]".to_string(),
        };
        let _ = writeln!(
            s,
            "    stage[pos[i]] = at < total ? ({stage_t}){word} : 0;\n  }}\n  {bar};"
        );
        let write = match (carry, stage.last) {
            (_, false) => "carry_out[to] = v;".to_string(),
            (Carry::Index, true) => format!("out[to] = ({i64t})v;"),
            (_, true) => format!("(({carry_t}*)out)[to] = v;"),
        };
        let _ = writeln!(
            s,
            "  #pragma unroll\n  for (int m = 0; m < {items}; ++m) {{"
        );
        let _ = writeln!(
            s,
            "    const int j = tid + m * {threads};\n    if (j < len) {{ const {carry_t} v = ({carry_t})stage[j]; const int to = gbase[dj[m]] + j; {write} }}\n  }}"
        );
    }
    s.push_str("}\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passes_rank_by_warp_and_look_back_a_digit_a_thread() {
        let first = Stage {
            first: true,
            last: false,
        };
        let s = pass_source(Dialect::Cuda, DType::F32, Carry::Bits, first, TUNING);
        assert!(
            s.contains(
                "const unsigned int m = __ballot_sync(0xffffffffu, bit); pm &= bit ? m : ~m;"
            ),
            "{s}"
        );
        assert!(s.contains("pos[i] = __shfl_sync(0xffffffffu, old, leader) + __popc(pm & ((1u << lane) - 1u));"), "{s}");
        assert!(
            s.contains("status[tile * 256 + tid] = 0x80000000u | (unsigned int)(before + cnt);"),
            "{s}"
        );
        assert!(s.contains("k[i] = ember_fkey32("), "{s}");
        assert!(
            s.contains(
                "stage[pos[i]] = at < total ? (unsigned int)((const unsigned int*)key_in)[at] : 0;"
            ),
            "{s}"
        );
        let last = Stage {
            first: false,
            last: true,
        };
        let s = pass_source(Dialect::Cuda, DType::I64, Carry::Index, last, TUNING);
        assert!(
            s.contains("out[to] = (long long)v;") && !s.contains("key_out[to]"),
            "{s}"
        );
        let s = pass_source(Dialect::Cuda, DType::F64, Carry::Nothing, last, TUNING);
        assert!(
            s.contains("out[to] = __longlong_as_double((long long)(((kk) >> 63)"),
            "{s}"
        );
        let h = histogram_source(Dialect::Cuda, DType::I16);
        assert!(
            h.contains("      atomicAdd(&h[256u + (unsigned int)((k >> 8) & 255)], 1u);"),
            "{h}"
        );
        assert!(!h.contains("odd |="), "{h}");
        assert!(fits(DType::F64, 1 << 20) && !fits(DType::F16, 10) && !fits(DType::C64, 10));
    }
}
