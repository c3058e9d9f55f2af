//! `print(...)` in host functions: the line's format (text with [`HOST_MARK`]s) and its values
//! are laid out on the stack and handed to ember's runtime, which has Python print them
//! (so floats read as Python writes them and `sys.stdout` redirections apply, as in Numba).

use cranelift_codegen::ir::{types, AbiParam, InstBuilder, MemFlagsData};
use ember_jit::ir::{PrintArg, HOST_MARK};

use super::Lowering;
use crate::values::Val;

impl Lowering<'_, '_> {
    /// Prints one line: `format` with each mark replaced by the next of `args`.
    pub(crate) fn print(&mut self, format: &str, args: &[PrintArg]) -> Result<Val, String> {
        debug_assert!(format.matches(HOST_MARK).count() == args.len());
        let mut words = Vec::with_capacity(args.len());
        for a in args {
            let v = self.expr(a.expr())?.number()?;
            let t = self.b.func.dfg.value_type(v);
            words.push(if t == types::F64 {
                self.b.ins().bitcast(types::I64, MemFlagsData::new(), v)
            } else if t.bits() < 64 {
                self.b.ins().uextend(types::I64, v)
            } else {
                v
            });
        }
        // The text, eight bytes to an immediate store: no data section to keep or relocate.
        let text = format.as_bytes();
        let text_slot = self.stack_block(text.len().div_ceil(8).max(1))?;
        for (k, chunk) in text.chunks(8).enumerate() {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            let w = self.b.ins().iconst(types::I64, i64::from_le_bytes(word));
            self.b
                .ins()
                .store(MemFlagsData::trusted(), w, text_slot, (k * 8) as i32);
        }
        let values = self.stack_block(words.len().max(1))?;
        for (k, w) in words.iter().enumerate() {
            self.b
                .ins()
                .store(MemFlagsData::trusted(), *w, values, (k * 8) as i32);
        }
        let mut sig = self.module_signature();
        sig.params.extend([AbiParam::new(types::I64); 5]);
        let print = self.import("ember_cpu_print", sig)?;
        let len = self.b.ins().iconst(types::I64, text.len() as i64);
        let count = self.b.ins().iconst(types::I64, words.len() as i64);
        self.b
            .ins()
            .call(print, &[self.ctx, text_slot, len, values, count]);
        Ok(Val::Unit)
    }
}
