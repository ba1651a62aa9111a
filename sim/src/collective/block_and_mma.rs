//! The Intel 2D block IO and MMA operations (native ops and the OpenCL builtins compilers call
//! instead): builtin names parsed, shapes checked, operands required uniform, then run by
//! `block_io_2d` and `mma`.

use super::*;

/// Parsed `intel_sub_group_2d_block_<kind>_<E>b_<H>r<W>x<C>c`.
pub(super) fn parse_block2d_name(name: &str) -> Option<(Block2dOp, u32, u32, u32, u32)> {
    let at = name.find("intel_sub_group_2d_block_")?;
    let rest = &name[at + "intel_sub_group_2d_block_".len()..];
    let (op, rest) = [
        ("read_transform_", Block2dOp::LoadTransform),
        ("read_transpose_", Block2dOp::LoadTranspose),
        ("read_", Block2dOp::Load),
        ("write_", Block2dOp::Store),
        ("prefetch_", Block2dOp::Prefetch),
    ]
    .iter()
    .find_map(|(p, op)| rest.strip_prefix(p).map(|r| (*op, r)))?;
    let num = |s: &str| -> Option<(u32, usize)> {
        let d: String = s.chars().take_while(|c| c.is_ascii_digit()).collect();
        Some((d.parse().ok()?, d.len()))
    };
    let (bits, k) = num(rest)?;
    let rest = rest[k..].strip_prefix("b_")?;
    let (h, k) = num(rest)?;
    let rest = rest[k..].strip_prefix('r')?;
    let (w, k) = num(rest)?;
    let rest = rest[k..].strip_prefix('x')?;
    let (c, k) = num(rest)?;
    rest[k..].strip_prefix('c')?;
    Some((op, bits / 8, w, h, c))
}

/// Parsed `intel_sub_group_<a>_<b>_matrix_mad_k<K>`: operand bits (A/B interpretation) and K.
pub(super) fn parse_mma_name(name: &str) -> Option<(u32, u32)> {
    use mma::operands::*;
    let at = name.find("intel_sub_group_")?;
    let rest = &name[at + "intel_sub_group_".len()..];
    let mid = rest.find("_matrix_mad_k")?;
    let types = &rest[..mid];
    let kstr: String = rest[mid + "_matrix_mad_k".len()..]
        .chars()
        .take_while(|c| c.is_ascii_digit())
        .collect();
    let k: u32 = kstr.parse().ok()?;
    let (a, b) = types.split_once('_')?;
    let side = |t: &str, is_a: bool| -> Option<u32> {
        Some(match (t, is_a) {
            ("i8", true) => MATRIX_A_SIGNED_COMPONENTS | MATRIX_A_PACKED_INT8,
            ("u8", true) => MATRIX_A_PACKED_INT8,
            ("i4", true) => MATRIX_A_SIGNED_COMPONENTS | MATRIX_A_PACKED_INT4,
            ("u4", true) => MATRIX_A_PACKED_INT4,
            ("f16", true) => MATRIX_A_PACKED_FLOAT16,
            ("bf16", true) => MATRIX_A_PACKED_BFLOAT16,
            ("tf32", true) => MATRIX_A_TF32,
            ("i8", false) => MATRIX_B_SIGNED_COMPONENTS | MATRIX_B_PACKED_INT8,
            ("u8", false) => MATRIX_B_PACKED_INT8,
            ("i4", false) => MATRIX_B_SIGNED_COMPONENTS | MATRIX_B_PACKED_INT4,
            ("u4", false) => MATRIX_B_PACKED_INT4,
            ("f16", false) => MATRIX_B_PACKED_FLOAT16,
            ("bf16", false) => MATRIX_B_PACKED_BFLOAT16,
            ("tf32", false) => MATRIX_B_TF32,
            _ => return None,
        })
    };
    Some((side(a, true)? | side(b, false)?, k))
}

pub(super) fn block2d_kind_name(op: Block2dOp) -> &'static str {
    match op {
        Block2dOp::Load => "load",
        Block2dOp::LoadTransform => "load_transform",
        Block2dOp::LoadTranspose => "load_transpose",
        Block2dOp::Store => "store",
        Block2dOp::Prefetch => "prefetch",
    }
}

impl<'p> Machine<'p> {
    pub(super) fn vector_type(&self, ty: u32) -> Result<VectorType, SimError> {
        let (e, n) = self.p.components(ty)?;
        let c = match self.p.ty(e)?.ty {
            Ty::Int { width, .. } => ScalarType::Int(width),
            Ty::Float { bf16: true, .. } => ScalarType::BFloat16,
            Ty::Float { width, .. } => ScalarType::Float(width),
            _ => return Err(SimError::Module("MMA operand of non-numeric type".into())),
        };
        Ok(if matches!(self.p.ty(ty)?.ty, Ty::Vector { .. }) {
            VectorType::vector(c, n)
        } else {
            VectorType::scalar(c)
        })
    }

    pub(super) fn set_err_lane(&mut self, _lane: usize) {}

    /// A 2D block operation with its shape operands already constant-folded.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn block2d(
        &mut self,
        sg: &mut Sg,
        mask: u64,
        kind: Block2dOp,
        shape: [u32; 4],
        base_id: u32,
        region: [u32; 4],
        ptr_id: Option<u32>,
    ) -> Result<(), SimError> {
        let name = kind.name();
        self.require_full(sg, mask, name)?;
        let base = self.uniform_i64(sg, base_id, mask, &format!("{name} base pointer"))? as u64;
        let mw = self.uniform_i64(sg, region[0], mask, &format!("{name} Memory Width"))?;
        let mh = self.uniform_i64(sg, region[1], mask, &format!("{name} Memory Height"))?;
        let mp = self.uniform_i64(sg, region[2], mask, &format!("{name} Memory Pitch"))?;
        let coord = self.uniform(sg, region[3], mask, &format!("{name} Coordinate"))?;
        let cty = self.p.vty.get(region[3] as usize).copied().unwrap_or(0);
        let (cc, _) = ops::vcomp(self.p, cty)?;
        let x = sext(rd(&coord, cc.bytes, 0), cc.bits);
        let y = sext(rd(&coord, cc.bytes, 1), cc.bits);
        let params = Block2dParams {
            element_size: shape[0],
            block_width: shape[1],
            block_height: shape[2],
            block_count: shape[3],
            base,
            memory_width: mw,
            memory_height: mh,
            memory_pitch: mp,
            x,
            y,
            mapping: self.block_layout,
            base_alignment: self.block_base_alignment,
        };
        let shape_sg = self.sg_shape(sg);
        let key = format!(
            "{} {}b {}r{}x{}c",
            block2d_kind_name(kind),
            u64::from(shape[0]) * 8,
            shape[2],
            shape[1],
            shape[3]
        );
        match kind {
            Block2dOp::Prefetch => {
                let r = block_io_2d::prefetch(&params, shape_sg)?;
                self.counters.prefetches += 1;
                self.counters.prefetched_bytes += r.bytes;
                let e = self.counters.block2d.entry(key).or_default();
                e.ops += 1;
                e.bytes += r.bytes;
                self.prefetched.extend(r.lines);
            }
            Block2dOp::Store => {
                let lay = block_io_2d::layout(kind, &params, shape_sg)?;
                let ptr_id =
                    ptr_id.ok_or_else(|| SimError::Module("store without source".into()))?;
                let mut src = Vec::with_capacity(sg.n);
                for lane in 0..sg.n {
                    let addr = self.val_u64(sg, ptr_id, lane);
                    block_io_2d::check_invocation_pointer(kind, &params, addr)?;
                    let mut buf = vec![0u8; lay.bytes_per_invocation];
                    self.read_mem(sg, lane, addr, &mut buf)?;
                    src.push(buf);
                }
                let r = block_io_2d::store(&mut self.mem, &params, shape_sg, &src)?;
                let e = self.counters.block2d.entry(key).or_default();
                e.ops += 1;
                e.bytes += r.bytes;
            }
            _ => {
                let lk = match kind {
                    Block2dOp::LoadTransform => LoadKind::Transform,
                    Block2dOp::LoadTranspose => LoadKind::Transpose,
                    _ => LoadKind::Plain,
                };
                let r = block_io_2d::load(&self.mem, lk, &params, shape_sg)?;
                let ptr_id =
                    ptr_id.ok_or_else(|| SimError::Module("load without destination".into()))?;
                for lane in 0..sg.n {
                    let addr = self.val_u64(sg, ptr_id, lane);
                    block_io_2d::check_invocation_pointer(kind, &params, addr)?;
                    self.write_mem(addr, &r.data[lane])?;
                }
                let covered = r
                    .lines
                    .iter()
                    .filter(|l| self.prefetched.contains(l))
                    .count();
                self.counters.lines_loaded_2d += r.lines.len() as u64;
                self.counters.lines_prefetched_before_load += covered as u64;
                let e = self.counters.block2d.entry(key).or_default();
                e.ops += 1;
                e.bytes += r.bytes;
            }
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn mma(
        &mut self,
        sg: &mut Sg,
        mask: u64,
        k: u32,
        operands: u32,
        abc: [u32; 3],
        rty: u32,
        res: u32,
    ) -> Result<(), SimError> {
        self.require_full(sg, mask, "OpSubgroupMatrixMultiplyAccumulateINTEL")?;
        let p = self.p;
        let ty = |id: u32| p.vty.get(id as usize).copied().unwrap_or(0);
        let desc = MmaDesc {
            k_dim: k,
            operands,
            a: self.vector_type(ty(abc[0]))?,
            b: self.vector_type(ty(abc[1]))?,
            c: self.vector_type(ty(abc[2]))?,
            result: self.vector_type(rty)?,
            subgroup_size: sg.n as u32,
        };
        let get =
            |id: u32| -> Vec<Vec<u8>> { (0..sg.n).map(|l| self.val(sg, id, l).to_vec()).collect() };
        let (a, b, c) = (get(abc[0]), get(abc[1]), get(abc[2]));
        let out = mma::multiply_accumulate(&desc, &a, &b, &c)?;
        let plan = mma::plan(&desc)?;
        let key = format!(
            "m{}n{}k{} A {:?} B {:?} C {:?} R {:?}",
            plan.m,
            plan.n,
            plan.k,
            plan.a_element,
            plan.b_element,
            plan.c_element,
            plan.result_element
        );
        *self.counters.mma.entry(key).or_default() += 1;
        for (lane, d) in out.iter().enumerate() {
            self.set(sg, res, lane, d);
        }
        Ok(())
    }

    /// A call to an imported function: the Intel OpenCL builtins.
    pub(crate) fn builtin_call(
        &mut self,
        sg: &mut Sg,
        inst: &crate::program::DInst,
        mask: u64,
        callee: usize,
        name: &str,
    ) -> Result<(), SimError> {
        let p = self.p;
        let args: Vec<u32> = inst.w[1..].to_vec();
        if let Some((kind, es, bw, bh, bc)) = parse_block2d_name(name) {
            if args.len() < 5 {
                return Err(SimError::Module(format!("{name}: too few arguments")));
            }
            return self.block2d(
                sg,
                mask,
                kind,
                [es, bw, bh, bc],
                args[0],
                [args[1], args[2], args[3], args[4]],
                args.get(5).copied(),
            );
        }
        if let Some(b) = spvopt_analysis::block_payload::parse_payload_builtin(name) {
            let ret_ty = p.funcs[callee].ret_ty;
            return self.payload_builtin(sg, mask, b, name, &args, inst.res, ret_ty);
        }
        if let Some(op) = spvopt_analysis::builtin_names::parse_genisa_block(name) {
            let ret_ty = p.funcs[callee].ret_ty;
            return self.genisa_block2d(sg, mask, op, &args, inst.res, ret_ty);
        }
        if let Some((mut operands, k)) = parse_mma_name(name) {
            if args.len() != 3 {
                return Err(SimError::Module(format!("{name}: expected 3 arguments")));
            }
            let f = &p.funcs[callee];
            let cty = p.vty.get(args[2] as usize).copied().unwrap_or(0);
            let is_int16 = |t: u32| {
                p.components(t)
                    .ok()
                    .and_then(|(e, _)| p.ty(e).ok().map(|x| x.ty.clone()))
                    .is_some_and(|t| matches!(t, Ty::Int { width: 16, .. }))
            };
            let float_ab = operands
                & (mma::operands::MATRIX_A_PACKED_BFLOAT16
                    | mma::operands::MATRIX_A_PACKED_FLOAT16
                    | mma::operands::MATRIX_A_TF32)
                != 0;
            if float_ab && is_int16(cty) {
                operands |= mma::operands::MATRIX_C_BFLOAT16;
            }
            if float_ab && is_int16(f.ret_ty) {
                operands |= mma::operands::MATRIX_RESULT_BFLOAT16;
            }
            return self.mma(
                sg,
                mask,
                k,
                operands,
                [args[0], args[1], args[2]],
                f.ret_ty,
                inst.res,
            );
        }
        let _ = Kind::Int;
        Err(SimError::Unsupported(format!(
            "call to imported function `{name}`, which the simulator does not know"
        )))
    }

    /// Completes a work-group-scope OpGroup* instruction for all subgroups.
    pub(crate) fn wg_collective(
        &mut self,
        sgs: &mut [Sg],
        inst: &crate::program::DInst,
    ) -> Result<(), SimError> {
        let p = self.p;
        let w = &inst.w;
        let res = inst.res;
        // gather per invocation in linear order
        let vid = match inst.op {
            Op::GroupAll | Op::GroupAny | Op::GroupBroadcast => w[1],
            _ => w[2],
        };
        let mut vals: Vec<(usize, Vec<u8>)> = Vec::new();
        for sg in sgs.iter() {
            for lane in 0..sg.n {
                vals.push((sg.lin0 + lane, self.val(sg, vid, lane).to_vec()));
            }
        }
        let outs: Vec<Vec<u8>> = match inst.op {
            Op::GroupAll | Op::GroupAny => {
                let r = if inst.op == Op::GroupAll {
                    vals.iter()
                        .all(|(_, v)| v.first().copied().unwrap_or(0) != 0)
                } else {
                    vals.iter()
                        .any(|(_, v)| v.first().copied().unwrap_or(0) != 0)
                };
                vec![vec![r as u8]; vals.len()]
            }
            Op::GroupBroadcast => {
                // LocalId: scalar, or 2/3-component vector of the local id
                let sg0 = &sgs[0];
                let lid = self.val(sg0, w[2], 0).to_vec();
                for sg in sgs.iter() {
                    for lane in 0..sg.n {
                        if self.val(sg, w[2], lane) != lid.as_slice() {
                            return Err(uerr("OpGroupBroadcast LocalId is not uniform"));
                        }
                    }
                }
                let lty = p.vty.get(w[2] as usize).copied().unwrap_or(0);
                let (c, n) = ops::vcomp(p, lty)?;
                let mut id = [0u64; 3];
                for (i, x) in id.iter_mut().enumerate().take(n) {
                    *x = rd(&lid, c.bytes, i);
                }
                let lin = id[0] + self.local_size()[0] * (id[1] + self.local_size()[1] * id[2]);
                let v = vals
                    .iter()
                    .find(|(l, _)| *l as u64 == lin)
                    .map(|x| x.1.clone())
                    .ok_or_else(|| uerr("OpGroupBroadcast: LocalId outside the work-group"))?;
                vec![v; vals.len()]
            }
            op => {
                let red = red_of(op).ok_or_else(|| ops::not_implemented(inst))?;
                let vty = p.vty.get(vid as usize).copied().unwrap_or(0);
                let (c, n) = ops::vcomp(p, vty)?;
                group_arith(red, w[1], 0, &vals, c, n)
            }
        };
        let mut k = 0;
        for sg in sgs.iter_mut() {
            for lane in 0..sg.n {
                self.set(sg, res, lane, &outs[k]);
                k += 1;
            }
        }
        let _ = full_mask;
        Ok(())
    }
}
