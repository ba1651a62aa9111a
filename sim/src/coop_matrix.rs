//! `SPV_KHR_cooperative_matrix` on Subgroup scope (`OpCooperativeMatrixLoadKHR`, `StoreKHR`,
//! `MulAddKHR`, `LengthKHR`, `OpMatrixTimesScalar`) and the tensor-addressed load / store of
//! `SPV_NV_cooperative_matrix2` (`OpCooperativeMatrixLoadTensorNV`, `StoreTensorNV`; addressing in
//! [`crate::tensor_addressing`]).
//!
//! Element-to-invocation layout (implementation-defined; the simulator's choice): the
//! `Rows x Columns` elements in row-major order are dealt round-robin over the subgroup,
//! invocation `i` holding elements `i, i + SG, i + 2 SG, ...` as its components `0, 1, 2, ...`
//! (`Length = ceil(Rows * Columns / SG)`; components past the last element are padding, kept at
//! whatever they hold and never stored). Loads, stores, MulAdd, Length, `OpCompositeExtract` /
//! `Insert` and the element-wise instructions (which treat an invocation's components like a
//! vector's) all use it. `SG` is the launch's subgroup size; a cooperative-matrix instruction in
//! a partial or partly inactive subgroup is an error.

use spvopt_ir::spirv::{MemoryAccess, Op};

use crate::error::SimError;
use crate::machine::{lanes, Machine, Sg};
use crate::ops;
use crate::program::{DInst, Program, Ty};
use crate::tensor_addressing::{self as ta, Access, Layout, TypedView, View};
use crate::values::*;

mod joint_matrix;

fn ub(msg: impl Into<String>) -> SimError {
    SimError::Undefined(msg.into())
}

fn merr(msg: impl Into<String>) -> SimError {
    SimError::Module(msg.into())
}

/// Scope Subgroup.
const SCOPE_SUBGROUP: u32 = 3;

/// CooperativeMatrixOperands bits.
pub mod operands {
    pub const A_SIGNED: u32 = 1;
    pub const B_SIGNED: u32 = 2;
    pub const C_SIGNED: u32 = 4;
    pub const RESULT_SIGNED: u32 = 8;
    pub const SATURATING: u32 = 16;
}

/// A cooperative matrix type.
#[derive(Debug, Clone, Copy)]
struct Mat {
    rows: u32,
    cols: u32,
    comp: ops::Comp,
    /// Components per invocation.
    per: usize,
}

impl Mat {
    fn elements(&self) -> usize {
        self.rows as usize * self.cols as usize
    }
}

fn mat(p: &Program, ty: u32) -> Result<Mat, SimError> {
    let t = p.ty(ty)?;
    match t.ty {
        Ty::CoopMatrix {
            elem,
            scope,
            rows,
            cols,
            ..
        } => {
            if scope != SCOPE_SUBGROUP {
                return Err(SimError::Unsupported(format!(
                    "cooperative matrix of scope {scope} (the simulator implements Subgroup scope)"
                )));
            }
            let comp = ops::comp(p, elem)?;
            if !matches!(comp.kind, ops::Kind::Int | ops::Kind::Float) {
                return Err(merr("cooperative matrix of a non-numeric component type"));
            }
            Ok(Mat {
                rows,
                cols,
                comp,
                per: t.size as usize / comp.bytes.max(1),
            })
        }
        _ => Err(merr(format!("%{ty} is not a cooperative matrix type"))),
    }
}

/// Whether [`Machine::coop`] executes `inst`.
pub(crate) fn is_coop_op(p: &Program, inst: &DInst) -> bool {
    match inst.op {
        Op::CooperativeMatrixLoadKHR
        | Op::CooperativeMatrixStoreKHR
        | Op::CooperativeMatrixMulAddKHR
        | Op::CooperativeMatrixLengthKHR
        | Op::CooperativeMatrixLoadTensorNV
        | Op::CooperativeMatrixStoreTensorNV => true,
        Op::MatrixTimesScalar => matches!(p.ty(inst.ty).map(|t| &t.ty), Ok(Ty::CoopMatrix { .. })),
        _ => false,
    }
}

/// Number of extra operands a memory-operand mask carries (Aligned, MakePointerAvailable,
/// MakePointerVisible, AliasScopeINTEL, NoAliasINTEL: one each).
fn mem_extra(mask: u32) -> usize {
    (mask & (0x2 | 0x8 | 0x10 | 0x10000 | 0x20000)).count_ones() as usize
}

impl Machine<'_> {
    /// Executes a cooperative-matrix instruction.
    pub(crate) fn coop(&mut self, sg: &mut Sg, inst: &DInst, mask: u64) -> Result<(), SimError> {
        match inst.op {
            Op::CooperativeMatrixLengthKHR => {
                let m = mat(self.p, inst.w[0])?;
                for lane in lanes(mask) {
                    self.set(sg, inst.res, lane, &(m.per as u32).to_le_bytes());
                }
                Ok(())
            }
            Op::MatrixTimesScalar => {
                let m = mat(self.p, inst.ty)?;
                if m.comp.kind != ops::Kind::Float {
                    return Err(merr("OpMatrixTimesScalar on an integer matrix"));
                }
                for lane in lanes(mask) {
                    let a = self.val(sg, inst.w[0], lane).to_vec();
                    let s = self.val_u64(sg, inst.w[1], lane);
                    let mut out = vec![0u8; m.per * m.comp.bytes];
                    for i in 0..m.per {
                        let x = rd(&a, m.comp.bytes, i);
                        wr(
                            &mut out,
                            m.comp.bytes,
                            i,
                            ops::float_bin(Op::FMul, x, s, m.comp.fw()),
                        );
                    }
                    self.set(sg, inst.res, lane, &out);
                }
                Ok(())
            }
            Op::CooperativeMatrixMulAddKHR => self.coop_muladd(sg, inst, mask),
            Op::CooperativeMatrixLoadKHR | Op::CooperativeMatrixStoreKHR => {
                self.coop_load_store_khr(sg, inst, mask)
            }
            _ => self.coop_tensor(sg, inst, mask),
        }
    }

    fn coop_require(&self, sg: &Sg, mask: u64, what: &str) -> Result<(), SimError> {
        if sg.n != self.sgsize as usize {
            return Err(ub(format!(
                "{what} in a partial subgroup of {} invocations (subgroup size {})",
                sg.n, self.sgsize
            )));
        }
        self.require_full(sg, mask, what)
    }

    /// The bytes of `id`, which must be the same in every invocation of `mask`.
    fn coop_uniform(&self, sg: &Sg, id: u32, mask: u64, what: &str) -> Result<Vec<u8>, SimError> {
        let first = mask.trailing_zeros() as usize;
        let v = self.val(sg, id, first).to_vec();
        for lane in lanes(mask) {
            if self.val(sg, id, lane) != v.as_slice() {
                return Err(ub(format!(
                    "{what} is not dynamically uniform (invocations {first} and {lane} differ)"
                )));
            }
        }
        Ok(v)
    }

    fn coop_uniform_u64(&self, sg: &Sg, id: u32, mask: u64, what: &str) -> Result<u64, SimError> {
        let v = self.coop_uniform(sg, id, mask, what)?;
        Ok(rd(&v, v.len().min(8), 0))
    }

    /// Every element of matrix value `id` in row-major order.
    fn gather(&self, sg: &Sg, id: u32, m: &Mat) -> Vec<u64> {
        let sgn = self.sgsize as usize;
        (0..m.elements())
            .map(|e| rd(self.val(sg, id, e % sgn), m.comp.bytes, e / sgn))
            .collect()
    }

    /// Writes `elems` (row-major) as result `res`; `base` gives each invocation's starting bytes.
    fn scatter(&self, sg: &mut Sg, res: u32, m: &Mat, elems: &[u64], base: Option<u32>) {
        let sgn = self.sgsize as usize;
        for lane in 0..sg.n {
            let mut out = match base {
                Some(b) => self.val(sg, b, lane).to_vec(),
                None => vec![0u8; m.per * m.comp.bytes],
            };
            out.resize(m.per * m.comp.bytes, 0);
            for (k, e) in (lane..elems.len()).step_by(sgn).enumerate() {
                wr(&mut out, m.comp.bytes, k, elems[e]);
            }
            self.set(sg, res, lane, &out);
        }
    }

    fn coop_muladd(&mut self, sg: &mut Sg, inst: &DInst, mask: u64) -> Result<(), SimError> {
        let name = "OpCooperativeMatrixMulAddKHR";
        self.coop_require(sg, mask, name)?;
        let p = self.p;
        let ty = |id: u32| p.vty.get(id as usize).copied().unwrap_or(0);
        let (a, b, c, d) = (
            mat(p, ty(inst.w[0]))?,
            mat(p, ty(inst.w[1]))?,
            mat(p, ty(inst.w[2]))?,
            mat(p, inst.ty)?,
        );
        let flags = inst.w.get(3).copied().unwrap_or(0);
        let (m, n, k) = (a.rows, b.cols, a.cols);
        if b.rows != k || c.rows != m || c.cols != n || d.rows != m || d.cols != n {
            return Err(merr(format!(
                "{name}: shapes A {}x{} B {}x{} C {}x{} Result {}x{} do not match",
                a.rows, a.cols, b.rows, b.cols, c.rows, c.cols, d.rows, d.cols
            )));
        }
        let float = d.comp.kind == ops::Kind::Float;
        let kinds_ok = [a, b, c]
            .iter()
            .all(|x| (x.comp.kind == ops::Kind::Float) == float);
        if !kinds_ok {
            return Err(merr(format!("{name}: mixes integer and float matrices")));
        }
        let (av, bv, cv) = (
            self.gather(sg, inst.w[0], &a),
            self.gather(sg, inst.w[1], &b),
            self.gather(sg, inst.w[2], &c),
        );
        let (m, n, k) = (m as usize, n as usize, k as usize);
        let mut out = vec![0u64; m * n];
        for r in 0..m {
            for col in 0..n {
                let ci = cv[r * n + col];
                out[r * n + col] = if float {
                    // exact products, fused in order k = 0.. in f64, rounded once
                    let mut acc = f_get(ci, c.comp.fw());
                    for i in 0..k {
                        let x = f_get(av[r * k + i], a.comp.fw());
                        let y = f_get(bv[i * n + col], b.comp.fw());
                        acc = x.mul_add(y, acc);
                    }
                    f_put(acc, d.comp.fw())
                } else {
                    let int = |v: u64, bits: u32, signed: bool| -> i128 {
                        if signed {
                            sext(v, bits) as i128
                        } else {
                            crate::values::mask(v, bits) as i128
                        }
                    };
                    let mut acc = int(ci, c.comp.bits, flags & operands::C_SIGNED != 0);
                    for i in 0..k {
                        let x = int(av[r * k + i], a.comp.bits, flags & operands::A_SIGNED != 0);
                        let y = int(
                            bv[i * n + col],
                            b.comp.bits,
                            flags & operands::B_SIGNED != 0,
                        );
                        acc += x * y;
                    }
                    let bits = d.comp.bits;
                    if flags & operands::SATURATING != 0 {
                        let (lo, hi) = if flags & operands::RESULT_SIGNED != 0 {
                            (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
                        } else {
                            (0, (1i128 << bits) - 1)
                        };
                        acc = acc.clamp(lo, hi);
                    }
                    crate::values::mask(acc as u64, bits)
                };
            }
        }
        self.scatter(sg, inst.res, &d, &out, None);
        *self
            .counters
            .mma
            .entry(format!(
                "coop m{m}n{n}k{k} A {:?}{} B {:?}{} C {:?}{} R {:?}{}",
                a.comp.kind,
                a.comp.bits,
                b.comp.kind,
                b.comp.bits,
                c.comp.kind,
                c.comp.bits,
                d.comp.kind,
                d.comp.bits
            ))
            .or_default() += 1;
        Ok(())
    }

    /// Alignment from a memory-operand mask at `w[at]` (the `Aligned` literal), else 1.
    fn mem_align(w: &[u32], at: usize) -> u64 {
        match w.get(at) {
            Some(&f) if f & MemoryAccess::ALIGNED.bits() != 0 => {
                w.get(at + 1).copied().unwrap_or(1) as u64
            }
            _ => 1,
        }
    }

    fn coop_load_store_khr(
        &mut self,
        sg: &mut Sg,
        inst: &DInst,
        mask: u64,
    ) -> Result<(), SimError> {
        let load = inst.op == Op::CooperativeMatrixLoadKHR;
        let name = if load {
            "OpCooperativeMatrixLoadKHR"
        } else {
            "OpCooperativeMatrixStoreKHR"
        };
        self.coop_require(sg, mask, name)?;
        let p = self.p;
        let w = &inst.w;
        // Load: Pointer, MemoryLayout, [Stride], [MemoryOperand]; Store: Pointer, Object, ...
        let lo = if load { 1 } else { 2 };
        let mty = if load {
            inst.ty
        } else {
            p.vty.get(w[1] as usize).copied().unwrap_or(0)
        };
        let m = mat(p, mty)?;
        let layout = self.const_u64(w[lo])?;
        let stride = match w.get(lo + 1) {
            Some(&s) => self.coop_uniform_u64(sg, s, mask, &format!("{name} Stride"))?,
            None => return Err(merr(format!("{name} without Stride"))),
        };
        let ptr = self.coop_uniform_u64(sg, w[0], mask, &format!("{name} Pointer"))?;
        let pty = p.vty.get(w[0] as usize).copied().unwrap_or(0);
        let psize = match p.ty(pty)?.ty {
            Ty::Pointer { pointee, .. } if pointee != 0 => p.ty(pointee)?.size as u64,
            _ => m.comp.bytes as u64,
        };
        let align = Self::mem_align(w, lo + 2).max(m.comp.bytes as u64);
        crate::memory::check_aligned(ptr, align, "cooperative matrix load/store pointer")?;
        let es = m.comp.bytes as u64;
        let addr = |r: u64, c: u64| -> Result<u64, SimError> {
            Ok(match layout {
                0 => ptr.wrapping_add(r * stride * psize + c * es),
                1 => ptr.wrapping_add(c * stride * psize + r * es),
                l => {
                    return Err(SimError::Unsupported(format!(
                        "cooperative matrix memory layout {l}"
                    )))
                }
            })
        };
        let cols = m.cols as u64;
        if load {
            let mut elems = vec![0u64; m.elements()];
            let mut buf = vec![0u8; m.comp.bytes];
            for (e, v) in elems.iter_mut().enumerate() {
                let (r, c) = (e as u64 / cols, e as u64 % cols);
                self.read_mem(sg, 0, addr(r, c)?, &mut buf)?;
                *v = rd(&buf, m.comp.bytes, 0);
            }
            self.scatter(sg, inst.res, &m, &elems, None);
        } else {
            let elems = self.gather(sg, w[1], &m);
            for (e, v) in elems.iter().enumerate() {
                let (r, c) = (e as u64 / cols, e as u64 % cols);
                let a = addr(r, c)?;
                self.write_mem(a, &v.to_le_bytes()[..m.comp.bytes])?;
            }
        }
        Ok(())
    }

    fn coop_tensor(&mut self, sg: &mut Sg, inst: &DInst, mask: u64) -> Result<(), SimError> {
        let load = inst.op == Op::CooperativeMatrixLoadTensorNV;
        let name = if load {
            "OpCooperativeMatrixLoadTensorNV"
        } else {
            "OpCooperativeMatrixStoreTensorNV"
        };
        self.coop_require(sg, mask, name)?;
        let p = self.p;
        let w = &inst.w;
        let arg = |i: usize| {
            w.get(i)
                .copied()
                .ok_or_else(|| merr(format!("{name}: missing operand {i}")))
        };
        // Pointer, Object, TensorLayout, MemoryOperand (+extras), TensorAddressingOperands (+extras)
        let (ptr_id, obj_id, layout_id) = (arg(0)?, arg(1)?, arg(2)?);
        let mem_mask = arg(3)?;
        let ta_at = 4 + mem_extra(mem_mask);
        let ta_mask = w.get(ta_at).copied().unwrap_or(0);
        if ta_mask & !0x1 != 0 {
            return Err(SimError::Unsupported(format!(
                "{name}: DecodeFunc / DecodeVectorFunc (tensor addressing operands {ta_mask:#x})"
            )));
        }
        let view_id = if ta_mask & 0x1 != 0 {
            Some(arg(ta_at + 1)?)
        } else {
            None
        };
        let mty = if load {
            inst.ty
        } else {
            p.vty.get(obj_id as usize).copied().unwrap_or(0)
        };
        let m = mat(p, mty)?;
        let ptr = self.coop_uniform_u64(sg, ptr_id, mask, &format!("{name} Pointer"))?;
        // notes §3.1: the pointer must be 16-byte aligned (and as the Aligned operand says)
        let align = Self::mem_align(w, 3).max(16).max(m.comp.bytes as u64);
        crate::memory::check_aligned(ptr, align, "tensor load/store pointer")?;
        let lty = p.vty.get(layout_id as usize).copied().unwrap_or(0);
        let (ldims, clamp) = match p.ty(lty)?.ty {
            Ty::TensorLayout { dims, clamp } => (dims as usize, clamp),
            _ => {
                return Err(merr(format!(
                    "{name}: TensorLayout operand is not a layout"
                )))
            }
        };
        let lbytes = self.coop_uniform(sg, layout_id, mask, &format!("{name} TensorLayout"))?;
        let layout = Layout::decode(&lbytes, ldims);
        let view = match view_id {
            Some(v) => {
                let vty = p.vty.get(v as usize).copied().unwrap_or(0);
                let (vdims, has_dims, perm) = match &p.ty(vty)?.ty {
                    Ty::TensorView {
                        dims,
                        has_dims,
                        perm,
                    } => (*dims as usize, *has_dims, perm.as_slice()),
                    _ => return Err(merr(format!("{name}: TensorView operand is not a view"))),
                };
                let vb = self.coop_uniform(sg, v, mask, &format!("{name} TensorView"))?;
                Some(TypedView {
                    view: View::decode(&vb, vdims),
                    has_dims,
                    perm,
                })
            }
            None => None,
        };
        let es = m.comp.bytes;
        let cols = m.cols;
        let sgn = self.sgsize as usize;
        if load {
            let mut elems = self.gather(sg, obj_id, &m);
            let mut buf = vec![0u8; es];
            for (e, v) in elems.iter_mut().enumerate() {
                let (r, c) = (e as u32 / cols, e as u32 % cols);
                match ta::element_access(&layout, clamp, view.as_ref(), r, c, cols, false)? {
                    Access::Clipped => {}
                    Access::Clamped => {
                        *v = crate::values::mask(layout.clamp_value as u64, m.comp.bits)
                    }
                    Access::At(i) => {
                        let a = ptr.wrapping_add(i.wrapping_mul(es as u64));
                        self.read_mem(sg, e % sgn, a, &mut buf)?;
                        *v = rd(&buf, es, 0);
                    }
                }
            }
            self.scatter(sg, inst.res, &m, &elems, Some(obj_id));
        } else {
            let elems = self.gather(sg, obj_id, &m);
            for (e, v) in elems.iter().enumerate() {
                let (r, c) = (e as u32 / cols, e as u32 % cols);
                if let Access::At(i) =
                    ta::element_access(&layout, clamp, view.as_ref(), r, c, cols, true)?
                {
                    let a = ptr.wrapping_add(i.wrapping_mul(es as u64));
                    self.write_mem(a, &v.to_le_bytes()[..es])?;
                }
            }
        }
        Ok(())
    }

    /// Executes a tensor layout / view instruction per invocation.
    pub(crate) fn tensor_op(
        &mut self,
        sg: &mut Sg,
        inst: &DInst,
        mask: u64,
    ) -> Result<(), SimError> {
        let size = self.p.ty(inst.ty)?.size as usize;
        for lane in lanes(mask) {
            let mut out = vec![0u8; size];
            {
                let get = |id: u32| self.val(sg, id, lane);
                ta::pure_tensor(self.p, inst, &get, &mut out)?;
            }
            self.set(sg, inst.res, lane, &out);
        }
        Ok(())
    }
}
