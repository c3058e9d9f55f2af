//! Array elements and views: addresses from an array's data, shape and byte strides.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, InstBuilder, MemFlagsData, Opcode, Value};
use ember_core::DType;
use ember_jit::ir::{Expr, Place, ViewAxis};
use ember_jit::Layout;

use super::Lowering;
use crate::abi::{Builtin, Fault};
use crate::values::{number_type, ArrayVal, Val};

/// Elements may sit anywhere a strided view puts them: no alignment is assumed.
fn element_flags() -> MemFlagsData {
    let mut f = MemFlagsData::new();
    f.set_notrap();
    f
}

impl Lowering<'_, '_> {
    /// The address of `place`'s element.
    pub(crate) fn element_address(&mut self, place: &Place) -> Result<Value, String> {
        let a = self.expr(&place.array)?.array()?.clone();
        let itemsize = place.ty.dtype.itemsize() as i64;
        let last = place.indices.len().saturating_sub(1);
        let mut address = a.data;
        for (k, index) in place.indices.iter().enumerate() {
            let i = self.expr(index)?.number()?;
            if self.shared.boundscheck {
                // After wrapping, an index in range is below the length as an unsigned number.
                let n = a.shape[k];
                let inside = self.b.ins().icmp(IntCC::UnsignedLessThan, i, n);
                // The index as written: a negative one was wrapped by adding the length.
                let negative = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, i, 0);
                let unwrapped = self.b.ins().isub(i, n);
                let written = self.b.ins().select(negative, unwrapped, i);
                self.require(inside, Fault::Builtin(Builtin::Index), &[written, n])?;
            }
            // `a[i + 1]` is `a[i]`'s address plus one stride: `i`'s multiple is shared with
            // `a[i]` (and the unrolled loop's other iterations), the constant folds into the
            // load's displacement.
            let (i, plus) = self.constant_apart(i);
            // A C-contiguous array's last stride is its itemsize: a constant, so the address
            // of `a[i]` in a loop is one shift and add.
            let contiguous = k == last && place.ty.layout == Layout::C;
            let offset = if contiguous {
                self.b.ins().imul_imm_s(i, itemsize)
            } else {
                self.b.ins().imul(i, a.strides[k])
            };
            address = self.b.ins().iadd(address, offset);
            if plus != 0 {
                let extra = if contiguous {
                    self.b.ins().iconst(types::I64, plus.wrapping_mul(itemsize))
                } else {
                    self.b.ins().imul_imm_s(a.strides[k], plus)
                };
                address = self.b.ins().iadd(address, extra);
            }
        }
        Ok(address)
    }

    /// `x + c` as `(x, c)` when the value is a 64-bit sum (or difference) with a constant;
    /// `(v, 0)` otherwise.
    fn constant_apart(&self, v: Value) -> (Value, i64) {
        if self.b.func.dfg.value_type(v) != types::I64 {
            return (v, 0);
        }
        if let Some(sum) = self.with_constant(v, Opcode::Iadd) {
            return sum;
        }
        match self.with_constant(v, Opcode::Isub) {
            Some((x, c)) if c != i64::MIN => (x, -c),
            _ => (v, 0),
        }
    }

    pub(crate) fn load_element(&mut self, d: DType, address: Value) -> Result<Val, String> {
        let flags = element_flags();
        Ok(match d {
            DType::C64 | DType::C128 => {
                let t = if d == DType::C64 {
                    types::F32
                } else {
                    types::F64
                };
                let re = self.b.ins().load(t, flags, address, 0);
                let im = self.b.ins().load(t, flags, address, t.bytes() as i32);
                Val::Complex(re, im)
            }
            DType::Bool => {
                // Any non-zero byte is True (NumPy reads bools so).
                let byte = self.b.ins().load(types::I8, flags, address, 0);
                Val::Number(self.b.ins().icmp_imm_s(IntCC::NotEqual, byte, 0))
            }
            _ => Val::Number(self.b.ins().load(number_type(d), flags, address, 0)),
        })
    }

    pub(crate) fn store_element(
        &mut self,
        d: DType,
        address: Value,
        v: &Val,
    ) -> Result<(), String> {
        let flags = element_flags();
        match v {
            Val::Complex(re, im) => {
                let t = if d == DType::C64 {
                    types::F32
                } else {
                    types::F64
                };
                self.b.ins().store(flags, *re, address, 0);
                self.b.ins().store(flags, *im, address, t.bytes() as i32);
            }
            Val::Number(x) => {
                self.b.ins().store(flags, *x, address, 0);
            }
            _ => return Err("storing something that is not a number into an array".into()),
        }
        Ok(())
    }

    /// `base[axes]`: indexed axes go, sliced ones are narrowed, the rest kept whole.
    pub(crate) fn view(&mut self, base: &Expr, axes: &[ViewAxis]) -> Result<Val, String> {
        let a = self.expr(base)?.array()?.clone();
        let mut data = a.data;
        let (mut shape, mut strides) = (Vec::new(), Vec::new());
        for (k, (n, s)) in a.shape.iter().zip(&a.strides).enumerate() {
            match axes.get(k) {
                None | Some(ViewAxis::Whole) => {
                    shape.push(*n);
                    strides.push(*s);
                }
                Some(ViewAxis::Index(i)) => {
                    let i = self.expr(i)?.number()?;
                    let i = self.wrap_index(i, *n);
                    let offset = self.b.ins().imul(i, *s);
                    data = self.b.ins().iadd(data, offset);
                }
                Some(ViewAxis::Slice { lo, hi, step }) => {
                    let (start, len) = self.slice_bounds(*n, lo.as_ref(), hi.as_ref(), *step)?;
                    let offset = self.b.ins().imul(start, *s);
                    data = self.b.ins().iadd(data, offset);
                    shape.push(len);
                    strides.push(self.b.ins().imul_imm_s(*s, *step));
                }
            }
        }
        Ok(Val::Array(ArrayVal {
            data,
            shape,
            strides,
        }))
    }

    /// Python's slice `lo:hi:step` of an axis of `n`: its first index and its length.
    fn slice_bounds(
        &mut self,
        n: Value,
        lo: Option<&Expr>,
        hi: Option<&Expr>,
        step: i64,
    ) -> Result<(Value, Value), String> {
        let forward = step > 0;
        // Bounds wrap once, then clamp to [0, n] (forward) or [-1, n - 1] (backward).
        let (min, max) = if forward {
            (self.b.ins().iconst(types::I64, 0), n)
        } else {
            (
                self.b.ins().iconst(types::I64, -1),
                self.b.ins().iadd_imm_s(n, -1),
            )
        };
        let bound = |this: &mut Self, e: Option<&Expr>, default: Value| -> Result<Value, String> {
            let Some(e) = e else {
                return Ok(default);
            };
            let i = this.expr(e)?.number()?;
            let i = this.wrap_index(i, n);
            let i = this.b.ins().smax(i, min);
            Ok(this.b.ins().smin(i, max))
        };
        let (start, stop) = if forward {
            (bound(self, lo, min)?, bound(self, hi, max)?)
        } else {
            (bound(self, lo, max)?, bound(self, hi, min)?)
        };
        let (span, k) = if forward {
            (self.b.ins().isub(stop, start), step)
        } else {
            (self.b.ins().isub(start, stop), -step)
        };
        let zero = self.b.ins().iconst(types::I64, 0);
        let rounded = self.b.ins().iadd_imm_s(span, k - 1);
        let len = self.b.ins().sdiv_imm_s(rounded, k);
        let positive = self.b.ins().icmp_imm_s(IntCC::SignedGreaterThan, span, 0);
        let len = self.b.ins().select(positive, len, zero);
        Ok((start, len))
    }
}
