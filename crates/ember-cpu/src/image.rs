//! A compiled module kept as bytes for ember's disk cache (`cache=True`), and the linker that
//! makes modules, recording their image while it defines their functions.
//!
//! An image holds the names the module declared and each function's machine code with its
//! relocations left symbolic (a function of the module, a C library or ember routine by name).
//! Loading one links it into a new module, resolving those names in this process: addresses
//! move between processes, the code and its relocations do not.

use cranelift_codegen::binemit::Reloc;
use cranelift_codegen::ir::{self, LibCall, Signature};
use cranelift_codegen::isa::TargetIsa;
use cranelift_codegen::settings::{self, Configurable};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{FuncId, Linkage, Module, ModuleError, ModuleReloc, ModuleRelocTarget};
use ember_core::{Error, Result};

/// Where the encoding of an image starts; changes when the layout does.
const MAGIC: &[u8; 8] = b"EMBCPU1\n";

/// The relocations an image can keep (those Cranelift makes for this host's code), by their
/// position here. Code needing another is compiled each time instead of being kept.
const RELOCATIONS: [Reloc; 7] = [
    Reloc::Abs4,
    Reloc::Abs8,
    Reloc::X86PCRel4,
    Reloc::X86CallPCRel4,
    Reloc::X86CallPLTRel4,
    Reloc::Arm64Call,
    Reloc::Aarch64AdrPrelPgHi21,
];

/// One function's machine code.
struct Body {
    id: FuncId,
    align: u64,
    code: Vec<u8>,
    relocs: Vec<ModuleReloc>,
}

/// A module's functions as bytes.
#[derive(Default)]
pub(crate) struct Image {
    /// Every function the module declared, in the order of their ids.
    declared: Vec<(String, Linkage)>,
    bodies: Vec<Body>,
}

/// Makes a module: Cranelift's JIT module, and the image of what is defined in it when the
/// module is to be kept.
pub(crate) struct Linker {
    module: JITModule,
    image: Option<Image>,
}

/// An error of Cranelift's while it compiles or links: a bug of ember's, said so.
pub(crate) fn jit_error(what: &str, e: impl std::fmt::Display) -> Error {
    Error::Jit(format!(
        "the CPU code generator failed {what} (please report this): {e}"
    ))
}

/// The host processor's instruction set as Cranelift targets it.
fn host_isa() -> Result<std::sync::Arc<dyn TargetIsa>> {
    let mut flags = settings::builder();
    let set = |flags: &mut settings::Builder, k: &str, v: &str| {
        flags
            .set(k, v)
            .map_err(|e| jit_error("to configure Cranelift", e))
    };
    set(&mut flags, "opt_level", "speed")?;
    set(&mut flags, "use_colocated_libcalls", "false")?;
    set(&mut flags, "is_pic", "false")?;
    // Tuples of several leaves come back through a hidden return area.
    set(&mut flags, "enable_multi_ret_implicit_sret", "true")?;
    cranelift_native::builder()
        .map_err(|e| jit_error("to recognise this processor", e))?
        .finish(settings::Flags::new(flags))
        .map_err(|e| jit_error("to configure the processor", e))
}

/// What decides the machine code besides the function: this build of the compiler and the
/// processor's features. Part of every cache key of compiled CPU code.
pub fn code_identity() -> Result<String> {
    let isa = host_isa()?;
    let features: Vec<String> = isa.isa_flags().iter().map(|v| v.to_string()).collect();
    Ok(format!(
        "{} {} | {} | {}",
        env!("EMBER_CPU_SOURCE_HASH"),
        isa.triple(),
        isa.flags(),
        features.join(",")
    ))
}

impl Linker {
    /// A module for the host's processor, with ember's runtime routines in reach; `keep`
    /// records its image.
    pub(crate) fn new(keep: bool) -> Result<Linker> {
        let mut builder =
            JITBuilder::with_isa(host_isa()?, cranelift_module::default_libcall_names());
        for (name, address) in crate::runtime::symbols() {
            builder.symbol(name, address);
        }
        Ok(Linker {
            module: JITModule::new(builder),
            image: keep.then(Image::default),
        })
    }

    pub(crate) fn isa(&self) -> &dyn TargetIsa {
        self.module.isa()
    }

    pub(crate) fn make_signature(&self) -> Signature {
        self.module.make_signature()
    }

    pub(crate) fn make_context(&self) -> cranelift_codegen::Context {
        self.module.make_context()
    }

    pub(crate) fn clear_context(&self, ctx: &mut cranelift_codegen::Context) {
        self.module.clear_context(ctx)
    }

    pub(crate) fn declare_function(
        &mut self,
        name: &str,
        linkage: Linkage,
        sig: &Signature,
    ) -> std::result::Result<FuncId, Box<ModuleError>> {
        let id = self.module.declare_function(name, linkage, sig)?;
        if let Some(image) = &mut self.image {
            // A name declared again keeps its first id.
            if id.as_u32() as usize == image.declared.len() {
                image.declared.push((name.to_string(), linkage));
            }
        }
        Ok(id)
    }

    pub(crate) fn declare_func_in_func(
        &mut self,
        id: FuncId,
        func: &mut ir::Function,
    ) -> ir::FuncRef {
        self.module.declare_func_in_func(id, func)
    }

    /// Compiles the function in `ctx` as `id`.
    pub(crate) fn define_function(
        &mut self,
        id: FuncId,
        ctx: &mut cranelift_codegen::Context,
    ) -> std::result::Result<(), Box<ModuleError>> {
        self.module.define_function(id, ctx)?;
        if let (Some(image), Some(code)) = (&mut self.image, ctx.compiled_code()) {
            image.bodies.push(Body {
                id,
                align: code.buffer.alignment as u64,
                code: code.code_buffer().to_vec(),
                relocs: code
                    .buffer
                    .relocs()
                    .iter()
                    .map(|r| ModuleReloc::from_mach_reloc(r, &ctx.func, id))
                    .collect(),
            });
        }
        Ok(())
    }

    /// Links the module: the address of function `entry`, the module owning the code, and
    /// the image's bytes when it was kept and can be.
    pub(crate) fn finish(
        mut self,
        entry: FuncId,
    ) -> Result<(JITModule, *const u8, Option<Vec<u8>>)> {
        self.module
            .finalize_definitions()
            .map_err(|e| jit_error("to finalise the code", e))?;
        let code = self.module.get_finalized_function(entry);
        let bytes = self.image.and_then(|image| image.encode(entry));
        Ok((self.module, code, bytes))
    }

    /// Links an image made by [`Linker::finish`] in this build on this processor: the
    /// module and its entry's address. `None` when the bytes are not such an image or name
    /// a routine this process lacks: the function is compiled instead.
    pub(crate) fn load(bytes: &[u8]) -> Option<(JITModule, *const u8)> {
        let (image, entry) = Image::decode(bytes)?;
        let mut linker = Linker::new(false).ok()?;
        // Declaring the names again in the same order gives each its recorded id.
        let empty = linker.make_signature();
        for (k, (name, linkage)) in image.declared.iter().enumerate() {
            if *linkage == Linkage::Import && !crate::runtime::resolves(name) {
                return None;
            }
            let id = linker
                .module
                .declare_function(name, *linkage, &empty)
                .ok()?;
            if id.as_u32() as usize != k {
                return None;
            }
        }
        for body in &image.bodies {
            linker
                .module
                .define_function_bytes(body.id, body.align, &body.code, &body.relocs)
                .ok()?;
        }
        let (module, code, _) = linker.finish(entry).ok()?;
        Some((module, code))
    }
}

impl Image {
    /// The image as bytes, with `entry` the function Python calls; `None` when it holds a
    /// relocation or name an image cannot keep.
    fn encode(&self, entry: FuncId) -> Option<Vec<u8>> {
        let mut w = Writer(MAGIC.to_vec());
        w.u32(entry.as_u32());
        w.u32(self.declared.len() as u32);
        for (name, linkage) in &self.declared {
            w.u8(match linkage {
                Linkage::Import => 0,
                Linkage::Local => 1,
                Linkage::Export => 2,
                _ => return None,
            });
            w.bytes(name.as_bytes());
        }
        w.u32(self.bodies.len() as u32);
        for body in &self.bodies {
            w.u32(body.id.as_u32());
            w.u64(body.align);
            w.bytes(&body.code);
            w.u32(body.relocs.len() as u32);
            for r in &body.relocs {
                w.u32(r.offset);
                w.u8(RELOCATIONS.iter().position(|k| *k == r.kind)? as u8);
                w.u64(r.addend as u64);
                match &r.name {
                    ModuleRelocTarget::User { namespace, index } => {
                        w.u8(0);
                        w.u32(*namespace);
                        w.u32(*index);
                    }
                    ModuleRelocTarget::LibCall(call) => {
                        w.u8(1);
                        w.bytes(call.to_string().as_bytes());
                    }
                    ModuleRelocTarget::FunctionOffset(f, offset) => {
                        w.u8(2);
                        w.u32(f.as_u32());
                        w.u32(*offset);
                    }
                    ModuleRelocTarget::KnownSymbol(_) => return None,
                }
            }
        }
        Some(w.0)
    }

    /// The image in `bytes` and its entry; `None` for anything else.
    fn decode(bytes: &[u8]) -> Option<(Image, FuncId)> {
        let mut r = Reader(bytes.strip_prefix(MAGIC)?);
        let entry = FuncId::from_u32(r.u32()?);
        let mut image = Image::default();
        for _ in 0..r.u32()? {
            let linkage = match r.u8()? {
                0 => Linkage::Import,
                1 => Linkage::Local,
                2 => Linkage::Export,
                _ => return None,
            };
            let name = String::from_utf8(r.bytes()?.to_vec()).ok()?;
            image.declared.push((name, linkage));
        }
        let declared = image.declared.len() as u32;
        let known = |id: u32| (id < declared).then(|| FuncId::from_u32(id));
        for _ in 0..r.u32()? {
            let id = known(r.u32()?)?;
            let align = r.u64()?;
            let code = r.bytes()?.to_vec();
            let mut relocs = Vec::new();
            for _ in 0..r.u32()? {
                let offset = r.u32()?;
                let kind = *RELOCATIONS.get(r.u8()? as usize)?;
                let addend = r.u64()? as i64;
                let name = match r.u8()? {
                    // Namespace 0: the module's functions.
                    0 => match (r.u32()?, r.u32()?) {
                        (0, index) => ModuleRelocTarget::User {
                            namespace: 0,
                            index: known(index)?.as_u32(),
                        },
                        _ => return None,
                    },
                    1 => {
                        let call: LibCall = std::str::from_utf8(r.bytes()?).ok()?.parse().ok()?;
                        ModuleRelocTarget::LibCall(call)
                    }
                    // A place in this function's own code.
                    2 if r.u32()? == id.as_u32() => ModuleRelocTarget::FunctionOffset(id, r.u32()?),
                    _ => return None,
                };
                // A relocation must lie inside its function's code.
                let width = if kind == Reloc::Abs8 { 8 } else { 4 };
                if offset as usize + width > code.len() {
                    return None;
                }
                relocs.push(ModuleReloc {
                    offset,
                    kind,
                    name,
                    addend,
                });
            }
            image.bodies.push(Body {
                id,
                align,
                code,
                relocs,
            });
        }
        let defined = |id: FuncId| image.bodies.iter().filter(|b| b.id == id).count() == 1;
        let complete = image.bodies.iter().all(|b| defined(b.id))
            && defined(entry)
            && image
                .bodies
                .iter()
                .all(|b| image.declared[b.id.as_u32() as usize].1 != Linkage::Import);
        (r.0.is_empty() && complete).then_some((image, entry))
    }
}

/// Little-endian numbers and length-prefixed byte strings.
struct Writer(Vec<u8>);

impl Writer {
    fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    fn u32(&mut self, v: u32) {
        self.0.extend(v.to_le_bytes());
    }
    fn u64(&mut self, v: u64) {
        self.0.extend(v.to_le_bytes());
    }
    fn bytes(&mut self, v: &[u8]) {
        self.u32(v.len() as u32);
        self.0.extend(v);
    }
}

struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let (head, rest) = (self.0.get(..n)?, self.0.get(n..)?);
        self.0 = rest;
        Some(head)
    }
    fn u8(&mut self) -> Option<u8> {
        Some(self.take(1)?[0])
    }
    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
    fn bytes(&mut self) -> Option<&'a [u8]> {
        let n = self.u32()? as usize;
        self.take(n)
    }
}
