//! The states of Numba's `numba.cuda.random` generator, made on the host as Numba's
//! `init_xoroshiro128p_states` makes them, bit for bit.
//!
//! The generator is xoroshiro128+ (Blackman and Vigna, the 2016 version with rotations 55, 14
//! and 36). State 0 is two copies of the first SplitMix64 output of the seed, advanced by
//! `subsequence_start` jumps; state `i` is state `i - 1` advanced by one jump. A jump is
//! 2^64 steps, so each state owns its own 2^64-long stretch of one sequence.
//!
//! Numba jumps one state at a time (128 steps per jump). The state transition is linear over
//! GF(2), so a jump is a 128 x 128 bit matrix: here it is applied through sixteen byte-indexed
//! tables (16 lookups per state instead of 128 steps), eight states at a time (eight jumps
//! apart, so their lookups overlap), and `subsequence_start` jumps are one matrix power by
//! repeated squaring instead of `subsequence_start` jumps.
//!
//! The device side (drawing numbers from these states) is `ember_codegen::xoroshiro`.

use std::sync::OnceLock;

/// The polynomial of a jump by 2^64 steps, as Numba (and the reference C code) spell it.
pub const JUMP: [u64; 2] = [0xBEAC_0467_EBA5_FACB, 0xD86B_048B_86AA_9922];

/// The first output of SplitMix64 seeded with `seed`: what both words of state 0 start as.
pub fn splitmix64(seed: u64) -> u64 {
    let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// One step of xoroshiro128+: returns `s0 + s1` and advances `state` (Numba's
/// `xoroshiro128p_next`).
pub fn xoroshiro128p_next(state: &mut [u64; 2]) -> u64 {
    let [s0, mut s1] = *state;
    let result = s0.wrapping_add(s1);
    s1 ^= s0;
    state[0] = s0.rotate_left(55) ^ s1 ^ (s1 << 14);
    state[1] = s1.rotate_left(36);
    result
}

/// Advances `state` by 2^64 steps the way Numba's `xoroshiro128p_jump` does (128 steps); the
/// reference the fast path is built from and checked against.
pub fn xoroshiro128p_jump(state: &mut [u64; 2]) {
    let mut acc = [0u64; 2];
    for word in JUMP {
        for bit in 0..64 {
            if word >> bit & 1 == 1 {
                acc[0] ^= state[0];
                acc[1] ^= state[1];
            }
            xoroshiro128p_next(state);
        }
    }
    *state = acc;
}

/// `n` generator states, `(s0, s1)` for each, flattened: what Numba's
/// `create_xoroshiro128p_states(n, seed, subsequence_start)` holds, as 2n words.
///
/// Never panics on any `seed` or `subsequence_start` (a huge `subsequence_start` costs 64
/// matrix squarings at most); the allocation of the 2n words is the caller's `n` to bound.
pub fn xoroshiro128p_states(n: usize, seed: u64, subsequence_start: u64) -> Vec<u64> {
    let mut out = vec![0u64; n.saturating_mul(2)];
    fill_xoroshiro128p_states(&mut out, seed, subsequence_start);
    out
}

/// Writes `out.len() / 2` states into `out` as [`xoroshiro128p_states`] makes them (an odd
/// last word is left as it is). Allocates nothing per state; never panics.
pub fn fill_xoroshiro128p_states(out: &mut [u64], seed: u64, subsequence_start: u64) {
    let n = out.len() / 2;
    if n == 0 {
        return;
    }
    let z = splitmix64(seed);
    let first = jump_power([z, z], subsequence_start);
    fill_from(&mut out[..2 * n], first);
}

/// States advanced together: each step of the main loop moves `LANES` independent states by
/// `LANES` jumps, so their table lookups overlap instead of waiting on each other.
const LANES: usize = 8;
const _: () = assert!(LANES.is_power_of_two(), "LANES jumps are made by squaring");

/// Fills `out` (pairs) with `first` and the states that follow it, one jump apart.
fn fill_from(out: &mut [u64], first: [u64; 2]) {
    let jumps = jumps();
    // State `i` of the lanes is state `block + i`; block after block they write consecutive
    // states.
    let mut lanes = [first; LANES];
    for i in 1..LANES {
        lanes[i] = jumps.one.apply(lanes[i - 1]);
    }
    let mut blocks = out.chunks_exact_mut(2 * LANES);
    for block in &mut blocks {
        for (pair, state) in block.chunks_exact_mut(2).zip(lanes.iter_mut()) {
            pair.copy_from_slice(state);
            *state = jumps.lanes.apply(*state);
        }
    }
    for (pair, state) in blocks.into_remainder().chunks_exact_mut(2).zip(&lanes) {
        pair.copy_from_slice(state);
    }
}

/// `state` advanced by `k` jumps: the jump matrix raised to `k` by repeated squaring.
fn jump_power(mut state: [u64; 2], mut k: u64) -> [u64; 2] {
    if k == 0 {
        return state;
    }
    let mut power = jumps().one.map.clone();
    loop {
        if k & 1 == 1 {
            state = power.apply(state);
        }
        k >>= 1;
        if k == 0 {
            return state;
        }
        power = power.squared();
    }
}

/// A linear map of GF(2)^128, xoroshiro128+ states seen as bit vectors (bit `j` of `s0` is
/// coordinate `j`, bit `j` of `s1` is coordinate `64 + j`), kept as the images of the unit
/// vectors.
#[derive(Clone)]
struct LinearMap {
    columns: Box<[[u64; 2]; 128]>,
}

impl LinearMap {
    /// The map `f`, which the caller knows to be linear.
    fn of(f: impl Fn([u64; 2]) -> [u64; 2]) -> LinearMap {
        let mut columns = Box::new([[0u64; 2]; 128]);
        for (j, column) in columns.iter_mut().enumerate() {
            let mut unit = [0u64; 2];
            unit[j / 64] = 1 << (j % 64);
            *column = f(unit);
        }
        LinearMap { columns }
    }

    fn apply(&self, v: [u64; 2]) -> [u64; 2] {
        let mut acc = [0u64; 2];
        for (word, columns) in v.iter().zip(self.columns.chunks_exact(64)) {
            let mut bits = *word;
            while bits != 0 {
                let c = columns[bits.trailing_zeros() as usize % 64];
                acc[0] ^= c[0];
                acc[1] ^= c[1];
                bits &= bits - 1;
            }
        }
        acc
    }

    /// The map applied twice.
    fn squared(&self) -> LinearMap {
        let mut columns = self.columns.clone();
        for column in columns.iter_mut() {
            *column = self.apply(*column);
        }
        LinearMap { columns }
    }
}

/// A linear map as its matrix and as sixteen tables: entry `b` of table `t` is the image of
/// byte value `b` placed at byte `t` of the state (bytes 0-7 of `s0`, then of `s1`), so
/// applying it is 16 lookups.
struct ByteTables {
    map: LinearMap,
    tables: Box<[[[u64; 2]; 256]; 16]>,
}

impl ByteTables {
    fn new(map: LinearMap) -> ByteTables {
        let mut tables = Box::new([[[0u64; 2]; 256]; 16]);
        for (t, table) in tables.iter_mut().enumerate() {
            // Each entry is the entry without its lowest set bit plus that bit's column.
            for b in 1..256usize {
                let c = map.columns[8 * t + b.trailing_zeros() as usize];
                let rest = table[b & (b - 1)];
                table[b] = [rest[0] ^ c[0], rest[1] ^ c[1]];
            }
        }
        ByteTables { map, tables }
    }

    fn apply(&self, v: [u64; 2]) -> [u64; 2] {
        let mut bytes = [0u8; 16];
        bytes[..8].copy_from_slice(&v[0].to_le_bytes());
        bytes[8..].copy_from_slice(&v[1].to_le_bytes());
        let (mut a0, mut a1) = (0u64, 0u64);
        for (table, &b) in self.tables.iter().zip(&bytes) {
            let c = table[usize::from(b)];
            a0 ^= c[0];
            a1 ^= c[1];
        }
        [a0, a1]
    }
}

/// One jump, and `LANES` jumps.
struct Jumps {
    one: ByteTables,
    lanes: ByteTables,
}

/// The jump tables, built once per process (about 16,000 generator steps and 128 KiB).
fn jumps() -> &'static Jumps {
    static JUMPS: OnceLock<Jumps> = OnceLock::new();
    JUMPS.get_or_init(|| {
        let one = LinearMap::of(|mut v| {
            xoroshiro128p_jump(&mut v);
            v
        });
        let mut lanes = one.clone();
        for _ in 0..LANES.trailing_zeros() {
            lanes = lanes.squared();
        }
        Jumps {
            one: ByteTables::new(one),
            lanes: ByteTables::new(lanes),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    // Reference values from Numba 0.68.1 (numba.cuda.random.init_xoroshiro128p_states_cpu,
    // the CPU function behind create_xoroshiro128p_states), states as (s0, s1) pairs.

    #[test]
    fn states_match_numba() {
        let cases: &[(usize, u64, u64, &[u64])] = &[
            (
                4,
                0,
                0,
                &[
                    0xe220a8397b1dcdaf,
                    0xe220a8397b1dcdaf,
                    0x12513ce25be05eb1,
                    0x70d189c276ba17a4,
                    0x65853d86b6ebe9b4,
                    0x062a041b9acda8da,
                    0xe8f985721a10a3ee,
                    0x412be3dd3c914961,
                ],
            ),
            (
                3,
                42,
                0,
                &[
                    0xbdd732262feb6e95,
                    0xbdd732262feb6e95,
                    0x045a2c270718bc3b,
                    0x05b3939a23e533b4,
                    0xa67324e5ecccb8dc,
                    0x4a81bbd6c315729e,
                ],
            ),
            (
                3,
                12345,
                3,
                &[
                    0x81677962ecc05fc7,
                    0x6ad0e4dab75ad20b,
                    0xbefa25f3118b9bbf,
                    0x6c72b22d7db22783,
                    0x31bd3ad7bb6686a0,
                    0x986b232c0e34383e,
                ],
            ),
            (
                2,
                u64::MAX,
                1,
                &[
                    0xf06e5493d9197688,
                    0x5d1905e55c940204,
                    0x451fc10b7cd06b84,
                    0xc2c48037ad7bec7f,
                ],
            ),
            // Numba's seed -1 (uint64 wraps it to 2^64 - 1).
            (
                2,
                u64::MAX,
                0,
                &[
                    0xe4d971771b652c20,
                    0xe4d971771b652c20,
                    0xf06e5493d9197688,
                    0x5d1905e55c940204,
                ],
            ),
            // Numba's seed -2^63.
            (
                2,
                1 << 63,
                2,
                &[
                    0xf0465173de351791,
                    0x4db6f97cce03ed0f,
                    0xd0617cf19f4c9e0b,
                    0x2baf8602caa09934,
                ],
            ),
            (1, 7, 1000, &[0x149793cb69e48912, 0xcad0aa2675766532]),
        ];
        for &(n, seed, sub, want) in cases {
            assert_eq!(
                xoroshiro128p_states(n, seed, sub),
                want,
                "n={n} seed={seed} subsequence_start={sub}"
            );
        }
    }

    #[test]
    fn draws_match_numba() {
        // Numba: states = create(4, 1234); for each state i, three rounds of
        // xoroshiro128p_next, then uniform float32, uniform float64, normal float32 and
        // normal float64 (this test checks the raw outputs and the states after all 28 steps).
        let mut states = xoroshiro128p_states(4, 1234, 0);
        let mut next = Vec::new();
        for s in states.chunks_exact_mut(2) {
            let mut st = [s[0], s[1]];
            for _ in 0..3 {
                next.push(xoroshiro128p_next(&mut st));
                for _ in 0..6 {
                    xoroshiro128p_next(&mut st);
                }
            }
            s.copy_from_slice(&st);
        }
        assert_eq!(next, NUMBA_NEXT_SEED_1234);
        assert_eq!(states, NUMBA_FINAL_STATES_SEED_1234);
    }

    /// Numba 0.68.1: the `xoroshiro128p_next` outputs of the draw sequence above.
    const NUMBA_NEXT_SEED_1234: [u64; 12] = [
        0x7619ec365e3039b6,
        0x114cf95720f1939d,
        0x170fe4893aba0eb3,
        0xbf195123922bb965,
        0x5c1d2c662383debb,
        0xf6229b2995e61f6d,
        0x1d7031d766da21c4,
        0x71e86296e2043e23,
        0x20ccf7d0bfdf9139,
        0x0e0055d6993fbe9f,
        0xe3cb29551c242deb,
        0xd563b583944784e2,
    ];

    /// Numba 0.68.1: the states after the draw sequence above.
    const NUMBA_FINAL_STATES_SEED_1234: [u64; 8] = [
        0xf4383db90beeff1a,
        0xb16b2fa1c4b9abe3,
        0x5e0f975d2db63c8d,
        0xf4f0dd69c3ed55d1,
        0xe17b31698cdb7ad4,
        0xe7b0dad740437352,
        0xc2c6188191aaefdd,
        0xbf25c564a8c6a3e5,
    ];

    #[test]
    fn fast_jumps_equal_numbas_step_by_step_jumps() {
        let seed = 0x0123_4567_89ab_cdef;
        for sub in [0u64, 1, 2, 5, 17] {
            let z = splitmix64(seed);
            let mut state = [z, z];
            for _ in 0..sub {
                xoroshiro128p_jump(&mut state);
            }
            let mut want = Vec::new();
            for i in 0..43 {
                if i > 0 {
                    xoroshiro128p_jump(&mut state);
                }
                want.extend_from_slice(&state);
            }
            assert_eq!(xoroshiro128p_states(43, seed, sub), want, "sub={sub}");
        }
    }

    #[test]
    fn subsequence_start_is_a_shift_along_the_states() {
        let all = xoroshiro128p_states(300, 99, 0);
        assert_eq!(xoroshiro128p_states(50, 99, 250), all[500..]);
        // A huge start returns quickly, and splitting it composes.
        let big = u64::MAX - 3;
        let a = xoroshiro128p_states(5, 1, big);
        assert_eq!(xoroshiro128p_states(1, 1, big + 3), a[6..8]);
    }

    #[test]
    fn edge_sizes() {
        assert!(xoroshiro128p_states(0, 5, 9).is_empty());
        let mut odd = [7u64; 5];
        fill_xoroshiro128p_states(&mut odd, 3, 0);
        assert_eq!(odd[..4], xoroshiro128p_states(2, 3, 0)[..]);
        assert_eq!(odd[4], 7);
    }
}
