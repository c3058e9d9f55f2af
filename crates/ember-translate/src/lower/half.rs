//! CUDA's `__half` and `__half2` where OpenCL C has no half arithmetic (PoCL's CPU device and
//! NVIDIA's OpenCL lack `cl_khr_fp16`).
//!
//! A half value lives in a `float` (a `__half2` in a `float2`) that always holds a number a half
//! can hold: every conversion to half and every half operation rounds to nearest-even through
//! `vstore_half_rte`/`vload_half`, which OpenCL 1.2 has without the extension. Float arithmetic
//! rounded to half is half arithmetic: a float's 24 bits are at least twice a half's 11 and two
//! more, so `+ - * /` and `sqrt` rounded twice are rounded once. Memory the user gives (global
//! and constant pointers) holds real halves, read and written with `vload_half`/`vstore_half`;
//! memory ember declares (private and `__shared__`) holds the floats.

use crate::ast::{Pointee, Scalar, Space, Type};

/// Where a half in the user's memory is: the pointer, the element index, its lanes (1 or 2).
#[derive(Clone, Debug)]
pub(crate) struct Slot {
    pub pointer: String,
    pub index: String,
    pub lanes: u8,
}

impl Slot {
    /// The value read from the slot.
    pub fn load(&self) -> String {
        format!(
            "vload_half{}({}, {})",
            suffix(self.lanes),
            self.index,
            self.pointer
        )
    }

    /// `value` (already rounded) written to the slot.
    pub fn store(&self, value: &str) -> String {
        format!(
            "vstore_half{}_rte({value}, {}, {})",
            suffix(self.lanes),
            self.index,
            self.pointer
        )
    }
}

fn suffix(lanes: u8) -> &'static str {
    if lanes == 2 {
        "2"
    } else {
        ""
    }
}

/// The lanes of a half type (`__half`: 1, `__half2`: 2), or `None` for any other type.
pub(crate) fn lanes(t: &Type) -> Option<u8> {
    match t {
        Type::Scalar(Scalar::Half) => Some(1),
        Type::Vector(Scalar::Half, 2) => Some(2),
        _ => None,
    }
}

/// Whether a pointer's elements are halves in memory the user gave (read with `vload_half`).
pub(crate) fn in_memory(p: &Pointee) -> bool {
    lanes(&p.ty).is_some() && matches!(p.space, Space::Global | Space::Constant)
}

/// `code` of type `from` converted to the half type `to` (rounded unless it already is one).
pub(crate) fn rounded(code: &str, from: &Type, to: &Type) -> String {
    match lanes(to) {
        Some(_) if from == to => code.to_string(),
        Some(1) => format!("ember_round_half((float)({code}))"),
        Some(_) => format!("ember_round_half2(convert_float2({code}))"),
        None => code.to_string(),
    }
}

/// `code` (a float or float2 of `lanes`) rounded to half.
pub(crate) fn round(code: &str, lanes: u8) -> String {
    if lanes == 2 {
        format!("ember_round_half2({code})")
    } else {
        format!("ember_round_half({code})")
    }
}

/// The helpers the rounding calls.
pub(crate) const HELPERS: &[(&str, &str)] = &[
    (
        "ember_round_half",
        "float ember_round_half(float x) { return ember_bits_half(ember_half_bits(x)); }\n",
    ),
    (
        "ember_round_half2",
        "float2 ember_round_half2(float2 x) { return (float2)(ember_round_half(x.x), ember_round_half(x.y)); }\n",
    ),
    (
        "ember_half_bits",
        "ushort ember_half_bits(float x) { ushort b; vstore_half_rte(x, 0, (half*)&b); return b; }\n",
    ),
    (
        "ember_bits_half",
        "float ember_bits_half(ushort b) { return vload_half(0, (const half*)&b); }\n",
    ),
    (
        "ember_round_half_d",
        "float ember_round_half_d(double x) { ushort b; vstore_half_rte(x, 0, (half*)&b); return ember_bits_half(b); }\n",
    ),
];
