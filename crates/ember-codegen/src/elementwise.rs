//! ember's own elementwise kernels (casts and copies, fills, progressions, `where`): a body
//! over named inputs, outputs and scalars, lowered to a [`UserMap`] so that one emitter
//! writes every elementwise kernel (these, the ufuncs and `ElementwiseKernel`), with its
//! layouts: vector loads, unrolled flat loops, or strides over collapsed axes.
//!
//! In the body, inputs are values, outputs are names to assign, `i` is the flat index and
//! `n` the element count. On OpenCL an output is a macro for its element: name outputs so
//! that they are no member's name (`out`, not `y`, which `(z).y` would meet).

use ember_core::DType;

use crate::dialect::Dialect;
use crate::user_kernel::{Cover, Param, Role, Snippets, UserMap};

/// An array operand.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Operand {
    /// Its name in the body (a C identifier).
    pub name: String,
    pub dtype: DType,
}

impl Operand {
    pub fn new(name: &str, dtype: DType) -> Operand {
        Operand {
            name: name.to_string(),
            dtype,
        }
    }
}

/// An elementwise kernel of ember's own.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MapKernel {
    pub name: String,
    pub inputs: Vec<Operand>,
    pub outputs: Vec<Operand>,
    /// Scalar parameters (name, dtype), passed as their value types.
    pub scalars: Vec<(String, DType)>,
    /// C statements (see the module's comment).
    pub body: String,
}

impl MapKernel {
    /// The parameters' roles in order: inputs, outputs, scalars (the launch binds them so).
    pub fn roles(&self) -> Vec<Role> {
        let arrays = |ops: &[Operand], role| ops.iter().map(move |_| role).collect::<Vec<_>>();
        let mut roles = arrays(&self.inputs, Role::Input);
        roles.extend(arrays(&self.outputs, Role::Output));
        roles.extend(self.scalars.iter().map(|_| Role::Scalar));
        roles
    }

    /// The kernel as the elementwise emitter takes it: strided over `ndim` collapsed axes (0:
    /// every operand contiguous), reading inputs with vector loads if `vector`, checking each
    /// element's place if `checked`, its steps covered as `cover` says.
    pub fn user_map(
        &self,
        dialect: Dialect,
        ndim: usize,
        vector: bool,
        checked: bool,
        cover: Cover,
    ) -> UserMap {
        let param = |name: &str, dtype, role| Param {
            name: name.to_string(),
            dtype,
            role,
        };
        let mut params: Vec<Param> = Vec::new();
        params.extend(
            self.inputs
                .iter()
                .map(|o| param(&o.name, o.dtype, Role::Input)),
        );
        params.extend(
            self.outputs
                .iter()
                .map(|o| param(&o.name, o.dtype, Role::Output)),
        );
        params.extend(self.scalars.iter().map(|(n, d)| param(n, *d, Role::Scalar)));
        UserMap {
            common: Snippets {
                name: self.name.clone(),
                typedefs: Vec::new(),
                params,
                preamble: String::new(),
            },
            operation: self.body.trim().trim_end_matches(';').to_string(),
            // The count under the body's name for it.
            loop_prep: format!("const {} n = _n", dialect.table().int64),
            after_loop: String::new(),
            ndim,
            vector,
            checked,
            cover,
        }
    }

    /// The kernel's source in `dialect`, strided over `ndim` axes (0: contiguous, unrolled).
    pub fn source(&self, dialect: Dialect, ndim: usize) -> String {
        self.user_map(dialect, ndim, false, false, Cover::GridStride)
            .source(dialect)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn axpy() -> MapKernel {
        MapKernel {
            name: "axpy".into(),
            inputs: vec![Operand::new("x", DType::F32), Operand::new("y", DType::F32)],
            outputs: vec![Operand::new("out", DType::F32)],
            scalars: vec![("a".into(), DType::F32)],
            body: "out = a * x + y; if (i == n - 1) out = 0;".into(),
        }
    }

    #[test]
    fn contiguous_kernel_reads_inputs_and_writes_outputs_at_i() {
        let src = axpy().source(Dialect::Cuda, 0);
        assert!(
            src.contains("axpy(float* _x_p, float* _y_p, float* _out_p, float a, long long _n)"),
            "{src}"
        );
        assert!(src.contains("const long long n = _n;"), "{src}");
        assert!(
            src.contains("out = a * x + y; if (i == n - 1) out = 0;"),
            "{src}"
        );
        assert!(!src.contains("_shape0"), "{src}");
    }

    #[test]
    fn opencl_buffers_take_offsets() {
        let src = axpy().source(Dialect::OpenCl, 0);
        assert!(
            src.contains("__kernel void axpy(__global float* _x_p, long _x_o,"),
            "{src}"
        );
        assert!(src.contains("const long n = _n;"), "{src}");
    }

    #[test]
    fn strided_layouts_unravel_the_index_for_every_array() {
        let src = axpy().source(Dialect::OpenCl, 2);
        assert!(
            src.contains("long _shape0, long _shape1, long _x_s0, long _x_s1"),
            "{src}"
        );
        assert!(src.contains("_out_s1"), "{src}");
    }

    #[test]
    fn checked_kernels_check_each_element_against_its_buffer() {
        for d in Dialect::ALL {
            let src = axpy()
                .user_map(d, 1, false, true, Cover::GridStride)
                .source(d);
            for text in [
                "_x_lo, ",
                "_out_hi, ",
                "* ember_fault_rec",
                "const int _out_bad = _out_off < _out_lo || _out_off > _out_hi;",
                "ember_fault(ember_fault_rec, 2u, _out_off - _out_lo, _out_hi - _out_lo + 4);",
            ] {
                assert!(src.contains(text), "{text} in {src}");
            }
        }
        assert!(!axpy().source(Dialect::Cuda, 1).contains("ember_fault"));
    }

    #[test]
    fn roles_follow_the_parameter_order() {
        assert_eq!(
            axpy().roles(),
            vec![Role::Input, Role::Input, Role::Output, Role::Scalar]
        );
    }
}
