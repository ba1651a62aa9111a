//! Per-invocation instructions without side effects: integer and float arithmetic, compares,
//! conversions (with FPRoundingMode and SaturatedConversion), bitcasts, composites, pointer
//! arithmetic and the pure OpenCL.std instructions (see [`crate::ext_cl`]).
//!
//! Float arithmetic: f32 and f64 natively (IEEE, nearest even); f16 is computed in f32 and
//! rounded once (correctly rounded for + - * / sqrt, since f32 has more than 2*11+2 bits), fma
//! in f64. Integer arithmetic wraps; division by zero is undefined behaviour and reported.

use std::cmp::Ordering;

use spvopt_ir::spirv::Op;

use crate::error::SimError;
use crate::program::{DInst, Program, Ty};
use crate::values::*;

use crate::arith::int_bin;
pub use crate::arith::{convert, float_bin, int_to_float};
pub use crate::components::{comp, vcomp, Comp, Kind};

fn ub(msg: impl Into<String>) -> SimError {
    SimError::Undefined(msg.into())
}

fn unsupported(msg: impl Into<String>) -> SimError {
    SimError::Unsupported(msg.into())
}

/// Executes a pure instruction for one invocation. `get` returns an operand's bytes,
/// `ty_of` its type id. Returns `Ok(false)` when `inst` is not a pure instruction.
/// Generic over the accessors so that the interpreter's operand lookup is inlined (it runs
/// for every operand of every lane).
pub fn pure<'a, G, T>(
    p: &Program,
    inst: &DInst,
    get: &G,
    ty_of: &T,
    out: &mut [u8],
) -> Result<bool, SimError>
where
    G: Fn(u32) -> &'a [u8],
    T: Fn(u32) -> u32,
{
    let w = &inst.w;
    let arg = |i: usize| -> Result<u32, SimError> {
        w.get(i)
            .copied()
            .ok_or_else(|| SimError::Module(format!("{:?}: missing operand {i}", inst.op)))
    };
    match inst.op {
        // ---- integer -------------------------------------------------------------------
        Op::IAdd
        | Op::ISub
        | Op::IMul
        | Op::UDiv
        | Op::SDiv
        | Op::UMod
        | Op::SRem
        | Op::SMod
        | Op::ShiftLeftLogical
        | Op::ShiftRightLogical
        | Op::ShiftRightArithmetic
        | Op::BitwiseAnd
        | Op::BitwiseOr
        | Op::BitwiseXor => {
            let (rc, n) = vcomp(p, inst.ty)?;
            let a = get(arg(0)?);
            let b = get(arg(1)?);
            let (bc, _) = vcomp(p, ty_of(arg(1)?))?;
            let bits = rc.bits;
            for i in 0..n {
                let x = rd(a, rc.bytes, i);
                let y = rd(b, bc.bytes, i);
                let r = int_bin(inst.op, x, y, bits, bc.bits)?;
                wr(out, rc.bytes, i, mask(r, bits));
            }
        }
        Op::SNegate | Op::Not | Op::BitCount | Op::BitReverse => {
            let (rc, n) = vcomp(p, inst.ty)?;
            let a = get(arg(0)?);
            let (ac, _) = vcomp(p, ty_of(arg(0)?))?;
            for i in 0..n {
                let x = mask(rd(a, ac.bytes, i), ac.bits);
                let r = match inst.op {
                    Op::SNegate => x.wrapping_neg(),
                    Op::Not => !x,
                    Op::BitCount => x.count_ones() as u64,
                    _ => x.reverse_bits() >> (64 - ac.bits),
                };
                wr(out, rc.bytes, i, mask(r, rc.bits));
            }
        }
        Op::BitFieldInsert | Op::BitFieldSExtract | Op::BitFieldUExtract => {
            let (rc, n) = vcomp(p, inst.ty)?;
            let base = get(arg(0)?);
            let (oi, ci) = if inst.op == Op::BitFieldInsert {
                (2, 3)
            } else {
                (1, 2)
            };
            let (oc, _) = vcomp(p, ty_of(arg(oi)?))?;
            let off = rd(get(arg(oi)?), oc.bytes, 0) as u32;
            let (cc, _) = vcomp(p, ty_of(arg(ci)?))?;
            let cnt = rd(get(arg(ci)?), cc.bytes, 0) as u32;
            if off.saturating_add(cnt) > rc.bits {
                return Err(ub(format!(
                    "{:?}: offset {off} + count {cnt} exceeds {} bits",
                    inst.op, rc.bits
                )));
            }
            let m = if cnt >= 64 {
                u64::MAX
            } else {
                (1u64 << cnt) - 1
            };
            for i in 0..n {
                let x = rd(base, rc.bytes, i);
                let r = match inst.op {
                    Op::BitFieldInsert => {
                        let ins = rd(get(arg(1)?), rc.bytes, i);
                        (x & !(m << off)) | ((ins & m) << off)
                    }
                    Op::BitFieldUExtract => (x >> off) & m,
                    _ => {
                        if cnt == 0 {
                            0
                        } else {
                            sext((x >> off) & m, cnt) as u64
                        }
                    }
                };
                wr(out, rc.bytes, i, mask(r, rc.bits));
            }
        }
        Op::IEqual
        | Op::INotEqual
        | Op::UGreaterThan
        | Op::SGreaterThan
        | Op::UGreaterThanEqual
        | Op::SGreaterThanEqual
        | Op::ULessThan
        | Op::SLessThan
        | Op::ULessThanEqual
        | Op::SLessThanEqual
        | Op::PtrEqual
        | Op::PtrNotEqual => {
            let (ac, n) = vcomp(p, ty_of(arg(0)?))?;
            let a = get(arg(0)?);
            let b = get(arg(1)?);
            for i in 0..n {
                let x = mask(rd(a, ac.bytes, i), ac.bits);
                let y = mask(rd(b, ac.bytes, i), ac.bits);
                let (sx, sy) = (sext(x, ac.bits), sext(y, ac.bits));
                let r = match inst.op {
                    Op::IEqual | Op::PtrEqual => x == y,
                    Op::INotEqual | Op::PtrNotEqual => x != y,
                    Op::UGreaterThan => x > y,
                    Op::SGreaterThan => sx > sy,
                    Op::UGreaterThanEqual => x >= y,
                    Op::SGreaterThanEqual => sx >= sy,
                    Op::ULessThan => x < y,
                    Op::SLessThan => sx < sy,
                    Op::ULessThanEqual => x <= y,
                    _ => sx <= sy,
                };
                wr(out, 1, i, r as u64);
            }
        }
        Op::IAddCarry | Op::ISubBorrow | Op::UMulExtended | Op::SMulExtended => {
            let (ac, n) = vcomp(p, ty_of(arg(0)?))?;
            let a = get(arg(0)?);
            let b = get(arg(1)?);
            let half = p.ty(inst.ty)?.size as usize / 2;
            let bits = ac.bits;
            for i in 0..n {
                let x = rd(a, ac.bytes, i);
                let y = rd(b, ac.bytes, i);
                let (lo, hi) = match inst.op {
                    Op::IAddCarry => {
                        let s = x as u128 + y as u128;
                        (s as u64, ((s >> bits) & 1) as u64)
                    }
                    Op::ISubBorrow => (x.wrapping_sub(y), (x < y) as u64),
                    Op::UMulExtended => {
                        let pr = x as u128 * y as u128;
                        (pr as u64, (pr >> bits) as u64)
                    }
                    _ => {
                        let pr = sext(x, bits) as i128 * sext(y, bits) as i128;
                        (pr as u64, (pr >> bits) as u64)
                    }
                };
                wr(out, ac.bytes, i, mask(lo, bits));
                wr(&mut out[half..], ac.bytes, i, mask(hi, bits));
            }
        }
        // ---- logical -------------------------------------------------------------------
        Op::LogicalAnd | Op::LogicalOr | Op::LogicalEqual | Op::LogicalNotEqual => {
            let (_, n) = vcomp(p, inst.ty)?;
            let a = get(arg(0)?);
            let b = get(arg(1)?);
            for i in 0..n {
                let x = rd(a, 1, i) != 0;
                let y = rd(b, 1, i) != 0;
                let r = match inst.op {
                    Op::LogicalAnd => x && y,
                    Op::LogicalOr => x || y,
                    Op::LogicalEqual => x == y,
                    _ => x != y,
                };
                wr(out, 1, i, r as u64);
            }
        }
        Op::LogicalNot => {
            let (_, n) = vcomp(p, inst.ty)?;
            let a = get(arg(0)?);
            for i in 0..n {
                wr(out, 1, i, (rd(a, 1, i) == 0) as u64);
            }
        }
        Op::Any | Op::All => {
            let (_, n) = vcomp(p, ty_of(arg(0)?))?;
            let a = get(arg(0)?);
            let r = if inst.op == Op::Any {
                (0..n).any(|i| rd(a, 1, i) != 0)
            } else {
                (0..n).all(|i| rd(a, 1, i) != 0)
            };
            wr(out, 1, 0, r as u64);
        }
        Op::Select => {
            let c = get(arg(0)?);
            let a = get(arg(1)?);
            let b = get(arg(2)?);
            let cty = ty_of(arg(0)?);
            let (_, cn) = vcomp(p, cty)?;
            let is_vec_cond = matches!(p.ty(cty)?.ty, Ty::Vector { .. });
            if !is_vec_cond || cn == 0 {
                let src = if rd(c, 1, 0) != 0 { a } else { b };
                copy_to(out, src);
            } else {
                let (rc, n) = vcomp(p, inst.ty)?;
                for i in 0..n {
                    let src = if rd(c, 1, i) != 0 { a } else { b };
                    wr(out, rc.bytes, i, rd(src, rc.bytes, i));
                }
            }
        }
        // ---- float ---------------------------------------------------------------------
        Op::FAdd | Op::FSub | Op::FMul | Op::FDiv | Op::FRem | Op::FMod => {
            let (rc, n) = vcomp(p, inst.ty)?;
            let a = get(arg(0)?);
            let b = get(arg(1)?);
            for i in 0..n {
                let x = rd(a, rc.bytes, i);
                let y = rd(b, rc.bytes, i);
                wr(out, rc.bytes, i, float_bin(inst.op, x, y, rc.fw()));
            }
        }
        Op::FNegate => {
            let (rc, n) = vcomp(p, inst.ty)?;
            let a = get(arg(0)?);
            for i in 0..n {
                let x = rd(a, rc.bytes, i);
                wr(out, rc.bytes, i, x ^ (1u64 << (rc.bits - 1)));
            }
        }
        Op::VectorTimesScalar => {
            let (rc, n) = vcomp(p, inst.ty)?;
            let a = get(arg(0)?);
            let s = rd(get(arg(1)?), rc.bytes, 0);
            for i in 0..n {
                wr(
                    out,
                    rc.bytes,
                    i,
                    float_bin(Op::FMul, rd(a, rc.bytes, i), s, rc.fw()),
                );
            }
        }
        Op::Dot => {
            let (ac, n) = vcomp(p, ty_of(arg(0)?))?;
            let a = get(arg(0)?);
            let b = get(arg(1)?);
            let mut acc = 0u64;
            for i in 0..n {
                let pr = float_bin(Op::FMul, rd(a, ac.bytes, i), rd(b, ac.bytes, i), ac.fw());
                acc = if i == 0 {
                    pr
                } else {
                    float_bin(Op::FAdd, acc, pr, ac.fw())
                };
            }
            wr(out, ac.bytes, 0, acc);
        }
        Op::FOrdEqual
        | Op::FUnordEqual
        | Op::FOrdNotEqual
        | Op::FUnordNotEqual
        | Op::FOrdLessThan
        | Op::FUnordLessThan
        | Op::FOrdGreaterThan
        | Op::FUnordGreaterThan
        | Op::FOrdLessThanEqual
        | Op::FUnordLessThanEqual
        | Op::FOrdGreaterThanEqual
        | Op::FUnordGreaterThanEqual
        | Op::Ordered
        | Op::Unordered
        | Op::LessOrGreater => {
            let (ac, n) = vcomp(p, ty_of(arg(0)?))?;
            let a = get(arg(0)?);
            let b = get(arg(1)?);
            for i in 0..n {
                let x = f_get(rd(a, ac.bytes, i), ac.fw());
                let y = f_get(rd(b, ac.bytes, i), ac.fw());
                let o = x.partial_cmp(&y);
                let un = o.is_none();
                let r = match inst.op {
                    Op::FOrdEqual => o == Some(Ordering::Equal),
                    Op::FUnordEqual => un || o == Some(Ordering::Equal),
                    Op::FOrdNotEqual | Op::LessOrGreater => !un && o != Some(Ordering::Equal),
                    Op::FUnordNotEqual => un || o != Some(Ordering::Equal),
                    Op::FOrdLessThan => o == Some(Ordering::Less),
                    Op::FUnordLessThan => un || o == Some(Ordering::Less),
                    Op::FOrdGreaterThan => o == Some(Ordering::Greater),
                    Op::FUnordGreaterThan => un || o == Some(Ordering::Greater),
                    Op::FOrdLessThanEqual => !un && o != Some(Ordering::Greater),
                    Op::FUnordLessThanEqual => un || o != Some(Ordering::Greater),
                    Op::FOrdGreaterThanEqual => !un && o != Some(Ordering::Less),
                    Op::FUnordGreaterThanEqual => un || o != Some(Ordering::Less),
                    Op::Ordered => !un,
                    _ => un,
                };
                wr(out, 1, i, r as u64);
            }
        }
        Op::IsNan | Op::IsInf | Op::IsFinite | Op::IsNormal | Op::SignBitSet => {
            let (ac, n) = vcomp(p, ty_of(arg(0)?))?;
            let a = get(arg(0)?);
            for i in 0..n {
                let raw = rd(a, ac.bytes, i);
                let x = f_get(raw, ac.fw());
                let r = match inst.op {
                    Op::IsNan => x.is_nan(),
                    Op::IsInf => x.is_infinite(),
                    Op::IsFinite => x.is_finite(),
                    Op::IsNormal => {
                        let (eb, mb) = match ac.fw() {
                            16 => (5, 10),
                            crate::values::BF16 => (8, 7),
                            32 => (8, 23),
                            _ => (11, 52),
                        };
                        let e = (raw >> mb) & ((1 << eb) - 1);
                        e != 0 && e != (1 << eb) - 1
                    }
                    _ => raw >> (ac.bits - 1) & 1 == 1,
                };
                wr(out, 1, i, r as u64);
            }
        }
        // ---- conversions -----------------------------------------------------------------
        Op::ConvertFToU
        | Op::ConvertFToS
        | Op::ConvertSToF
        | Op::ConvertUToF
        | Op::UConvert
        | Op::SConvert
        | Op::FConvert
        | Op::SatConvertSToU
        | Op::SatConvertUToS
        | Op::ConvertPtrToU
        | Op::ConvertUToPtr => {
            let (rc, n) = vcomp(p, inst.ty)?;
            let (ac, _) = vcomp(p, ty_of(arg(0)?))?;
            let a = get(arg(0)?);
            let sat = p.saturated.contains(&inst.res)
                || matches!(inst.op, Op::SatConvertSToU | Op::SatConvertUToS);
            let mode = p.fp_rounding.get(&inst.res).copied();
            for i in 0..n {
                let x = rd(a, ac.bytes, i);
                let r = convert(inst.op, x, ac, rc, sat, mode);
                wr(out, rc.bytes, i, r);
            }
        }
        Op::ConvertFToBF16INTEL => {
            let (rc, n) = vcomp(p, inst.ty)?;
            let a = get(arg(0)?);
            for i in 0..n {
                let x = f32::from_bits(rd(a, 4, i) as u32);
                wr(out, rc.bytes, i, crate::numeric::f32_to_bf16(x) as u64);
            }
        }
        Op::ConvertBF16ToFINTEL => {
            let (_, n) = vcomp(p, inst.ty)?;
            let a = get(arg(0)?);
            for i in 0..n {
                let x = crate::numeric::bf16_to_f32(rd(a, 2, i) as u16);
                wr(out, 4, i, x.to_bits() as u64);
            }
        }
        Op::Bitcast
        | Op::CopyObject
        | Op::CopyLogical
        | Op::PtrCastToGeneric
        | Op::GenericCastToPtr
        | Op::GenericCastToPtrExplicit
        | Op::CrossWorkgroupCastToPtrINTEL
        | Op::PtrCastToCrossWorkgroupINTEL => {
            copy_to(out, get(arg(0)?));
        }
        // ---- composites ------------------------------------------------------------------
        Op::CompositeConstruct => {
            let is_vec = matches!(p.ty(inst.ty)?.ty, Ty::Vector { .. } | Ty::CoopMatrix { .. });
            if is_vec {
                let mut off = 0usize;
                for &c in w.iter() {
                    let src = get(c);
                    let end = (off + src.len()).min(out.len());
                    out[off..end].copy_from_slice(&src[..end - off]);
                    off = end;
                }
                if let Ty::CoopMatrix { .. } = p.ty(inst.ty)?.ty {
                    // one scalar replicated to every element
                    if w.len() == 1 {
                        let src = get(w[0]).to_vec();
                        for ch in out.chunks_mut(src.len().max(1)) {
                            let n = ch.len();
                            ch.copy_from_slice(&src[..n]);
                        }
                    }
                }
            } else {
                let parts = p.composite_parts(inst.ty)?;
                for (&c, (o, s)) in w.iter().zip(parts) {
                    let src = get(c);
                    let n = (s as usize).min(src.len());
                    if let Some(d) = out.get_mut(o as usize..o as usize + n) {
                        d.copy_from_slice(&src[..n]);
                    }
                }
            }
        }
        Op::CompositeExtract => {
            let src = get(arg(0)?);
            let (mut ty, mut off) = (ty_of(arg(0)?), 0u32);
            for &idx in &w[1..] {
                let (t, o) = p.member(ty, idx)?;
                ty = t;
                off += o;
            }
            let size = out.len();
            copy_to(
                out,
                src.get(off as usize..off as usize + size).unwrap_or(&[]),
            );
        }
        Op::CompositeInsert => {
            let obj = get(arg(0)?);
            copy_to(out, get(arg(1)?));
            let (mut ty, mut off) = (inst.ty, 0u32);
            for &idx in &w[2..] {
                let (t, o) = p.member(ty, idx)?;
                ty = t;
                off += o;
            }
            let n = obj.len();
            if let Some(d) = out.get_mut(off as usize..off as usize + n) {
                d.copy_from_slice(obj);
            }
        }
        Op::VectorExtractDynamic => {
            let (ac, n) = vcomp(p, ty_of(arg(0)?))?;
            let (ic, _) = vcomp(p, ty_of(arg(1)?))?;
            let idx = rd(get(arg(1)?), ic.bytes, 0);
            if idx >= n as u64 {
                return Err(ub(format!(
                    "OpVectorExtractDynamic: index {idx} out of range of {n} components"
                )));
            }
            wr(out, ac.bytes, 0, rd(get(arg(0)?), ac.bytes, idx as usize));
        }
        Op::VectorInsertDynamic => {
            let (ac, n) = vcomp(p, inst.ty)?;
            let (ic, _) = vcomp(p, ty_of(arg(2)?))?;
            let idx = rd(get(arg(2)?), ic.bytes, 0);
            copy_to(out, get(arg(0)?));
            if idx >= n as u64 {
                return Err(ub(format!(
                    "OpVectorInsertDynamic: index {idx} out of range of {n} components"
                )));
            }
            wr(out, ac.bytes, idx as usize, rd(get(arg(1)?), ac.bytes, 0));
        }
        Op::VectorShuffle => {
            let (rc, _) = vcomp(p, inst.ty)?;
            let (_, n1) = vcomp(p, ty_of(arg(0)?))?;
            let a = get(arg(0)?);
            let b = get(arg(1)?);
            for (i, &sel) in w[2..].iter().enumerate() {
                let v = if sel == u32::MAX {
                    0
                } else if (sel as usize) < n1 {
                    rd(a, rc.bytes, sel as usize)
                } else {
                    rd(b, rc.bytes, sel as usize - n1)
                };
                wr(out, rc.bytes, i, v);
            }
        }
        // ---- pointers --------------------------------------------------------------------
        Op::AccessChain
        | Op::InBoundsAccessChain
        | Op::PtrAccessChain
        | Op::InBoundsPtrAccessChain => {
            let base = rd(get(arg(0)?), p.ptr_bytes as usize, 0);
            let mut ty = match p.ty(ty_of(arg(0)?))?.ty {
                Ty::Pointer { pointee, .. } => pointee,
                _ => {
                    return Err(SimError::Module(
                        "access chain base is not a pointer".into(),
                    ))
                }
            };
            let mut addr = base as i128;
            let mut idxs = w[1..].iter();
            let read_idx = |id: u32| -> Result<i128, SimError> {
                let (c, _) = vcomp(p, ty_of(id))?;
                Ok(sext(rd(get(id), c.bytes, 0), c.bits) as i128)
            };
            if matches!(inst.op, Op::PtrAccessChain | Op::InBoundsPtrAccessChain) {
                if let Some(&e) = idxs.next() {
                    let stride = if ty == 0 { 1 } else { p.ty(ty)?.stride.max(1) };
                    addr += read_idx(e)? * stride as i128;
                }
            }
            for &id in idxs {
                let t = p.ty(ty)?;
                match &t.ty {
                    Ty::Struct { members, offsets } => {
                        let i = read_idx(id)? as usize;
                        if i >= members.len() {
                            return Err(SimError::Module("struct index out of range".into()));
                        }
                        addr += offsets[i] as i128;
                        ty = members[i];
                    }
                    Ty::Array { elem, stride, .. } => {
                        addr += read_idx(id)? * *stride as i128;
                        ty = *elem;
                    }
                    Ty::Vector { elem, .. } => {
                        addr += read_idx(id)? * p.ty(*elem)?.size as i128;
                        ty = *elem;
                    }
                    _ => return Err(SimError::Module("access chain into a scalar".into())),
                }
            }
            wr(out, p.ptr_bytes as usize, 0, addr as u64);
        }
        Op::PtrDiff => {
            let a = rd(get(arg(0)?), p.ptr_bytes as usize, 0) as i64;
            let b = rd(get(arg(1)?), p.ptr_bytes as usize, 0) as i64;
            let elem = match p.ty(ty_of(arg(0)?))?.ty {
                Ty::Pointer { pointee, .. } if pointee != 0 => p.ty(pointee)?.stride.max(1),
                _ => 1,
            } as i64;
            let (rc, _) = vcomp(p, inst.ty)?;
            wr(out, rc.bytes, 0, (a.wrapping_sub(b) / elem) as u64);
        }
        Op::SizeOf => {
            let (rc, _) = vcomp(p, inst.ty)?;
            let pointee = match p.ty(ty_of(arg(0)?))?.ty {
                Ty::Pointer { pointee, .. } => pointee,
                _ => 0,
            };
            wr(out, rc.bytes, 0, p.ty(pointee)?.size as u64);
        }
        Op::Undef => out.fill(0),
        Op::ExtInst => return crate::ext_cl::pure_ext(p, inst, get, ty_of, out),
        _ => return Ok(false),
    }
    Ok(true)
}

fn copy_to(out: &mut [u8], src: &[u8]) {
    let n = out.len().min(src.len());
    out[..n].copy_from_slice(&src[..n]);
}

/// Reports an instruction the simulator does not implement.
pub fn not_implemented(inst: &DInst) -> SimError {
    unsupported(format!("{:?} is not implemented by the simulator", inst.op))
}
