//! Planning on the unmodified module: per loop-carried load, whether and how to prefetch it
//! (2D and 1D), what to clone into the preheader, and the note that explains the decision.

use super::*;

/// Analyses the planning reads.
pub(super) struct Ctx<'a> {
    pub(super) target: &'a Target,
    pub(super) cfg: &'a Cfg,
    pub(super) dom: &'a Dominators,
    pub(super) loops: &'a Loops,
    pub(super) ind: &'a Induction,
    /// Uniformity, computed on first need (a loop whose loads are all already prefetched,
    /// Triton's output, never needs it).
    pub(super) uni: &'a OnDemandUniformity<'a>,
    /// Footprints and provenance (no uniformity needed).
    pub(super) geo: &'a BlockGeometry,
    /// Present with `prefetch-cooperative`.
    pub(super) coop: Option<&'a CoopInfo>,
}

/// The uniformity analysis, taken from the cache the first time a decision needs it
/// ([`Analyses::get`] on the module being planned, which planning does not edit).
pub(super) struct OnDemandUniformity<'a> {
    pub(super) m: &'a Module,
    pub(super) analyses: RefCell<&'a mut Analyses>,
    pub(super) uni: OnceCell<Rc<Uniformity>>,
}

impl OnDemandUniformity<'_> {
    pub(super) fn get(&self) -> &Uniformity {
        self.uni
            .get_or_init(|| self.analyses.borrow_mut().get::<Uniformity>(self.m))
    }
}

/// Where a loop's prologue goes and what has been planned to be cloned there.
pub(super) struct Preheader {
    pub(super) block: BlockId,
    /// Prologue instructions go before this one (the terminator or its merge instruction).
    pub(super) at: InstId,
    /// Ids planned to be available in the preheader (clones and phi substitutions).
    pub(super) planned: HashSet<Id>,
}

/// What [`Ctx::hoist_step`] found for one id.
enum Hoist {
    /// Available in the preheader without cloning it (`true`), or never (`false`).
    Done(bool),
    /// Available once its definition is cloned, after these ids are available.
    After(InstId, Vec<Id>),
}

/// A load of a loop and how to prefetch it.
pub(super) struct Plan {
    pub(super) load: InstId,
    pub(super) l: LoopId,
    pub(super) what: PlanKind,
    /// Instructions to clone into the preheader (in order) for the prologue; `None`: no
    /// prologue.
    pub(super) prologue: Option<Vec<InstId>>,
}

pub(super) enum PlanKind {
    Block2d {
        ops: BlockOperands,
        /// Per coordinate component, the step in elements per iteration.
        steps: Vec<AffineExpr>,
        pieces: Vec<Piece>,
        /// Cooperative split: the pieces cover `rows` rows, at row offset
        /// `(SubgroupId mod parts)·rows`.
        split: Option<Split>,
    },
    Buffer1d {
        ptr: Id,
        /// Step in pointee elements per iteration.
        step: AffineExpr,
        num_bytes: u32,
    },
}

impl<'a> Ctx<'a> {
    /// Whether `v` is available right before `at` (its definition dominates it).
    pub(super) fn available_at(&self, m: &Module, v: Id, at: InstId) -> bool {
        let Some(def) = m.def(v) else { return false };
        let Some(db) = m.inst_block(def) else {
            return true; // module level
        };
        let Some(ab) = m.inst_block(at) else {
            return false;
        };
        if db != ab {
            return self.dom.strictly_dominates(db, ab);
        }
        for i in m.block_insts(ab) {
            if i == def {
                return true;
            }
            if i == at {
                return false;
            }
        }
        false
    }

    /// The values an expression mentions, if it mentions no loop counter and only integers.
    pub(super) fn expr_values(&self, m: &Module, e: &AffineExpr) -> Option<Vec<Id>> {
        let mut v = Vec::new();
        for t in e.terms() {
            if t.monomial.counter().is_some() {
                return None;
            }
            let id = t.monomial.value()?;
            int_width(m, m.type_of(id)?)?;
            v.push(id);
        }
        Some(v)
    }

    /// The step values are uniform and available at `load`; `Err(reason)` otherwise.
    pub(super) fn check_step(
        &self,
        m: &Module,
        e: &AffineExpr,
        load: InstId,
    ) -> Result<(), &'static str> {
        let vals = self.expr_values(m, e).ok_or("skipped_not_affine")?;
        if vals.iter().any(|&v| !self.uni.get().is_uniform(v)) {
            return Err("skipped_not_uniform");
        }
        if vals.iter().any(|&v| !self.available_at(m, v, load)) {
            return Err("skipped_not_affine");
        }
        Ok(())
    }

    /// Whether `load` runs in the first iteration whenever loop `l` is entered: its block
    /// dominates every latch and every block that leaves the loop (or ends the function). A
    /// prologue prefetch has the load's preconditions (a legal surface); with the surface
    /// invariant in the loop, the load running on every entry guarantees them. A load behind
    /// a guard in the loop (a run-time legality check, say) gets no prologue.
    pub(super) fn runs_every_entry(&self, m: &Module, l: LoopId, load: InstId) -> bool {
        let Some(lb) = m.inst_block(load) else {
            return false;
        };
        self.loops.blocks(l).iter().all(|&b| {
            let leaves = self
                .cfg
                .succs(b)
                .iter()
                .any(|&s| !self.loops.contains(l, s))
                || self.cfg.succs(b).is_empty()
                || self.loops.get(l).is_some_and(|d| d.latches.contains(&b));
            !leaves || self.dom.dominates(lb, b)
        })
    }

    /// The preheader of `l` (see [`Ctx::preheader`]), found on first need: `pre` is `None`
    /// until then.
    pub(super) fn preheader_mut<'p>(
        &self,
        m: &Module,
        l: LoopId,
        pre: &'p mut Option<Option<Preheader>>,
    ) -> Option<&'p mut Preheader> {
        pre.get_or_insert_with(|| self.preheader(m, l)).as_mut()
    }

    /// The preheader of `l` where a prologue may go.
    pub(super) fn preheader(&self, m: &Module, l: LoopId) -> Option<Preheader> {
        let block = self.loops.preheader(l, self.cfg)?;
        if self.uni.get().is_divergent_control(block) {
            return None;
        }
        let term = m.block_terminator(block)?;
        let at = match m.prev_inst(term) {
            Some(p) if m.inst(p).is(Op::LoopMerge) || m.inst(p).is(Op::SelectionMerge) => p,
            _ => term,
        };
        Some(Preheader {
            block,
            at,
            planned: HashSet::new(),
        })
    }

    /// Plans making `id` available at the end of the preheader of `l`: appends the
    /// instructions to clone (header phis stand for their incoming value from the preheader),
    /// operands before their users. A depth-first walk over the operands inside the loop, with
    /// an explicit stack, since a chain of in-loop values is as long as the input makes it; the
    /// budget counts the instructions on that stack too, so a chain longer than the budget is
    /// given up after [`HOIST_BUDGET`] steps rather than walked to its end and cloned whole.
    /// An operand that leads back to an instruction still being planned (a cycle: invalid SSA,
    /// but it loads) makes `id` not hoistable.
    pub(super) fn hoist(
        &self,
        m: &Module,
        l: LoopId,
        pre: &Preheader,
        id: Id,
        out: &mut Vec<InstId>,
        seen: &mut HashSet<Id>,
    ) -> bool {
        // (id, its definition, the operands to make available first, how many are done).
        let mut frames: Vec<(Id, InstId, Vec<Id>, usize)> = Vec::new();
        let mut in_progress: HashSet<Id> = HashSet::new();
        let mut next = id;
        loop {
            match self.hoist_step(m, l, pre, next, out.len() + frames.len(), seen) {
                Hoist::Done(false) => return false,
                Hoist::Done(true) => {}
                Hoist::After(def, operands) => {
                    in_progress.insert(next);
                    frames.push((next, def, operands, 0));
                }
            }
            // The next operand of the innermost unfinished instruction; instructions whose
            // operands are all available are finished (cloned after them).
            loop {
                let Some((v, def, operands, done)) = frames.last_mut() else {
                    return true;
                };
                if let Some(&u) = operands.get(*done) {
                    *done += 1;
                    if in_progress.contains(&u) {
                        return false;
                    }
                    next = u;
                    break;
                }
                let (v, def) = (*v, *def);
                frames.pop();
                in_progress.remove(&v);
                seen.insert(v);
                out.push(def);
            }
        }
    }

    /// One step of [`Ctx::hoist`] for `id`: whether it is available (or never can be) without
    /// cloning, or the instruction to clone after the ids it needs.
    fn hoist_step(
        &self,
        m: &Module,
        l: LoopId,
        pre: &Preheader,
        id: Id,
        planned: usize,
        seen: &HashSet<Id>,
    ) -> Hoist {
        if pre.planned.contains(&id) || seen.contains(&id) {
            return Hoist::Done(true);
        }
        let Some(def) = m.def(id) else {
            return Hoist::Done(false);
        };
        let Some(b) = m.inst_block(def) else {
            return Hoist::Done(true);
        };
        if !self.loops.contains(l, b) {
            return Hoist::Done(self.dom.dominates(b, pre.block));
        }
        // `planned` counts the instructions already to clone and those on the walk's stack
        // (each will be cloned if the walk succeeds): a chain longer than the budget stops
        // here instead of being walked to its end and cloned whole.
        if planned >= HOIST_BUDGET {
            return Hoist::Done(false);
        }
        let inst = m.inst(def);
        let header = self.loops.header(l);
        if Some(b) == header && inst.is(Op::Phi) {
            let label = m.block_label(pre.block);
            let ops = inst.operands();
            return match ops
                .chunks(2)
                .find(|p| p.len() == 2 && p[1] == label.word())
                .and_then(|p| Id::new(p[0]))
            {
                Some(v) => Hoist::After(def, vec![v]),
                None => Hoist::Done(false),
            };
        }
        if !cloneable(m, inst) {
            return Hoist::Done(false);
        }
        let mut operands = Vec::new();
        spvopt_analysis::operands::for_each_value_operand(m, def, |u| operands.push(u));
        Hoist::After(def, operands)
    }

    /// Plans the prologue of a load: every id in `ids` and every value of `exprs` available in
    /// the preheader.
    pub(super) fn plan_prologue(
        &self,
        m: &Module,
        l: LoopId,
        pre: &mut Preheader,
        ids: &[Id],
        exprs: &[&AffineExpr],
    ) -> Option<Vec<InstId>> {
        let mut out = Vec::new();
        let mut seen = HashSet::new();
        let mut all: Vec<Id> = ids.to_vec();
        for e in exprs {
            all.extend(self.expr_values(m, e)?);
        }
        for id in all {
            if !self.hoist(m, l, pre, id, &mut out, &mut seen) {
                return None;
            }
        }
        pre.planned.extend(seen);
        Some(out)
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn plan_2d(
        &self,
        m: &Module,
        l: LoopId,
        i: InstId,
        existing: &Existing,
        pre: &mut Option<Option<Preheader>>,
        done: &mut Vec<BlockOperands>,
        not_applied: &mut Option<&'static str>,
    ) -> Result<Plan, &'static str> {
        if !self.target.has_2d_block_io() {
            return Err("skipped_target_without_prefetch");
        }
        let ops = BlockOperands::read(m.inst(i)).ok_or("skipped_malformed")?;
        let shape = ops.shape(m).ok_or("skipped_unsupported_shape")?;
        let operands = [
            ops.element_size,
            ops.width,
            ops.height,
            ops.count,
            ops.base,
            ops.memory_width,
            ops.memory_height,
            ops.memory_pitch,
            ops.coordinate,
        ];
        if operands[..8]
            .iter()
            .any(|&v| !self.ind.is_invariant_in(v, l))
        {
            return Err("skipped_loop_variant_operand");
        }
        let comps = self
            .ind
            .vector_affine_in_loop(ops.coordinate, l)
            .filter(|c| c.len() == 2)
            .ok_or("skipped_not_affine")?;
        if comps.iter().all(|c| c.step.as_constant() == Some(0)) {
            return Err("skipped_invariant_coordinate");
        }
        // Covered by an existing prefetch of the loop, or by one planned for an identical load.
        // (Checked before uniformity: every check only rejects, so their order changes only
        // which reason a load rejected for several is counted under, and a loop whose loads
        // are all prefetched already never computes uniformity.)
        let key = BlockOperands {
            private: None,
            kind: BlockKind::Prefetch,
            ..ops
        };
        if done.contains(&key) {
            return Err("skipped_already_prefetched");
        }
        if let Some(fp) = self.geo.block_footprint(m, i) {
            match self.covered_2d(m, &fp, &ops, l, existing) {
                Coverage::Region(_) => return Err("skipped_already_prefetched"),
                Coverage::Object(_) => return Err("skipped_already_prefetched_object"),
                Coverage::None(_) => {}
            }
        }
        // No uniformity check of the load's operands: they are uniform wherever the load runs
        // (SPV_INTEL_2d_block_io; see the top comment); the step is checked below.
        for c in &comps {
            self.check_step(m, &c.step, i)?;
        }
        let pieces = pieces(
            self.target,
            shape.element_size,
            shape.width,
            shape.count,
            shape.height,
        )
        .ok_or("skipped_unsupported_shape")?;
        let prologue = self
            .preheader_mut(m, l, pre)
            .filter(|_| self.runs_every_entry(m, l, i))
            .and_then(|p| {
                let steps: Vec<&AffineExpr> = comps.iter().map(|c| &c.step).collect();
                self.plan_prologue(
                    m,
                    l,
                    p,
                    &[
                        ops.coordinate,
                        ops.base,
                        ops.memory_width,
                        ops.memory_height,
                        ops.memory_pitch,
                    ],
                    &steps,
                )
            });
        let (split, pieces) = match self.coop {
            None => (None, pieces),
            Some(c) => match self.split_2d(
                m,
                c,
                i,
                &ops,
                shape.element_size,
                shape.width,
                shape.count,
                shape.height,
            ) {
                Ok((split, p)) => (Some(split), p),
                Err(reason) => {
                    *not_applied = Some(reason);
                    (None, pieces)
                }
            },
        };
        done.push(key);
        Ok(Plan {
            load: i,
            l,
            what: PlanKind::Block2d {
                ops,
                steps: comps.into_iter().map(|c| c.step).collect(),
                pieces,
                split,
            },
            prologue,
        })
    }

    /// The cooperative split of load `i`'s tile and the pieces of one part; `Err(reason)` when
    /// it cannot be proved that every subgroup of the work-group loads the same tile, or the
    /// tile cannot be split.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn split_2d(
        &self,
        m: &Module,
        c: &CoopInfo,
        i: InstId,
        ops: &BlockOperands,
        elem: u32,
        width: u32,
        count: u32,
        height: u32,
    ) -> Result<(Split, Vec<Piece>), &'static str> {
        let f = m
            .inst_block(i)
            .and_then(|b| m.function_result(m.block(b).func))
            .ok_or("cooperative_not_applied_unknown_subgroup_count")?;
        let s = *c
            .subgroups
            .get(&f)
            .ok_or("cooperative_not_applied_unknown_subgroup_count")?;
        let operands = [
            ops.base,
            ops.memory_width,
            ops.memory_height,
            ops.memory_pitch,
            ops.coordinate,
        ];
        if operands.iter().any(|v| c.dependent.contains(v)) {
            return Err("cooperative_not_applied_subgroup_dependent");
        }
        if c.divergent.contains(&f) {
            return Err("cooperative_not_applied_subgroup_dependent_control");
        }
        // Row bands first (largest count that the target supports); when a band needs several
        // pieces side by side, they go to different subgroups as well if there are enough.
        let mut bands = s.min(height);
        let mut fallback = None;
        while bands >= 1 {
            if height.is_multiple_of(bands) {
                if let Some(p) = pieces(self.target, elem, width, count, height / bands) {
                    let rows = height / bands;
                    let n = p.len() as u32;
                    let one_band = p.iter().all(|q| q.dy == 0 && q.height == rows);
                    // `s` is the kernel's subgroup count, an untrusted number: no overflow.
                    let fits = bands.checked_mul(n).is_some_and(|parts| parts <= s);
                    if n >= 2 && one_band && n.is_power_of_two() && fits {
                        let piece = Piece { dx: 0, ..p[0] };
                        return Ok((
                            Split {
                                parts: bands * n,
                                rows,
                                cols: n,
                                col_width: piece.width * piece.count,
                                wrap: bands * n < s,
                            },
                            vec![piece],
                        ));
                    }
                    if bands >= 2 && fallback.is_none() {
                        fallback = Some((
                            Split {
                                parts: bands,
                                rows,
                                cols: 1,
                                col_width: 0,
                                wrap: bands < s,
                            },
                            p,
                        ));
                    }
                }
            }
            bands /= 2;
        }
        fallback.ok_or("cooperative_not_applied_unsplittable")
    }

    /// Why load `i` of loop `l` was or was not prefetched, and how the loop's existing
    /// prefetches relate to it (one line for `--stats`' notes).
    pub(super) fn note(
        &self,
        m: &Module,
        l: LoopId,
        i: InstId,
        existing: &Existing,
        r: &Result<Plan, &'static str>,
    ) -> String {
        let decision = match r {
            Ok(_) => "prefetched",
            Err(reason) => reason,
        };
        let why = if m.inst(i).is(Op::SubgroupBlockReadINTEL) {
            format!(
                "{} buffer prefetch(es) in the loop",
                existing.buffer_1d.len()
            )
        } else {
            match (
                self.geo.block_footprint(m, i),
                BlockOperands::read(m.inst(i)),
            ) {
                (Some(fp), Some(ops)) => match self.covered_2d(m, &fp, &ops, l, existing) {
                    Coverage::None(s) | Coverage::Region(s) | Coverage::Object(s) => s,
                },
                _ => "no footprint (base or coordinate unknown)".into(),
            }
        };
        format!("{}: {decision}: {why}", location(m, i))
    }

    pub(super) fn plan_1d(
        &self,
        m: &Module,
        l: LoopId,
        i: InstId,
        existing: &Existing,
        pre: &mut Option<Option<Preheader>>,
        done: &mut Vec<Id>,
    ) -> Result<Plan, &'static str> {
        if !self.target.features.buffer_prefetch || self.target.prefetch_byte_sizes().is_empty() {
            return Err("skipped_target_without_prefetch");
        }
        let inst = m.inst(i);
        let (Some(rty), Some(ptr)) = (inst.result_type(), inst.operand_id(0)) else {
            return Err("skipped_malformed");
        };
        let (comp, n) = vector_of(m, rty).unwrap_or((rty, 1));
        let bits = int_width(m, comp).ok_or("skipped_unsupported_shape")?;
        // A hostile vector of billions of components would overflow the byte count.
        let num_bytes = (bits / 8)
            .checked_mul(n)
            .ok_or("skipped_unsupported_shape")?;
        if !self.target.prefetch_byte_sizes().contains(&num_bytes) {
            return Err("skipped_unsupported_shape");
        }
        let (sc, pointee) = m
            .type_of(ptr)
            .and_then(|t| pointer_of(m, t))
            .ok_or("skipped_malformed")?;
        let elem_bits = int_width(m, pointee).ok_or("skipped_unsupported_shape")?;
        if sc != StorageClass::CrossWorkgroup as u32 || elem_bits < 8 {
            return Err("skipped_unsupported_shape");
        }
        if !self.uni.get().is_uniform(ptr) {
            return Err("skipped_not_uniform");
        }
        let info = self
            .geo
            .provenance()
            .info(ptr)
            .ok_or("skipped_not_affine")?;
        let split = info
            .offset
            .as_ref()
            .and_then(|o| self.ind.split_in_loop(o, l))
            .ok_or("skipped_not_affine")?;
        if split.step.as_constant() == Some(0) {
            return Err("skipped_invariant_coordinate");
        }
        let step = split
            .step
            .exact_div(i64::from(elem_bits / 8))
            .ok_or("skipped_not_affine")?;
        self.check_step(m, &step, i)?;
        if done.contains(&ptr) {
            return Err("skipped_already_prefetched");
        }
        if existing
            .buffer_1d
            .iter()
            .any(|(root, p, s)| same_base(info.root, ptr, *root, *p) && covers(&[&split], &[s]))
        {
            return Err("skipped_already_prefetched");
        }
        let prologue = self
            .preheader_mut(m, l, pre)
            .filter(|_| self.runs_every_entry(m, l, i))
            .and_then(|p| self.plan_prologue(m, l, p, &[ptr], &[&step]));
        done.push(ptr);
        Ok(Plan {
            load: i,
            l,
            what: PlanKind::Buffer1d {
                ptr,
                step,
                num_bytes,
            },
            prologue,
        })
    }
}

/// Instructions whose clone in a preheader computes the same value: pure arithmetic, address
/// arithmetic and composite operations (no divisions: they could trap where the original
/// never runs), and reads of built-in input variables.
pub(super) fn cloneable(m: &Module, inst: &Inst) -> bool {
    use Op::*;
    match inst.op() {
        Some(op)
            if op_class(op).intersects(
                OpClass::INTEGER_ARITHMETIC
                    | OpClass::BITWISE
                    | OpClass::INTEGER_CONVERSION
                    | OpClass::INTEGER_COMPARISON
                    | OpClass::LOGICAL
                    | OpClass::ACCESS_CHAIN,
            ) && !op_class(op).intersects(OpClass::MAY_BE_UNDEFINED) =>
        {
            true
        }
        Some(
            Bitcast | CopyObject | CompositeExtract | CompositeInsert | CompositeConstruct
            | VectorShuffle | Select | ConvertPtrToU | PtrCastToGeneric | GenericCastToPtr,
        ) => true,
        Some(Load) => {
            // Non-volatile load of a module-scope Input variable (built-ins).
            let volatile = inst.operand_word(1).is_some_and(|mask| mask & 1 != 0);
            !volatile
                && inst
                    .operand_id(0)
                    .and_then(|p| m.def_inst(p))
                    .is_some_and(|v| {
                        v.is(Variable)
                            && v.operand_word(0) == Some(StorageClass::Input as u32)
                            && v.result_id()
                                .and_then(|r| m.def(r))
                                .is_some_and(|d| m.inst_block(d).is_none())
                    })
        }
        _ => false,
    }
}
