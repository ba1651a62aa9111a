//! Divergence of values: what each instruction's result depends on (operands, memory, calls,
//! collectives, built-ins), component by component for vectors.

use super::*;

impl<'a> Solver<'a> {
    pub(super) fn evaluate(&mut self, i: InstId) {
        let m = self.m;
        let inst = m.inst(i);
        let op = op_of(inst);
        // Instructions without results that matter.
        match op {
            Some(Op::BranchConditional) | Some(Op::Switch) => {
                if let Some(c) = inst.operand_id(0) {
                    if self.mask(c) != 0 {
                        if let Some(b) = m.inst_block(i) {
                            self.divergent_branch(b);
                        }
                    }
                }
                return;
            }
            // A predicated store is a store whose predicate may also diverge.
            _ if inst.is(Op::Store) || inst.opcode() == OP_PREDICATED_STORE_INTEL => {
                let (Some(p), Some(v)) = (inst.operand_id(0), inst.operand_id(1)) else {
                    return;
                };
                let predicate_divergent = inst.opcode() == OP_PREDICATED_STORE_INTEL
                    && inst.operand_id(2).is_none_or(|c| self.mask(c) != 0);
                if let Root::Variable(var) = self.prov.root(p) {
                    let in_divergent = m
                        .inst_block(i)
                        .is_some_and(|b| self.divergent_control.contains(&b));
                    if self.is_private_var(var)
                        && (self.mask(p) != 0
                            || self.mask(v) != 0
                            || predicate_divergent
                            || in_divergent)
                    {
                        self.make_var_divergent(var);
                    }
                }
                return;
            }
            Some(Op::ReturnValue) => {
                let divergent = inst.operand_id(0).is_some_and(|v| self.mask(v) != 0)
                    || m.inst_block(i)
                        .is_some_and(|b| self.divergent_control.contains(&b));
                if divergent {
                    if let Some(f) = self.func_of(i) {
                        self.return_divergent(f);
                    }
                }
                return;
            }
            _ => {}
        }
        // Writes into private memory by other instructions.
        self.private_writes(i, op);
        if op == Some(Op::FunctionCall) {
            self.call_arguments(i);
        }
        if !inst.has_result() || !inst.has_result_type() {
            return;
        }
        let mut mask = self.result_mask(i, op);
        if mask == 0 {
            // Nothing to add (the result and its type are read only for a divergent result).
            return;
        }
        let (Some(r), Some(ty)) = (inst.result_id(), inst.result_type()) else {
            return;
        };
        // (One look at the result type: `types::vector_of` would look it up again.)
        let ty_inst = m.def_inst(ty);
        if ty_inst.is_some_and(|t| t.is(Op::TypeVectorIdEXT)) {
            // SPV_EXT_long_vector: components are not tracked one by one.
            mask = ALL;
        }
        if mask != 0 && mask != ALL {
            // Keep partial masks to the components the type has (`vector_of`: an
            // `OpTypeVector` with its component type and count).
            let n = ty_inst
                .filter(|t| t.is(Op::TypeVector) && t.operand_id(0).is_some())
                .and_then(|t| t.operand_word(1))
                .unwrap_or(1);
            let full = if n >= 64 { ALL } else { (1u64 << n) - 1 };
            mask &= full;
            if mask == full {
                mask = ALL;
            }
        }
        if mask != 0 {
            self.force(r, mask);
            if self.mask(r) == ALL && op != Some(Op::FunctionCall) {
                if let Some(st) = self.state.get_mut(i.index()) {
                    *st = FINAL;
                }
            }
        }
    }

    /// Variables written by instructions other than `OpStore`.
    pub(super) fn private_writes(&mut self, i: InstId, op: Option<Op>) {
        let m = self.m;
        let inst = m.inst(i);
        let target = match op {
            Some(op)
                if matches!(op, Op::CopyMemory | Op::CopyMemorySized | Op::AtomicStore)
                    || op_class(op).intersects(OpClass::ATOMIC_RMW) =>
            {
                inst.operand_id(0)
            }
            Some(
                Op::Subgroup2DBlockLoadINTEL
                | Op::Subgroup2DBlockLoadTransformINTEL
                | Op::Subgroup2DBlockLoadTransposeINTEL,
            ) => inst.operand_id(9),
            Some(Op::FunctionCall) => match block_io(m, self.callees, i) {
                Some(b) if b.kind.reads_region() => b.private,
                _ => None,
            },
            _ => None,
        };
        if let Some(p) = target {
            if let Root::Variable(var) = self.prov.root(p) {
                if self.is_private_var(var) {
                    self.make_var_divergent(var);
                }
            }
        }
    }

    pub(super) fn call_arguments(&mut self, i: InstId) {
        let m = self.m;
        let inst = m.inst(i);
        let Some(&callee) = inst.operand_id(0).and_then(|c| self.func_of_id.get(&c)) else {
            return;
        };
        let params = self.params.get(callee.index()).cloned().unwrap_or_default();
        for (k, &w) in inst.operands().iter().skip(1).enumerate() {
            let (Some(arg), Some(&p)) = (Id::new(w), params.get(k)) else {
                continue;
            };
            let am = self.mask(arg);
            if am != 0 {
                self.force(p, am);
            }
        }
    }

    pub(super) fn return_divergent(&mut self, f: FuncId) {
        if !self.returns_divergent.insert(f) {
            return;
        }
        if let Some(calls) = self.calls_to.get(&f).cloned() {
            for c in calls {
                if let Some(r) = self.m.inst(c).result_id() {
                    self.force(r, ALL);
                }
            }
        }
    }

    /// The divergence of `i`'s result from its operands.
    pub(super) fn result_mask(&self, i: InstId, op: Option<Op>) -> u64 {
        let m = self.m;
        let inst = m.inst(i);
        if inst.opcode() == OP_PREDICATED_LOAD_INTEL {
            // The loaded value where the predicate holds, the default value elsewhere.
            let predicate = inst.operand_id(1).map_or(ALL, |c| self.mask(c));
            if predicate != 0 {
                return ALL;
            }
            return self.load_mask(i) | inst.operand_id(2).map_or(ALL, |d| self.mask(d));
        }
        let Some(op) = op else {
            return self.any_operand();
        };
        let ops = inst.operands();
        // (`Inst::operand_id` on the slice already at hand.)
        let id = |k: usize| ops.get(k).copied().and_then(Id::new);
        let mk = |k: usize| id(k).map_or(ALL, |x| self.mask(x));
        let uniform_scope = |k: usize| {
            id(k).and_then(|s| m.const_int_value(s)).is_some_and(|s| {
                s == spirv::Scope::Subgroup as u64 || s == spirv::Scope::Workgroup as u64
            })
        };
        match op {
            Op::Undef | Op::Variable | Op::ConstantNull | Op::Constant => 0,
            Op::FunctionParameter => 0,
            Op::Phi => {
                let mut acc = 0;
                for pair in ops.chunks(2) {
                    acc |= Id::new(pair[0]).map_or(ALL, |x| self.mask(x));
                }
                acc
            }
            Op::Select => {
                if mk(0) != 0 {
                    ALL
                } else {
                    mk(1) | mk(2)
                }
            }
            Op::CopyObject => mk(0),
            Op::CompositeExtract => {
                let c = mk(0);
                match ops.len() {
                    2 => {
                        if c & bit(ops[1]) != 0 {
                            ALL
                        } else {
                            0
                        }
                    }
                    _ => {
                        if c != 0 {
                            ALL
                        } else {
                            0
                        }
                    }
                }
            }
            Op::CompositeInsert => {
                let (o, c) = (mk(0), mk(1));
                match ops.len() {
                    3 => {
                        let b = bit(ops[2]);
                        let kept = if ops[2] < 63 { c & !b } else { c };
                        kept | if o != 0 { b } else { 0 }
                    }
                    _ => {
                        if o != 0 {
                            c | ops.get(2).map_or(ALL, |&k| bit(k))
                        } else {
                            c
                        }
                    }
                }
            }
            Op::CompositeConstruct => {
                let mut acc = 0u64;
                let mut pos = 0u32;
                for &w in ops {
                    let Some(x) = Id::new(w) else { return ALL };
                    let xm = self.mask(x);
                    let n = m
                        .type_of(x)
                        .and_then(|t| vector_of(m, t))
                        .map_or(1, |(_, n)| n);
                    if n == 1 {
                        if xm != 0 {
                            acc |= bit(pos);
                        }
                    } else if xm != 0 {
                        for k in 0..n {
                            if xm & bit(k) != 0 {
                                acc |= bit(pos + k);
                            }
                        }
                    }
                    pos = pos.saturating_add(n);
                }
                acc
            }
            Op::VectorShuffle => {
                let (a, b) = (mk(0), mk(1));
                let na = id(0)
                    .and_then(|x| m.type_of(x))
                    .and_then(|t| vector_of(m, t))
                    .map_or(0, |(_, n)| n);
                let mut acc = 0u64;
                for (k, &sel) in ops.iter().skip(2).enumerate() {
                    let d = if sel == u32::MAX {
                        false
                    } else if sel < na {
                        a & bit(sel) != 0
                    } else {
                        b & bit(sel - na) != 0
                    };
                    if d {
                        acc |= bit(k as u32);
                    }
                }
                acc
            }
            Op::Load => self.load_mask(i),
            Op::ConvertPtrToU => {
                let p = id(0);
                let private = p.is_some_and(|p| match self.prov.root(p) {
                    Root::Variable(v) => self.is_private_var(v),
                    _ => false,
                });
                if private || mk(0) != 0 {
                    ALL
                } else {
                    0
                }
            }
            Op::FunctionCall => self.call_mask(i),
            // Collectives with a subgroup-uniform result.
            Op::GroupNonUniformBroadcast
            | Op::GroupNonUniformBroadcastFirst
            | Op::GroupNonUniformAll
            | Op::GroupNonUniformAny
            | Op::GroupNonUniformAllEqual
            | Op::GroupNonUniformBallot
            | Op::GroupBroadcast
            | Op::GroupAll
            | Op::GroupAny => {
                if uniform_scope(0) {
                    0
                } else {
                    ALL
                }
            }
            Op::SubgroupFirstInvocationKHR
            | Op::SubgroupAllKHR
            | Op::SubgroupAnyKHR
            | Op::SubgroupAllEqualKHR
            | Op::SubgroupBallotKHR
            | Op::SubgroupReadInvocationKHR => 0,
            Op::GroupNonUniformIAdd
            | Op::GroupNonUniformFAdd
            | Op::GroupNonUniformIMul
            | Op::GroupNonUniformFMul
            | Op::GroupNonUniformSMin
            | Op::GroupNonUniformUMin
            | Op::GroupNonUniformFMin
            | Op::GroupNonUniformSMax
            | Op::GroupNonUniformUMax
            | Op::GroupNonUniformFMax
            | Op::GroupNonUniformBitwiseAnd
            | Op::GroupNonUniformBitwiseOr
            | Op::GroupNonUniformBitwiseXor
            | Op::GroupNonUniformLogicalAnd
            | Op::GroupNonUniformLogicalOr
            | Op::GroupNonUniformLogicalXor
            | Op::GroupNonUniformBallotBitCount
            | Op::GroupIAdd
            | Op::GroupFAdd
            | Op::GroupFMin
            | Op::GroupUMin
            | Op::GroupSMin
            | Op::GroupFMax
            | Op::GroupUMax
            | Op::GroupSMax => {
                let reduce = ops.get(1) == Some(&(spirv::GroupOperation::Reduce as u32));
                if reduce && uniform_scope(0) {
                    0
                } else {
                    ALL
                }
            }
            op if op == Op::AtomicLoad || op_class(op).intersects(OpClass::ATOMIC_RMW) => ALL,
            Op::GroupNonUniformElect
            | Op::GroupNonUniformShuffle
            | Op::GroupNonUniformShuffleXor
            | Op::GroupNonUniformShuffleUp
            | Op::GroupNonUniformShuffleDown
            | Op::GroupNonUniformQuadBroadcast
            | Op::GroupNonUniformQuadSwap
            | Op::SubgroupShuffleINTEL
            | Op::SubgroupShuffleDownINTEL
            | Op::SubgroupShuffleUpINTEL
            | Op::SubgroupShuffleXorINTEL
            | Op::SubgroupBlockReadINTEL
            | Op::SubgroupImageBlockReadINTEL
            | Op::SubgroupMatrixMultiplyAccumulateINTEL
            | Op::ReadClockKHR => ALL,
            _ if componentwise(op) => {
                let mut acc = 0u64;
                for &x in self.value_operands() {
                    acc |= self.mask(x);
                }
                if acc == 0 || acc == ALL {
                    // (All components divergent: so is the result, whatever the types.)
                    return acc;
                }
                let Some(ty) = inst.result_type() else {
                    return ALL;
                };
                let Some((_, n)) = vector_of(m, ty) else {
                    return ALL;
                };
                // Component k of the result depends on component k of each operand only when
                // every operand is a vector of the same size.
                let all_vectors = self.value_operands().iter().all(|&x| {
                    m.type_of(x)
                        .and_then(|t| vector_of(m, t))
                        .is_some_and(|(_, xn)| xn == n)
                });
                if all_vectors {
                    acc
                } else {
                    ALL
                }
            }
            _ => self.any_operand(),
        }
    }

    /// The value operands of the instruction being evaluated (decoded once per evaluation).
    pub(super) fn value_operands(&self) -> &[Id] {
        let (a, b) = self.ops_range;
        if a == u32::MAX {
            &self.scratch
        } else {
            &self.op_ids[a as usize..b as usize]
        }
    }

    pub(super) fn any_operand(&self) -> u64 {
        if self.value_operands().iter().any(|&x| self.mask(x) != 0) {
            ALL
        } else {
            0
        }
    }

    pub(super) fn load_mask(&self, i: InstId) -> u64 {
        let m = self.m;
        let Some(p) = m.inst(i).operand_id(0) else {
            return ALL;
        };
        if self.mask(p) != 0 {
            return ALL;
        }
        let Some(info) = self.prov.info(p) else {
            return ALL;
        };
        match info.root {
            Root::Variable(v) => {
                if let Some(bm) = self.builtin_mask(v, i) {
                    // Whole variable, or one component selected by a constant offset.
                    let var_ty = m.type_of(v).and_then(|t| pointer_of(m, t)).map(|(_, t)| t);
                    let ptr_pointee = m.type_of(p).and_then(|t| pointer_of(m, t)).map(|(_, t)| t);
                    if var_ty.is_some() && var_ty == ptr_pointee {
                        return bm;
                    }
                    let comp_size = var_ty
                        .and_then(|t| vector_of(m, t))
                        .and_then(|(e, _)| size_of(m, &Decorations::default(), e));
                    if let (Some(off), Some(cs)) = (
                        info.offset.as_ref().and_then(|o| o.as_constant()),
                        comp_size.filter(|&c| c > 0),
                    ) {
                        let k = (off as u64 / cs) as u32;
                        return if bm & bit(k) != 0 { ALL } else { 0 };
                    }
                    return if bm != 0 { ALL } else { 0 };
                }
                let sc = self.prov.variable_storage(v);
                if self.is_private_var(v) {
                    if self.divergent_vars.contains(&v) || self.prov.is_escaped(v) {
                        ALL
                    } else {
                        0
                    }
                } else if sc == Some(StorageClass::Input as u32) {
                    ALL
                } else {
                    0
                }
            }
            Root::Null => 0,
            Root::Param { .. } | Root::Unknown => {
                let sc = info.storage;
                let may_be_private = sc == Some(StorageClass::Function as u32)
                    || sc == Some(StorageClass::Private as u32)
                    || sc == Some(StorageClass::Generic as u32)
                    || sc == Some(StorageClass::Input as u32)
                    || sc.is_none();
                if may_be_private {
                    ALL
                } else {
                    0
                }
            }
        }
    }

    pub(super) fn call_mask(&self, i: InstId) -> u64 {
        let m = self.m;
        let inst = m.inst(i);
        let Some(callee) = inst.operand_id(0) else {
            return ALL;
        };
        if let Some(&f) = self.func_of_id.get(&callee) {
            if !m.function(f).blocks.is_empty() {
                return if self.returns_divergent.contains(&f) {
                    ALL
                } else {
                    0
                };
            }
        }
        let args_divergent = inst
            .operands()
            .iter()
            .skip(1)
            .any(|&w| Id::new(w).is_none_or(|x| self.mask(x) != 0));
        match self.callees.get(callee).map(|c| &c.kind) {
            Some(CalleeKind::UniformQuery) => {
                if args_divergent {
                    ALL
                } else {
                    0
                }
            }
            Some(CalleeKind::UniformCollective) => 0,
            // 2D block builtins return nothing (their data goes through memory).
            Some(CalleeKind::BlockIo { .. }) => 0,
            _ => ALL,
        }
    }
}

/// Component k of the result depends only on component k of each operand.
pub(super) fn componentwise(op: Op) -> bool {
    op_class(op).intersects(OpClass::COMPONENTWISE)
}
