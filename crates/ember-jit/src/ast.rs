//! The plain tree Python hands over: Python's `ast` with every free name already resolved
//! (constants inlined, modules and intrinsics named, device functions numbered), so nothing
//! here refers to a Python object. It arrives as JSON (`ember/_jit/front.py` writes it).

use serde::Deserialize;

/// Where a node sits in its file: 1-based lines, 0-based UTF-8 columns (as Python's `ast`).
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
pub struct Span {
    pub line: u32,
    pub col: u32,
    pub end_line: u32,
    pub end_col: u32,
}

/// Every function a kernel can reach, and the constant arrays they read.
#[derive(Clone, Debug, Deserialize)]
pub struct Program {
    /// Function 0 is the kernel (or the entry function being compiled).
    pub functions: Vec<Function>,
    #[serde(default)]
    pub arrays: Vec<ConstArray>,
    /// Functions written in CUDA C that kernels call (`cuda.declare_device`).
    #[serde(default)]
    pub externs: Vec<Extern>,
    /// Compiled with `fastmath=True`: debug mode does not test float divisors (Numba).
    #[serde(default)]
    pub fastmath: bool,
}

/// A device function written in CUDA C, declared by `cuda.declare_device(name, sig, link=...)`.
#[derive(Clone, Debug, Deserialize)]
pub struct Extern {
    /// Its C name.
    pub name: String,
    /// The argument dtypes and the return dtype (`None`: void), by NumPy name.
    pub args: Vec<String>,
    pub ret: Option<String>,
    /// `"numba"` (`int name(ret *out, args...)`, returning 0) or `"c"` (`ret name(args...)`).
    pub abi: String,
    /// The CUDA C sources to compile with the kernel (its definition among them).
    pub sources: Vec<String>,
}

/// One Python function.
#[derive(Clone, Debug, Deserialize)]
pub struct Function {
    pub name: String,
    /// The `.py` file it came from.
    pub file: String,
    /// The function's source lines, starting at `first_line` (for error messages).
    pub source: String,
    pub first_line: u32,
    pub params: Vec<String>,
    pub body: Vec<Stmt>,
    pub span: Span,
    /// A device function's declared signature (`"int64(int64)"`), if it has one.
    #[serde(default)]
    pub signature: Option<String>,
}

/// A NumPy array captured from the kernel's globals (`cuda.const.array_like`, or read
/// directly): its elements travel as text so that every dtype round-trips exactly.
#[derive(Clone, Debug, Deserialize)]
pub struct ConstArray {
    pub dtype: String,
    pub shape: Vec<usize>,
    pub values: Vec<String>,
}

#[derive(Clone, Debug, Deserialize)]
pub struct Stmt {
    pub span: Span,
    #[serde(flatten)]
    pub kind: StmtKind,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(tag = "k")]
pub enum StmtKind {
    Assign {
        targets: Vec<Expr>,
        value: Expr,
    },
    AugAssign {
        target: Expr,
        op: BinOp,
        value: Expr,
    },
    /// An expression evaluated for its effect (a call).
    Expr {
        value: Expr,
    },
    If {
        test: Expr,
        body: Vec<Stmt>,
        orelse: Vec<Stmt>,
    },
    For {
        target: Expr,
        iter: Expr,
        body: Vec<Stmt>,
        orelse: Vec<Stmt>,
    },
    While {
        test: Expr,
        body: Vec<Stmt>,
        orelse: Vec<Stmt>,
    },
    Break,
    Continue,
    Pass,
    Return {
        value: Option<Expr>,
    },
    /// `raise` of the front's exception number `exception` (a class and constant arguments
    /// the Python side keeps).
    Raise {
        exception: usize,
    },
    /// A statement the language does not have (`with`, `try`, `def`, ...): named for the error.
    Unsupported {
        what: String,
    },
}

#[derive(Clone, Debug, Deserialize)]
pub struct Expr {
    pub span: Span,
    #[serde(flatten)]
    pub kind: ExprKind,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(tag = "k")]
pub enum ExprKind {
    /// An integer literal, as decimal text (Python ints are unbounded).
    Int {
        v: String,
    },
    /// A float literal, as Python's `repr` (`inf` and `nan` included).
    Float {
        v: String,
    },
    Bool {
        v: bool,
    },
    Complex {
        re: String,
        im: String,
    },
    /// A string literal: a record's field name (`r['x']`), or what `print` takes besides numbers.
    Str {
        v: String,
    },
    /// A NumPy scalar constant from the globals: keeps its dtype.
    Typed {
        dtype: String,
        v: String,
    },
    /// A local variable or parameter.
    Name {
        id: String,
    },
    /// Something of ember/Numba/`math`/NumPy the kernel may use, by dotted name
    /// (`cuda.grid`, `cuda.threadIdx.x`, `math.sqrt`, `dtype.float32`, `builtin.range`).
    Intrinsic {
        name: String,
    },
    /// A device function, by index into [`Program::functions`].
    Func {
        id: usize,
    },
    /// A CUDA C device function, by index into [`Program::externs`].
    Extern {
        id: usize,
    },
    /// A constant array, by index into [`Program::arrays`].
    Array {
        id: usize,
    },
    /// A device array captured from the globals (Numba's capture of `__cuda_array_interface__`
    /// objects): C-contiguous memory at address `ptr` (decimal text), of `dtype` and `shape`.
    DeviceArray {
        ptr: String,
        dtype: String,
        shape: Vec<i64>,
    },
    Attribute {
        value: Box<Expr>,
        attr: String,
    },
    Subscript {
        value: Box<Expr>,
        index: Box<Expr>,
    },
    Slice {
        lower: Option<Box<Expr>>,
        upper: Option<Box<Expr>>,
        step: Option<Box<Expr>>,
    },
    BinOp {
        op: BinOp,
        left: Box<Expr>,
        right: Box<Expr>,
    },
    UnaryOp {
        op: UnaryOp,
        operand: Box<Expr>,
    },
    BoolOp {
        op: BoolOp,
        values: Vec<Expr>,
    },
    Compare {
        left: Box<Expr>,
        ops: Vec<CmpOp>,
        comparators: Vec<Expr>,
    },
    Call {
        func: Box<Expr>,
        args: Vec<Expr>,
        #[serde(default)]
        keywords: Vec<Keyword>,
    },
    IfExp {
        test: Box<Expr>,
        body: Box<Expr>,
        orelse: Box<Expr>,
    },
    Tuple {
        elts: Vec<Expr>,
    },
    /// `*t` among a call's arguments: a tuple's items, in place.
    Starred {
        value: Box<Expr>,
    },
    /// A value already typed (an item of a starred tuple), by its slot (never from the front).
    #[serde(skip)]
    Bound {
        slot: usize,
    },
    /// An expression the language does not have (lambda, list, dict, f-string, ...).
    Unsupported {
        what: String,
    },
}

#[derive(Clone, Debug, Deserialize)]
pub struct Keyword {
    pub name: String,
    pub value: Expr,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq, Hash)]
pub enum BinOp {
    Add,
    Sub,
    Mult,
    Div,
    FloorDiv,
    Mod,
    Pow,
    LShift,
    RShift,
    BitOr,
    BitXor,
    BitAnd,
    MatMult,
}

impl BinOp {
    /// The operator as Python writes it.
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mult => "*",
            BinOp::Div => "/",
            BinOp::FloorDiv => "//",
            BinOp::Mod => "%",
            BinOp::Pow => "**",
            BinOp::LShift => "<<",
            BinOp::RShift => ">>",
            BinOp::BitOr => "|",
            BinOp::BitXor => "^",
            BinOp::BitAnd => "&",
            BinOp::MatMult => "@",
        }
    }
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
pub enum UnaryOp {
    Invert,
    Not,
    UAdd,
    USub,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
pub enum BoolOp {
    And,
    Or,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum CmpOp {
    Eq,
    NotEq,
    Lt,
    LtE,
    Gt,
    GtE,
    Is,
    IsNot,
    In,
    NotIn,
}

impl CmpOp {
    pub fn symbol(self) -> &'static str {
        match self {
            CmpOp::Eq => "==",
            CmpOp::NotEq => "!=",
            CmpOp::Lt => "<",
            CmpOp::LtE => "<=",
            CmpOp::Gt => ">",
            CmpOp::GtE => ">=",
            CmpOp::Is => "is",
            CmpOp::IsNot => "is not",
            CmpOp::In => "in",
            CmpOp::NotIn => "not in",
        }
    }
}

impl Program {
    /// Reads the JSON the Python front wrote.
    pub fn from_json(text: &str) -> Result<Program, String> {
        serde_json::from_str(text).map_err(|e| format!("malformed kernel tree from the front: {e}"))
    }
}
