//! `ElementwiseKernel`: a C snippet run once per element of the broadcast arguments.

use std::collections::HashMap;

use ember_codegen::{Param, Role, Snippets, UserMap};
use ember_core::shape::{broadcast_shapes, format_shape};
use ember_core::{DType, Error, Result};
use ember_runtime::Device;

use super::map_plan::{self, Binding};
use super::params::{bind_types, check_names, parse_params, resolved, ParamSpec};
use super::{check_kernel_name, scalar_bytes, Instances, Spec, UserArg};
use crate::array::Array;
use ember_kernel::Rounding;

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
    /// Contracted (the compiler's default, as CuPy compiles snippets) unless set otherwise:
    /// `ember.fuse` sets `Separate`, since its snippets are NumPy ufuncs.
    pub rounding: Rounding,
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
            rounding: Rounding::Contracted,
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
        let mut params = Vec::with_capacity(specs.len());
        let mut bindings = Vec::with_capacity(specs.len());
        for (k, p) in specs.iter().enumerate() {
            let dtype = bound.dtypes[k];
            let (role, binding) = match (args.get(k), &bound.arrays[k], p.raw) {
                (Some(UserArg::Scalar(v, numpy)), _, _) => (
                    Role::Scalar,
                    Binding::Scalar(scalar_bytes(&p.name, *v, *numpy, dtype)?),
                ),
                (_, Some(a), true) => {
                    let writable = k >= nin;
                    (
                        Role::Raw { writable },
                        Binding::Raw(raw_operand(&p.name, a, writable, dtype)?),
                    )
                }
                (_, Some(a), false) => {
                    let role = if k < nin { Role::Input } else { Role::Output };
                    (role, Binding::Array(a))
                }
                (_, None, _) => {
                    return Err(Error::Value(format!(
                        "parameter '{}' has no argument",
                        p.name
                    )))
                }
            };
            params.push(Param {
                name: p.name.clone(),
                dtype,
                role,
            });
            bindings.push(binding);
        }
        let mut typedefs: Vec<(String, DType)> =
            bound.types.iter().map(|(k, v)| (k.clone(), *v)).collect();
        typedefs.sort();
        let layout = map_plan::plan(shape, &params, &bindings);
        let names: Vec<String> = params.iter().map(|p| p.name.clone()).collect();
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
            ndim: layout.loop_shape.len(),
            vector: layout.vector,
            checked: layout.checked,
            cover: layout.cover,
        };
        let function = self
            .instances
            .get(device, Spec::Map(spec), &self.options, self.rounding)?;
        map_plan::launch(
            device,
            &function,
            shape.iter().product(),
            &bindings,
            &layout,
            map_plan::Body::UserSnippet,
            &|k| format!("array '{}'", names.get(k).map_or("?", String::as_str)),
        )
    }
}

/// A raw array as the kernel indexes it: C-contiguous (an input that is not is copied; an
/// output must be).
pub(super) fn raw_operand(name: &str, a: &Array, writable: bool, dtype: DType) -> Result<Array> {
    if dtype.is_narrow() {
        return Err(Error::Type(format!(
            "raw parameter '{name}' is {dtype}, which a snippet cannot index directly (it is stored as 16-bit integers); make it a non-raw parameter or use float32"
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
