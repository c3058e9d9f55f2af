//! `ElementwiseKernel`: a C snippet run once per element of the broadcast arguments.

use std::collections::HashMap;

use ember_codegen::{Param, Role, Snippets, UserMap};
use ember_core::shape::{
    broadcast_shapes, broadcast_strides, c_strides, collapse_axes, format_shape,
};
use ember_core::{DType, Error, Result};
use ember_runtime::{current_stream, Device, KernelArg};

use super::params::{bind_types, check_names, parse_params, resolved, ParamSpec};
use super::{check_kernel_name, scalar_bytes, Instances, Spec, UserArg};
use crate::array::Array;
use crate::launch::{launch_shape, launch_shape_unrolled};

/// CuPy's `ElementwiseKernel(in_params, out_params, operation, name, ...)`.
pub struct ElementwiseKernel {
    pub name: String,
    pub in_params: Vec<ParamSpec>,
    pub out_params: Vec<ParamSpec>,
    pub operation: String,
    pub preamble: String,
    pub loop_prep: String,
    pub after_loop: String,
    pub options: Vec<String>,
    instances: Instances,
}

/// Everything a call decided before launching: arrays by parameter, and the loop shape.
pub(super) struct Bound {
    pub arrays: Vec<Option<Array>>,
    pub dtypes: Vec<DType>,
    pub types: HashMap<String, DType>,
}

impl ElementwiseKernel {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        in_params: &str,
        out_params: &str,
        operation: &str,
        name: &str,
        preamble: &str,
        loop_prep: &str,
        after_loop: &str,
        options: Vec<String>,
    ) -> Result<ElementwiseKernel> {
        check_kernel_name(name)?;
        let ins = parse_params(in_params, "in_params")?;
        let outs = parse_params(out_params, "out_params")?;
        let all: Vec<&ParamSpec> = ins.iter().chain(&outs).collect();
        check_names(&all, &["i", "_n"])?;
        Ok(ElementwiseKernel {
            name: name.to_string(),
            in_params: ins,
            out_params: outs,
            operation: operation.to_string(),
            preamble: preamble.to_string(),
            loop_prep: loop_prep.to_string(),
            after_loop: after_loop.to_string(),
            options,
            instances: Instances::default(),
        })
    }

    fn params(&self) -> impl Iterator<Item = &ParamSpec> {
        self.in_params.iter().chain(&self.out_params)
    }

    /// Runs the kernel on `args` (inputs, optionally followed by every output) on `device`
    /// (the device of the arrays, else the caller's current device). Returns the outputs.
    pub fn call(
        &self,
        device: &'static Device,
        args: Vec<UserArg>,
        size: Option<usize>,
    ) -> Result<Vec<Array>> {
        let (nin, nout) = (self.in_params.len(), self.out_params.len());
        if args.len() != nin && args.len() != nin + nout {
            return Err(Error::Type(format!(
                "Wrong number of arguments for '{}'. It must be either {nin} or {} (with outputs), but given {}.",
                self.name,
                nin + nout,
                args.len()
            )));
        }
        for a in &args[nin..] {
            if a.array().is_none() {
                return Err(Error::Type(
                    "Output arguments type must be ember.ndarray".into(),
                ));
            }
        }
        let device = args
            .iter()
            .find_map(|a| a.array())
            .map_or(device, |a| a.device());
        let specs: Vec<&ParamSpec> = self.params().collect();
        // Broadcast over every non-raw array, inputs and given outputs.
        let shapes: Vec<&[usize]> = specs
            .iter()
            .zip(&args)
            .filter(|(p, _)| !p.raw)
            .filter_map(|(_, a)| a.array().map(Array::shape))
            .collect();
        let shape = match size {
            Some(_) if !shapes.is_empty() => {
                return Err(Error::Value(
                    "Specified 'size' can be used only if all of the ndarray are 'raw'.".into(),
                ))
            }
            Some(n) => vec![n],
            None if shapes.is_empty() => {
                return Err(Error::Value(
                    "Loop size is undecided: give at least one non-raw array argument, or size= when every array is raw".into(),
                ))
            }
            None => broadcast_shapes(&shapes)?,
        };
        let bound = bind(device, &specs, &args, nin, &shape, size.is_some())?;
        let outputs: Vec<Array> = bound.arrays[nin..].iter().flatten().cloned().collect();
        let n: usize = shape.iter().product();
        if n > 0 {
            self.launch(device, &specs, &args, &bound, &shape)?;
        }
        Ok(outputs)
    }

    fn launch(
        &self,
        device: &'static Device,
        specs: &[&ParamSpec],
        args: &[UserArg],
        bound: &Bound,
        shape: &[usize],
    ) -> Result<()> {
        let nin = self.in_params.len();
        // Layout: flat when every element-wise array is C-contiguous in the loop shape.
        let mut elementwise: Vec<(usize, Vec<isize>)> = Vec::new();
        for (k, p) in specs.iter().enumerate() {
            if let (false, Some(a)) = (p.raw, &bound.arrays[k]) {
                elementwise.push((k, broadcast_strides(a.shape(), a.strides(), shape)));
            }
        }
        let flat = elementwise
            .iter()
            .all(|(k, s)| *s == c_strides(shape, bound.dtypes[*k].itemsize()));
        let (loop_shape, loop_strides) = if flat {
            (Vec::new(), Vec::new())
        } else {
            let strides: Vec<Vec<isize>> = elementwise.iter().map(|(_, s)| s.clone()).collect();
            let (sh, st) = collapse_axes(shape, &strides);
            if sh.is_empty() {
                (vec![1], st.into_iter().map(|_| vec![0]).collect())
            } else {
                (sh, st)
            }
        };
        let mut params = Vec::with_capacity(specs.len());
        let mut scalars: Vec<Vec<u8>> = Vec::new();
        let mut sizes: Vec<[u8; 8]> = Vec::new();
        let mut raw_arrays: Vec<Array> = Vec::new();
        for (k, p) in specs.iter().enumerate() {
            let dtype = bound.dtypes[k];
            let role = match (&args.get(k), p.raw, k < nin) {
                (Some(UserArg::Scalar(..)), _, _) => Role::Scalar,
                (_, true, input) => Role::Raw { writable: !input },
                (_, false, true) => Role::Input,
                (_, false, false) => Role::Output,
            };
            if let (Role::Scalar, Some(UserArg::Scalar(v, _))) = (role, args.get(k)) {
                scalars.push(scalar_bytes(&p.name, *v, dtype)?);
            }
            if let (Role::Raw { writable }, Some(a)) = (role, &bound.arrays[k]) {
                raw_arrays.push(raw_operand(&p.name, a, writable, dtype)?);
                sizes.push((a.size() as i64).to_le_bytes());
            }
            params.push(Param {
                name: p.name.clone(),
                dtype,
                role,
            });
        }
        let mut typedefs: Vec<(String, DType)> =
            bound.types.iter().map(|(k, v)| (k.clone(), *v)).collect();
        typedefs.sort();
        // Vector loads need every input readable 16 bytes at a time.
        let vector = loop_shape.is_empty()
            && params
                .iter()
                .zip(&bound.arrays)
                .all(|(p, a)| match (p.role, a) {
                    (Role::Input, Some(a)) => {
                        ember_codegen::user_kernel::vector_loadable(p.dtype)
                            && a.address() % 16 == 0
                    }
                    _ => true,
                });
        let spec = UserMap {
            common: Snippets {
                name: self.name.clone(),
                typedefs,
                params,
                preamble: self.preamble.clone(),
            },
            operation: self.operation.clone(),
            loop_prep: self.loop_prep.clone(),
            after_loop: self.after_loop.clone(),
            ndim: loop_shape.len(),
            vector,
        };
        let function = self.instances.get(device, Spec::Map(spec), &self.options)?;

        let n: usize = shape.iter().product();
        let n64 = (n as i64).to_le_bytes();
        let extents: Vec<[u8; 8]> = loop_shape
            .iter()
            .map(|&d| (d as i64).to_le_bytes())
            .collect();
        let strides: Vec<[u8; 8]> = loop_strides
            .iter()
            .flatten()
            .map(|&s| (s as i64).to_le_bytes())
            .collect();
        let (mut next_scalar, mut next_raw) = (0, 0);
        let mut kargs: Vec<KernelArg<'_>> = Vec::new();
        for (k, p) in specs.iter().enumerate() {
            if let Some(UserArg::Scalar(..)) = args.get(k) {
                kargs.push(KernelArg::Bytes(&scalars[next_scalar]));
                next_scalar += 1;
            } else if p.raw {
                kargs.push(raw_arrays[next_raw].kernel_arg());
                kargs.push(KernelArg::Bytes(&sizes[next_raw]));
                next_raw += 1;
            } else if let Some(a) = &bound.arrays[k] {
                kargs.push(a.kernel_arg());
            }
        }
        kargs.push(KernelArg::Bytes(&n64));
        kargs.extend(extents.iter().map(|b| KernelArg::Bytes(b)));
        kargs.extend(strides.iter().map(|b| KernelArg::Bytes(b)));
        let (grid, block) = if vector {
            launch_shape_unrolled(device, n, ember_codegen::user_kernel::VECTOR)
        } else if loop_shape.is_empty() {
            launch_shape_unrolled(device, n, ember_codegen::user_kernel::UNROLL)
        } else {
            launch_shape(device, n)
        };
        device.launch(&function, grid, block, 0, current_stream(device), &kargs)
    }
}

/// A raw array as the kernel indexes it: C-contiguous (an input that is not is copied; an
/// output must be).
pub(super) fn raw_operand(name: &str, a: &Array, writable: bool, dtype: DType) -> Result<Array> {
    if dtype == DType::F16 {
        return Err(Error::Type(format!(
            "raw parameter '{name}' is float16, which a snippet cannot index directly (it is stored as 16-bit integers); make it a non-raw parameter or use float32"
        )));
    }
    if a.is_c_contiguous() {
        return Ok(a.clone());
    }
    if writable {
        return Err(Error::Value(format!(
            "raw output '{name}' must be C-contiguous (its strides are {:?}); pass a contiguous array and copy it into the view afterwards",
            a.strides()
        )));
    }
    a.copy()
}

/// Binds placeholders, checks and allocates outputs: the arrays and dtypes of every parameter.
pub(super) fn bind(
    device: &'static Device,
    specs: &[&ParamSpec],
    args: &[UserArg],
    nin: usize,
    shape: &[usize],
    sized: bool,
) -> Result<Bound> {
    // Outputs bind before inputs, as in CuPy.
    let order: Vec<usize> = (nin..specs.len()).chain(0..nin).collect();
    let typed: Vec<(&ParamSpec, Option<DType>)> = order
        .iter()
        .map(|&k| {
            (
                specs[k],
                args.get(k).and_then(UserArg::array).map(Array::dtype),
            )
        })
        .collect();
    let types = bind_types(&typed)?;
    let mut arrays = Vec::with_capacity(specs.len());
    let mut dtypes = Vec::with_capacity(specs.len());
    for (k, p) in specs.iter().enumerate() {
        let dtype = resolved(p, &types)?;
        dtypes.push(dtype);
        let array = match args.get(k) {
            Some(UserArg::Array(a)) => {
                if a.device().info().ordinal != device.info().ordinal {
                    return Err(Error::Value(format!(
                        "argument '{}' is on device {} but the other arrays are on device {}",
                        p.name,
                        a.device().info().ordinal,
                        device.info().ordinal
                    )));
                }
                if k >= nin && !p.raw && a.shape() != shape {
                    return Err(Error::Value(format!(
                        "Out shape is mismatched: output '{}' has shape {} but the arguments broadcast to {}",
                        p.name,
                        format_shape(a.shape()),
                        format_shape(shape)
                    )));
                }
                Some(a.clone())
            }
            Some(UserArg::Scalar(..)) => None,
            None if p.raw && !sized => {
                return Err(Error::Value(format!(
                    "Output array size is Undecided: raw output '{}' must be given (or pass size=)",
                    p.name
                )))
            }
            None => Some(Array::empty(device, shape, dtype)?),
        };
        arrays.push(array);
    }
    Ok(Bound {
        arrays,
        dtypes,
        types,
    })
}
