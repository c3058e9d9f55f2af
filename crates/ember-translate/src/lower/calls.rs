//! Calls: the program's own functions (one instance per memory of their pointer arguments and
//! per template argument), CUDA's builtins (the table of `builtins`), atomics, and the calls
//! whose translation depends on the argument types (`min`, `max`, `abs`, `make_float4`, `__ldg`,
//! `printf`).

use std::collections::HashMap;

use crate::ast::{Expr, ExprKind as K, Scalar, Space, Type};
use crate::error::{Result, TranslateError};

use super::builtins::{self, return_type};
use super::expr::{arithmetic, decayed, V};
use super::function::FnCx;
use super::layout;
use super::subst::{deduce, resolve};

impl FnCx<'_, '_> {
    pub(crate) fn call(
        &mut self,
        callee: &Expr,
        targs: &[Type],
        args: &[Expr],
        line: u32,
    ) -> Result<V> {
        let K::Ident(name) = &callee.kind else {
            return Err(TranslateError::new(
                line,
                "only calls of functions by name are translated (no methods, no function pointers)",
            ));
        };
        if self.prog.functions.iter().any(|f| f.name == *name) {
            return self.user_call(name, targs, args, line);
        }
        if self.child && name.starts_with("__syncthreads") {
            return Err(super::function::child_waits(line, name));
        }
        let values = args
            .iter()
            .map(|a| self.expr(a))
            .collect::<Result<Vec<_>>>()?;
        if let Some(v) = self.atomic(name, &values, line)? {
            return Ok(v);
        }
        if let Some(v) = self.typed_builtin(name, &values, line)? {
            return Ok(v);
        }
        let Some(found) = builtins::lookup(name) else {
            return Err(TranslateError::new(line, unsupported(name)));
        };
        if values.len() != found.arity {
            return Err(TranslateError::new(
                line,
                format!(
                    "{name} takes {} argument(s), got {}",
                    found.arity,
                    values.len()
                ),
            ));
        }
        let mut text = found.text.clone();
        for (k, v) in values.iter().enumerate().rev() {
            text = text.replace(&format!("${k}"), &v.code);
        }
        self.builtin_helpers(&found.text, "");
        let ty = return_type(found.ret, values.first().map(decayed).as_ref());
        self.prog.note_type(&ty);
        Ok(V::rvalue(text, ty))
    }

    /// Adds the helper functions `text` calls (and first those they call), each once;
    /// `caller` is the helper whose text it is (its own name in it is not a call).
    pub(crate) fn builtin_helpers(&mut self, text: &str, caller: &str) {
        for (name, body) in builtins::HELPERS.iter().chain(super::half::HELPERS) {
            if *name != caller && text.contains(&format!("{name}(")) {
                self.builtin_helpers(body, name);
                self.prog.helper(name, || body.to_string());
            }
        }
    }

    /// Builtins whose OpenCL form depends on their arguments' types.
    fn typed_builtin(&mut self, name: &str, args: &[V], line: u32) -> Result<Option<V>> {
        let count = |n: usize| -> Result<()> {
            if args.len() == n {
                Ok(())
            } else {
                Err(TranslateError::new(
                    line,
                    format!("{name} takes {n} argument(s), got {}", args.len()),
                ))
            }
        };
        Ok(Some(match name {
            "min" | "max" => {
                count(2)?;
                let (a, b) = (decayed(&args[0]), decayed(&args[1]));
                let t = match (a.scalar(), b.scalar()) {
                    (Some(x), Some(y)) => arithmetic(x, y),
                    _ => {
                        return Err(TranslateError::new(
                            line,
                            format!("{name} of operands that are not numbers"),
                        ))
                    }
                };
                let f = if t.is_float() {
                    format!("f{name}")
                } else {
                    name.to_string()
                };
                let c = t.opencl();
                V::rvalue(
                    format!("{f}(({c})({}), ({c})({}))", args[0].code, args[1].code),
                    Type::Scalar(t),
                )
            }
            "abs" => {
                count(1)?;
                let t = decayed(&args[0])
                    .scalar()
                    .map(|s| arithmetic(s, Scalar::Bool))
                    .unwrap_or(Scalar::Int);
                let code = if t.is_float() {
                    format!("fabs({})", args[0].code)
                } else {
                    // OpenCL's abs returns the unsigned type; CUDA's keeps the signed one.
                    format!("(({})abs(({})({})))", t.opencl(), t.opencl(), args[0].code)
                };
                V::rvalue(code, Type::Scalar(t))
            }
            "__ldg" | "__ldca" | "__ldcg" | "__ldcs" | "__ldlu" | "__ldcv" => {
                count(1)?;
                match decayed(&args[0]) {
                    Type::Pointer(p) => V::rvalue(format!("(*({}))", args[0].code), p.ty),
                    _ => return Err(TranslateError::new(line, format!("{name} takes a pointer"))),
                }
            }
            "__stwb" | "__stcg" | "__stcs" | "__stwt" => {
                count(2)?;
                V::rvalue(
                    format!("(*({}) = {})", args[0].code, args[1].code),
                    Type::Void,
                )
            }
            "printf" => {
                if args.is_empty() {
                    return Err(TranslateError::new(line, "printf takes a format string"));
                }
                let format = args[0].code.replace("%ll", "%l").replace("%z", "%l");
                let rest: Vec<&str> = args[1..].iter().map(|a| a.code.as_str()).collect();
                let mut all = vec![format.as_str()];
                all.extend(rest);
                V::rvalue(
                    format!("printf({})", all.join(", ")),
                    Type::Scalar(Scalar::Int),
                )
            }
            // The device runtime's calls around a child launch: the child grid has run when
            // the launch returns (see `launch`), and it cannot fail to start.
            "cudaDeviceSynchronize" | "cudaGetLastError" | "cudaPeekAtLastError" => {
                count(0)?;
                V::rvalue("0".into(), Type::Scalar(Scalar::Int))
            }
            "dim3" => {
                if args.is_empty() || args.len() > 3 {
                    return Err(TranslateError::new(line, "dim3 takes 1 to 3 sizes"));
                }
                let ty = Type::Vector(Scalar::UInt, 3);
                self.prog.note_type(&ty);
                let mut parts: Vec<String> =
                    args.iter().map(|a| format!("(uint)({})", a.code)).collect();
                parts.resize(3, "1U".into());
                V::rvalue(format!("make_ember_uint3({})", parts.join(", ")), ty)
            }
            _ if name.starts_with("make_") => return self.make_vector(name, args, line),
            _ => return Ok(None),
        }))
    }

    /// `make_float4(a, b, c, d)` and friends.
    fn make_vector(&mut self, name: &str, args: &[V], line: u32) -> Result<Option<V>> {
        let Some(Type::Vector(s, n)) = crate::parse::builtin_type(&name["make_".len()..]) else {
            return Ok(None);
        };
        if args.len() != n as usize {
            return Err(TranslateError::new(
                line,
                format!("{name} takes {n} arguments, got {}", args.len()),
            ));
        }
        let ty = Type::Vector(s, n);
        self.prog.note_type(&ty);
        let c = s.opencl();
        let parts: Vec<String> = args
            .iter()
            .map(|a| {
                if s == Scalar::Half {
                    self.converted_to(&a.code, &decayed(a), &Type::Scalar(s))
                } else {
                    format!("({c})({})", a.code)
                }
            })
            .collect();
        let code = if layout::vector_is_struct(n) {
            format!("make_{}({})", layout::vector_name(s, n), parts.join(", "))
        } else {
            format!("(({})({}))", layout::vector_name(s, n), parts.join(", "))
        };
        Ok(Some(V::rvalue(code, ty)))
    }

    /// A call of a function of the program.
    fn user_call(&mut self, name: &str, targs: &[Type], args: &[Expr], line: u32) -> Result<V> {
        let mut values = args
            .iter()
            .map(|a| self.expr(a))
            .collect::<Result<Vec<_>>>()?;
        let targs: Vec<Type> = targs.iter().map(|t| resolve(t, &self.subst)).collect();
        let candidates: Vec<usize> = (0..self.prog.functions.len())
            .filter(|&i| {
                let f = self.prog.functions[i];
                f.name == name
                    && f.specialization.is_empty()
                    && f.params.len() >= values.len()
                    && f.params[values.len()..].iter().all(|p| p.default.is_some())
                    && targs.len() <= f.template.len()
            })
            .collect();
        let index = *candidates
            .iter()
            .max_by_key(|&&i| {
                let f = self.prog.functions[i];
                f.params
                    .iter()
                    .zip(&values)
                    .filter(|(p, v)| p.ty == decayed(v))
                    .count()
            })
            .ok_or_else(|| {
                TranslateError::new(
                    line,
                    format!("no function {name} takes {} argument(s)", values.len()),
                )
            })?;
        let f = self.prog.functions[index];
        for p in &f.params[values.len()..] {
            if let Some(default) = &p.default {
                values.push(self.expr(default)?);
            }
        }
        if f.kind == crate::ast::FnKind::Kernel {
            return Err(TranslateError::new(
                line,
                format!("kernel {name} is called like a function; launch it with <<<...>>>"),
            ));
        }
        let mut map: HashMap<String, Type> = f
            .template
            .iter()
            .cloned()
            .zip(targs.iter().cloned())
            .collect();
        for (p, v) in f.params.iter().zip(&values) {
            deduce(&p.ty, &decayed(v), &mut map);
        }
        if let Some(missing) = f.template.iter().find(|t| !map.contains_key(*t)) {
            return Err(TranslateError::new(line, format!("the template argument {missing} of {name} is not known from this call: name it ({name}<float>(...))")));
        }
        let mut targs: Vec<Type> = f.template.iter().map(|t| map[t].clone()).collect();
        // An explicit specialization for these arguments replaces the template's instance.
        let mut index = index;
        let mut f = f;
        if let Some(i) = (0..self.prog.functions.len()).find(|&i| {
            let g = self.prog.functions[i];
            g.name == name && !g.specialization.is_empty() && g.specialization == targs
        }) {
            index = i;
            f = self.prog.functions[i];
            targs = Vec::new();
        }
        let mut spaces = Vec::new();
        let mut codes = Vec::new();
        for (p, v) in f.params.iter().zip(&values) {
            match &p.ty {
                Type::Ref(_) => {
                    if !v.lvalue {
                        return Err(TranslateError::new(line, format!("argument {} of {name} is a reference to a value that has no address", p.name)));
                    }
                    spaces.push(v.space);
                    if let Type::Ref(r) = &p.ty {
                        levels(&r.ty, &v.ty, &mut spaces);
                    }
                    codes.push(format!("&{}", v.code));
                }
                Type::Pointer(_) => {
                    levels(&p.ty, &decayed(v), &mut spaces);
                    codes.push(v.code.clone());
                }
                ty => {
                    // A half parameter takes its argument rounded to half.
                    let code = self.converted_to(&v.code, &decayed(v), &resolve(ty, &map));
                    codes.push(code);
                }
            }
        }
        // What the callee reaches (shared arrays, host-filled constants), passed down by name.
        if let Some(r) = self.prog.reached.get(name) {
            codes.extend(r.shared.iter().map(|a| a.param()));
            codes.extend(r.constants.iter().map(|c| super::names::user(c)));
        }
        let mut ret = resolve(&f.ret, &map);
        if let Type::Pointer(r) = &mut ret {
            r.space = returned_space(f, &spaces, line)?;
        }
        self.prog.note_type(&ret);
        let callee = if self.learning {
            name.to_string()
        } else {
            self.prog.instantiate(index, spaces, targs)?
        };
        Ok(V::rvalue(format!("{callee}({})", codes.join(", ")), ret))
    }
}

impl FnCx<'_, '_> {
    /// `kernel<<<grid, block, shared, stream>>>(args)` in a kernel: the child grid runs in the
    /// launching thread, block after block and thread after thread (see `function::launcher`).
    pub(crate) fn launch(
        &mut self,
        kernel: &str,
        config: &[Expr],
        args: &[Expr],
        line: u32,
    ) -> Result<V> {
        let index = (0..self.prog.functions.len())
            .find(|&i| {
                let f = self.prog.functions[i];
                f.name == kernel && f.kind == crate::ast::FnKind::Kernel && f.template.is_empty()
            })
            .ok_or_else(|| TranslateError::new(line, format!("{kernel} is launched with <<<...>>> but is not a __global__ function of this source")))?;
        if !(2..=4).contains(&config.len()) {
            return Err(TranslateError::new(
                line,
                format!("a launch of {kernel} takes <<<grid, block[, shared memory[, stream]]>>>"),
            ));
        }
        let mut sizes = Vec::new();
        for c in &config[..2] {
            let v = self.expr(c)?;
            match decayed(&v) {
                Type::Vector(Scalar::UInt, 3) => {
                    sizes.extend(["x", "y", "z"].map(|d| format!("({}).{d}", v.code)))
                }
                t if t.is_integer() => {
                    sizes.extend([format!("(uint)({})", v.code), "1U".into(), "1U".into()])
                }
                _ => {
                    return Err(TranslateError::new(
                        line,
                        format!("the grid and block of a launch of {kernel} are numbers or dim3"),
                    ))
                }
            }
        }
        for c in &config[2..] {
            self.expr(c)?; // shared memory and stream: evaluated, nothing to pass
        }
        let f = self.prog.functions[index];
        if f.params.len() != args.len() {
            return Err(TranslateError::new(
                line,
                format!(
                    "kernel {kernel} takes {} argument(s), got {}",
                    f.params.len(),
                    args.len()
                ),
            ));
        }
        let values = args
            .iter()
            .map(|a| self.expr(a))
            .collect::<Result<Vec<_>>>()?;
        let mut spaces = Vec::new();
        for (p, v) in f.params.iter().zip(&values) {
            if matches!(p.ty, Type::Pointer(_)) {
                spaces.push(match decayed(v) {
                    Type::Pointer(q) if q.space != Space::Unknown => q.space,
                    _ => Space::Global,
                });
            }
        }
        let thread = if self.learning {
            kernel.to_string()
        } else {
            self.prog.instantiate_child(index, spaces, Vec::new())?
        };
        let mut all = sizes;
        all.extend(values.into_iter().map(|v| v.code));
        if let Some(r) = self.prog.reached.get(kernel) {
            all.extend(r.constants.iter().map(|c| super::names::user(c)));
        }
        Ok(V::rvalue(
            format!("{thread}_grid({})", all.join(", ")),
            Type::Void,
        ))
    }
}

/// The memories of a pointer argument for a pointer parameter `param`, one per level of
/// pointer the parameter has (outermost first; private where the argument's is unknown).
fn levels(param: &Type, arg: &Type, spaces: &mut Vec<Space>) {
    if let Type::Pointer(p) = param {
        let (space, inner) = match arg {
            Type::Pointer(q) if q.space != Space::Unknown => (q.space, q.ty.clone()),
            Type::Pointer(q) => (Space::Private, q.ty.clone()),
            _ => (Space::Private, Type::Void),
        };
        spaces.push(space);
        levels(&p.ty, &inner, spaces);
    }
}

/// The memory a device function's returned pointer points into: that of its pointer arguments
/// (a function returns into what it was given: `return h + i;`), which must be one memory.
pub(crate) fn returned_space(
    f: &crate::ast::Function,
    spaces: &[Space],
    line: u32,
) -> Result<Space> {
    // `spaces` has one memory per level of each pointer or reference parameter, in order.
    let depth = |t: &Type| {
        let mut n = 0;
        let mut t = t;
        while let Type::Pointer(p) | Type::Ref(p) = t {
            n += 1;
            t = &p.ty;
        }
        n
    };
    let mut at = 0;
    let mut distinct = Vec::new();
    for p in &f.params {
        if matches!(p.ty, Type::Pointer(_)) {
            distinct.extend(spaces.get(at).copied());
        }
        at += depth(&p.ty);
    }
    distinct.sort_by_key(|s| s.tag());
    distinct.dedup();
    match distinct.as_slice() {
        [one] => Ok(*one),
        _ => Err(TranslateError::new(
            line,
            format!(
                "{} returns a pointer, and OpenCL C must know its memory: translated where the function's pointer arguments are all in one memory (here {})",
                f.name,
                if distinct.is_empty() { "it has none".to_string() } else { format!("{} memories", distinct.len()) }
            ),
        )),
    }
}

/// The message for a function neither the program nor the translator knows.
fn unsupported(name: &str) -> String {
    if name.starts_with("__shfl")
        || name.contains("_sync")
        || name == "__activemask"
        || name == "__syncwarp"
    {
        return format!("{name}: warp intrinsics are not translated to OpenCL yet");
    }
    if name.starts_with("curand") {
        return format!("{name}: cuRAND's device API is not translated to OpenCL");
    }
    if name.starts_with("__h") || name.contains("half") {
        return format!("{name}: not a half-precision intrinsic the translation knows (#include <cuda_fp16.h> for CUDA's)");
    }
    format!("unknown function {name}: neither the program nor CUDA's device library (as ember translates it) defines it")
}
