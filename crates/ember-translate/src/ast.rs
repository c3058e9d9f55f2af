//! The tree the parser builds from CUDA C: types, expressions, statements and the items of a
//! translation unit. Every expression and statement keeps the line of the user's source.

/// A scalar type of C and CUDA (before vectors, pointers and structs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scalar {
    Bool,
    Char,
    UChar,
    Short,
    UShort,
    Int,
    UInt,
    /// `long` and `long long` (64 bits on every platform CUDA runs on: LP64).
    Long,
    ULong,
    Half,
    Float,
    Double,
}

impl Scalar {
    /// Whether the scalar is a floating-point type.
    pub fn is_float(self) -> bool {
        matches!(self, Scalar::Half | Scalar::Float | Scalar::Double)
    }

    /// Whether the scalar is an unsigned integer (or bool).
    pub fn is_unsigned(self) -> bool {
        matches!(
            self,
            Scalar::Bool | Scalar::UChar | Scalar::UShort | Scalar::UInt | Scalar::ULong
        )
    }

    /// Size in bytes.
    pub fn size(self) -> u64 {
        match self {
            Scalar::Bool | Scalar::Char | Scalar::UChar => 1,
            Scalar::Short | Scalar::UShort | Scalar::Half => 2,
            Scalar::Int | Scalar::UInt | Scalar::Float => 4,
            Scalar::Long | Scalar::ULong | Scalar::Double => 8,
        }
    }

    /// The rank of C's usual arithmetic conversions (higher wins).
    pub fn rank(self) -> u8 {
        match self {
            Scalar::Bool => 0,
            Scalar::Char | Scalar::UChar => 1,
            Scalar::Short | Scalar::UShort => 2,
            Scalar::Int => 3,
            Scalar::UInt => 4,
            Scalar::Long => 5,
            Scalar::ULong => 6,
            Scalar::Half => 7,
            Scalar::Float => 8,
            Scalar::Double => 9,
        }
    }

    /// The type's own name (OpenCL C's, and `half`), for names of template instances.
    pub fn name(self) -> &'static str {
        match self {
            Scalar::Half => "half",
            s => s.opencl(),
        }
    }

    /// The name OpenCL C gives the type.
    pub fn opencl(self) -> &'static str {
        match self {
            Scalar::Bool => "bool",
            Scalar::Char => "char",
            Scalar::UChar => "uchar",
            Scalar::Short => "short",
            Scalar::UShort => "ushort",
            Scalar::Int => "int",
            Scalar::UInt => "uint",
            Scalar::Long => "long",
            Scalar::ULong => "ulong",
            // A half computes in a float (see `lower/half.rs`); its memory is `half`.
            Scalar::Half => "float",
            Scalar::Float => "float",
            Scalar::Double => "double",
        }
    }
}

/// Where a pointer points: OpenCL names each memory; CUDA's pointers are generic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Space {
    /// Not known yet: inference decides.
    Unknown,
    Global,
    /// CUDA's `__shared__` memory.
    Local,
    Constant,
    Private,
}

impl Space {
    /// The OpenCL qualifier (empty for private memory).
    pub fn qualifier(self) -> &'static str {
        match self {
            Space::Global => "__global",
            Space::Local => "__local",
            Space::Constant => "__constant",
            Space::Private | Space::Unknown => "",
        }
    }

    /// A short tag for names of functions specialised per space.
    pub fn tag(self) -> char {
        match self {
            Space::Global => 'g',
            Space::Local => 'l',
            Space::Constant => 'c',
            Space::Private | Space::Unknown => 'p',
        }
    }
}

/// A type of the translated program.
#[derive(Clone, Debug, PartialEq)]
pub enum Type {
    Void,
    Scalar(Scalar),
    /// CUDA's vector types (`float4`, `int2`, `uchar3`...): element and width.
    Vector(Scalar, u8),
    /// A struct or union, by name.
    Struct(String),
    Pointer(Box<Pointee>),
    /// An array of a fixed number of elements (`None`: `extern __shared__ float s[]`).
    Array(Box<Type>, Option<u64>),
    /// A C++ reference (`float& x`), lowered to a pointer.
    Ref(Box<Pointee>),
    /// A template's type parameter, before instantiation.
    Param(String),
    /// A template's value argument (`256` of `reduce<256>`).
    Value(i64),
    /// A value argument still to compute (`N * 2` of `f<N * 2>(x)` in a template).
    ValueExpr(Box<Expr>),
    /// An array whose size depends on a template's values (`float s[N]`).
    SizedBy(Box<Type>, Box<Expr>),
}

/// What a pointer or reference points to.
#[derive(Clone, Debug, PartialEq)]
pub struct Pointee {
    pub ty: Type,
    pub konst: bool,
    /// `volatile T*`: every access goes to memory (flags other threads set, spin loops).
    pub volatile: bool,
    pub space: Space,
}

impl Type {
    pub fn pointer(ty: Type, konst: bool, space: Space) -> Type {
        Type::Pointer(Box::new(Pointee {
            ty,
            konst,
            volatile: false,
            space,
        }))
    }

    /// The scalar, if this is one.
    pub fn scalar(&self) -> Option<Scalar> {
        match self {
            Type::Scalar(s) => Some(*s),
            _ => None,
        }
    }

    pub fn is_pointer(&self) -> bool {
        matches!(self, Type::Pointer(_))
    }

    /// A number of any kind (integers, floats, bool).
    pub fn is_arithmetic(&self) -> bool {
        matches!(self, Type::Scalar(_))
    }

    pub fn is_integer(&self) -> bool {
        matches!(self, Type::Scalar(s) if !s.is_float())
    }
}

/// An expression and the line it is on.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub line: u32,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    Ident(String),
    /// An integer literal as written (suffixes included).
    Int(String),
    /// A floating literal as written.
    Float(String),
    Str(String),
    Char(String),
    Bool(bool),
    /// `nullptr`/`NULL`.
    Null,
    /// A prefix operator: `- + ! ~ * & ++ --`.
    Unary(&'static str, Box<Expr>),
    /// A postfix `++`/`--`.
    Postfix(&'static str, Box<Expr>),
    Binary(&'static str, Box<Expr>, Box<Expr>),
    /// `=` and the compound assignments.
    Assign(&'static str, Box<Expr>, Box<Expr>),
    Cond(Box<Expr>, Box<Expr>, Box<Expr>),
    /// A call: the callee, explicit template arguments (`f<float>(...)`), the arguments.
    Call(Box<Expr>, Vec<Type>, Vec<Expr>),
    Index(Box<Expr>, Box<Expr>),
    /// `x.name` (`arrow`: `x->name`).
    Member(Box<Expr>, String, bool),
    Cast(Type, Box<Expr>),
    SizeofType(Type),
    /// `alignof(T)` / `__alignof__(T)`: CUDA's alignment of the type.
    AlignofType(Type),
    SizeofExpr(Box<Expr>),
    Comma(Box<Expr>, Box<Expr>),
    /// A braced initialiser list.
    Init(Vec<Expr>),
    /// `kernel<<<grid, block[, shared, stream]>>>(args)`: dynamic parallelism.
    Launch {
        kernel: String,
        config: Vec<Expr>,
        args: Vec<Expr>,
    },
}

impl Expr {
    pub fn new(kind: ExprKind, line: u32) -> Expr {
        Expr { kind, line }
    }
}

/// Where a variable lives, from CUDA's qualifiers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Storage {
    /// A plain local (or parameter).
    Auto,
    /// `__shared__` (static size).
    Shared,
    /// `extern __shared__ T name[]`: the launch's dynamic shared memory.
    DynamicShared,
    /// `__constant__`.
    Constant,
    /// A `__device__` variable at file scope.
    Device,
    /// `static` at function scope.
    Static,
}

/// A declared variable.
#[derive(Clone, Debug, PartialEq)]
pub struct VarDecl {
    pub name: String,
    pub ty: Type,
    pub konst: bool,
    pub storage: Storage,
    pub init: Option<Expr>,
    pub line: u32,
}

/// A statement and the line it starts on.
#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    pub kind: StmtKind,
    pub line: u32,
}

#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    Decl(Vec<VarDecl>),
    Expr(Expr),
    Block(Vec<Stmt>),
    If(Expr, Box<Stmt>, Option<Box<Stmt>>),
    /// C++17's `if constexpr`: only the branch its constant condition picks is translated.
    IfConstexpr(Expr, Box<Stmt>, Option<Box<Stmt>>),
    While(Expr, Box<Stmt>),
    DoWhile(Box<Stmt>, Expr),
    For {
        init: Option<Box<Stmt>>,
        cond: Option<Expr>,
        step: Option<Expr>,
        body: Box<Stmt>,
    },
    Switch(Expr, Box<Stmt>),
    Case(Expr),
    Default,
    Break,
    Continue,
    Return(Option<Expr>),
    Goto(String),
    Label(String),
    /// A `#pragma` (`unroll 4`) kept for the OpenCL compiler.
    Pragma(String),
    Empty,
}

/// What CUDA's qualifiers make of a function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FnKind {
    /// `__global__`: launched from the host.
    Kernel,
    /// `__device__` (or unqualified: kept, as device code may call it).
    Device,
    /// `__host__` only: host code, left out of the device program.
    Host,
}

/// A function parameter.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub name: String,
    pub ty: Type,
    pub konst: bool,
    /// C++'s default argument (`int b = 7`), given where a call leaves it out.
    pub default: Option<Expr>,
    pub line: u32,
}

/// A function, declared or defined.
#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    pub name: String,
    pub kind: FnKind,
    pub ret: Type,
    pub params: Vec<Param>,
    /// `None`: a declaration only.
    pub body: Option<Vec<Stmt>>,
    /// Template parameters (`template <typename T, int N>`), types and values, by name; empty
    /// for a plain function.
    pub template: Vec<String>,
    /// An explicit specialization (`template <> float ipow<0>(float)`): its template arguments;
    /// empty for any other function.
    pub specialization: Vec<Type>,
    pub line: u32,
}

/// A struct or union and its fields.
#[derive(Clone, Debug, PartialEq)]
pub struct StructDef {
    pub name: String,
    pub union: bool,
    pub fields: Vec<(String, Type)>,
    pub line: u32,
}

/// Something at file scope.
#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    Function(Function),
    Struct(StructDef),
    Global(VarDecl),
    /// `enum { A, B = 4 }` constants (values folded by the parser).
    Enum(Vec<(String, i64)>, u32),
}

/// A parsed translation unit.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Unit {
    pub items: Vec<Item>,
}
