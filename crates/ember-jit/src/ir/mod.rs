//! The typed IR: each Python function specialised for argument types, as statements and
//! expressions whose every node carries its Numba type. Typing ([`crate::typing`]) builds
//! it; back ends lower it: C for CUDA and OpenCL ([`crate::emit`]), and later native code.
//! So nothing here is spelled in a target language: constants are values, operators are
//! operators, calls name a specialisation or an intrinsic.
//!
//! The IR is flat where Python evaluates in order: what an expression needs computed ahead of
//! it (a temporary evaluated once, an array view, the operands of a short-circuit `and` that
//! must stay conditional) is a statement before the one that uses it.

mod display;
mod verify;
mod walk;
mod writes;

pub use verify::verify;
pub use walk::{expressions, statements};

use std::collections::BTreeSet;

use ember_core::DType;

use crate::coarsen::Plan;
use crate::helpers::Helper;
use crate::types::{ArrayTy, Ty};

pub use crate::ast::{BinOp, CmpOp};

/// A kernel (or a device function) and every device-function specialisation it reaches.
#[derive(Clone, Debug)]
pub struct IrProgram {
    /// The kernel, when the entry point is one (`None` for a lone device function).
    pub kernel: Option<IrFunction>,
    /// Device-function specialisations, in the order their typing finished (callees first).
    pub functions: Vec<IrFunction>,
    /// What the functions use, for a back end to declare once.
    pub uses: Uses,
    /// How the kernel was coarsened (its tree rewritten before typing), if it was.
    pub coarse: Option<Plan>,
}

/// What the program uses beyond its functions, gathered while typing in first-use order (a
/// back end declares them in this order, so its output is stable).
#[derive(Clone, Debug, Default)]
pub struct Uses {
    /// Tuple and array types, nested ones before those containing them.
    pub aggregates: Vec<Ty>,
    /// Small functions on aggregates the C back end defines (tuple makers and getters,
    /// fixed-array wrappers), in first-use order.
    pub aggregate_fns: Vec<AggregateFn>,
    /// Device routines the code calls (integer division, index wrapping, atomics...), by
    /// name: each back end has its own implementation of each.
    pub helpers: BTreeSet<Helper>,
    /// Every dtype a value takes.
    pub dtypes: BTreeSet<DType>,
    /// Constant arrays read (ids into the program's arrays).
    pub constants: BTreeSet<usize>,
    /// The xoroshiro128+ generator is used.
    pub xoroshiro: bool,
}

/// A function on an aggregate type the C back end writes next to its struct.
#[derive(Clone, Debug, PartialEq)]
pub enum AggregateFn {
    /// Builds a tuple from its items.
    MakeTuple(Ty),
    /// Reads item `i` (a run-time index) of a tuple of one item type.
    TupleItem(Ty),
    /// A fixed-shape array over storage the function declares.
    FixedArray(Ty),
}

/// One Python function specialised for argument types.
#[derive(Clone, Debug)]
pub struct IrFunction {
    /// The Python name.
    pub name: String,
    /// The Python file, for `#line` markers.
    pub file: String,
    /// Kernel or device function.
    pub role: Role,
    /// The parameters: the first `params.len()` locals.
    pub params: Vec<Param>,
    /// Parameters and variables, each with one unified type.
    pub locals: Vec<Local>,
    /// The return type (none for kernels).
    pub ret: Ty,
    /// Shared and local arrays of fixed shape, declared at the top of the function.
    pub arrays: Vec<FixedArrayDecl>,
    /// The statements, in order.
    pub body: Vec<Stmt>,
    /// Specialisations this one calls (indices into [`IrProgram::functions`]).
    pub calls: Vec<usize>,
}

/// What a function is compiled as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// The kernel entry point.
    Kernel,
    /// A device function; `ordinal` counts the specialisations begun before it (with its
    /// name, a unique label).
    Device { ordinal: usize },
}

/// A parameter.
#[derive(Clone, Debug)]
pub struct Param {
    /// The variable the parameter initialises.
    pub local: LocalId,
    /// The argument's type: what the caller passes (a kernel's launch packs it so). The local
    /// may have unified to a wider type; the argument converts to it on entry.
    pub ty: Ty,
    /// An array parameter only ever read element by element (no aliasing writes through it).
    pub read_only: bool,
}

/// A Python variable (or parameter) of the function.
#[derive(Clone, Debug)]
pub struct Local {
    /// The Python name.
    pub name: String,
    /// The type every assignment unifies to.
    pub ty: Ty,
    /// Every value assigned to it is >= 0 (an index that needs no wrap-around).
    pub nonneg: bool,
}

/// Index into [`IrFunction::locals`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LocalId(pub usize);

/// A compiler temporary: a value computed once, a loop counter, a view. Numbered by one
/// counter per function; the role says what it holds (and prefixes its printed name).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Temp {
    /// What it holds.
    pub role: TempRole,
    /// Its number, unique in the function.
    pub n: usize,
}

/// What a temporary holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TempRole {
    /// A value evaluated once and read several times.
    Value,
    /// A loop counter.
    Index,
    /// A `range` loop's stop.
    Stop,
    /// A `range` loop's run-time step.
    Step,
    /// Set by `break` in a loop with an `else` clause.
    Broke,
    /// The result of a short-circuit `and`/`or`.
    Logic,
    /// The result of a chained comparison.
    Chain,
    /// The result of a conditional expression.
    Choice,
    /// An array view (a slice or a transpose).
    View,
    /// The dynamic shared-memory array.
    Dynamic,
    /// A shared array's storage.
    Shared,
    /// A local array's storage.
    LocalArray,
    /// The address of an element updated in place (`a[i] += x`).
    Pointer,
}

impl TempRole {
    /// The printed prefix (the C back end names temporaries the same way).
    pub fn prefix(self) -> &'static str {
        match self {
            TempRole::Value => "t",
            TempRole::Index => "i",
            TempRole::Stop => "n",
            TempRole::Step => "s",
            TempRole::Broke => "broke",
            TempRole::Logic => "b",
            TempRole::Chain => "c",
            TempRole::Choice => "e",
            TempRole::View => "view",
            TempRole::Dynamic => "dyn",
            TempRole::Shared => "sh",
            TempRole::LocalArray => "lo",
            TempRole::Pointer => "p",
        }
    }
}

/// A shared or local array of fixed shape.
#[derive(Clone, Debug)]
pub struct FixedArrayDecl {
    /// The temporary naming its storage.
    pub storage: Temp,
    /// The element type.
    pub dtype: DType,
    /// Elements (at least 1).
    pub count: i64,
    /// Shared by the block (else local to the thread).
    pub shared: bool,
    /// Bytes the storage is aligned to (`alignment=`; else 16, see emit/function.rs).
    pub align: Option<u32>,
}

/// A statement.
#[derive(Clone, Debug)]
pub enum Stmt {
    /// The statements after this come from this line of the Python file.
    Line(u32),
    /// `local = value` (the value already converted to the local's type).
    Assign { local: LocalId, value: Expr },
    /// A temporary declared and set once (`constant`: never changed after).
    Let {
        temp: Temp,
        value: Expr,
        constant: bool,
    },
    /// A temporary declared, to be set in branches.
    Declare { temp: Temp, ty: Ty },
    /// `temp = value`.
    Set { temp: Temp, value: Expr },
    /// `array[index] = value` (converted to the element type).
    Store { place: Place, value: Expr },
    /// `array[index] = value`, where `value` reads the element before it as
    /// [`ExprKind::Current`]: the element's address is computed once, into `pointer`.
    Update {
        pointer: Temp,
        place: Place,
        value: Expr,
    },
    /// An expression evaluated for its effect.
    Eval(Expr),
    /// `if cond:` (`not cond` when `negate`).
    If {
        cond: Expr,
        negate: bool,
        then: Vec<Stmt>,
        orelse: Vec<Stmt>,
    },
    /// `while cond:`, where `setup` computes what the test needs before each test.
    While {
        setup: Vec<Stmt>,
        cond: Expr,
        body: Vec<Stmt>,
    },
    /// A counted loop: `index` from `start` while below (or above) `stop`.
    For {
        index: Temp,
        ty: DType,
        start: Expr,
        stop: Expr,
        step: Step,
        body: Vec<Stmt>,
        /// A `prange` loop: its iterations may run at once (a CPU function compiled with
        /// `parallel=True` shares them among threads; elsewhere it is `range`).
        parallel: bool,
    },
    /// A nested scope (the temporaries of a `for` loop's setup).
    Block(Vec<Stmt>),
    /// The flag of a loop with an `else` clause, cleared before the loop.
    LoopFlag(Temp),
    /// The `else` clause of a loop: runs when the loop ended without `break`.
    Unbroken { flag: Temp, body: Vec<Stmt> },
    /// `break`, setting the loop's flag when it has an `else`.
    Break { flag: Option<Temp> },
    /// `continue`.
    Continue,
    /// `return` (a value converted to the return type, or none).
    Return(Option<Expr>),
    /// `raise` of the front's exception number: checked mode records it for the launch to
    /// raise; then the function returns (a kernel's thread ends, a device function gives zero).
    Raise(usize),
    /// One of Python's own errors (not a `raise` of the program) unless `cond` holds: what
    /// host functions check that NumPy would raise for (shapes that do not broadcast). Only
    /// host functions have these; `details` are int64 values the message names.
    Require {
        cond: Expr,
        failure: Failure,
        details: Vec<Expr>,
    },
    /// `temp = base[axes]`: a view of an array (slices, fewer indices than dimensions).
    View {
        temp: Temp,
        ty: Ty,
        base: Expr,
        axes: Vec<ViewAxis>,
    },
    /// `temp = base.T`.
    Transpose { temp: Temp, ty: Ty, base: Expr },
    /// `temp = base.x`: field `x` (at `offset` bytes) of every record of array `base`, a
    /// strided view; a nested array field adds its axes (`nested`, C order) after `base`'s.
    FieldView {
        temp: Temp,
        ty: Ty,
        base: Expr,
        offset: usize,
        nested: Vec<i64>,
    },
    /// `temp`: `base`'s memory read as elements of `ty`'s dtype (a view: writes reach it):
    /// `a.real`/`a.imag` of a complex array (`skip`: the bytes before the part), `a.view(dtype)`
    /// (`rescale`: the last axis counted in the new elements, as NumPy's `view`).
    Reinterpret {
        temp: Temp,
        ty: Ty,
        base: Expr,
        skip: usize,
        rescale: bool,
    },
    /// `temp`: the launch's dynamic shared memory as a 1-d array of `dtype`.
    DynamicShared { temp: Temp, ty: Ty, dtype: DType },
}

/// A `for` loop's step.
#[derive(Clone, Debug)]
pub enum Step {
    /// +1.
    One,
    /// A constant other than 0.
    Const(i64),
    /// A run-time value, held in a temporary (its sign decides the direction).
    Var(Temp),
}

/// One axis of a view.
#[derive(Clone, Debug)]
pub enum ViewAxis {
    /// Taken whole.
    Whole,
    /// One index (wrapped when negative): the axis goes.
    Index(Expr),
    /// `lo:hi:step` (Python's bounds clamped to the axis).
    Slice {
        lo: Option<Expr>,
        hi: Option<Expr>,
        step: i64,
    },
}

/// An array element: the array and one index per dimension (int64, wrapped where it may be
/// negative).
#[derive(Clone, Debug)]
pub struct Place {
    /// The array.
    pub array: Box<Expr>,
    /// The array's type.
    pub ty: ArrayTy,
    /// One index per dimension.
    pub indices: Vec<Expr>,
}

/// A typed expression.
#[derive(Clone, Debug)]
pub struct Expr {
    /// The Numba type.
    pub ty: Ty,
    /// Known to be >= 0.
    pub nonneg: bool,
    /// What it computes.
    pub kind: ExprKind,
}

/// A constant.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Const {
    /// A Python `int` (int64).
    Int(i64),
    /// A count known while compiling (a tuple's length, a zero start), of the expression's
    /// integer type.
    Count(u64),
    /// An integer of the expression's dtype written as a NumPy scalar (`np.int8(-3)`).
    Typed(i128),
    /// Zero of the expression's dtype (the imaginary part of a real number).
    Zero,
    /// A float of the expression's dtype.
    Float(f64),
    /// `True` or `False`.
    Bool(bool),
    /// A complex of the expression's dtype.
    Complex(f64, f64),
}

impl Const {
    /// Python's truth value of the constant.
    pub fn truth(&self) -> bool {
        match *self {
            Const::Int(v) => v != 0,
            Const::Count(v) => v != 0,
            Const::Typed(v) => v != 0,
            Const::Zero => false,
            Const::Float(v) => v != 0.0,
            Const::Bool(v) => v,
            Const::Complex(re, im) => re != 0.0 || im != 0.0,
        }
    }
}

/// The thread geometry a kernel reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Geometry {
    /// `cuda.threadIdx.<axis>` (int32).
    ThreadIdx(usize),
    /// `cuda.blockIdx.<axis>` (int32).
    BlockIdx(usize),
    /// `cuda.blockDim.<axis>` (int32).
    BlockDim(usize),
    /// `cuda.gridDim.<axis>` (int32).
    GridDim(usize),
    /// The global thread index along an axis (`cuda.grid`, int64).
    Grid(usize),
    /// The number of threads of the launch along an axis (`cuda.gridsize`, int64).
    GridSize(usize),
    /// `cuda.laneid`.
    LaneId,
    /// In a coarsened kernel: logical copy `copy`'s thread index along the plan's axis.
    CoarseThreadIdx(u32),
    /// In a coarsened kernel: the logical block size along the plan's axis.
    CoarseBlockDim,
    /// In a coarsened kernel: copy `copy`'s `cuda.grid` (or `cuda.gridsize` for `None`).
    CoarseGrid { copy: Option<u32>, axis: usize },
}

/// Barriers and fences.
#[derive(Clone, Debug)]
pub enum Sync {
    /// `cuda.syncthreads()`.
    Threads,
    /// `cuda.syncwarp(mask)`.
    Warp(Option<Box<Expr>>),
    /// `cuda.threadfence*()`: 0 device, 1 block, 2 system.
    Fence(usize),
    /// `cuda.cg.this_grid().sync()`: every thread of the grid (a cooperative launch).
    Grid,
}

/// An error NumPy raises by itself, which a host function checks for ([`Stmt::Require`]).
/// The back end owns the message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Failure {
    /// Two arrays' shapes do not broadcast together (details: the two lengths that differ).
    Broadcast,
    /// `out` of an in-place operation cannot hold the broadcast result (details: the lengths).
    BroadcastInto,
    /// `max`/`min` (`maximum` when `max`) of an empty array: no identity.
    EmptyExtremum { max: bool },
    /// `np.nanmax`/`nanmin` (NumPy's `fmax` reduction when `max`) of an empty array.
    EmptyNanExtremum { max: bool },
    /// `argmax`/`argmin` of an empty array.
    EmptyArgExtremum { max: bool },
    /// A Python int operand out of the range of the array operation's integer `dtype` (NEP
    /// 50: NumPy's OverflowError); details: the int.
    PythonIntOutOfBounds { dtype: DType },
    /// A tuple indexed by a number outside it: Python's IndexError.
    TupleIndex,
    /// `range(a, b, 0)`: Python's ValueError.
    RangeStepZero,
    /// `np.nanargmax`/`nanargmin` of an array of NaNs only: NumPy's ValueError.
    AllNan,
    /// `a[mask]` with a mask whose shape is not the array's: NumPy's IndexError (details:
    /// the axis's length, the mask's).
    MaskShape,
    /// `a[mask] = b` with `b` not as long as the mask has true elements (details: `b`'s
    /// length, the count).
    MaskAssign,
    /// A reduction's axis, known only when it runs, outside the array's dimensions: NumPy's
    /// AxisError (details: the axis, the dimensions).
    Axis,
}

/// Which NaN rule a `min`/`max` follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NanRule {
    /// Python's `min`/`max`: the first argument wins ties and NaNs.
    Python,
    /// `np.minimum`/`np.maximum`: a NaN on either side is the result.
    Propagate,
    /// `np.fmin`/`np.fmax`: a NaN is ignored.
    Ignore,
}

/// An operation on `datetime64`/`timedelta64` values (int64 counts of their unit, NaT the
/// least int64) as Numba lowers it: a helper function of [`crate::helpers`]. Unit factors
/// are int64 constants among the arguments.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DateOp {
    /// `(a, fa, b, fb)`: `a * fa + b * fb` (`sub`: minus); NaT when either is NaT.
    Combine { sub: bool },
    /// `(a, fa, b, fb)`: `a * fa` against `b * fb`; false with a NaT (`!=`: true).
    Compare(CmpOp),
    /// `(x)`: a datetime in years (`months`: months) as days since 1970 (`weeks`: whole
    /// weeks, floored); NaT kept.
    Calendar { months: bool, weeks: bool },
    /// `(td, n)`: a timedelta times a number of this dtype (int64, float32, float64); NaT
    /// kept, a NaN product NaT.
    Scale(DType),
    /// `(td, n)`: a timedelta over a number of this dtype (truncated); NaT for a NaT, a
    /// zero or a NaN divisor.
    Divide(DType),
    /// `(a, fa, b, fb)`: `(a * fa) / (b * fb)` as float64; NaN with a NaT.
    Ratio,
    /// `(td)`: minus a timedelta; NaT kept.
    Neg,
    /// `(td)`: its absolute value; NaT kept.
    Abs,
}

/// Atomic read-modify-write operations of `cuda.atomic`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum AtomicOp {
    /// `cuda.atomic.add`.
    Add,
    /// `cuda.atomic.sub`.
    Sub,
    /// `cuda.atomic.max` (NaN in memory or operand: memory kept).
    Max,
    /// `cuda.atomic.min`.
    Min,
    /// `cuda.atomic.nanmax` (NaNs ignored).
    NanMax,
    /// `cuda.atomic.nanmin`.
    NanMin,
    /// `cuda.atomic.exch`.
    Exch,
    /// `cuda.atomic.and_`.
    And,
    /// `cuda.atomic.or_`.
    Or,
    /// `cuda.atomic.xor`.
    Xor,
    /// `cuda.atomic.inc`: 0 once the element reaches the operand, else one more.
    Inc,
    /// `cuda.atomic.dec`: the operand when the element is 0 or above it, else one less.
    Dec,
}

/// Unary operators (after typing: `+x` is a conversion, `not x` is [`ExprKind::Not`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnaryOp {
    /// `-x`, in the result type (integers negated at the operand's width, wrapping).
    Neg,
    /// `~x` of an integer, at the operand's width.
    Invert,
}

/// What an expression computes.
#[derive(Clone, Debug)]
pub enum ExprKind {
    /// A constant.
    Const(Const),
    /// A variable's value.
    Local(LocalId),
    /// A temporary's value.
    Temp(Temp),
    /// The operand converted to this expression's type (Numba's casts).
    Cast(Box<Expr>),
    /// A unary operator.
    Unary(UnaryOp, Box<Expr>),
    /// `not x` (of x's truth value).
    Not(Box<Expr>),
    /// `bool(x)`.
    Bool(Box<Expr>),
    /// `l op r`, both operands of the operation's type (for `**` of a float by an integer,
    /// the exponent is int64).
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// A float16 (narrow float) value computed in float, rounded to its dtype.
    RoundNarrow(Box<Expr>),
    /// `l op r`, both of the comparison's type (not `in`/`is`).
    Compare(CmpOp, Box<Expr>, Box<Expr>),
    /// `a and b and ...` / `a or ...` of booleans (chained comparisons too).
    Logic(crate::ast::BoolOp, Vec<Expr>),
    /// Every item holds (a tuple equality); `negated` for `!=`.
    All { items: Vec<Expr>, negated: bool },
    /// Some item holds (`x in tuple`); `negated` for `not in`.
    Any { items: Vec<Expr>, negated: bool },
    /// `then if cond else other`.
    Select(Box<Expr>, Box<Expr>, Box<Expr>),
    /// An array element's value.
    Element(Place),
    /// A reference to the record at `place`, an element of an array of a structured dtype
    /// (the expression's type is [`Ty::Record`]).
    RecordAt(Place),
    /// The field at `offset` bytes into record `record`: a fixed-shape array over the
    /// field's bytes (0-d for a scalar field, whose element is its value), or a reference
    /// to a nested record.
    Field { record: Box<Expr>, offset: usize },
    /// The element being updated by the enclosing [`Stmt::Update`].
    Current,
    /// `array.shape[axis]`.
    Dim(Box<Expr>, usize),
    /// `array.strides[axis]` (bytes).
    Stride(Box<Expr>, usize),
    /// `array.size`.
    Size(Box<Expr>),
    /// A fixed-shape array over shared or local storage.
    FixedArray(Temp),
    /// A constant array of the module's globals.
    ConstArray(usize),
    /// A device array captured from the globals, at this address (CUDA).
    Captured(u64),
    /// The address of an array's first element as an integer (Numba's `a.ctypes.data`).
    Address(Box<Expr>),
    /// Python's `None`, as this expression's type holds it: no data (of type `none`), or an
    /// optional value that holds none (of an `Optional` type; host functions only).
    None,
    /// The operand as an optional value (of an `Optional` type) that holds it.
    Some(Box<Expr>),
    /// Whether an optional value holds none (`x is None`).
    IsNone(Box<Expr>),
    /// The value an optional holds; raises `TypeError` when it holds none (Numba's
    /// "expected float64, got None").
    Unwrap(Box<Expr>),
    /// A tuple of its items.
    MakeTuple(Vec<Expr>),
    /// Item `k` of a tuple.
    Item(Box<Expr>, usize),
    /// Item `index` (int64, wrapped) of a tuple of one item type.
    ItemAt(Box<Expr>, Box<Expr>),
    /// Python's negative index: `index + len` when `index < 0`.
    Wrap { index: Box<Expr>, len: Box<Expr> },
    /// The real (or imaginary) part of a complex number.
    Part { value: Box<Expr>, imag: bool },
    /// `complex(re, im)`.
    Complex(Box<Expr>, Option<Box<Expr>>),
    /// `z.conjugate()`.
    Conj(Box<Expr>),
    /// A specialisation of a device function (index into [`IrProgram::functions`]).
    Call(usize, Vec<Expr>),
    /// A CUDA C device function of [`crate::ast::Program::externs`], through the wrapper
    /// typing declared (`ember_ext_<name>`).
    External(String, Vec<Expr>),
    /// A libm function (`sqrt`, `atan2`...) in this expression's float type.
    Math(&'static str, Vec<Expr>),
    /// `isnan`/`isinf`/`isfinite` of a float.
    FloatTest(&'static str, Box<Expr>),
    /// `min`/`max` of two values of this expression's type.
    Extremum {
        max: bool,
        rule: NanRule,
        args: Box<[Expr; 2]>,
    },
    /// `abs(x)` of an integer, float or complex.
    Abs(Box<Expr>),
    /// `round(x)` of a float, half to even, as int64.
    Round(Box<Expr>),
    /// `round(x, digits)`.
    RoundDigits(Box<Expr>, Box<Expr>),
    /// Python's `math`/`cmath` function of [`crate::pymath`] (its helper declared by typing),
    /// named for its first argument's dtype.
    PyMath(&'static str, Vec<Expr>),
    /// A `datetime64`/`timedelta64` operation (its helper declared by typing).
    Datetime(DateOp, Vec<Expr>),
    /// A ufunc of the registry on scalars, in its NumPy loop `ins -> out`.
    Ufunc {
        name: &'static str,
        ins: &'static [DType],
        args: Vec<Expr>,
    },
    /// Thread geometry.
    Geometry(Geometry),
    /// A barrier or fence (no value).
    Sync(Sync),
    /// `cuda.atomic.<op>(array, index, value)`: the old value.
    Atomic {
        op: AtomicOp,
        place: Place,
        value: Box<Expr>,
    },
    /// `cuda.atomic.cas`: the old value.
    Cas {
        place: Place,
        old: Box<Expr>,
        new: Box<Expr>,
    },
    /// A row of the intrinsic registry (`cuda.popc`, `cuda.shfl_sync`...) applied to its
    /// arguments, each already converted to the type the intrinsic takes there; back ends
    /// write it by name.
    Intrinsic { name: &'static str, args: Vec<Expr> },
    /// A `cuda.random` draw (`xoroshiro128p_uniform_float32`...) from the state at `place`.
    Random(&'static str, Place),
    /// A new C-contiguous array of this expression's type, of `shape` (int64 extents), its
    /// elements `fill` (converted to the dtype) or left as the allocator gives them: NumPy's
    /// `empty`/`zeros`/`ones`/`full` and their `_like` forms, in host functions only.
    Alloc {
        shape: Vec<Expr>,
        fill: Option<Box<Expr>>,
    },
    /// `print(...)`: one device `printf` of `format` (printf's own syntax, in the dialect's
    /// spelling) with `args`.
    Print { format: String, args: Vec<PrintArg> },
}

/// In a host function's [`ExprKind::Print`] format: where a value goes, followed by its kind
/// (`d` an int64, `u` a uint64, `f` a float64, `b` a bool, `c` a complex number: two float64
/// values). Kernels' formats are printf's.
pub const HOST_MARK: char = '\u{0}';

/// An argument of [`ExprKind::Print`].
#[derive(Clone, Debug)]
pub enum PrintArg {
    /// A number, already converted to the type its conversion takes (int64, uint64, float64).
    Value(Expr),
    /// A bool, printed as `True` or `False` (a `%s`).
    Truth(Expr),
}

impl PrintArg {
    /// The expression printed.
    pub fn expr(&self) -> &Expr {
        match self {
            PrintArg::Value(e) | PrintArg::Truth(e) => e,
        }
    }
}

impl Expr {
    /// An expression not known to be >= 0.
    pub fn new(ty: Ty, kind: ExprKind) -> Expr {
        Expr {
            ty,
            nonneg: false,
            kind,
        }
    }

    /// The dtype of a scalar expression.
    pub fn dtype(&self) -> Option<DType> {
        self.ty.scalar()
    }

    /// Whether reading the expression again costs nothing and does nothing: a variable, a
    /// temporary or a plain non-negative integer.
    pub fn is_simple(&self) -> bool {
        match &self.kind {
            ExprKind::Local(_) | ExprKind::Temp(_) => true,
            ExprKind::Const(Const::Int(v)) => *v >= 0,
            ExprKind::Const(Const::Count(_)) => true,
            _ => false,
        }
    }
}
