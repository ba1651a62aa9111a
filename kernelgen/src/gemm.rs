//! Matrix statements: `OpSubgroupMatrixMultiplyAccumulateINTEL` of every element-type class
//! with operands from `src` or from block-loaded data, and GEMM K loops (A and B block loads at
//! counter-affine coordinates, an accumulator phi).

use spirv::{Capability, Op, StorageClass};

use crate::mma::{self, OperandType, Operands};
use crate::{Coord, Gen, Kind, Loaded, MmaClass, Shape, SCALAR_AREA};

impl Gen<'_> {
    /// A K loop of a GEMM: A (plain) and B (VNNI transform) block loads at counter-affine
    /// coordinates, an MMA accumulating into a phi, the result written after the loop.
    pub(crate) fn gemm_loop(&mut self) {
        let class = self.c.pick(&[
            MmaClass::F16ToF32,
            MmaClass::Bf16ToF32,
            MmaClass::F16ToF16,
            MmaClass::Bf16ToBf16,
        ]);
        let m = self.c.pick(&[1u32, 2, 4, 8, 8, 16]);
        let k = 16 * self.c.pick(&[1u32, 1, 2]);
        let Some([ta, tb, tc]) = class.operand_types(self.sg, m, k) else {
            return;
        };
        let a_shape = Shape {
            es: 2,
            w: k,
            h: m,
            c: 1,
        };
        let b_shape = Shape {
            es: 2,
            w: self.sg,
            h: k,
            c: 1,
        };
        if self.dst_bytes(Kind::Load, a_shape) != Some(ta.bytes())
            || self.dst_bytes(Kind::Transform, b_shape) != Some(tb.bytes())
        {
            return;
        }
        self.summary.gemm_loops += 1;
        self.mma_caps();
        let c_ty = self.operand_type(tc);
        let init = if self.c.chance(50) {
            self.s.null(c_ty)
        } else {
            self.operand_from_src(tc)
        };
        let acc = self.s.id();
        let max = 1 + self.c.below(4) as u32;
        let parts = self.loop_header(max, &[(c_ty, acc, init, 0)]);
        let u = self.t.u32_;
        let sa = self.surfaces[self.c.below(self.surfaces.len() - 1)];
        let sb = self.surfaces[self.c.below(self.surfaces.len() - 1)];
        // A: rows y0.., columns counter*K; B: rows counter*K.., columns x0
        let kc = self.u32c(k);
        let xa = self.op(Op::IMul, u, &[parts.counter, kc]);
        let ya = self.c.below(sa.h as usize) as i32;
        let ca = Coord {
            x: 0,
            y: ya,
            x_dyn: Some(xa),
            y_dyn: None,
        };
        let xb = (self.c.below((sb.w / 2) as usize) as i32) / 2 * 2;
        let cb = Coord {
            x: xb,
            y: 0,
            x_dyn: None,
            y_dyn: Some(xa),
        };
        self.summary.loop_carried_loads += 2;
        let (la, pa) = self.destination(Kind::Load, a_shape, ta.bytes());
        let cva = self.coord_value(ca);
        self.emit_block(Kind::Load, a_shape, &sa, cva, Some((pa, la.var)));
        let (lb, pb) = self.destination(Kind::Transform, b_shape, tb.bytes());
        let cvb = self.coord_value(cb);
        self.emit_block(Kind::Transform, b_shape, &sb, cvb, Some((pb, lb.var)));
        let a = self.operand_from_loaded(la, ta);
        let b = self.operand_from_loaded(lb, tb);
        let kd = self.u32c(k);
        let next = self.s.id();
        self.s.op(
            Op::SubgroupMatrixMultiplyAccumulateINTEL,
            c_ty,
            next,
            &[kd, a, b, acc, class.mask()],
        );
        self.summary.mma += 1;
        // after a loop tested at the top the result is the header's phi; after a
        // bottom-tested one, the last MMA (which dominates the exit)
        let result = if parts.structured { acc } else { next };
        self.loop_end(parts, &[next]);
        let out = self.out_ptr(tc.bytes(), tc.bytes().next_power_of_two());
        let pt = self.s.pointer(StorageClass::CrossWorkgroup, c_ty);
        let q = self.op(Op::Bitcast, pt, &[out]);
        self.void_op(Op::Store, &[q, result]);
    }

    pub(crate) fn mma_caps(&mut self) {
        self.s
            .cap(Capability::SubgroupMatrixMultiplyAccumulateINTEL);
        self.s.ext("SPV_INTEL_subgroup_matrix_multiply_accumulate");
    }

    /// An operand loaded per invocation from the scalar area of src.
    pub(crate) fn operand_from_src(&mut self, o: OperandType) -> u32 {
        let ty = self.operand_type(o);
        let bytes = o.bytes();
        let align = bytes.next_power_of_two();
        let slot = self.c.below(4) as u32;
        let off = SCALAR_AREA + slot * 16 * 64 / align * align;
        let u = self.t.u32_;
        let sz = self.u32c(align);
        let lo = self.op(Op::IMul, u, &[self.lid, sz]);
        let oc = self.u32c(off);
        let at = self.op(Op::IAdd, u, &[lo, oc]);
        let p = self.cw_offset(self.src, at);
        let pt = self.s.pointer(StorageClass::CrossWorkgroup, ty);
        let q = self.op(Op::Bitcast, pt, &[p]);
        self.op(Op::Load, ty, &[q])
    }

    pub(crate) fn operand_from_loaded(&mut self, l: Loaded, o: OperandType) -> u32 {
        let ty = self.operand_type(o);
        let pt = self.s.pointer(StorageClass::Function, ty);
        let q = self.op(Op::Bitcast, pt, &[l.var]);
        self.op(Op::Load, ty, &[q])
    }

    pub(crate) fn mma(&mut self) {
        let class = self.c.pick(&mma::ALL);
        let m = self.c.pick(&[1u32, 2, 4, 8, 8, 16]);
        let k = class.k() * self.c.pick(&[1u32, 1, 2]);
        let Some(types) = class.operand_types(self.sg, m, k) else {
            let v = self.divergent_value();
            self.observe_u32(v);
            return;
        };
        self.mma_caps();
        let mut vals = [0u32; 3];
        for (i, o) in types.iter().enumerate() {
            let from_scope = self
                .scope
                .iter()
                .copied()
                .filter(|l| l.bytes >= o.bytes() && l.elem_bytes <= o.scalar.bytes())
                .collect::<Vec<_>>();
            vals[i] = if i == 2 && self.c.chance(25) {
                let ty = self.operand_type(*o);
                self.s.null(ty)
            } else if !from_scope.is_empty() && i < 2 && self.c.chance(60) {
                let l = from_scope[self.c.below(from_scope.len())];
                self.operand_from_loaded(l, *o)
            } else {
                self.operand_from_src(*o)
            };
        }
        let c_ty = self.operand_type(types[2]);
        let kd = self.u32c(k);
        let r = self.op(
            Op::SubgroupMatrixMultiplyAccumulateINTEL,
            c_ty,
            &[kd, vals[0], vals[1], vals[2], class.mask()],
        );
        self.summary.mma += 1;
        let bytes = types[2].bytes();
        let out = self.out_ptr(bytes, bytes.next_power_of_two());
        let pt = self.s.pointer(StorageClass::CrossWorkgroup, c_ty);
        let q = self.op(Op::Bitcast, pt, &[out]);
        self.void_op(Op::Store, &[q, r]);
    }
}
