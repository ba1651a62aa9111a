//! Scalar component types as the interpreter sees them (kind, width, signedness): what
//! arithmetic, conversions, collectives and the OpenCL.std functions need to know about an
//! operand's type.

use crate::error::SimError;
pub use crate::program::{Comp, Kind};
use crate::program::{Program, Ty};

pub fn comp(p: &Program, scalar_ty: u32) -> Result<Comp, SimError> {
    let t = p.ty(scalar_ty)?;
    Ok(match t.ty {
        Ty::Int { width, signed } => Comp {
            kind: Kind::Int,
            bits: width,
            bytes: width as usize / 8,
            signed,
            bf16: false,
        },
        Ty::Float { width, bf16 } => Comp {
            kind: Kind::Float,
            bits: width,
            bytes: width as usize / 8,
            signed: true,
            bf16,
        },
        Ty::Bool => Comp {
            kind: Kind::Bool,
            bits: 8,
            bytes: 1,
            signed: false,
            bf16: false,
        },
        Ty::Pointer { .. } => Comp {
            kind: Kind::Ptr,
            bits: p.ptr_bytes * 8,
            bytes: p.ptr_bytes as usize,
            signed: false,
            bf16: false,
        },
        _ => Comp {
            kind: Kind::Other,
            bits: t.size * 8,
            bytes: t.size as usize,
            signed: false,
            bf16: false,
        },
    })
}

/// (component, count) of a scalar or vector type.
#[inline]
pub fn vcomp(p: &Program, ty: u32) -> Result<(Comp, usize), SimError> {
    match p.vcomps.get(ty as usize) {
        Some(Some(c)) => Ok(*c),
        _ => vcomp_uncached(p, ty),
    }
}

/// [`vcomp`] computed from the type table (what [`Program::vcomps`] holds).
pub fn vcomp_uncached(p: &Program, ty: u32) -> Result<(Comp, usize), SimError> {
    let (e, n) = p.components(ty)?;
    Ok((comp(p, e)?, n as usize))
}
