//! Arrays a function makes (`np.empty`, `np.zeros`, `np.full`...): memory from the call's
//! arena (ember's runtime), C-contiguous strides, the elements filled in a loop.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, AbiParam, InstBuilder, Value};
use ember_jit::ir::{Const, Expr, ExprKind as K};
use ember_jit::Ty;

use super::Lowering;
use crate::abi::{Builtin, Fault};
use crate::values::{ArrayVal, Val};

impl Lowering<'_, '_> {
    pub(crate) fn allocate(
        &mut self,
        ty: &Ty,
        shape: &[Expr],
        fill: Option<&Expr>,
    ) -> Result<Val, String> {
        let Ty::Array(a) = ty else {
            return Err(format!("an allocation of type {ty}"));
        };
        let itemsize = a.dtype.itemsize() as i64;
        let mut dims = Vec::new();
        for e in shape {
            dims.push(self.expr(e)?.number()?);
        }
        // NumPy refuses a negative extent; the element count is their product, and the bytes
        // must fit in an isize (a product that wraps would allocate too little).
        let mut count = self.b.ins().iconst(types::I64, 1);
        let mut negative = self.b.ins().iconst(types::I8, 0);
        let mut too_big = self.b.ins().iconst(types::I8, 0);
        for d in &dims {
            let below = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, *d, 0);
            negative = self.b.ins().bor(negative, below);
            let (product, wrapped) = self.b.ins().smul_overflow(count, *d);
            count = product;
            too_big = self.b.ins().bor(too_big, wrapped);
        }
        self.raise_if(negative, Fault::Builtin(Builtin::NegativeDimensions))?;
        let size = self.b.ins().iconst(types::I64, itemsize);
        let (bytes, wrapped) = self.b.ins().smul_overflow(count, size);
        let too_big = self.b.ins().bor(too_big, wrapped);
        self.raise_if(too_big, Fault::Builtin(Builtin::ArrayTooBig))?;
        let zeroed = matches!(fill.map(|f| &f.kind), Some(K::Const(c)) if !c.truth() && !matches!(c, Const::Float(x) if x.is_sign_negative()));
        let mut sig = self.module_signature();
        sig.params.extend([AbiParam::new(types::I64); 3]);
        sig.returns.push(AbiParam::new(types::I64));
        let alloc = self.import("ember_cpu_alloc", sig)?;
        let flag = self.b.ins().iconst(types::I64, i64::from(zeroed));
        let call = self.b.ins().call(alloc, &[self.ctx, bytes, flag]);
        let data = self.b.inst_results(call)[0];
        self.return_if_raised()?;
        // C order: the last axis's stride is the itemsize, each one before it spans the next.
        let mut strides = vec![self.b.ins().iconst(types::I64, itemsize); dims.len()];
        for k in (0..dims.len().saturating_sub(1)).rev() {
            strides[k] = self.b.ins().imul(strides[k + 1], dims[k + 1]);
        }
        if let (Some(f), false) = (fill, zeroed) {
            let v = self.expr(f)?;
            self.fill(a.dtype, data, count, itemsize, &v)?;
        }
        Ok(Val::Array(ArrayVal {
            data,
            shape: dims,
            strides,
        }))
    }

    /// Stores `v` into `count` elements from `data`.
    fn fill(
        &mut self,
        dtype: ember_core::DType,
        data: Value,
        count: Value,
        itemsize: i64,
        v: &Val,
    ) -> Result<(), String> {
        let (head, body, exit) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        let zero = self.b.ins().iconst(types::I64, 0);
        self.b.ins().jump(head, &[zero.into()]);
        self.b.switch_to_block(head);
        let i = self.b.append_block_param(head, types::I64);
        let more = self.b.ins().icmp(IntCC::SignedLessThan, i, count);
        self.b.ins().brif(more, body, &[], exit, &[]);
        self.enter(body);
        let offset = self.b.ins().imul_imm_s(i, itemsize);
        let address = self.b.ins().iadd(data, offset);
        self.store_element(dtype, address, v)?;
        let next = self.b.ins().iadd_imm_s(i, 1);
        self.b.ins().jump(head, &[next.into()]);
        self.b.seal_block(head);
        self.enter(exit);
        Ok(())
    }
}
