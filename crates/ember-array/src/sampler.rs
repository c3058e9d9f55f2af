//! Drawing from the distributions of [`ember_codegen::sampler`]: the launch of a sampler
//! kernel for a [`Philox`] draw. Parameters come as values or as C-contiguous float64/int64
//! arrays holding one value an item (the caller broadcasts); row laws (multinomial,
//! dirichlet) also take a float64 vector a row or one for every row.

use ember_codegen::sampler::laws::{law, Shape};
use ember_codegen::sampler::{SamplerKernel, SLOTS};
use ember_core::{DType, Error, Result};
use ember_kernel::{launch_shape, KernelMemo};
use ember_runtime::{current_stream, Device, KernelArg};

use crate::array::Array;
use crate::random::Philox;

/// A parameter of a draw.
pub enum Slot<'a> {
    /// One value for every item: a float64's or an int64's bits.
    Value(u64),
    /// A value an item.
    Each(&'a Array),
}

/// The vector parameter of a row law.
pub struct Vector<'a> {
    /// float64, C-contiguous: `width` values, or `width` a row.
    pub values: &'a Array,
    /// Whether each row has its own `width` values.
    pub per_row: bool,
}

static KERNELS: KernelMemo<SamplerKernel> = KernelMemo::new();

fn check_array(what: &str, a: &Array, dtypes: &[DType], size: usize) -> Result<()> {
    if !dtypes.contains(&a.dtype()) || !a.is_c_contiguous() || a.size() != size {
        return Err(Error::Value(format!(
            "{what}: expected a C-contiguous {dtypes:?} array of {size} elements, got {} of shape {:?}",
            a.dtype(),
            a.shape()
        )));
    }
    Ok(())
}

impl Philox {
    /// A new array of `shape` and `dtype` drawn from the law named `name` with parameters
    /// `slots` (and, for a row law, `vector`; the last axis of `shape` is then the row).
    pub fn sample(
        &self,
        device: &'static Device,
        name: &str,
        shape: &[usize],
        dtype: DType,
        slots: &[Slot<'_>],
        vector: Option<Vector<'_>>,
    ) -> Result<Array> {
        let (number, law) = law(name)
            .ok_or_else(|| Error::Value(format!("ember.random has no distribution {name:?}")))?;
        if !SamplerKernel::writes(dtype) {
            return Err(Error::Type(format!(
                "{name} draws float32, float64 or integer values, not {dtype}"
            )));
        }
        if slots.len() != law.params.len() {
            return Err(Error::Value(format!(
                "{name} takes {} parameters, got {}",
                law.params.len(),
                slots.len()
            )));
        }
        let size: usize = shape.iter().product();
        let (items, width) = match law.shape {
            Shape::Element => (size, 1),
            Shape::Row => {
                let width = shape.last().copied().unwrap_or(0);
                (size.checked_div(width).unwrap_or(0), width)
            }
        };
        for slot in slots {
            if let Slot::Each(a) = slot {
                check_array(name, a, &[DType::F64, DType::I64, DType::U64], items)?;
            }
        }
        let row_vector = match (law.shape, &vector) {
            (Shape::Row, Some(v)) => {
                let rows = if v.per_row { items } else { 1 };
                check_array(name, v.values, &[DType::F64], rows * width)?;
                Some(v)
            }
            (Shape::Row, None) => {
                return Err(Error::Value(format!("{name} needs its vector parameter")))
            }
            (Shape::Element, _) => None,
        };
        let out = Array::empty(device, shape, dtype)?;
        let state = self.advance();
        if items == 0 {
            return Ok(out);
        }
        let spec = SamplerKernel {
            law: (!device.info().is_cpu).then_some(number),
            dtype,
        };
        let function = KERNELS.generated(device, &spec)?;

        let key = state.seed.to_le_bytes();
        let stream = state.offset.to_le_bytes();
        let law_number = (number as i32).to_le_bytes();
        let mut values = [[0u8; 8]; SLOTS];
        let mut steps = [(-1i64).to_le_bytes(); SLOTS];
        let mut pointers = [out.kernel_arg(), out.kernel_arg(), out.kernel_arg()];
        for (k, slot) in slots.iter().enumerate() {
            match slot {
                Slot::Value(bits) => values[k] = bits.to_le_bytes(),
                Slot::Each(a) => {
                    pointers[k] = a.kernel_arg();
                    steps[k] = 1i64.to_le_bytes();
                }
            }
        }
        let (vec_arg, row_step) = match row_vector {
            Some(v) => (
                v.values.kernel_arg(),
                if v.per_row { width as i64 } else { 0 },
            ),
            None => (out.kernel_arg(), 0),
        };
        let row_step = row_step.to_le_bytes();
        let width64 = (width as i64).to_le_bytes();
        let n64 = (items as i64).to_le_bytes();
        let mut args = vec![
            out.kernel_arg(),
            KernelArg::Bytes(&key),
            KernelArg::Bytes(&stream),
        ];
        if spec.law.is_none() {
            args.push(KernelArg::Bytes(&law_number));
        }
        for k in 0..SLOTS {
            args.push(KernelArg::Bytes(&values[k]));
            args.push(pointers[k]);
            args.push(KernelArg::Bytes(&steps[k]));
        }
        args.extend([
            vec_arg,
            KernelArg::Bytes(&row_step),
            KernelArg::Bytes(&width64),
        ]);
        args.push(KernelArg::Bytes(&n64));
        let (grid, block) = launch_shape(device, items);
        device.launch(&function, grid, block, 0, current_stream(device), &args)?;
        Ok(out)
    }
}
