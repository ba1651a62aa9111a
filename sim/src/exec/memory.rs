//! The interpreter's memory instructions beyond plain loads and stores: alignment checks,
//! atomics, and the OpenCL.std functions that read or write memory (`vloadn`, `vstore_half`,
//! `modf`, ...), each one message of the traffic counters.

use spvopt_ir::spirv::{self, Op};

use crate::error::SimError;
use crate::ops;
use crate::program::{DInst, Ty};
use crate::traffic::{Access, PtrClass};
use crate::values::*;

use crate::machine::*;

impl<'p> Machine<'p> {
    /// Alignment required by a load/store: the `Aligned` memory operand if present, else the
    /// component size of the accessed type.
    pub(crate) fn access_align(&self, inst: &DInst, mem_operand_at: usize, ty: u32) -> u64 {
        if let Some(&flags) = inst.w.get(mem_operand_at) {
            if flags & spirv::MemoryAccess::ALIGNED.bits() != 0 {
                // Volatile (1) has no operand; Aligned (2) comes first
                if let Some(&a) = inst.w.get(mem_operand_at + 1) {
                    if a.is_power_of_two() {
                        return a as u64;
                    }
                }
            }
        }
        self.natural_align(ty)
    }

    pub(crate) fn check_align(
        &self,
        addr: u64,
        align: u64,
        what: &'static str,
    ) -> Result<(), SimError> {
        crate::memory::check_aligned(addr, align, what)
    }

    pub(crate) fn atomic(&mut self, sg: &mut Sg, inst: &DInst, mask: u64) -> Result<(), SimError> {
        let p = self.p;
        let ptr_ty = p.vty.get(inst.w[0] as usize).copied().unwrap_or(0);
        let pointee = match p.ty(ptr_ty)?.ty {
            Ty::Pointer { pointee, .. } => pointee,
            _ => return Err(SimError::Module("atomic on a non-pointer".into())),
        };
        let c = ops::comp(p, pointee)?;
        let bits = c.bits;
        let size = c.bytes;
        let class = self.ptr_class(inst.w[0]);
        for lane in lanes(mask) {
            self.err_lane = Some(lane);
            let addr = self.val_u64(sg, inst.w[0], lane);
            crate::memory::check_aligned(addr, size as u64, "atomic")?;
            self.note(class, addr, size);
            let mut buf = [0u8; 8];
            self.read_mem(sg, lane, addr, &mut buf[..size])?;
            let old = u64::from_le_bytes(buf);
            let v = |i: usize| self.val_u64(sg, inst.w[i], lane);
            let new = match inst.op {
                Op::AtomicLoad => None,
                Op::AtomicStore => Some(v(3)),
                Op::AtomicExchange => Some(v(3)),
                Op::AtomicCompareExchange | Op::AtomicCompareExchangeWeak => {
                    if mask_bits(old, bits) == mask_bits(v(5), bits) {
                        Some(v(4))
                    } else {
                        None
                    }
                }
                Op::AtomicIIncrement => Some(old.wrapping_add(1)),
                Op::AtomicIDecrement => Some(old.wrapping_sub(1)),
                Op::AtomicIAdd => Some(old.wrapping_add(v(3))),
                Op::AtomicISub => Some(old.wrapping_sub(v(3))),
                Op::AtomicSMin => Some(if sext(old, bits) <= sext(v(3), bits) {
                    old
                } else {
                    v(3)
                }),
                Op::AtomicSMax => Some(if sext(old, bits) >= sext(v(3), bits) {
                    old
                } else {
                    v(3)
                }),
                Op::AtomicUMin => Some(mask_bits(old, bits).min(mask_bits(v(3), bits))),
                Op::AtomicUMax => Some(mask_bits(old, bits).max(mask_bits(v(3), bits))),
                Op::AtomicAnd => Some(old & v(3)),
                Op::AtomicOr => Some(old | v(3)),
                Op::AtomicXor => Some(old ^ v(3)),
                Op::AtomicFAddEXT => Some(ops::float_bin(Op::FAdd, old, v(3), c.fw())),
                Op::AtomicFMinEXT | Op::AtomicFMaxEXT => {
                    let (a, b) = (f_get(old, c.fw()), f_get(v(3), c.fw()));
                    let take_b = if inst.op == Op::AtomicFMinEXT {
                        b < a || a.is_nan()
                    } else {
                        b > a || a.is_nan()
                    };
                    Some(if take_b { v(3) } else { old })
                }
                _ => None,
            };
            if let Some(nv) = new {
                self.write_mem(addr, &nv.to_le_bytes()[..size])?;
            }
            if inst.res != 0 {
                self.set(sg, inst.res, lane, &old.to_le_bytes()[..size]);
            }
        }
        self.send(Access::Atomic);
        Ok(())
    }

    pub(crate) fn ext_memory(
        &mut self,
        sg: &mut Sg,
        inst: &DInst,
        mask: u64,
    ) -> Result<(), SimError> {
        let p = self.p;
        let args: Vec<u32> = inst.w[2..].to_vec();
        let rty = inst.ty;
        let (rc, rn) = ops::vcomp(p, rty).unwrap_or((
            ops::Comp {
                kind: ops::Kind::Other,
                bits: 0,
                bytes: 0,
                signed: false,
                bf16: false,
            },
            0,
        ));
        let name = inst.ext;
        let (access, ptr_arg) = match name {
            "vloadn" | "vload_half" | "vload_halfn" | "vloada_halfn" => (Access::Load, 1),
            _ if name.starts_with("vstore") => (Access::Store, 2),
            _ => (Access::Store, args.len().saturating_sub(1)),
        };
        let class = match args.get(ptr_arg) {
            Some(&ptr) => self.ptr_class(ptr),
            None => PtrClass::Uncounted,
        };
        for lane in lanes(mask) {
            self.err_lane = Some(lane);
            match name {
                "vloadn" | "vload_half" | "vload_halfn" | "vloada_halfn" => {
                    let off = self.val_u64(sg, args[0], lane);
                    let ptr = self.val_u64(sg, args[1], lane);
                    let n = if name == "vload_half" {
                        1
                    } else {
                        inst.w.get(4).copied().unwrap_or(rn as u32) as usize
                    };
                    let half = name != "vloadn";
                    let es = if half { 2 } else { rc.bytes };
                    let stride = if name == "vloada_halfn" && n == 3 {
                        4
                    } else {
                        n
                    };
                    let addr = ptr.wrapping_add(off.wrapping_mul((stride * es) as u64));
                    crate::memory::check_aligned(addr, es as u64, "vload")?;
                    let mut buf = vec![0u8; n * es];
                    self.read_mem(sg, lane, addr, &mut buf)?;
                    self.note(class, addr, buf.len());
                    let mut out = vec![0u8; rn.max(1) * rc.bytes];
                    for i in 0..n {
                        let v = rd(&buf, es, i);
                        let v = if half {
                            f_put(f_get(v, 16), rc.fw())
                        } else {
                            v
                        };
                        wr(&mut out, rc.bytes, i, v);
                    }
                    self.set(sg, inst.res, lane, &out);
                }
                "vstoren" | "vstore_half" | "vstore_half_r" | "vstore_halfn" | "vstore_halfn_r"
                | "vstorea_halfn" | "vstorea_halfn_r" => {
                    let data_id = args[0];
                    let off = self.val_u64(sg, args[1], lane);
                    let ptr = self.val_u64(sg, args[2], lane);
                    let dty = p.vty.get(data_id as usize).copied().unwrap_or(0);
                    let (dc, dn) = ops::vcomp(p, dty)?;
                    let half = name != "vstoren";
                    let mode = if name.ends_with("_r") {
                        inst.w.get(5).copied().unwrap_or(0)
                    } else {
                        0
                    };
                    let es = if half { 2 } else { dc.bytes };
                    let stride = if name.starts_with("vstorea") && dn == 3 {
                        4
                    } else {
                        dn
                    };
                    let addr = ptr.wrapping_add(off.wrapping_mul((stride * es) as u64));
                    crate::memory::check_aligned(addr, es as u64, "vstore")?;
                    let src = self.val(sg, data_id, lane).to_vec();
                    let mut buf = vec![0u8; dn * es];
                    for i in 0..dn {
                        let v = rd(&src, dc.bytes, i);
                        let v = if half {
                            let x = f_get(v, dc.fw());
                            let nearest = f_put(x, 16);
                            if x.is_nan() {
                                nearest
                            } else {
                                round_with_mode(nearest, 16, mode, |c| {
                                    c.partial_cmp(&x).unwrap_or(std::cmp::Ordering::Equal)
                                })
                            }
                        } else {
                            v
                        };
                        wr(&mut buf, es, i, v);
                    }
                    self.write_mem(addr, &buf)?;
                    self.note(class, addr, buf.len());
                }
                "modf" | "fract" | "frexp" | "remquo" | "sincos" | "lgamma_r" => {
                    let last = *args.last().ok_or_else(|| SimError::Module("ext".into()))?;
                    let ptr = self.val_u64(sg, last, lane);
                    let pty = p.vty.get(last as usize).copied().unwrap_or(0);
                    let pointee = match p.ty(pty)?.ty {
                        Ty::Pointer { pointee, .. } => pointee,
                        _ => 0,
                    };
                    let (pc, _) = ops::vcomp(p, pointee)?;
                    let x = self.val(sg, args[0], lane).to_vec();
                    let y = args
                        .get(1)
                        .filter(|_| args.len() > 2)
                        .map(|&a| self.val(sg, a, lane).to_vec())
                        .unwrap_or_default();
                    let mut out = vec![0u8; rn.max(1) * rc.bytes];
                    let mut side = vec![0u8; rn.max(1) * pc.bytes];
                    for i in 0..rn.max(1) {
                        let a = f_get(rd(&x, rc.bytes, i), rc.fw());
                        let (r, s): (f64, u64) = match name {
                            "modf" => {
                                let ip = a.trunc();
                                let fp = if a.is_infinite() {
                                    0.0f64.copysign(a)
                                } else {
                                    (a - ip).copysign(a)
                                };
                                (fp, f_put(ip, pc.fw()))
                            }
                            "fract" => {
                                let fl = a.floor();
                                let fr = if a.is_nan() {
                                    a
                                } else if a.is_infinite() {
                                    0.0f64.copysign(a)
                                } else {
                                    // fmin(x - floor(x), 0x1.fffffep-1f)
                                    let lim =
                                        f_get(f_step(f_put(1.0, rc.fw()), rc.fw(), false), rc.fw());
                                    (a - fl).min(lim)
                                };
                                (fr, f_put(fl, pc.fw()))
                            }
                            "frexp" => {
                                if a == 0.0 || a.is_nan() || a.is_infinite() {
                                    (a, 0)
                                } else {
                                    let mut e = a.abs().log2().floor() as i64 + 1;
                                    let mut m = a / 2f64.powi(e as i32);
                                    if m.abs() >= 1.0 {
                                        m /= 2.0;
                                        e += 1;
                                    } else if m.abs() < 0.5 {
                                        m *= 2.0;
                                        e -= 1;
                                    }
                                    (m, mask_bits(e as u64, pc.bits))
                                }
                            }
                            "sincos" => (a.sin(), f_put(a.cos(), pc.fw())),
                            "remquo" => {
                                let b = f_get(rd(&y, rc.bytes, i), rc.fw());
                                let q = (a / b).round_ties_even();
                                let r = a - q * b;
                                let qi = (q.abs() as i64 & 0x7f) * if q < 0.0 { -1 } else { 1 };
                                (r, mask_bits(qi as u64, pc.bits))
                            }
                            _ => return Err(SimError::Unsupported("lgamma_r".into())),
                        };
                        wr(&mut out, rc.bytes, i, f_put(r, rc.fw()));
                        wr(&mut side, pc.bytes, i, s);
                    }
                    let side_len = p.ty(pointee)?.size as usize;
                    let side = &side[..side_len.min(side.len())];
                    self.write_mem(ptr, side)?;
                    self.note(class, ptr, side.len());
                    self.set(sg, inst.res, lane, &out);
                }
                _ => {
                    return Err(SimError::Unsupported(format!(
                        "OpenCL.std {name} is not implemented by the simulator"
                    )))
                }
            }
        }
        self.send(access);
        Ok(())
    }
}

pub(crate) fn mask_bits(v: u64, bits: u32) -> u64 {
    crate::values::mask(v, bits)
}

pub(crate) fn is_memory_ext(name: &str) -> bool {
    matches!(
        name,
        "vloadn"
            | "vstoren"
            | "vload_half"
            | "vload_halfn"
            | "vloada_halfn"
            | "vstore_half"
            | "vstore_half_r"
            | "vstore_halfn"
            | "vstore_halfn_r"
            | "vstorea_halfn"
            | "vstorea_halfn_r"
            | "modf"
            | "fract"
            | "frexp"
            | "remquo"
            | "sincos"
            | "lgamma_r"
    )
}
