//! Random arrays: a Philox4x32-10 generator evaluated inside generated kernels
//! ([`ember_codegen::philox`] says how counters, keys and words become values), so the same
//! seed gives the same numbers on every device and backend.
//!
//! A [`Philox`] holds only a seed and an offset. Each draw uses the current offset as the high
//! half of every counter and then advances it by one, so successive draws never share a
//! counter and a draw's values depend only on (seed, offset, element index).

use std::sync::Mutex;

use ember_codegen::philox::{Distribution, RandomKernel};
use ember_core::{DType, Error, Result};
use ember_runtime::{current_stream, Device, KernelArg};

use crate::array::Array;
use ember_kernel::{launch_shape, launch_shape_unrolled, KernelMemo};

/// Where a generator is in its sequence.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PhiloxState {
    /// The 64-bit key.
    pub seed: u64,
    /// The counter's high half for the next draw.
    pub offset: u64,
}

/// A counter-based generator: a seed and the number of draws made. Shared between threads
/// (each draw takes the next offset atomically).
#[derive(Debug)]
pub struct Philox {
    state: Mutex<PhiloxState>,
}

static KERNELS: KernelMemo<RandomKernel> = KernelMemo::new();

fn check_float(dtype: DType, what: &str) -> Result<()> {
    if matches!(dtype, DType::F32 | DType::F64) {
        return Ok(());
    }
    Err(Error::Type(format!(
        "ember.random.{what} supports float32 and float64 only, got {dtype}"
    )))
}

/// The smallest and largest values of an integer (or bool) dtype.
fn integer_bounds(dtype: DType) -> Result<(i128, i128)> {
    dtype.int_bounds().ok_or_else(|| {
        Error::Type(format!(
            "Unsupported dtype {dtype} for randint: use an integer dtype or bool"
        ))
    })
}

impl Philox {
    /// A generator at the start of `seed`'s sequence.
    pub fn new(seed: u64) -> Philox {
        Philox {
            state: Mutex::new(PhiloxState { seed, offset: 0 }),
        }
    }

    /// The seed and the offset of the next draw.
    pub fn state(&self) -> PhiloxState {
        *self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Moves the generator to `state` (a `seed` call is `set_state` with offset 0).
    pub fn set_state(&self, state: PhiloxState) {
        *self.state.lock().unwrap_or_else(|e| e.into_inner()) = state;
    }

    /// The state for one draw; the generator moves past it.
    pub(crate) fn advance(&self) -> PhiloxState {
        let mut guard = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let now = *guard;
        guard.offset = now.offset.wrapping_add(1);
        now
    }

    /// A new array of `shape` with values uniform in `[low, high)`: `low + (high - low) * u`
    /// (rounding may give `high` itself, as NumPy warns). float32 or float64.
    pub fn uniform(
        &self,
        device: &'static Device,
        shape: &[usize],
        dtype: DType,
        low: f64,
        high: f64,
    ) -> Result<Array> {
        check_float(dtype, "uniform")?;
        let span = high - low;
        if !span.is_finite() {
            return Err(Error::Value(format!(
                "high - low is not finite (low={low}, high={high})"
            )));
        }
        let out = Array::empty(device, shape, dtype)?;
        self.fill_float(&out, Distribution::Uniform, low, span)?;
        Ok(out)
    }

    /// A new array of `shape` with normal values of mean `loc` and standard deviation
    /// `scale`. float32 or float64.
    pub fn normal(
        &self,
        device: &'static Device,
        shape: &[usize],
        dtype: DType,
        loc: f64,
        scale: f64,
    ) -> Result<Array> {
        check_float(dtype, "normal")?;
        if scale < 0.0 || scale.is_nan() {
            return Err(Error::Value(format!(
                "scale < 0: the standard deviation must be non-negative, got {scale}"
            )));
        }
        let out = Array::empty(device, shape, dtype)?;
        self.fill_float(&out, Distribution::Normal, loc, scale)?;
        Ok(out)
    }

    /// A new array of `shape` with exponential values of scale `scale`: `scale * -log(1 - u)`.
    /// float32 or float64.
    pub fn exponential(
        &self,
        device: &'static Device,
        shape: &[usize],
        dtype: DType,
        scale: f64,
    ) -> Result<Array> {
        check_float(dtype, "exponential")?;
        if scale < 0.0 || scale.is_nan() {
            return Err(Error::Value(format!("scale < 0: got {scale}")));
        }
        let out = Array::empty(device, shape, dtype)?;
        self.fill_float(&out, Distribution::Exponential, 0.0, scale)?;
        Ok(out)
    }

    /// A new array of `shape` with integers uniform in `[low, high)`, of an integer dtype (or
    /// bool). Errors as NumPy's `randint`: `low >= high`, or bounds outside the dtype.
    pub fn integers(
        &self,
        device: &'static Device,
        shape: &[usize],
        dtype: DType,
        low: i128,
        high: i128,
    ) -> Result<Array> {
        let (min, max) = integer_bounds(dtype)?;
        if low >= high {
            return Err(Error::Value(format!(
                "low >= high (low={low}, high={high})"
            )));
        }
        if low < min {
            return Err(Error::Value(format!(
                "low is out of bounds for {dtype} (low must be at least {min}, got {low})"
            )));
        }
        if high - 1 > max {
            return Err(Error::Value(format!(
                "high is out of bounds for {dtype} (high must be at most {}, got {high})",
                max + 1
            )));
        }
        let out = Array::empty(device, shape, dtype)?;
        // Two's complement bits; `diff` < 2^64 since both bounds fit one 64-bit type.
        let low_bits = (low as i64 as u64).to_le_bytes();
        let diff = ((high - 1 - low) as u64).to_le_bytes();
        self.launch(&out, Distribution::Integers, &low_bits, &diff)?;
        Ok(out)
    }

    /// Fills `out` (C-contiguous float32/float64) with `fma(b, x, a)`, `x` from `distribution`.
    fn fill_float(&self, out: &Array, distribution: Distribution, a: f64, b: f64) -> Result<()> {
        let (a, b) = match out.dtype() {
            DType::F32 => (
                (a as f32).to_le_bytes().to_vec(),
                (b as f32).to_le_bytes().to_vec(),
            ),
            _ => (a.to_le_bytes().to_vec(), b.to_le_bytes().to_vec()),
        };
        self.launch(out, distribution, &a, &b)
    }

    fn launch(&self, out: &Array, distribution: Distribution, a: &[u8], b: &[u8]) -> Result<()> {
        if !out.is_c_contiguous() {
            return Err(Error::Value(format!(
                "random values are written to C-contiguous arrays; this one has strides {:?}",
                out.strides()
            )));
        }
        let state = self.advance();
        let n = out.size();
        if n == 0 {
            return Ok(());
        }
        let device = out.device();
        let spec = RandomKernel {
            distribution,
            dtype: out.dtype(),
            vector: RandomKernel::vectorizable(out.dtype())
                && out.is_aligned(16)
                && out.offset().is_multiple_of(16),
        };
        let function = KERNELS.generated(device, &spec)?;
        let key = state.seed.to_le_bytes();
        let stream = state.offset.to_le_bytes();
        let n64 = (n as i64).to_le_bytes();
        let args = [
            out.kernel_arg(),
            KernelArg::Bytes(&key),
            KernelArg::Bytes(&stream),
            KernelArg::Bytes(a),
            KernelArg::Bytes(b),
            KernelArg::Bytes(&n64),
        ];
        let per_block = spec.per_block();
        let (grid, block) = if device.info().is_cpu {
            launch_shape(device, n.div_ceil(per_block))
        } else {
            launch_shape_unrolled(device, n, per_block)
        };
        ember_kernel::note_bytes([out as &dyn ember_kernel::Operand]);
        device.launch(&function, grid, block, 0, current_stream(device), &args)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_advance_the_offset_and_seeding_resets_it() {
        let g = Philox::new(42);
        assert_eq!(
            g.advance(),
            PhiloxState {
                seed: 42,
                offset: 0
            }
        );
        assert_eq!(g.state().offset, 1);
        g.set_state(PhiloxState {
            seed: 7,
            offset: u64::MAX,
        });
        assert_eq!(g.advance().offset, u64::MAX);
        assert_eq!(g.state(), PhiloxState { seed: 7, offset: 0 });
    }

    #[test]
    fn integer_bounds_follow_the_dtype() {
        assert_eq!(integer_bounds(DType::I8).ok(), Some((-128, 127)));
        assert_eq!(integer_bounds(DType::U64).ok(), Some((0, u64::MAX as i128)));
        assert_eq!(
            integer_bounds(DType::I64).ok(),
            Some((i64::MIN as i128, i64::MAX as i128))
        );
        assert_eq!(integer_bounds(DType::Bool).ok(), Some((0, 1)));
        assert!(matches!(integer_bounds(DType::F32), Err(Error::Type(_))));
    }
}
