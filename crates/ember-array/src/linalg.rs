//! Matrix products with NumPy's `matmul` rules: 1-d operands promoted to a row (first) or a
//! column (second) and the added axis removed from the result, batch axes broadcast, `out=`
//! (cast with `same_kind`, broadcast batch axes allowed), integer sums in the result dtype.
//!
//! Where the work runs:
//! - CUDA, float32/float64/complex64/complex128, cuBLAS found: cuBLAS `gemm` (strided-batched
//!   over the batch axes), reading transposed operands in place through its transpose flags;
//! - everything else (OpenCL, integer, bool and float16 dtypes, no cuBLAS): ember's tiled
//!   kernel (`ember_codegen::matmul`), which reads any strides, splitting long shared
//!   dimensions over blocks when C is small;
//! - a single product of two vectors (`dot` of 1-d arrays, `vdot`): an elementwise multiply
//!   and a tree reduction, which use the whole device.
//!
//! [`matmul_into`] is the LAPACK layer's product: `C -= A · B` into a strided block of a larger
//! stack (the trailing updates of LU and Cholesky), by cuBLAS with `beta = 1` or the tiled
//! kernel with its `subtract` flag, optionally changing one triangle of C only.

use std::sync::{Arc, OnceLock};

use ember_codegen::matmul::{MatmulKernel, Tile};
use ember_codegen::types::component;
use ember_core::shape::{broadcast_shapes, broadcast_strides, collapse_axes, format_shape};
use ember_core::{DType, Error, Result, Scalar};
use ember_runtime::cuda::blas;
use ember_runtime::{current_stream, BackendKind, Device, Function, KernelArg};

use crate::array::Array;
use crate::creation::fill;
use crate::reduction::{self, Reduction};
use crate::ufunc::{self, resolve::can_cast_same_kind};
use ember_kernel::{compile_generated, dialect, KernelMemo, Rounding};

const SIGNATURE: &str = "(n?,k),(k,m?)->(n?,m?)";

/// Which implementation computes products of `dtype` on `device`: `"cublas"` or `"tiled"`.
pub fn engine(device: &Device, dtype: DType) -> &'static str {
    if uses_blas(device, dtype) {
        "cublas"
    } else {
        "tiled"
    }
}

fn uses_blas(device: &Device, dtype: DType) -> bool {
    device.kind() == BackendKind::Cuda && blas::supports(dtype) && blas::available()
}

/// NumPy's `matmul(a, b, out=out)` computed in `dtype` (the operands are converted to it),
/// with A's elements conjugated when `conj_a` (`vdot`). Returns the result (`out` if given).
pub fn matmul(
    a: &Array,
    b: &Array,
    dtype: DType,
    out: Option<&Array>,
    conj_a: bool,
) -> Result<Array> {
    for (i, x) in [a, b].into_iter().enumerate() {
        x.dtype().numeric("matmul")?;
        if x.ndim() == 0 {
            return Err(Error::Value(format!(
                "matmul: Input operand {i} does not have enough dimensions (has 0, gufunc core with signature {SIGNATURE} requires 1)"
            )));
        }
    }
    let device = a.device();
    for x in [Some(b), out].into_iter().flatten() {
        if !std::ptr::eq(x.device(), device) {
            return Err(Error::Value(format!(
                "matmul operands are on different devices ({} and {}); copy one with get()/asarray first",
                device.info().ordinal,
                x.device().info().ordinal
            )));
        }
    }
    let (a_vec, b_vec) = (a.ndim() == 1, b.ndim() == 1);
    let (m, k) = core(a.shape(), false);
    let (kb, n) = core(b.shape(), true);
    if k != kb {
        return Err(Error::Value(format!(
            "matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature {SIGNATURE} (size {kb} is different from {k})"
        )));
    }
    let a_batch = &a.shape()[..a.ndim().saturating_sub(2)];
    let b_batch = &b.shape()[..b.ndim().saturating_sub(2)];
    let mut batch = broadcast_shapes(&[a_batch, b_batch]).map_err(|_| {
        Error::Value(format!(
            "operands could not be broadcast together with remapped shapes [original->remapped]: {} {}  and requested shape {}",
            remapped(a.shape(), a_vec),
            remapped(b.shape(), b_vec),
            compact(&[m, n])
        ))
    })?;
    let mut core_out = Vec::new();
    if !a_vec {
        core_out.push(m);
    }
    if !b_vec {
        core_out.push(n);
    }
    if let Some(o) = out {
        batch = check_output(o, &batch, &core_out, dtype)?;
    }
    let shape: Vec<usize> = batch.iter().chain(&core_out).copied().collect();

    // Write straight into `out` when it has the layout and dtype of the result and does not
    // share memory with an input; otherwise into a new array, copied (and cast) at the end.
    let direct = out.filter(|o| {
        o.dtype() == dtype
            && o.is_c_contiguous()
            && !Arc::ptr_eq(o.buffer(), a.buffer())
            && !Arc::ptr_eq(o.buffer(), b.buffer())
    });
    let dest = match direct {
        Some(o) => o.clone(),
        None => Array::empty(device, &shape, dtype)?,
    };
    let convert = |x: &Array| {
        if x.dtype() == dtype {
            Ok(x.clone())
        } else {
            x.astype(dtype)
        }
    };
    let (a, b) = (convert(a)?, convert(b)?);
    if dest.size() > 0 {
        if k == 0 {
            fill(&dest, Scalar::Int(0))?;
        } else {
            compute(
                &a,
                &b,
                &dest,
                batch.len(),
                Update {
                    conj_a,
                    ..Update::default()
                },
            )?;
        }
    }
    match out {
        Some(o) if direct.is_none() => {
            dest.copy_into(o)?;
            Ok(o.clone())
        }
        _ => Ok(dest),
    }
}

/// (rows, cols) of a matmul operand; a 1-d operand is a row when first, a column when second.
fn core(shape: &[usize], second: bool) -> (usize, usize) {
    match shape {
        [k] if second => (*k, 1),
        [k] => (1, *k),
        [.., r, c] => (*r, *c),
        [] => (1, 1),
    }
}

/// A shape as NumPy's broadcast error prints it: `(2,3,4)`.
fn compact(shape: &[usize]) -> String {
    let parts: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    format!(
        "({}{})",
        parts.join(","),
        if shape.len() == 1 { "," } else { "" }
    )
}

/// `(2,3,4)->(2,newaxis,newaxis)`: an operand's shape with its core axes hidden.
fn remapped(shape: &[usize], vector: bool) -> String {
    let cores = if vector { 1 } else { 2 };
    let mut parts: Vec<String> = shape[..shape.len() - cores]
        .iter()
        .map(|d| d.to_string())
        .collect();
    parts.extend(["newaxis".to_string(), "newaxis".to_string()]);
    format!("{}->({})", compact(shape), parts.join(","))
}

/// Checks `out` against the result's batch and core shape and dtype; returns the batch shape
/// of the result (`out`'s, which may broadcast the inputs' batch).
fn check_output(
    o: &Array,
    batch: &[usize],
    core_out: &[usize],
    dtype: DType,
) -> Result<Vec<usize>> {
    let cores = core_out.len();
    if o.ndim() < cores {
        return Err(Error::Value(format!(
            "matmul: Output operand 0 does not have enough dimensions (has {}, gufunc core with signature {SIGNATURE} requires {cores})",
            o.ndim()
        )));
    }
    let (o_batch, o_core) = o.shape().split_at(o.ndim() - cores);
    for (i, (&got, &want)) in o_core.iter().zip(core_out).enumerate() {
        if got != want {
            return Err(Error::Value(format!(
                "matmul: Output operand 0 has a mismatch in its core dimension {i}, with gufunc signature {SIGNATURE} (size {got} is different from {want})"
            )));
        }
    }
    let joint = broadcast_shapes(&[batch, o_batch]).ok();
    if joint.as_deref() != Some(o_batch) {
        let full: Vec<usize> = batch.iter().chain(core_out).copied().collect();
        return Err(Error::Value(format!(
            "non-broadcastable output operand with shape {} doesn't match the broadcast shape {}",
            format_shape(o.shape()),
            format_shape(&full)
        )));
    }
    if !can_cast_same_kind(dtype, o.dtype()) {
        return Err(Error::Type(format!(
            "Cannot cast ufunc 'matmul' output from dtype('{}') to dtype('{}') with casting rule 'same_kind'",
            dtype.name(),
            o.dtype().name()
        )));
    }
    Ok(o_batch.to_vec())
}

/// One operand of a product seen as `batch × rows × cols`, strides in bytes.
#[derive(Clone, Debug)]
struct Operand {
    array: Array,
    batch_strides: Vec<isize>,
    row: isize,
    col: isize,
}

/// A product `C = A · B` of `batch` pairs of `m × k` and `k × n` matrices.
#[derive(Clone, Debug)]
struct Product {
    batch: Vec<usize>,
    m: usize,
    n: usize,
    k: usize,
    a: Operand,
    b: Operand,
    c: Operand,
    update: Update,
}

/// How [`matmul_into`] writes its product into C.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Update {
    /// Conjugate A's elements.
    pub conj_a: bool,
    /// `C -= A · B` instead of `C = A · B`.
    pub subtract: bool,
    /// Which elements of C (as the view passed sees it) change.
    pub triangle: Triangle,
}

/// A part of C: everything, or the elements on and below (`Lower`) or on and above (`Upper`)
/// the diagonal shifted by `shift` (element `(i, j)` is kept when `i - j + shift >= 0`, resp.
/// `<= 0`; the shift places a block's diagonal within its whole matrix).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Triangle {
    #[default]
    All,
    Lower(isize),
    Upper(isize),
}

impl Triangle {
    /// The kernel's `tri` and `shift` arguments.
    fn args(self) -> [i64; 2] {
        match self {
            Triangle::All => [0, 0],
            Triangle::Lower(s) => [1, s as i64],
            Triangle::Upper(s) => [2, s as i64],
        }
    }
}

impl Product {
    /// The product of `a` and `b` into `dest`, whose first `batch_ndim` axes are the batch.
    fn new(a: &Array, b: &Array, dest: &Array, batch_ndim: usize, update: Update) -> Product {
        let batch = &dest.shape()[..batch_ndim];
        let operand = |x: &Array, second: bool| {
            let nd = x.ndim();
            let (row, col, lead) = match (nd, second) {
                (1, false) => (0, x.strides()[0], 0),
                (1, true) => (x.strides()[0], 0, 0),
                _ => (x.strides()[nd - 2], x.strides()[nd - 1], nd - 2),
            };
            Operand {
                array: x.clone(),
                batch_strides: broadcast_strides(&x.shape()[..lead], &x.strides()[..lead], batch),
                row,
                col,
            }
        };
        let (m, k) = core(a.shape(), false);
        let n = core(b.shape(), true).1;
        let cs = dest.strides();
        let c = Operand {
            array: dest.clone(),
            batch_strides: cs[..batch_ndim].to_vec(),
            row: if a.ndim() == 1 { 0 } else { cs[batch_ndim] },
            col: if b.ndim() == 1 { 0 } else { cs[cs.len() - 1] },
        };
        let mut p = Product {
            batch: batch.to_vec(),
            m,
            n,
            k,
            a: operand(a, false),
            b: operand(b, true),
            c,
            update,
        };
        p.collapse_batch();
        p
    }

    /// Merges batch axes that every operand walks evenly, then folds the batch into A's and
    /// C's rows when B is shared by every batch and the rows continue across it (one large
    /// product instead of many small ones; not for a triangle, which counts rows per matrix).
    fn collapse_batch(&mut self) {
        let strides = [
            self.a.batch_strides.clone(),
            self.b.batch_strides.clone(),
            self.c.batch_strides.clone(),
        ];
        let (mut shape, mut st) = collapse_axes(&self.batch, &strides);
        if shape == [1] {
            shape.clear();
            st.iter_mut().for_each(Vec::clear);
        }
        self.batch = shape;
        for (op, s) in [&mut self.a, &mut self.b, &mut self.c].into_iter().zip(st) {
            op.batch_strides = s;
        }
        if self.update.triangle != Triangle::All {
            return;
        }
        if let ([count], [sa], [0], [sc]) = (
            self.batch.as_slice(),
            self.a.batch_strides.as_slice(),
            self.b.batch_strides.as_slice(),
            self.c.batch_strides.as_slice(),
        ) {
            let rows = self.m as isize;
            let continues = |stride: isize, row: isize| self.m == 1 || stride == rows * row;
            if *sa != 0 && *sc != 0 && continues(*sa, self.a.row) && continues(*sc, self.c.row) {
                let (sa, sc, count) = (*sa, *sc, *count);
                if self.m == 1 {
                    self.a.row = sa;
                    self.c.row = sc;
                }
                self.m *= count;
                self.batch.clear();
                self.a.batch_strides.clear();
                self.b.batch_strides.clear();
                self.c.batch_strides.clear();
            }
        }
    }

    /// The innermost batch extent and the outer batch indices, each with the byte offsets of
    /// its first A, B and C matrices.
    fn batches(&self) -> (usize, Vec<[isize; 3]>) {
        let Some((&inner, outer)) = self.batch.split_last() else {
            return (1, vec![[0; 3]]);
        };
        let mut offsets = vec![[0isize; 3]];
        for (axis, &extent) in outer.iter().enumerate() {
            let steps = [
                self.a.batch_strides[axis],
                self.b.batch_strides[axis],
                self.c.batch_strides[axis],
            ];
            offsets = offsets
                .iter()
                .flat_map(|base| {
                    (0..extent as isize).map(move |i| [0, 1, 2].map(|j| base[j] + i * steps[j]))
                })
                .collect();
        }
        (inner, offsets)
    }

    /// Byte strides between the inner batch's matrices of A, B and C.
    fn inner_strides(&self) -> [isize; 3] {
        let last = |s: &[isize]| s.last().copied().unwrap_or(0);
        [
            last(&self.a.batch_strides),
            last(&self.b.batch_strides),
            last(&self.c.batch_strides),
        ]
    }
}

fn compute(a: &Array, b: &Array, dest: &Array, batch_ndim: usize, update: Update) -> Result<()> {
    let p = Product::new(a, b, dest, batch_ndim, update);
    if p.batch.is_empty() && p.m == 1 && p.n == 1 && update == Update::default() {
        return vector_product(&p);
    }
    // cuBLAS changes whole matrices only.
    if uses_blas(dest.device(), dest.dtype()) && update.triangle == Triangle::All {
        let (mut a, mut b) = (a.clone(), b.clone());
        for attempt in 0..2 {
            let p = Product::new(&a, &b, dest, batch_ndim, update);
            let (a_op, b_op, ldc) = blas_operands(&p);
            match (a_op, b_op, ldc) {
                (Some(a_op), Some(b_op), Some(ldc)) => return run_blas(&p, a_op, b_op, ldc),
                (_, _, None) => break,
                // cuBLAS conjugates only operands it reads column by column.
                (None, _, _) if update.conj_a => break,
                _ if attempt > 0 => break,
                _ => {}
            }
            // An operand cuBLAS cannot read in place (negative or doubly strided) is copied
            // to C order: only its own axes, never the broadcast batch.
            if a_op.is_none() {
                a = a.copy()?;
            }
            if b_op.is_none() {
                b = b.copy()?;
            }
        }
    }
    let (a, b) = (whole_elements(a)?, whole_elements(b)?);
    run_tiled(&Product::new(&a, &b, dest, batch_ndim, update))
}

/// `C = A · B`, or `C -= A · B` with `update.subtract` (LAPACK's trailing update), for stacks
/// `a` `(batch, m, k)`, `b` `(batch, k, n)` and `c` `(batch, m, n)` of one float or complex
/// dtype with any strides (`c` typically a block of a larger stack), changing only
/// `update.triangle` of C. The tiled kernel stores along C's last axis: a `c` whose last
/// stride is one element writes fastest.
pub fn matmul_into(a: &Array, b: &Array, c: &Array, update: Update) -> Result<()> {
    let (&[batch, m, k], &[b_batch, kb, n], &[c_batch, cm, cn]) = (a.shape(), b.shape(), c.shape())
    else {
        return Err(Error::Value(format!(
            "matmul_into takes (batch, rows, cols) stacks, got shapes {}, {} and {}",
            format_shape(a.shape()),
            format_shape(b.shape()),
            format_shape(c.shape())
        )));
    };
    if (b_batch, kb, c_batch, cm, cn) != (batch, k, batch, m, n) {
        return Err(Error::Value(format!(
            "matmul_into: shapes {}, {} and {} do not make a product (batch, m, k) x (batch, k, n) -> (batch, m, n)",
            format_shape(a.shape()),
            format_shape(b.shape()),
            format_shape(c.shape())
        )));
    }
    let dtype = c.dtype();
    if a.dtype() != dtype || b.dtype() != dtype || !(dtype.is_float() || dtype.is_complex()) {
        return Err(Error::Type(format!(
            "matmul_into takes operands of one float or complex dtype, got {}, {} and {}",
            a.dtype(),
            b.dtype(),
            dtype
        )));
    }
    let device = c.device();
    if !std::ptr::eq(a.device(), device) || !std::ptr::eq(b.device(), device) {
        return Err(Error::Value(
            "matmul_into: operands on different devices".into(),
        ));
    }
    let item = dtype.itemsize() as isize;
    if c.strides().iter().any(|s| s % item != 0) {
        return Err(Error::Value(
            "matmul_into writes a C whose strides are whole elements".into(),
        ));
    }
    if c.size() == 0 || (k == 0 && update.subtract) {
        return Ok(());
    }
    compute(a, b, c, 1, update)
}

/// `x`, or a copy of it when a stride is not a whole number of elements (a view through
/// another dtype), since kernels and cuBLAS count strides in elements.
fn whole_elements(x: &Array) -> Result<Array> {
    let size = x.dtype().itemsize() as isize;
    if x.strides().iter().all(|s| s % size == 0) {
        Ok(x.clone())
    } else {
        x.copy()
    }
}

/// `C = A · B` of a row and a column: multiply, then sum with a tree reduction.
fn vector_product(p: &Product) -> Result<()> {
    let dtype = p.c.array.dtype();
    let view = |op: &Operand, stride: isize| {
        op.array
            .view(&[p.k], &[stride], op.array.offset(), op.array.dtype())
    };
    let (mut x, mut y) = (view(&p.a, p.a.col)?, view(&p.b, p.b.row)?);
    // float16 products and sums are formed in float32, as NumPy's matmul does.
    let work = if dtype.is_narrow() {
        dtype.compute()
    } else {
        dtype
    };
    if work != dtype {
        x = x.astype(work)?;
        y = y.astype(work)?;
    }
    if p.update.conj_a && dtype.is_complex() {
        x = conjugated(&x)?;
    }
    let device = x.device();
    let multiply = ufunc::ufunc("multiply")?;
    let products = ufunc::apply(
        device,
        multiply,
        &[ufunc::Operand::Array(x), ufunc::Operand::Array(y)],
        &[None],
        Some(work),
    )?;
    let products = products
        .first()
        .ok_or_else(|| Error::Value("multiply returned no output".into()))?;
    let total = if work == DType::Bool {
        reduction::reduce(products, Reduction::Any, None, None, None, false)?
    } else {
        reduction::reduce(products, Reduction::Sum, None, Some(work), None, false)?
    };
    let target = p.c.array.view(&[], &[], p.c.array.offset(), dtype)?;
    total.copy_into(&target)
}

/// A copy of complex `x` with its imaginary parts negated.
fn conjugated(x: &Array) -> Result<Array> {
    let copy = x.copy()?;
    let part = component(x.dtype());
    let imag = copy.view(
        copy.shape(),
        copy.strides(),
        copy.offset() + part.itemsize(),
        part,
    )?;
    ufunc::apply(
        x.device(),
        ufunc::ufunc("negative")?,
        &[ufunc::Operand::Array(imag.clone())],
        &[Some(imag)],
        None,
    )?;
    Ok(copy)
}

/// How column-major BLAS reads a `rows × cols` matrix with element strides `sr`, `sc`: as
/// stored row by row (`false`) or column by column (`true`), with its leading dimension.
/// The column-major reading is tried first when `columns_first`.
fn blas_layout(
    rows: usize,
    cols: usize,
    sr: isize,
    sc: isize,
    columns_first: bool,
) -> Option<(bool, i64)> {
    let by_rows =
        ((cols <= 1 || sc == 1) && (rows <= 1 || sr >= cols.max(1) as isize)).then(|| {
            (
                false,
                if rows <= 1 {
                    cols.max(1) as i64
                } else {
                    sr as i64
                },
            )
        });
    let by_cols =
        ((rows <= 1 || sr == 1) && (cols <= 1 || sc >= rows.max(1) as isize)).then(|| {
            (
                true,
                if cols <= 1 {
                    rows.max(1) as i64
                } else {
                    sc as i64
                },
            )
        });
    if columns_first {
        by_cols.or(by_rows)
    } else {
        by_rows.or(by_cols)
    }
}

/// Element strides of an operand, if its byte strides are whole elements.
fn in_elements(op: &Operand) -> Option<(isize, isize, Vec<isize>)> {
    let size = op.array.dtype().itemsize() as isize;
    let whole = |s: isize| (s % size == 0).then_some(s / size);
    let batch: Option<Vec<isize>> = op.batch_strides.iter().map(|&s| whole(s)).collect();
    Some((whole(op.row)?, whole(op.col)?, batch?))
}

/// What cuBLAS needs of one operand.
#[derive(Clone, Copy, Debug)]
struct BlasOperand {
    op: blas::Op,
    ld: i64,
}

/// cuBLAS's reading of A, of B and C's leading dimension, in the formulation cuBLAS runs:
/// column-major `Cᵀ = Bᵀ · Aᵀ` (C-ordered data read column by column is the transpose).
fn blas_operands(p: &Product) -> (Option<BlasOperand>, Option<BlasOperand>, Option<i64>) {
    let ok_batch = |s: &[isize]| s.iter().all(|&x| x >= 0);
    let a = in_elements(&p.a)
        .filter(|(_, _, s)| ok_batch(s))
        .and_then(|(sr, sc, _)| {
            let conj = p.update.conj_a;
            let (by_cols, ld) = blas_layout(p.m, p.k, sr, sc, conj)?;
            let op = match (by_cols, conj) {
                (false, false) => blas::Op::N,
                (false, true) => return None,
                (true, false) => blas::Op::T,
                (true, true) => blas::Op::C,
            };
            Some(BlasOperand { op, ld })
        });
    let b = in_elements(&p.b)
        .filter(|(_, _, s)| ok_batch(s))
        .and_then(|(sr, sc, _)| {
            let (by_cols, ld) = blas_layout(p.k, p.n, sr, sc, false)?;
            let op = if by_cols { blas::Op::T } else { blas::Op::N };
            Some(BlasOperand { op, ld })
        });
    let c = in_elements(&p.c)
        .filter(|(_, _, s)| ok_batch(s))
        .and_then(|(sr, sc, _)| match blas_layout(p.m, p.n, sr, sc, false)? {
            (false, ld) => Some(ld),
            (true, _) => None,
        });
    (a, b, c)
}

fn run_blas(p: &Product, a_op: BlasOperand, b_op: BlasOperand, ldc: i64) -> Result<()> {
    let c_arr = &p.c.array;
    let size = c_arr.dtype().itemsize() as isize;
    let (count, outer) = p.batches();
    let [sa, sb, sc] = p.inner_strides().map(|s| (s / size) as i64);
    let base = |op: &Operand| op.array.buffer().handle();
    let (base_a, base_b, base_c) = (base(&p.a)?, base(&p.b)?, base(&p.c)?);
    let address = |op: &Operand, base: u64, extra: isize| -> u64 {
        base + (op.array.offset() as isize + extra) as u64
    };
    // Column-major: C' (n × m) = op(B') (n × k) · op(A') (k × m).
    let gemm = |[oa, ob, oc]: [isize; 3]| blas::Gemm {
        m: p.n as i64,
        n: p.m as i64,
        k: p.k as i64,
        a: blas::Matrix {
            ptr: address(&p.b, base_b, ob),
            op: b_op.op,
            ld: b_op.ld,
            stride: sb,
        },
        b: blas::Matrix {
            ptr: address(&p.a, base_a, oa),
            op: a_op.op,
            ld: a_op.ld,
            stride: sa,
        },
        c: address(&p.c, base_c, oc),
        ldc,
        stride_c: sc,
        batch: count as i64,
        subtract: p.update.subtract,
    };
    if !gemm([0; 3]).fits_32bit() {
        return run_tiled(p);
    }
    for offsets in outer {
        blas::gemm(c_arr.device(), c_arr.dtype(), &gemm(offsets))?;
    }
    Ok(())
}

fn kernel(device: &'static Device, spec: &MatmulKernel) -> Result<Function> {
    static MEMO: KernelMemo<MatmulKernel> = KernelMemo::new();
    MEMO.get_or_compile(device, spec, || {
        // Products contract into multiply-adds, as BLAS's do.
        compile_generated(
            device,
            &spec.source(dialect(device)),
            &spec.name(),
            &[],
            Rounding::Contracted,
        )
    })
}

/// How many parts to split the shared dimension into: enough blocks to fill the device when
/// C alone gives few, each part at least 8 panels deep.
fn splits_for(device: &Device, blocks: usize, k: usize, depth: usize) -> usize {
    let info = device.info();
    let wanted = info.multiprocessors.max(1) * if info.is_cpu { 2 } else { 4 };
    if blocks >= wanted {
        return 1;
    }
    (wanted / blocks).min(k / (8 * depth)).max(1)
}

/// What `EMBER_MATMUL_TILE` asks for (see `ember_codegen::matmul`): the GPU or CPU tiles on
/// any device, or one general tile.
#[derive(Clone, Copy, Debug)]
enum TileKnob {
    Unset,
    Gpu(bool),
    General(Tile),
}

/// `EMBER_MATMUL_TILE`, read once; an invalid value is an error at every product.
fn tile_knob() -> Result<TileKnob> {
    static KNOB: OnceLock<std::result::Result<TileKnob, String>> = OnceLock::new();
    KNOB.get_or_init(|| {
        let text = std::env::var("EMBER_MATMUL_TILE").unwrap_or_default();
        match text.trim() {
            "" => Ok(TileKnob::Unset),
            "gpu" => Ok(TileKnob::Gpu(true)),
            "cpu" => Ok(TileKnob::Gpu(false)),
            t => Tile::parse(t).map(TileKnob::General).ok_or_else(|| {
                format!(
                    "EMBER_MATMUL_TILE={t:?} is not a tile: use gpu, cpu or threads_m,threads_n,per_thread_m,per_thread_n,depth (at most 1024 threads, 256 elements a thread), e.g. 16,16,8,8,16"
                )
            }),
        }
    })
    .clone()
    .map_err(Error::Value)
}

/// The tile of a product on `device` (the choice itself is `Tile::for_shape`'s), and whether
/// the device takes GPU tiles.
fn tile_for(device: &Device, m: usize, n: usize, dtype: DType) -> Result<(Tile, bool)> {
    let mut gpu = !device.info().is_cpu;
    let mut general = None;
    match tile_knob()? {
        TileKnob::Unset => {}
        TileKnob::Gpu(on) => gpu = on,
        TileKnob::General(t) => general = Some(t),
    }
    let tile = Tile::for_shape(m, n, dtype, gpu, general);
    let bytes = tile.local_bytes(dtype);
    if bytes > 48 * 1024 || bytes > device.info().max_shared_per_block {
        return Err(Error::Value(format!(
            "the matmul tile {tile:?} stages {bytes} bytes of {dtype} in local memory, more than the 48 KiB (or the device's limit) a block may take"
        )));
    }
    Ok((tile, gpu))
}

fn run_tiled(p: &Product) -> Result<()> {
    let c_arr = &p.c.array;
    let device = c_arr.device();
    let dtype = c_arr.dtype();
    let (tile, gpu) = tile_for(device, p.m, p.n, dtype)?;
    let (tiles_m, tiles_n) = (p.m.div_ceil(tile.rows()), p.n.div_ceil(tile.cols()));
    let (count, outer) = p.batches();
    // Updates in place are not split (their shared dimension is a block's width).
    let mut splits = if p.update == Update::default() {
        splits_for(device, tiles_m * tiles_n * count, p.k, tile.depth)
    } else {
        1
    };
    let k_chunk = (p.k.div_ceil(splits).div_ceil(tile.depth) * tile.depth).max(tile.depth);
    splits = p.k.div_ceil(k_chunk).max(1);
    // Partial sums of a split product are kept in the type they accumulate in.
    let partial = if dtype.is_narrow() {
        dtype.compute()
    } else {
        dtype
    };
    let elements = |op: &Operand| in_elements(op).unwrap_or((0, 0, Vec::new()));
    let (a_row, a_col, _) = elements(&p.a);
    let (b_row, b_col, _) = elements(&p.b);
    let (c_row, c_col) = if splits == 1 {
        let (r, c, _) = elements(&p.c);
        (r, c)
    } else {
        (p.n as isize, 1)
    };
    let spec = MatmulKernel {
        dtype,
        out_dtype: if splits > 1 { partial } else { dtype },
        conj_a: p.update.conj_a && dtype.is_complex(),
        tile,
        subtract: p.update.subtract,
        wide_offsets: !tile.offsets_fit_32bit((a_row, a_col), (b_row, b_col), (c_row, c_col)),
        prefetch: gpu,
    };
    let function = kernel(device, &spec)?;
    let per_batch = tiles_m * tiles_n * splits;
    let max_blocks = i32::MAX as usize;
    if per_batch > max_blocks {
        return Err(Error::Value(format!(
            "a {} x {} product needs {per_batch} blocks, more than one launch can have",
            p.m, p.n
        )));
    }
    let chunk = (max_blocks / per_batch).min(count).max(1);
    let [sa, sb, sc] = p.inner_strides();
    let item = |op: &Operand| op.array.dtype().itemsize() as isize;
    for [oa, ob, oc] in outer {
        let mut start = 0;
        while start < count {
            let this = chunk.min(count - start);
            let s = start as isize;
            let (a_off, b_off, c_off) = (oa + s * sa, ob + s * sb, oc + s * sc);
            if splits == 1 {
                let c_strides = [sc / item(&p.c), c_row, c_col];
                launch_tiled(
                    &function,
                    p,
                    &spec,
                    this,
                    [&p.a.array, &p.b.array, c_arr],
                    [a_off, b_off, c_off],
                    [sa / item(&p.a), a_row, a_col, sb / item(&p.b), b_row, b_col],
                    c_strides,
                    [p.k, splits, k_chunk],
                )?;
            } else {
                let partials = Array::empty(device, &[splits, this, p.m, p.n], spec.out_dtype)?;
                let (m, n) = (p.m as isize, p.n as isize);
                launch_tiled(
                    &function,
                    p,
                    &spec,
                    this,
                    [&p.a.array, &p.b.array, &partials],
                    [a_off, b_off, 0],
                    [sa / item(&p.a), a_row, a_col, sb / item(&p.b), b_row, b_col],
                    [m * n, n, 1],
                    [p.k, splits, k_chunk],
                )?;
                let summed = if spec.out_dtype == DType::Bool {
                    reduction::reduce(&partials, Reduction::Any, Some(&[0]), None, None, false)?
                } else {
                    reduction::reduce(
                        &partials,
                        Reduction::Sum,
                        Some(&[0]),
                        Some(spec.out_dtype),
                        None,
                        false,
                    )?
                };
                let target = c_arr.view(
                    &[this, p.m, p.n],
                    &[sc, p.c.row, p.c.col],
                    (c_arr.offset() as isize + c_off) as usize,
                    dtype,
                )?;
                summed.copy_into(&target)?;
            }
            start += this;
        }
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn launch_tiled(
    function: &Function,
    p: &Product,
    spec: &MatmulKernel,
    count: usize,
    arrays: [&Array; 3],
    offsets: [isize; 3],
    ab_strides: [isize; 6],
    c_strides: [isize; 3],
    [k, splits, k_chunk]: [usize; 3],
) -> Result<()> {
    let device = arrays[2].device();
    let tile = spec.tile;
    let (tiles_m, tiles_n) = (p.m.div_ceil(tile.rows()), p.n.div_ceil(tile.cols()));
    let blocks = tiles_m * tiles_n * splits * count;
    let split_stride = (count * p.m * p.n) as isize;
    let ints: Vec<[u8; 8]> = [
        p.m as i64,
        p.n as i64,
        k as i64,
        k_chunk as i64,
        tiles_n as i64,
        tiles_m as i64,
        splits as i64,
    ]
    .into_iter()
    .chain(ab_strides.iter().map(|&s| s as i64))
    .chain(c_strides.iter().map(|&s| s as i64))
    .chain([split_stride as i64])
    .chain(p.update.triangle.args())
    .map(i64::to_le_bytes)
    .collect();
    let mut args: Vec<KernelArg<'_>> = arrays
        .iter()
        .zip(offsets)
        .map(|(x, extra)| x.buffer().arg((x.offset() as isize + extra) as usize))
        .collect();
    args.extend(ints.iter().map(|b| KernelArg::Bytes(b)));
    ember_kernel::note_bytes(arrays.iter().map(|&x| x as &dyn ember_kernel::Operand));
    device.launch(
        function,
        [blocks as u32, 1, 1],
        [tile.threads() as u32, 1, 1],
        0,
        current_stream(device),
        &args,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blas_reads_c_order_as_rows_and_transposes_as_columns() {
        // A C-ordered 3 × 4 matrix: rows of 4.
        assert_eq!(blas_layout(3, 4, 4, 1, false), Some((false, 4)));
        // Its transpose (4 × 3, strides 1 and 4): read column by column.
        assert_eq!(blas_layout(4, 3, 1, 4, false), Some((true, 4)));
        // A row vector reads either way; columns first when asked (conjugation needs it).
        assert_eq!(blas_layout(1, 5, 0, 1, true), Some((true, 1)));
        // Every other row of a 6 × 4 matrix: leading dimension 8.
        assert_eq!(blas_layout(3, 4, 8, 1, false), Some((false, 8)));
        // Negative or doubly strided: not readable in place.
        assert_eq!(blas_layout(3, 4, -4, 1, false), None);
        assert_eq!(blas_layout(3, 4, 8, 2, false), None);
    }

    #[test]
    fn remapped_shapes_print_as_numpy() {
        assert_eq!(remapped(&[2, 3, 4], false), "(2,3,4)->(2,newaxis,newaxis)");
        assert_eq!(compact(&[3]), "(3,)");
        assert_eq!(core(&[5], true), (5, 1));
        assert_eq!(core(&[5], false), (1, 5));
        assert_eq!(core(&[2, 3, 4], false), (3, 4));
    }
}
