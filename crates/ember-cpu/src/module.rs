//! A compiled specialisation: its functions as machine code in a module of their own, and
//! the entry Python calls.

use cranelift_codegen::ir::{types, AbiParam, InstBuilder, MemFlagsData, UserFuncName};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::JITModule;
use cranelift_module::{FuncId, Linkage};
use ember_core::{Error, Result};
use ember_jit::ir::IrProgram;
use ember_jit::{Program, Ty};

use crate::abi::{leaves, CallContext, Leaf};
use crate::image::{jit_error, Linker};
use crate::lower::{signature, Lowering, Shared};
use crate::values::leaf_type;

/// How a function is compiled (Numba's options that change the code).
#[derive(Clone, Copy, Debug, Default)]
pub struct Options {
    /// `parallel=True`: `prange` loops share their iterations among threads.
    pub parallel: bool,
    /// `boundscheck=True`: an index outside its axis raises IndexError.
    pub boundscheck: bool,
    /// `fastmath=True`: float sums and products in loops may be reassociated (vector lanes).
    pub fastmath: bool,
    /// `error_model='numpy'` (Numba's for ufuncs): `/`, `//` and `%` by zero give NumPy's
    /// inf, NaN or 0 instead of raising ZeroDivisionError.
    pub numpy_errors: bool,
}

/// The entry's machine signature: `entry(context, arguments, results)`.
type Entry = unsafe extern "C" fn(*mut CallContext, *const u64, *mut u64);

/// One specialisation compiled to machine code.
pub struct NativeFunction {
    /// Owns the code (freed on drop).
    module: Option<JITModule>,
    entry: Entry,
    /// Words of the argument and result blocks.
    pub arg_words: usize,
    pub result_words: usize,
    /// The argument and result types.
    pub args: Vec<Ty>,
    pub ret: Ty,
    /// It loops or calls (so a call may take long): run it without the GIL. Straight-line
    /// code takes nanoseconds, less than releasing the GIL costs (0.2 µs, measured).
    pub may_run_long: bool,
}

// The code is immutable once finalised; calls share nothing but their own blocks.
unsafe impl Send for NativeFunction {}
unsafe impl Sync for NativeFunction {}

impl Drop for NativeFunction {
    fn drop(&mut self) {
        if let Some(m) = self.module.take() {
            // Nothing can call the code any more: the entry pointer goes with `self`.
            unsafe { m.free_memory() };
        }
    }
}

impl NativeFunction {
    /// Calls the function: `args` holds [`Self::arg_words`] words laid out as
    /// [`crate::abi`] says, `results` receives [`Self::result_words`]; `ctx` (with the arena
    /// arrays made during the call come from) says afterwards whether it raised.
    ///
    /// # Safety
    /// Every array leaf of `args` must describe memory valid for the elements its shape and
    /// strides reach, for reading (and for writing where the function writes).
    pub unsafe fn call(&self, ctx: &mut CallContext, args: &[u64], results: &mut [u64]) {
        if args.len() < self.arg_words || results.len() < self.result_words {
            ctx.status = i64::MIN;
            return;
        }
        (self.entry)(ctx, args.as_ptr(), results.as_mut_ptr());
    }
}

/// Compiles `program` (typed for the host), with function `entry` as what Python calls.
/// A construct the back end cannot lower is an error naming the function and its line.
pub fn compile(
    tree: &Program,
    program: &IrProgram,
    entry: usize,
    options: &Options,
) -> Result<NativeFunction> {
    Ok(build(tree, program, entry, options, false)?.0)
}

/// [`compile`], with the compiled code as bytes for the disk cache (`None` when this code
/// cannot be kept); [`load`] makes the function from them in another process.
pub fn compile_keeping(
    tree: &Program,
    program: &IrProgram,
    entry: usize,
    options: &Options,
) -> Result<(NativeFunction, Option<Vec<u8>>)> {
    build(tree, program, entry, options, true)
}

/// The function `entry` of `program` from `image`, bytes [`compile_keeping`] made for the
/// same program in this build of ember on this processor (the cache key says so: see
/// [`crate::code_identity`]). `None` when they are not such bytes: compile instead.
pub fn load(image: &[u8], program: &IrProgram, entry: usize) -> Result<Option<NativeFunction>> {
    let Some((module, code)) = Linker::load(image) else {
        return Ok(None);
    };
    NativeFunction::new(module, code, program, entry).map(Some)
}

fn build(
    tree: &Program,
    program: &IrProgram,
    entry: usize,
    options: &Options,
    keep: bool,
) -> Result<(NativeFunction, Option<Vec<u8>>)> {
    let mut module = Linker::new(keep)?;
    let call_conv = module.isa().default_call_conv();
    let shared = Shared {
        parallel: options.parallel,
        boundscheck: options.boundscheck,
        fastmath: options.fastmath,
        numpy_errors: options.numpy_errors,
        outlined: std::cell::Cell::new(0),
        call_conv,
        _marker: std::marker::PhantomData,
    };
    let mut ids: Vec<FuncId> = Vec::new();
    for (k, f) in program.functions.iter().enumerate() {
        let sig = signature(f, call_conv).map_err(|e| unsupported(tree, f, 0, &e))?;
        let id = module
            .declare_function(&format!("f{k}_{}", f.name), Linkage::Local, &sig)
            .map_err(|e| jit_error("to declare a function", e))?;
        ids.push(id);
    }
    let mut ctx = module.make_context();
    let mut fctx = FunctionBuilderContext::new();
    for (k, f) in program.functions.iter().enumerate() {
        ctx.func.signature = signature(f, call_conv).map_err(|e| unsupported(tree, f, 0, &e))?;
        ctx.func.name = UserFuncName::user(0, k as u32);
        let builder = FunctionBuilder::new(&mut ctx.func, &mut fctx);
        Lowering::function(builder, &mut module, program, f, &ids, &shared)
            .map_err(|(line, e)| unsupported(tree, f, line, &e))?;
        let show = std::env::var_os("EMBER_CPU_ASM").is_some();
        ctx.set_disasm(show);
        module
            .define_function(ids[k], &mut ctx)
            .map_err(|e| match *e {
                // The verifier's own list names the instruction at fault.
                cranelift_module::ModuleError::Compilation(
                    cranelift_codegen::CodegenError::Verifier(errors),
                ) => jit_error(&format!("to compile {}", f.name), errors),
                e => jit_error(&format!("to compile {}", f.name), e),
            })?;
        if let Some(code) = ctx.compiled_code().filter(|_| show) {
            // EMBER_CPU_ASM=1: each function's machine code, for reading what the compiler made.
            let vcode = code.vcode.as_deref().unwrap_or("");
            eprintln!("; {} ({})\n{vcode}", f.name, f.file);
        }
        module.clear_context(&mut ctx);
    }
    let main = program
        .functions
        .get(entry)
        .ok_or_else(|| Error::Jit("the entry function is missing from the program".into()))?;
    let arg_types: Vec<Ty> = main.params.iter().map(|p| p.ty.clone()).collect();
    let entry_id = define_entry(
        &mut module,
        &mut ctx,
        &mut fctx,
        ids[entry],
        &arg_types,
        &main.ret,
    )?;
    let (module, code, image) = module.finish(entry_id)?;
    Ok((NativeFunction::new(module, code, program, entry)?, image))
}

impl NativeFunction {
    /// The function whose entry is at `code` in `module`, compiled from function `entry` of
    /// `program`.
    fn new(
        module: JITModule,
        code: *const u8,
        program: &IrProgram,
        entry: usize,
    ) -> Result<NativeFunction> {
        let main = program
            .functions
            .get(entry)
            .ok_or_else(|| Error::Jit("the entry function is missing from the program".into()))?;
        let arg_types: Vec<Ty> = main.params.iter().map(|p| p.ty.clone()).collect();
        let word_count = |tys: &[Ty]| -> Result<usize> {
            let mut n = 0;
            for t in tys {
                n += leaves(t).map_err(Error::Jit)?.len();
            }
            Ok(n)
        };
        Ok(NativeFunction {
            entry: unsafe { std::mem::transmute::<*const u8, Entry>(code) },
            module: Some(module),
            arg_words: word_count(&arg_types)?,
            result_words: word_count(std::slice::from_ref(&main.ret))?,
            args: arg_types,
            ret: main.ret.clone(),
            may_run_long: may_run_long(program),
        })
    }
}

/// Whether any function of `program` has a loop or a call.
fn may_run_long(program: &IrProgram) -> bool {
    use ember_jit::ir::{expressions, statements, ExprKind, Stmt};
    program.functions.iter().any(|f| {
        statements(&f.body)
            .iter()
            .any(|s| matches!(s, Stmt::For { .. } | Stmt::While { .. }))
            || expressions(&f.body)
                .iter()
                .any(|e| matches!(e.kind, ExprKind::Call(..)))
    })
}

/// The entry: reads the argument block into machine arguments, calls the function, writes
/// its result's leaves into the result block.
fn define_entry(
    module: &mut Linker,
    ctx: &mut cranelift_codegen::Context,
    fctx: &mut FunctionBuilderContext,
    target: FuncId,
    args: &[Ty],
    ret: &Ty,
) -> Result<FuncId> {
    let mut sig = module.make_signature();
    sig.params.extend([AbiParam::new(types::I64); 3]);
    let id = module
        .declare_function("entry", Linkage::Export, &sig)
        .map_err(|e| jit_error("to declare the entry", e))?;
    ctx.func.signature = sig;
    ctx.func.name = UserFuncName::user(1, 0);
    {
        let mut b = FunctionBuilder::new(&mut ctx.func, fctx);
        let block = b.create_block();
        b.append_block_params_for_function_params(block);
        b.switch_to_block(block);
        let [call_ctx, arg_block, result_block] = b.block_params(block) else {
            return Err(Error::Jit("the entry has the wrong parameters".into()));
        };
        let (call_ctx, arg_block, result_block) = (*call_ctx, *arg_block, *result_block);
        let flags = MemFlagsData::trusted();
        let mut values = vec![call_ctx];
        let mut word = 0i32;
        for t in args {
            for leaf in leaves(t).map_err(Error::Jit)? {
                values.push(b.ins().load(leaf_type(leaf), flags, arg_block, word * 8));
                word += 1;
            }
        }
        let callee = module.declare_func_in_func(target, b.func);
        let call = b.ins().call(callee, &values);
        let results: Vec<_> = b.inst_results(call).to_vec();
        let ret_leaves: Vec<Leaf> = leaves(ret).map_err(Error::Jit)?;
        for (k, (v, leaf)) in results.into_iter().zip(ret_leaves).enumerate() {
            // Narrow numbers are widened to the whole word so the block reads cleanly.
            let t = leaf_type(leaf);
            let v = if t.is_int() && t.bits() < 64 {
                match leaf {
                    Leaf::Number(d) if d.kind() == ember_core::dtype::Kind::Int => {
                        b.ins().sextend(types::I64, v)
                    }
                    _ => b.ins().uextend(types::I64, v),
                }
            } else {
                v
            };
            b.ins().store(flags, v, result_block, (k * 8) as i32);
        }
        b.ins().return_(&[]);
        b.seal_all_blocks();
        b.finalize(module.isa().frontend_config());
    }
    module
        .define_function(id, ctx)
        .map_err(|e| jit_error("to compile the entry", e))?;
    module.clear_context(ctx);
    Ok(id)
}

/// A construct of `f` the CPU back end cannot compile, at `line` of its file: the same
/// `JitError` typing gives (`file:line: in function 'f': ...`, then the line).
fn unsupported(tree: &Program, f: &ember_jit::ir::IrFunction, line: u32, what: &str) -> Error {
    let Some(function) = tree
        .functions
        .iter()
        .find(|g| g.name == f.name && g.file == f.file)
    else {
        return Error::Jit(format!("in function '{}' ({}): {what}", f.name, f.file));
    };
    let line = if line > 0 { line } else { function.span.line };
    let span = ember_jit::ast::Span {
        line,
        col: 0,
        end_line: line,
        end_col: u32::MAX,
    };
    ember_jit::locate(function, "function", span, what)
}
