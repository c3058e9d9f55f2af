//! `ReductionKernel`: map each element with a snippet, combine with another, and write each
//! output with a third.

use ember_codegen::{Param, Role, Snippets, UserReduce};
use ember_core::shape::{broadcast_shapes, broadcast_strides, collapse_axes};
use ember_core::{DType, Error, Result};
use ember_runtime::{current_stream, Device, KernelArg};

use super::elementwise::{bind, raw_operand};
use super::params::{check_names, parse_params, ParamSpec, ParamType};
use super::{check_kernel_name, scalar_bytes, Instances, Spec, UserArg};
use crate::array::Array;
use ember_kernel::Rounding;

/// Threads that cooperate on one output element.
const BLOCK: usize = 256;

/// CuPy's `ReductionKernel(in_params, out_params, map_expr, reduce_expr, post_map_expr,
/// identity, name, reduce_type, ...)`.
pub struct ReductionKernel {
    pub name: String,
    pub in_params: Vec<ParamSpec>,
    pub out_params: Vec<ParamSpec>,
    pub map_expr: String,
    pub reduce_expr: String,
    pub post_map_expr: String,
    /// `None`: an empty reduction is an error.
    pub identity: Option<String>,
    pub reduce_type: String,
    pub preamble: String,
    pub options: Vec<String>,
    instances: Instances,
}

/// `axis` as NumPy normalises it: every axis when `None`; negative counts from the end.
pub fn normalize_axes(axis: Option<&[isize]>, ndim: usize) -> Result<Vec<usize>> {
    let Some(axes) = axis else {
        return Ok((0..ndim).collect());
    };
    let mut out = Vec::with_capacity(axes.len());
    for &a in axes {
        let k = if a < 0 { a + ndim as isize } else { a };
        if k < 0 || k >= ndim as isize {
            return Err(Error::Value(format!(
                "axis {a} is out of bounds for array of dimension {ndim}"
            )));
        }
        if out.contains(&(k as usize)) {
            return Err(Error::Value("duplicate value in 'axis'".into()));
        }
        out.push(k as usize);
    }
    Ok(out)
}

/// Merges a group of axes across arrays; an empty group becomes one axis of extent 1.
fn collapse_group(shape: &[usize], strides: &[Vec<isize>]) -> (Vec<usize>, Vec<Vec<isize>>) {
    let (sh, st) = collapse_axes(shape, strides);
    if sh.is_empty() {
        (vec![1], strides.iter().map(|_| vec![0]).collect())
    } else {
        (sh, st)
    }
}

impl ReductionKernel {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        in_params: &str,
        out_params: &str,
        map_expr: &str,
        reduce_expr: &str,
        post_map_expr: &str,
        identity: Option<String>,
        name: &str,
        reduce_type: Option<String>,
        preamble: &str,
        options: Vec<String>,
    ) -> Result<ReductionKernel> {
        check_kernel_name(name)?;
        let ins = parse_params(in_params, "in_params")?;
        let outs = parse_params(out_params, "out_params")?;
        let all: Vec<&ParamSpec> = ins.iter().chain(&outs).collect();
        check_names(&all, &["a", "b", "_i", "_j", "_J"])?;
        let reduce_type = match (reduce_type, outs.first()) {
            (Some(t), _) => t,
            (None, Some(p)) => match &p.ty {
                ParamType::Placeholder(t) => t.clone(),
                ParamType::Fixed(d) => d.name().to_string(),
            },
            (None, None) => {
                return Err(Error::Value(
                    "a ReductionKernel needs an output parameter (out_params) or reduce_type"
                        .into(),
                ))
            }
        };
        Ok(ReductionKernel {
            name: name.to_string(),
            in_params: ins,
            out_params: outs,
            map_expr: map_expr.to_string(),
            reduce_expr: reduce_expr.to_string(),
            post_map_expr: post_map_expr.to_string(),
            identity,
            reduce_type,
            preamble: preamble.to_string(),
            options,
            instances: Instances::default(),
        })
    }

    /// Reduces `args` over `axis` (all axes when `None`); returns the first output.
    pub fn call(
        &self,
        device: &'static Device,
        args: Vec<UserArg>,
        axis: Option<&[isize]>,
        keepdims: bool,
    ) -> Result<Array> {
        let (nin, nout) = (self.in_params.len(), self.out_params.len());
        if args.len() != nin && args.len() != nin + nout {
            return Err(Error::Type(format!(
                "Wrong number of arguments for {}: it takes {nin} input(s), optionally followed by {nout} output(s), but {} were given",
                self.name,
                args.len()
            )));
        }
        for a in &args[nin..] {
            if a.array().is_none() {
                return Err(Error::Type("Output arguments must be ember.ndarray".into()));
            }
        }
        let device = args
            .iter()
            .find_map(|a| a.array())
            .map_or(device, |a| a.device());
        let specs: Vec<&ParamSpec> = self.in_params.iter().chain(&self.out_params).collect();
        let shapes: Vec<&[usize]> = specs[..nin]
            .iter()
            .zip(&args)
            .filter(|(p, _)| !p.raw)
            .filter_map(|(_, a)| a.array().map(Array::shape))
            .collect();
        if shapes.is_empty() {
            return Err(Error::Value(
                "Loop size is undecided: a ReductionKernel needs a non-raw array input".into(),
            ));
        }
        let in_shape = broadcast_shapes(&shapes)?;
        let axes = normalize_axes(axis, in_shape.len())?;
        let keep: Vec<usize> = (0..in_shape.len()).filter(|a| !axes.contains(a)).collect();
        let out_shape: Vec<usize> = if keepdims {
            (0..in_shape.len())
                .map(|a| if axes.contains(&a) { 1 } else { in_shape[a] })
                .collect()
        } else {
            keep.iter().map(|&a| in_shape[a]).collect()
        };
        let bound = bind(device, &specs, &args, nin, &out_shape, false)?;
        let first = bound.arrays[nin].clone().ok_or_else(|| {
            Error::Value("a ReductionKernel's first output must be an array".into())
        })?;
        let out_size: usize = out_shape.iter().product();
        let red_size: usize = axes.iter().map(|&a| in_shape[a]).product();
        if out_size == 0 {
            return Ok(first);
        }
        if red_size == 0 && self.identity.is_none() {
            return Err(Error::Value(format!(
                "zero-size array to reduction operation {} which has no identity",
                self.name
            )));
        }

        // Each array's strides over the output axes and over the reduced axes.
        let mut out_group: Vec<Vec<isize>> = Vec::new();
        let mut red_group: Vec<Vec<isize>> = Vec::new();
        let mut elementwise: Vec<usize> = Vec::new();
        for (k, p) in specs.iter().enumerate() {
            let (false, Some(a)) = (p.raw, &bound.arrays[k]) else {
                continue;
            };
            elementwise.push(k);
            if k < nin {
                let s = broadcast_strides(a.shape(), a.strides(), &in_shape);
                out_group.push(keep.iter().map(|&x| s[x]).collect());
                red_group.push(axes.iter().map(|&x| s[x]).collect());
            } else {
                let s = a.strides();
                let kept: Vec<isize> = if keepdims {
                    keep.iter().map(|&x| s[x]).collect()
                } else {
                    s.to_vec()
                };
                out_group.push(kept);
                red_group.push(vec![0; axes.len()]);
            }
        }
        let keep_shape: Vec<usize> = keep.iter().map(|&a| in_shape[a]).collect();
        let red_shape: Vec<usize> = axes.iter().map(|&a| in_shape[a]).collect();
        let (out_dims, out_strides) = collapse_group(&keep_shape, &out_group);
        let (red_dims, red_strides) = collapse_group(&red_shape, &red_group);

        let mut params = Vec::with_capacity(specs.len());
        let mut scalars: Vec<Vec<u8>> = Vec::new();
        let mut raw_arrays: Vec<(Array, [u8; 8])> = Vec::new();
        for (k, p) in specs.iter().enumerate() {
            let dtype = bound.dtypes[k];
            let role = match (args.get(k), p.raw, k < nin) {
                (Some(UserArg::Scalar(v, numpy)), _, _) => {
                    scalars.push(scalar_bytes(&p.name, *v, *numpy, dtype)?.to_vec());
                    Role::Scalar
                }
                (_, true, input) => {
                    if let Some(a) = &bound.arrays[k] {
                        raw_arrays.push((
                            raw_operand(&p.name, a, !input, dtype)?,
                            (a.size() as i64).to_le_bytes(),
                        ));
                    }
                    Role::Raw { writable: !input }
                }
                (_, false, true) => Role::Input,
                (_, false, false) => Role::Output,
            };
            params.push(Param {
                name: p.name.clone(),
                dtype,
                role,
            });
        }
        let mut typedefs: Vec<(String, DType)> =
            bound.types.iter().map(|(k, v)| (k.clone(), *v)).collect();
        typedefs.sort();
        // The tree combine halves the group each step: a power of two.
        let limit = BLOCK.min(device.info().max_threads_per_block.max(1));
        let block = 1usize << (usize::BITS - 1 - limit.leading_zeros());
        let spec = UserReduce {
            common: Snippets {
                name: self.name.clone(),
                typedefs,
                params,
                preamble: self.preamble.clone(),
            },
            map_expr: self.map_expr.clone(),
            reduce_expr: self.reduce_expr.clone(),
            post_map_expr: self.post_map_expr.clone(),
            identity: self.identity.clone().unwrap_or_default(),
            reduce_type: self.reduce_type.clone(),
            out_ndim: out_dims.len(),
            reduce_ndim: red_dims.len(),
            block,
        };
        let function = self.instances.get(
            device,
            Spec::Reduce(spec),
            &self.options,
            Rounding::Contracted,
        )?;

        let le = |v: i64| v.to_le_bytes();
        let sizes = [le(out_size as i64), le(red_size as i64)];
        let dims: Vec<[u8; 8]> = out_dims
            .iter()
            .chain(&red_dims)
            .map(|&d| le(d as i64))
            .collect();
        let strides: Vec<[u8; 8]> = (0..elementwise.len())
            .flat_map(|j| {
                out_strides[j]
                    .iter()
                    .chain(&red_strides[j])
                    .map(|&s| le(s as i64))
                    .collect::<Vec<_>>()
            })
            .collect();
        let (mut next_scalar, mut next_raw) = (0, 0);
        let mut kargs: Vec<KernelArg<'_>> = Vec::new();
        for (k, p) in specs.iter().enumerate() {
            if let Some(UserArg::Scalar(..)) = args.get(k) {
                kargs.push(KernelArg::Bytes(&scalars[next_scalar]));
                next_scalar += 1;
            } else if p.raw {
                let (a, n) = &raw_arrays[next_raw];
                kargs.push(a.kernel_arg());
                kargs.push(KernelArg::Bytes(n));
                next_raw += 1;
            } else if let Some(a) = &bound.arrays[k] {
                kargs.push(a.kernel_arg());
            }
        }
        kargs.extend(sizes.iter().map(|b| KernelArg::Bytes(b)));
        kargs.extend(dims.iter().map(|b| KernelArg::Bytes(b)));
        kargs.extend(strides.iter().map(|b| KernelArg::Bytes(b)));
        let info = device.info();
        let cap = (info.multiprocessors.max(1) * if info.is_cpu { 4 } else { 32 }).min(65_535);
        let grid = [out_size.min(cap).max(1) as u32, 1, 1];
        let arrays = bound
            .arrays
            .iter()
            .flatten()
            .map(|a| a as &dyn ember_kernel::Operand);
        ember_kernel::note_bytes(
            arrays.chain(
                raw_arrays
                    .iter()
                    .map(|(a, _)| a as &dyn ember_kernel::Operand),
            ),
        );
        device.launch(
            &function,
            grid,
            [block as u32, 1, 1],
            0,
            current_stream(device),
            &kargs,
        )?;
        Ok(first)
    }
}
