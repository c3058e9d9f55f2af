//! Functions compiled code calls that are not one machine instruction: C's math library
//! (looked up in the process, as Numba's code calls it), and ember's own routines written
//! here in Rust (Python's integer power, NumPy's float `//` and `%`).

use crate::abi::{Builtin, CallContext, Fault};

/// ember's routines by the names compiled code imports them under.
pub(crate) fn symbols() -> [(&'static str, *const u8); 11] {
    [
        ("ember_cpu_print", crate::print::print as *const u8),
        ("ember_cpu_alloc", allocate as *const u8),
        ("ember_cpu_parallel_for", parallel_for as *const u8),
        ("ember_cpu_ipow_int64", ipow_i64 as *const u8),
        ("ember_cpu_ipow_uint64", ipow_u64 as *const u8),
        ("ember_cpu_fpow_float64", fpow_f64 as *const u8),
        ("ember_cpu_fpow_float32", fpow_f32 as *const u8),
        ("ember_cpu_floordiv_float64", floordiv_f64 as *const u8),
        ("ember_cpu_floordiv_float32", floordiv_f32 as *const u8),
        ("ember_cpu_mod_float64", mod_f64 as *const u8),
        ("ember_cpu_mod_float32", mod_f32 as *const u8),
    ]
}

/// Whether compiled code can call `symbol`: one of ember's routines, or a function of the
/// process (C's math library), so Cranelift never meets a symbol it cannot resolve.
pub(crate) fn resolves(symbol: &str) -> bool {
    if symbols().iter().any(|(n, _)| *n == symbol) {
        return true;
    }
    let Ok(name) = std::ffi::CString::new(symbol) else {
        return false;
    };
    // RTLD_DEFAULT: the process's global symbols, where the JIT module looks too.
    !unsafe { libc::dlsym(libc::RTLD_DEFAULT, name.as_ptr()) }.is_null()
}

/// The C math function for libm name `name` in float32 (`sinf`) or float64 (`sin`).
pub(crate) fn libm_name(name: &str, float32: bool) -> String {
    if float32 {
        format!("{name}f")
    } else {
        name.to_string()
    }
}

/// `bytes` bytes for an array the function makes (zeroed when `zeroed` is not 0), from the
/// call's arena; null (and MemoryError raised) when there is none.
extern "C" fn allocate(ctx: *mut CallContext, bytes: i64, zeroed: i64) -> *mut u8 {
    let Some(c) = (unsafe { ctx.as_ref() }) else {
        return std::ptr::null_mut();
    };
    let arena = unsafe { c.arena.as_ref() };
    match arena.and_then(|a| a.allocate(bytes.max(0) as usize, zeroed != 0)) {
        Some(p) => p,
        None => {
            raise(ctx, Builtin::OutOfMemory);
            std::ptr::null_mut()
        }
    }
}

fn raise(ctx: *mut CallContext, b: Builtin) {
    // The context is the caller's, alive for the whole call.
    if let Some(c) = unsafe { ctx.as_mut() } {
        c.status = Fault::Builtin(b).code();
    }
}

/// Python's `a ** b` of int64s (Numba's: by squaring; a negative exponent gives 0 unless the
/// base is ±1, and raises for a zero base).
extern "C" fn ipow_i64(ctx: *mut CallContext, a: i64, b: i64) -> i64 {
    if b < 0 {
        return match a {
            0 => {
                raise(ctx, Builtin::NegativePowerOfZero);
                0
            }
            1 => 1,
            -1 => {
                if b % 2 == 0 {
                    1
                } else {
                    -1
                }
            }
            _ => 0,
        };
    }
    let (mut base, mut e, mut r) = (a, b as u64, 1i64);
    while e != 0 {
        if e & 1 != 0 {
            r = r.wrapping_mul(base);
        }
        base = base.wrapping_mul(base);
        e >>= 1;
    }
    r
}

extern "C" fn ipow_u64(_ctx: *mut CallContext, a: u64, b: u64) -> u64 {
    let (mut base, mut e, mut r) = (a, b, 1u64);
    while e != 0 {
        if e & 1 != 0 {
            r = r.wrapping_mul(base);
        }
        base = base.wrapping_mul(base);
        e >>= 1;
    }
    r
}

macro_rules! float_power {
    ($t:ty, $name:ident) => {
        /// A float to an int64 power as Numba computes it: by squaring, the reciprocal for a
        /// negative exponent, `pow` beyond 2**16.
        extern "C" fn $name(b: $t, e: i64) -> $t {
            if !(-65536..=65536).contains(&e) {
                return b.powf(e as $t);
            }
            let (mut base, mut n, mut r) = (b, e.unsigned_abs(), 1.0 as $t);
            while n != 0 {
                if n & 1 != 0 {
                    r *= base;
                }
                base *= base;
                n >>= 1;
            }
            if e < 0 {
                1.0 / r
            } else {
                r
            }
        }
    };
}

float_power!(f64, fpow_f64);
float_power!(f32, fpow_f32);

macro_rules! float_divmod {
    ($t:ty, $floordiv:ident, $modulo:ident) => {
        /// NumPy's `npy_divmod` quotient: the floor of `a / b`, exact at the boundaries (the
        /// caller has checked `b != 0`).
        extern "C" fn $floordiv(a: $t, b: $t) -> $t {
            let m = a % b;
            let mut q = (a - m) / b;
            if m != 0.0 && ((b < 0.0) != (m < 0.0)) {
                q -= 1.0;
            }
            if q == 0.0 {
                return (0.0 as $t).copysign(a / b);
            }
            let mut f = q.floor();
            if q - f > 0.5 {
                f += 1.0;
            }
            f
        }

        /// Python's `a % b` of floats: the sign of `b` (the caller has checked `b != 0`).
        extern "C" fn $modulo(a: $t, b: $t) -> $t {
            let m = a % b;
            if m != 0.0 {
                if (b < 0.0) != (m < 0.0) {
                    m + b
                } else {
                    m
                }
            } else {
                (0.0 as $t).copysign(b)
            }
        }
    };
}

float_divmod!(f64, floordiv_f64, mod_f64);
float_divmod!(f32, floordiv_f32, mod_f32);

/// A `prange` loop body made into a function: runs iterations `lo..hi`, writes its partial
/// results.
type Chunk = unsafe extern "C" fn(*mut CallContext, *const u64, i64, i64, *mut u64);

/// What a thread needs of the loop (pointers into the caller's frame, which waits for all).
#[derive(Clone, Copy)]
struct Work {
    body: Chunk,
    env: *const u64,
    partials: *mut u64,
    words: usize,
    /// The call's arena: every chunk makes its arrays there.
    arena: *const crate::arena::Arena,
}

// The caller's frame outlives the loop's chunks; chunks write only their own row of partial
// results, and the arena locks.
unsafe impl Send for Work {}
unsafe impl Sync for Work {}

/// Runs iterations `start..stop` of a `prange` loop in chunks, one per thread (at most
/// [`crate::lower::MOST_CHUNKS`]), chunk `k` writing its partial results at `partials + k *
/// words`. Returns the number of chunks; the first fault of a chunk is the call's.
extern "C" fn parallel_for(
    ctx: *mut CallContext,
    body: Chunk,
    env: *const u64,
    start: i64,
    stop: i64,
    partials: *mut u64,
    words: i64,
) -> i64 {
    let total = stop.saturating_sub(start).max(0);
    if total == 0 {
        return 0;
    }
    let threads = crate::pool::num_threads().clamp(1, crate::lower::MOST_CHUNKS) as i64;
    let chunks = threads.min(total);
    let work = Work {
        body,
        env,
        partials,
        words: words.max(0) as usize,
        arena: unsafe { ctx.as_ref() }.map_or(std::ptr::null(), |c| c.arena),
    };
    // Each chunk reports its own fault.
    let faults: Vec<std::sync::Mutex<CallContext>> = (0..chunks)
        .map(|_| {
            std::sync::Mutex::new(CallContext {
                arena: work.arena,
                ..CallContext::default()
            })
        })
        .collect();
    crate::pool::run_chunks(chunks as usize, &|k| {
        let w = work;
        let mut fault = faults[k].lock().expect("a chunk's fault");
        let k = k as i64;
        let lo = start + total / chunks * k + k.min(total % chunks);
        let hi = lo + total / chunks + i64::from(k < total % chunks);
        // Each chunk writes its own row of partial results.
        let row = unsafe { w.partials.add(k as usize * w.words) };
        unsafe { (w.body)(&mut *fault, w.env, lo, hi, row) };
    });
    let first = faults
        .into_iter()
        .map(|f| f.into_inner().expect("a chunk's fault"))
        .find(|f| f.status != 0);
    if let (Some(f), Some(c)) = (first, unsafe { ctx.as_mut() }) {
        *c = f;
    }
    chunks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_power_matches_python() {
        let mut ctx = CallContext::default();
        assert_eq!(ipow_i64(&mut ctx, 3, 13), 3i64.pow(13));
        assert_eq!(ipow_i64(&mut ctx, -1, -3), -1);
        assert_eq!(ipow_i64(&mut ctx, 5, -2), 0);
        assert_eq!(ctx.status, 0);
        ipow_i64(&mut ctx, 0, -1);
        assert_eq!(
            Fault::from_code(ctx.status),
            Some(Fault::Builtin(Builtin::NegativePowerOfZero))
        );
    }

    #[test]
    fn float_floor_division_and_modulo_follow_python() {
        for (a, b) in [
            (7.5, 2.0),
            (-7.5, 2.0),
            (7.5, -2.0),
            (-0.0, 3.0),
            (1e300, 1e-300),
        ] {
            let q = floordiv_f64(a, b);
            let m = mod_f64(a, b);
            // Python: a == q * b + m (to rounding), m has b's sign, q is whole.
            assert_eq!(q, q.floor());
            assert!(m == 0.0 || (m < 0.0) == (b < 0.0), "{a} % {b} = {m}");
        }
        assert_eq!(floordiv_f64(-7.5, 2.0), -4.0);
        assert_eq!(mod_f64(-7.5, 2.0), 0.5);
        assert_eq!(fpow_f64(2.0, -2), 0.25);
    }
}
