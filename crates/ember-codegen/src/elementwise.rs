//! Elementwise kernels: `outputs = f(inputs, scalars)` over a flat index `i`.
//!
//! Contiguous operands are indexed by `i` directly; strided ones (views, broadcasts) get a
//! byte offset computed by unravelling `i` over the shape. Threads walk the index space in a
//! grid-stride loop, so any grid size covers any `n`.
//!
//! Parameters, in order — the launcher passes arguments the same way:
//! 1. each input, then each output: its buffer (OpenCL: buffer then byte offset, as
//!    `KernelArg::Buffer` passes them);
//! 2. each scalar, by value, as its [`value_type`](crate::types::value_type);
//! 3. `n`, the element count (int64);
//! 4. if any operand is strided: the `ndim` extents, then each strided operand's `ndim`
//!    strides in bytes (all int64).

use std::fmt::Write;

use ember_core::DType;

use crate::dialect::Dialect;
use crate::prelude::prelude_for;
use crate::types::{load, storage_type, store, value_type};

/// An array operand.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Operand {
    /// Its name in the body (a C identifier).
    pub name: String,
    pub dtype: DType,
    /// False when C-contiguous (addressed by `i`).
    pub strided: bool,
}

impl Operand {
    pub fn new(name: &str, dtype: DType, strided: bool) -> Operand {
        Operand {
            name: name.to_string(),
            dtype,
            strided,
        }
    }
}

/// An elementwise kernel to generate.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MapKernel {
    pub name: String,
    pub inputs: Vec<Operand>,
    pub outputs: Vec<Operand>,
    /// Scalar parameters (name, dtype).
    pub scalars: Vec<(String, DType)>,
    /// Number of axes strided operands are unravelled over.
    pub ndim: usize,
    /// C statements: inputs are locals holding their values, outputs are locals to assign,
    /// `i` is the flat index and `n` the count.
    pub body: String,
}

impl MapKernel {
    fn operands(&self) -> impl Iterator<Item = &Operand> {
        self.inputs.iter().chain(&self.outputs)
    }

    fn any_strided(&self) -> bool {
        self.ndim > 0 && self.operands().any(|o| o.strided)
    }

    /// The kernel's source in `dialect`, prelude included.
    pub fn source(&self, dialect: Dialect) -> String {
        let t = dialect.table();
        let i64t = t.int64;
        let mut params = Vec::new();
        for op in self.operands() {
            params.push(format!(
                "{}{}* {}_p",
                t.global,
                storage_type(op.dtype, dialect),
                op.name
            ));
            if t.buffer_offsets {
                params.push(format!("{i64t} {}_o", op.name));
            }
        }
        for (name, dtype) in &self.scalars {
            params.push(format!("{} {name}", value_type(*dtype, dialect)));
        }
        params.push(format!("{i64t} n"));
        let strided: Vec<&Operand> = if self.any_strided() {
            self.operands().filter(|o| o.strided).collect()
        } else {
            Vec::new()
        };
        if !strided.is_empty() {
            params.extend((0..self.ndim).map(|d| format!("{i64t} shape{d}")));
            for op in &strided {
                params.extend((0..self.ndim).map(|d| format!("{i64t} {}_s{d}", op.name)));
            }
        }

        let dtypes = self
            .operands()
            .map(|o| o.dtype)
            .chain(self.scalars.iter().map(|(_, d)| *d));
        let mut s = prelude_for(dialect, dtypes);
        let _ = writeln!(
            s,
            "{} {}({}) {{",
            t.kernel_prefix,
            self.name,
            params.join(", ")
        );
        if t.buffer_offsets {
            for op in self.operands() {
                let st = storage_type(op.dtype, dialect);
                let var = format!("{}_p", op.name);
                s.push_str(
                    &t.offset_pointer(&var, st, false, &format!("{}_o", op.name))
                        .unwrap_or_default(),
                );
            }
        }
        let _ = writeln!(
            s,
            "  for ({i64t} i = {}; i < n; i += {}) {{",
            t.global_id, t.global_size
        );
        if !strided.is_empty() {
            let _ = writeln!(s, "    {i64t} rest = i;");
            for op in &strided {
                let _ = writeln!(s, "    {i64t} {}_off = 0;", op.name);
            }
            for d in (0..self.ndim).rev() {
                let _ = writeln!(s, "    {{ {i64t} k = rest % shape{d}; rest /= shape{d};");
                for op in &strided {
                    let _ = writeln!(s, "      {0}_off += k * {0}_s{d};", op.name);
                }
                let _ = writeln!(s, "    }}");
            }
        }
        let pointer = |op: &Operand| -> String {
            let st = storage_type(op.dtype, dialect);
            if op.strided && !strided.is_empty() {
                format!(
                    "({g}{st}*)((({g}char*){0}_p) + {0}_off)",
                    op.name,
                    g = t.global
                )
            } else {
                format!("{}_p + i", op.name)
            }
        };
        for op in &self.inputs {
            let _ = writeln!(
                s,
                "    {} {} = {};",
                value_type(op.dtype, dialect),
                op.name,
                load(op.dtype, dialect, &pointer(op))
            );
        }
        for op in &self.outputs {
            let _ = writeln!(s, "    {} {};", value_type(op.dtype, dialect), op.name);
        }
        let _ = writeln!(s, "    {}", self.body);
        for op in &self.outputs {
            let _ = writeln!(
                s,
                "    {}",
                store(op.dtype, dialect, &pointer(op), &op.name)
            );
        }
        s.push_str("  }\n}\n");
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn axpy(strided: bool) -> MapKernel {
        MapKernel {
            name: "axpy".into(),
            inputs: vec![
                Operand::new("x", DType::F32, strided),
                Operand::new("y", DType::F32, false),
            ],
            outputs: vec![Operand::new("out", DType::F32, false)],
            scalars: vec![("a".into(), DType::F32)],
            ndim: 2,
            body: "out = a * x + y;".into(),
        }
    }

    #[test]
    fn contiguous_kernel_indexes_by_i() {
        let src = axpy(false).source(Dialect::Cuda);
        assert!(src.contains("extern \"C\" __global__ void axpy(float* x_p, float* y_p, float* out_p, float a, long long n)"), "{src}");
        assert!(src.contains("float x = *(x_p + i);"));
        assert!(!src.contains("shape0"));
    }

    #[test]
    fn opencl_buffers_take_offsets() {
        let src = axpy(false).source(Dialect::OpenCl);
        assert!(
            src.contains("__kernel void axpy(__global float* x_p, long x_o,"),
            "{src}"
        );
        assert!(src.contains("x_p = (__global float*)(((__global char*)x_p) + x_o);"));
    }

    #[test]
    fn strided_operands_unravel_the_index() {
        let src = axpy(true).source(Dialect::OpenCl);
        assert!(
            src.contains("long shape0, long shape1, long x_s0, long x_s1"),
            "{src}"
        );
        assert!(src.contains("x_off += k * x_s1;"));
        assert!(
            !src.contains("y_off"),
            "contiguous operands need no offsets"
        );
    }
}
