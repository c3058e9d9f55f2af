//! Lowering one specialised function of the typed IR to Cranelift IR: its parameters, its
//! variables and its statements ([`stmt`]); expressions in [`expr`], arithmetic and
//! conversions in [`arith`], NumPy's ufuncs on numbers in [`ufunc`], array elements and views
//! in [`array`].

mod alloc;
mod arith;
mod array;
mod expr;
mod parallel;
pub(crate) use parallel::MOST_CHUNKS;
mod power;
mod print;
pub(crate) use power::Exponent;
mod select;
mod stmt;
mod ufunc;
mod unroll;
mod vector;

use std::collections::HashMap;

use crate::image::Linker;
use cranelift_codegen::ir::{
    types, AbiParam, Block, FuncRef, InstBuilder, MemFlagsData, Signature, Value,
};
use cranelift_codegen::isa::CallConv;
use cranelift_frontend::FunctionBuilder;
use cranelift_module::{FuncId, Linkage};
use ember_jit::ir::{Expr, ExprKind as K, IrFunction, IrProgram, Stmt, Temp};
use ember_jit::Ty;

use crate::abi::{Fault, STATUS_OFFSET};
use crate::values::{machine_types, Slots, Val};

/// The signature of a compiled function: the call's context, then its parameters' leaves;
/// its result's leaves.
pub(crate) fn signature(f: &IrFunction, call_conv: CallConv) -> Result<Signature, String> {
    let mut sig = Signature::new(call_conv);
    sig.params.push(AbiParam::new(types::I64));
    for p in &f.params {
        for t in machine_types(&p.ty)? {
            sig.params.push(AbiParam::new(t));
        }
    }
    for t in machine_types(&f.ret)? {
        sig.returns.push(AbiParam::new(t));
    }
    Ok(sig)
}

/// What the whole compilation shares with each function's lowering.
pub(crate) struct Shared<'a> {
    /// `parallel=True`: `prange` loops run on threads.
    pub parallel: bool,
    /// `boundscheck=True`: every index is checked against its axis.
    pub boundscheck: bool,
    /// `fastmath=True`: float reductions may be reassociated.
    pub fastmath: bool,
    /// `error_model='numpy'`: a zero divisor gives inf, NaN or 0 instead of raising.
    pub numpy_errors: bool,
    /// Functions made for parallel loop bodies so far (their names are numbered).
    pub outlined: std::cell::Cell<usize>,
    /// Instruction-set settings, for functions made while lowering.
    pub call_conv: CallConv,
    pub _marker: std::marker::PhantomData<&'a ()>,
}

/// Where `break` and `continue` go in the innermost loop.
struct LoopExits {
    next: Block,
    exit: Block,
}

/// The state of lowering one function.
pub(crate) struct Lowering<'a, 'b> {
    pub(crate) b: FunctionBuilder<'b>,
    module: &'a mut Linker,
    program: &'a IrProgram,
    f: &'a IrFunction,
    /// The module's id of each function of the program.
    functions: &'a [FuncId],
    shared: &'a Shared<'a>,
    /// What the function being built returns (a loop body made into a function: nothing).
    ret: Ty,
    /// The call's context (its status word is where a raise is recorded).
    ctx: Value,
    locals: Vec<Slots>,
    temps: HashMap<Temp, Slots>,
    loops: Vec<LoopExits>,
    imports: HashMap<String, FuncRef>,
    callees: HashMap<usize, FuncRef>,
    /// The element an enclosing `Update` statement is changing, and its address.
    current: Option<(Val, Value)>,
    /// The address of each `Update`'s element, by its pointer temporary.
    pointers: HashMap<Temp, Value>,
    /// The Python line being lowered (for messages).
    pub(crate) line: u32,
    /// The binary operation being lowered divides by a constant other than zero.
    divisor_known: bool,
    /// The least value of loop counters and of the variables only they set (`j - 1` needs no
    /// wrap-around when `j` counts up from 1).
    least: Least,
    /// The parameters' values of each callee being inlined, innermost last (its expression
    /// reads them as its locals).
    inlined: Vec<Vec<Val>>,
}

impl<'a, 'b> Lowering<'a, 'b> {
    /// A lowering into `b` of a function returning `ret`, whose call context is `ctx`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        b: FunctionBuilder<'b>,
        module: &'a mut Linker,
        program: &'a IrProgram,
        f: &'a IrFunction,
        functions: &'a [FuncId],
        shared: &'a Shared<'a>,
        ret: Ty,
        ctx: Value,
    ) -> Self {
        Lowering {
            b,
            module,
            program,
            f,
            functions,
            shared,
            ret,
            ctx,
            locals: Vec::new(),
            temps: HashMap::new(),
            loops: Vec::new(),
            imports: HashMap::new(),
            callees: HashMap::new(),
            current: None,
            pointers: HashMap::new(),
            line: 0,
            divisor_known: false,
            inlined: Vec::new(),
            least: Least::of(f),
        }
    }

    /// Lowers `f` into the builder's function.
    pub(crate) fn function(
        b: FunctionBuilder<'b>,
        module: &'a mut Linker,
        program: &'a IrProgram,
        f: &'a IrFunction,
        functions: &'a [FuncId],
        shared: &'a Shared<'a>,
    ) -> Result<(), (u32, String)> {
        let mut b = b;
        let params = entry_block(&mut b);
        let mut l = Lowering::new(
            b,
            module,
            program,
            f,
            functions,
            shared,
            f.ret.clone(),
            params[0],
        );
        l.body(&params[1..]).map_err(|e| (l.line, e))?;
        l.b.seal_all_blocks();
        let config = l.module.isa().frontend_config();
        l.b.finalize(config);
        Ok(())
    }

    fn body(&mut self, params: &[Value]) -> Result<(), String> {
        for local in &self.f.locals {
            let slots = Slots::declare(&mut self.b, &local.ty)?;
            self.locals.push(slots);
        }
        let mut values = params.iter().copied();
        for p in &self.f.params {
            let arg = Val::assemble(&p.ty, &mut values)?;
            let want = self.f.locals[p.local.0].ty.clone();
            let arg = self.convert(arg, &p.ty, &want)?;
            self.locals[p.local.0].set(&mut self.b, &arg)?;
        }
        let f = self.f;
        self.block(&f.body)?;
        // Falling off the end returns None (typing made the result type agree).
        self.return_zero()
    }

    /// Returns zero of the result type (after a raise, or at the end of a function).
    fn return_zero(&mut self) -> Result<(), String> {
        let zero = Val::zero(&mut self.b, &self.ret)?;
        let mut values = Vec::new();
        zero.flatten(&mut values);
        self.b.ins().return_(&values);
        self.dead();
        Ok(())
    }

    /// After a terminator: later code goes into a block nothing reaches.
    fn dead(&mut self) {
        let block = self.b.create_block();
        self.enter(block);
    }

    /// Continues in `block`, every branch to which is made already: sealed now, so reading a
    /// variable there finds its one definition instead of adding a block parameter (which
    /// would keep loop-invariant code from leaving loops).
    pub(crate) fn enter(&mut self, block: cranelift_codegen::ir::Block) {
        self.b.switch_to_block(block);
        self.b.seal_block(block);
    }

    /// Records `fault` in the context and returns.
    pub(crate) fn raise(&mut self, fault: Fault) -> Result<(), String> {
        let code = self.b.ins().iconst(types::I64, fault.code());
        self.b
            .ins()
            .store(MemFlagsData::trusted(), code, self.ctx, STATUS_OFFSET);
        self.return_zero()
    }

    /// Raises `fault`, its message naming `details` (int64s), unless `cond` (a bool) holds.
    pub(crate) fn require(
        &mut self,
        cond: Value,
        fault: Fault,
        details: &[Value],
    ) -> Result<(), String> {
        let (fail, ok) = (self.b.create_block(), self.b.create_block());
        self.b.set_cold_block(fail);
        self.b.ins().brif(cond, ok, &[], fail, &[]);
        self.enter(fail);
        for (k, d) in details.iter().take(2).enumerate() {
            let offset = crate::abi::DETAIL_OFFSET + 8 * k as i32;
            self.b
                .ins()
                .store(MemFlagsData::trusted(), *d, self.ctx, offset);
        }
        self.raise(fault)?;
        self.enter(ok);
        Ok(())
    }

    /// Raises `fault` when `cond` (a bool) holds; goes on otherwise.
    pub(crate) fn raise_if(&mut self, cond: Value, fault: Fault) -> Result<(), String> {
        let (fail, ok) = (self.b.create_block(), self.b.create_block());
        self.b.set_cold_block(fail);
        self.b.ins().brif(cond, fail, &[], ok, &[]);
        self.enter(fail);
        self.raise(fault)?;
        self.enter(ok);
        Ok(())
    }

    /// C's math library function `name` for machine type `t`, imported once.
    pub(crate) fn libm(
        &mut self,
        name: &str,
        arity: usize,
        t: types::Type,
    ) -> Result<FuncRef, String> {
        let symbol = crate::runtime::libm_name(name, t == types::F32);
        let mut sig = self.module.make_signature();
        sig.params
            .extend(std::iter::repeat_n(AbiParam::new(t), arity));
        sig.returns.push(AbiParam::new(t));
        self.import(&symbol, sig)
    }

    /// A function of the process (`symbol`), imported once.
    pub(crate) fn import(&mut self, symbol: &str, sig: Signature) -> Result<FuncRef, String> {
        if let Some(f) = self.imports.get(symbol) {
            return Ok(*f);
        }
        if !crate::runtime::resolves(symbol) {
            return Err(format!(
                "{symbol}() is missing from this process's C library, so it cannot be compiled for the CPU"
            ));
        }
        let id = self
            .module
            .declare_function(symbol, Linkage::Import, &sig)
            .map_err(|e| format!("importing {symbol}: {e}"))?;
        let f = self.module.declare_func_in_func(id, self.b.func);
        self.imports.insert(symbol.to_string(), f);
        Ok(f)
    }

    /// Calls function `k` of the program; a raise inside it returns from this one too.
    pub(crate) fn call(&mut self, k: usize, args: &[Val]) -> Result<Val, String> {
        if let Some(e) = inlinable(&self.program.functions[k], k) {
            // `return <expression of the parameters>`: computed here, as LLVM would inline it
            // (a ufunc's function called per element costs more than it computes otherwise).
            let callee = &self.program.functions[k];
            let mut frame = Vec::with_capacity(args.len());
            for (p, a) in callee.params.iter().zip(args) {
                let local = &callee.locals[p.local.0].ty;
                frame.push(self.convert(a.clone(), &p.ty, local)?);
            }
            self.inlined.push(frame);
            let v = self.expr(e);
            self.inlined.pop();
            return v;
        }
        let f = match self.callees.get(&k) {
            Some(f) => *f,
            None => {
                let f = self
                    .module
                    .declare_func_in_func(self.functions[k], self.b.func);
                self.callees.insert(k, f);
                f
            }
        };
        let mut values = vec![self.ctx];
        for a in args {
            a.flatten(&mut values);
        }
        let call = self.b.ins().call(f, &values);
        let results: Vec<Value> = self.b.inst_results(call).to_vec();
        self.return_if_raised()?;
        let ret = &self.program.functions[k].ret;
        Val::assemble(ret, &mut results.into_iter())
    }

    /// Returns when the context says something raised (after a call that may raise).
    pub(crate) fn return_if_raised(&mut self) -> Result<(), String> {
        let status =
            self.b
                .ins()
                .load(types::I64, MemFlagsData::trusted(), self.ctx, STATUS_OFFSET);
        let (raised, ok) = (self.b.create_block(), self.b.create_block());
        self.b.set_cold_block(raised);
        self.b.ins().brif(status, raised, &[], ok, &[]);
        self.enter(raised);
        self.return_zero()?;
        self.enter(ok);
        Ok(())
    }

    /// The value of variable slots for a temporary.
    fn temp_slots(&mut self, t: Temp, ty: &Ty) -> Result<Slots, String> {
        if let Some(s) = self.temps.get(&t) {
            return Ok(s.clone());
        }
        let s = Slots::declare(&mut self.b, ty)?;
        self.temps.insert(t, s.clone());
        Ok(s)
    }
}

/// The expression function `f` (number `k`) returns, when its body is only `return <expression>`
/// of its parameters: no temporaries, no assignments, no call of itself.
pub(crate) fn inlinable(f: &IrFunction, k: usize) -> Option<&Expr> {
    let mut body = f.body.iter().filter(|s| !matches!(s, Stmt::Line(_)));
    let (Some(Stmt::Return(Some(e))), None) = (body.next(), body.next()) else {
        return None;
    };
    let plain = e.descendants().iter().all(|x| match &x.kind {
        K::Local(id) => id.0 < f.params.len(),
        K::Temp(_) | K::Current => false,
        K::Call(callee, _) => *callee != k,
        _ => true,
    });
    plain.then_some(e)
}

/// The function's first block, entered and sealed: its parameters.
pub(crate) fn entry_block(b: &mut FunctionBuilder) -> Vec<Value> {
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    b.seal_block(entry);
    b.block_params(entry).to_vec()
}

/// What is known of the least value of `range` loops' counters counting up from a constant,
/// and of the variables set only from such counters.
#[derive(Default)]
pub(crate) struct Least {
    pub(crate) counters: HashMap<Temp, i64>,
    pub(crate) locals: HashMap<usize, i64>,
}

impl Least {
    fn of(f: &IrFunction) -> Least {
        let all = ember_jit::ir::statements(&f.body);
        let mut least = Least::default();
        for s in &all {
            if let Stmt::For {
                index, start, step, ..
            } = s
            {
                let upward = matches!(step, ember_jit::ir::Step::One)
                    || matches!(step, ember_jit::ir::Step::Const(k) if *k > 0);
                if let (true, K::Const(ember_jit::ir::Const::Int(v))) = (upward, &start.kind) {
                    least.counters.insert(*index, *v);
                }
            }
        }
        // A variable (not a parameter) every assignment of which is a counter's value.
        let mut locals: HashMap<usize, Option<i64>> = HashMap::new();
        for s in &all {
            if let Stmt::Assign { local, value } = s {
                let from = match &value.kind {
                    K::Temp(t) => least.counters.get(t).copied(),
                    _ => None,
                };
                let entry = locals.entry(local.0).or_insert(from);
                *entry = match (*entry, from) {
                    (Some(a), Some(b)) => Some(a.min(b)),
                    _ => None,
                };
            }
        }
        least.locals = locals
            .into_iter()
            .filter(|(k, _)| *k >= f.params.len())
            .filter_map(|(k, v)| v.map(|v| (k, v)))
            .collect();
        least
    }
}
