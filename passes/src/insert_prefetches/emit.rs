//! Emission of the planned prefetches: address computations materialized in preheaders,
//! offset coordinates, cache-control decorations, prologue and in-loop prefetches.

use super::*;

/// Emits `e` (no counters) as a value of integer type `ty` (`width` bits) before `at`, with
/// values renamed through `rename`.
pub(super) fn materialize(
    m: &mut Module,
    types: &mut Interner,
    e: &AffineExpr,
    ty: Id,
    width: u32,
    at: InstId,
    rename: &dyn Fn(Id) -> Id,
) -> Option<Id> {
    let mask = if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    };
    let mut acc: Option<Id> = None;
    for t in e.terms() {
        let v = rename(t.monomial.value()?);
        let vw = int_width(m, m.type_of(v)?)?;
        let v = if vw != width {
            let c = m.fresh_id();
            m.insert_before(at, Inst::new(Op::UConvert, Some(ty), Some(c), &[v.word()]));
            c
        } else {
            v
        };
        let term = if t.coeff == 1 {
            v
        } else {
            let k = types.int_const(m, ty, t.coeff as u64 & mask);
            let r = m.fresh_id();
            m.insert_before(
                at,
                Inst::new(Op::IMul, Some(ty), Some(r), &[v.word(), k.word()]),
            );
            r
        };
        acc = Some(match acc {
            None => term,
            Some(a) => {
                let r = m.fresh_id();
                m.insert_before(
                    at,
                    Inst::new(Op::IAdd, Some(ty), Some(r), &[a.word(), term.word()]),
                );
                r
            }
        });
    }
    if e.constant != 0 || acc.is_none() {
        let k = types.int_const(m, ty, e.constant as u64 & mask);
        acc = Some(match acc {
            None => k,
            Some(a) => {
                let r = m.fresh_id();
                m.insert_before(
                    at,
                    Inst::new(Op::IAdd, Some(ty), Some(r), &[a.word(), k.word()]),
                );
                r
            }
        });
    }
    acc
}

/// Emits `coord + offsets[c]` per component (components whose offset is 0 are kept).
#[allow(clippy::too_many_arguments)]
pub(super) fn offset_coordinate(
    m: &mut Module,
    types: &mut Interner,
    coord: Id,
    offsets: &[AffineExpr],
    at: InstId,
    rename: &dyn Fn(Id) -> Id,
) -> Option<Id> {
    let vty = m.type_of(coord)?;
    let (cty, _) = vector_of(m, vty)?;
    let width = int_width(m, cty)?;
    let mut cur = coord;
    for (k, off) in offsets.iter().enumerate() {
        if off.as_constant() == Some(0) {
            continue;
        }
        let x = m.fresh_id();
        m.insert_before(
            at,
            Inst::new(
                Op::CompositeExtract,
                Some(cty),
                Some(x),
                &[cur.word(), k as u32],
            ),
        );
        let o = materialize(m, types, off, cty, width, at, rename)?;
        let x2 = m.fresh_id();
        m.insert_before(
            at,
            Inst::new(Op::IAdd, Some(cty), Some(x2), &[x.word(), o.word()]),
        );
        let c2 = m.fresh_id();
        m.insert_before(
            at,
            Inst::new(
                Op::CompositeInsert,
                Some(vty),
                Some(c2),
                &[x2.word(), cur.word(), k as u32],
            ),
        );
        cur = c2;
    }
    Some(cur)
}

/// Emission state.
pub(super) struct Emitter {
    pub(super) types: Interner,
    pub(super) cache: Option<(u32, u32)>,
    /// Per loop: ids available in its preheader for in-loop ones.
    pub(super) hoisted: HashMap<LoopId, HashMap<Id, Id>>,
    pub(super) inserted: u64,
    pub(super) prologue: u64,
    pub(super) buffer: u64,
    pub(super) decorated: bool,
    /// The `SubgroupId` variable and its pointee type, once needed; whether it was created.
    pub(super) subgroup_id: Option<(Id, Id, bool)>,
    /// Prefetches emitted with a cooperative split, and the loads split.
    pub(super) cooperative: u64,
    pub(super) cooperative_loads: u64,
}

impl Emitter {
    /// A fresh pointer equal to `p` (decorated with the cache controls), or `p` itself when no
    /// decoration is asked for.
    pub(super) fn prefetch_pointer(
        &mut self,
        m: &mut Module,
        p: Id,
        index: Option<Id>,
        at: InstId,
    ) -> Option<Id> {
        if self.cache.is_none() && index.is_none() {
            return Some(p);
        }
        let ty = m.type_of(p)?;
        let idx = match index {
            Some(i) => i,
            None => self.types.u32_const(m, 0),
        };
        let r = m.fresh_id();
        m.insert_before(
            at,
            Inst::new(
                Op::PtrAccessChain,
                Some(ty),
                Some(r),
                &[p.word(), idx.word()],
            ),
        );
        if let Some((l1, l3)) = self.cache {
            // L3 Cached is the hardware default for prefetches (IGC), so it is left implicit:
            // spirv-val (2025) rejects a second CacheControlLoadINTEL on one id although
            // SPV_INTEL_cache_controls allows one per cache level (llvm-project PR 165229).
            let mut levels = vec![(0, l1)];
            if l3 != 1 {
                levels.push((1, l3));
            }
            for (level, control) in levels {
                m.push_to_section(
                    Section::Annotation,
                    Inst::new(
                        Op::Decorate,
                        None,
                        None,
                        &[r.word(), CACHE_CONTROL_LOAD, level, control],
                    ),
                );
            }
            self.decorated = true;
        }
        Some(r)
    }

    pub(super) fn hoist(&mut self, m: &mut Module, l: LoopId, at: InstId, insts: &[InstId]) {
        let map = self.hoisted.entry(l).or_default();
        for &def in insts {
            let inst = m.inst(def).to_owned();
            let Some(orig) = inst.result_id() else {
                continue;
            };
            if map.contains_key(&orig) {
                continue;
            }
            if inst.is(Op::Phi) {
                // Planned with its incoming value from the preheader (words: value, label).
                let label = m.inst_block(at).map(|b| m.block_label(b));
                let v = inst
                    .operands()
                    .chunks(2)
                    .find(|p| p.len() == 2 && Some(p[1]) == label.map(|l| l.word()))
                    .and_then(|p| Id::new(p[0]));
                if let Some(v) = v {
                    let v = map.get(&v).copied().unwrap_or(v);
                    map.insert(orig, v);
                }
                continue;
            }
            let mut clone = inst;
            let new = m.fresh_id();
            clone.set_result_id(new);
            let ni = m.insert_before(at, clone);
            m.map_used_ids(ni, |u| map.get(&u).copied().unwrap_or(u));
            map.insert(orig, new);
        }
    }

    pub(super) fn emit(
        &mut self,
        m: &mut Module,
        plan: &Plan,
        distance: u32,
        pre_at: Option<InstId>,
    ) {
        let d = i64::from(distance);
        // In the loop, before the load: iteration i + d.
        match &plan.what {
            PlanKind::Block2d {
                ops,
                steps,
                pieces,
                split,
            } => {
                if split.is_some() {
                    self.cooperative_loads += 1;
                }
                self.emit_2d(m, ops, steps, pieces, *split, d, plan.load, &|v| v);
            }
            PlanKind::Buffer1d {
                ptr,
                step,
                num_bytes,
            } => {
                if self.emit_1d(m, *ptr, step, *num_bytes, d, plan.load, &|v| v) {
                    self.buffer += 1;
                }
            }
        }
        // The prologue: iterations 0..d in the preheader.
        let (Some(clones), Some(at)) = (&plan.prologue, pre_at) else {
            return;
        };
        self.hoist(m, plan.l, at, clones);
        let map = self.hoisted.get(&plan.l).cloned().unwrap_or_default();
        let rename = move |v: Id| map.get(&v).copied().unwrap_or(v);
        for k in 0..d {
            let before = self.inserted;
            match &plan.what {
                PlanKind::Block2d {
                    ops,
                    steps,
                    pieces,
                    split,
                } => {
                    let hoisted = BlockOperands {
                        base: rename(ops.base),
                        memory_width: rename(ops.memory_width),
                        memory_height: rename(ops.memory_height),
                        memory_pitch: rename(ops.memory_pitch),
                        coordinate: rename(ops.coordinate),
                        ..*ops
                    };
                    self.emit_2d(m, &hoisted, steps, pieces, *split, k, at, &rename);
                }
                PlanKind::Buffer1d {
                    ptr,
                    step,
                    num_bytes,
                } => {
                    if self.emit_1d(m, rename(*ptr), step, *num_bytes, k, at, &rename) {
                        self.buffer += 1;
                    }
                }
            }
            self.prologue += self.inserted - before;
        }
    }

    /// Prefetches of the rectangle `ops` reads, `k` steps ahead, before `at`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn emit_2d(
        &mut self,
        m: &mut Module,
        ops: &BlockOperands,
        steps: &[AffineExpr],
        pieces: &[Piece],
        split: Option<Split>,
        k: i64,
        at: InstId,
        rename: &dyn Fn(Id) -> Id,
    ) {
        let Some(base) = self.prefetch_pointer(m, ops.base, None, at) else {
            return;
        };
        // Cooperative: row offset (SubgroupId mod parts)·rows.
        let part_offset = split.map(|sp| {
            let (var, ty) = self.subgroup_id_var(m);
            let sid = m.fresh_id();
            m.insert_before(at, Inst::new(Op::Load, Some(ty), Some(sid), &[var.word()]));
            let part: Id = if sp.wrap {
                let mask = self.types.int_const(m, ty, u64::from(sp.parts - 1));
                let r = m.fresh_id();
                m.insert_before(
                    at,
                    Inst::new(
                        Op::BitwiseAnd,
                        Some(ty),
                        Some(r),
                        &[sid.word(), mask.word()],
                    ),
                );
                r
            } else {
                sid
            };
            if sp.cols == 1 {
                return (
                    AffineExpr::constant(0),
                    AffineExpr::value(part).scale(i64::from(sp.rows)),
                );
            }
            let cmask = self.types.int_const(m, ty, u64::from(sp.cols - 1));
            let col = m.fresh_id();
            m.insert_before(
                at,
                Inst::new(
                    Op::BitwiseAnd,
                    Some(ty),
                    Some(col),
                    &[part.word(), cmask.word()],
                ),
            );
            let shift = self
                .types
                .int_const(m, ty, u64::from(sp.cols.trailing_zeros()));
            let band = m.fresh_id();
            m.insert_before(
                at,
                Inst::new(
                    Op::ShiftRightLogical,
                    Some(ty),
                    Some(band),
                    &[part.word(), shift.word()],
                ),
            );
            (
                AffineExpr::value(col).scale(i64::from(sp.col_width)),
                AffineExpr::value(band).scale(i64::from(sp.rows)),
            )
        });
        let ty = m.type_of(ops.width);
        for p in pieces {
            let mut offsets: Vec<AffineExpr> = steps.iter().map(|s| s.scale(k)).collect();
            for (c, extra) in [(0, p.dx), (1, p.dy)] {
                if extra != 0 {
                    if let Some(o) = offsets[c].add(&AffineExpr::constant(i64::from(extra))) {
                        offsets[c] = o;
                    }
                }
            }
            if let Some((px, py)) = &part_offset {
                match (offsets[0].add(px), offsets[1].add(py)) {
                    (Some(x), Some(y)) => {
                        offsets[0] = x;
                        offsets[1] = y;
                    }
                    _ => continue,
                }
            }
            let Some(coord) =
                offset_coordinate(m, &mut self.types, ops.coordinate, &offsets, at, rename)
            else {
                continue;
            };
            let konst = |m: &mut Module, types: &mut Interner, v: u32| match ty {
                Some(t) => types.int_const(m, t, u64::from(v)),
                None => types.u32_const(m, v),
            };
            let pf = BlockOperands {
                kind: BlockKind::Prefetch,
                width: konst(m, &mut self.types, p.width),
                height: konst(m, &mut self.types, p.height),
                count: konst(m, &mut self.types, p.count),
                base,
                coordinate: coord,
                private: None,
                ..*ops
            };
            m.insert_before(at, pf.to_inst());
            self.inserted += 1;
            if split.is_some() {
                self.cooperative += 1;
            }
        }
    }

    /// The `SubgroupId` built-in variable and its integer type (created when missing).
    pub(super) fn subgroup_id_var(&mut self, m: &mut Module) -> (Id, Id) {
        if let Some((v, t, _)) = self.subgroup_id {
            return (v, t);
        }
        let dec = Decorations::build(m);
        let vars: Vec<(Id, Id)> = m
            .section_insts(Section::Global)
            .filter(|(_, i)| {
                i.is(Op::Variable) && i.operand_word(0) == Some(StorageClass::Input as u32)
            })
            .filter_map(|(_, i)| Some((i.result_id()?, i.result_type()?)))
            .collect();
        let ids: HashSet<Id> = vars.iter().map(|v| v.0).collect();
        let names = debug_names(m, &|id| ids.contains(&id));
        let found = vars.into_iter().find_map(|(v, pty)| {
            if builtin_of_variable(&dec, &names, v) != Some(BuiltIn::SubgroupId) {
                return None;
            }
            let pointee = pointer_of(m, pty)?.1;
            int_width(m, pointee)?;
            Some((v, pointee))
        });
        let (v, t, created) = match found {
            Some((v, t)) => (v, t, false),
            None => {
                let t = self.types.int(m, 32);
                let v = crate::edit::variables::builtin_input_variable(
                    m,
                    &mut self.types,
                    BuiltIn::SubgroupId,
                    |_, _| t,
                    None,
                );
                (v, t, true)
            }
        };
        self.subgroup_id = Some((v, t, created));
        (v, t)
    }

    /// Lists the `SubgroupId` variable in every entry point's interface that lacks it.
    pub(super) fn finish_subgroup_id(&mut self, m: &mut Module) {
        let Some((v, _, _)) = self.subgroup_id else {
            return;
        };
        let eps: Vec<InstId> = m
            .section_insts(Section::EntryPoint)
            .filter(|(_, i)| i.is(Op::EntryPoint))
            .map(|(i, _)| i)
            .collect();
        for i in eps {
            let inst = m.inst(i);
            let ops = inst.operands();
            // Execution model, function, name (literal string), interface ids.
            let name_words = ops
                .get(2..)
                .and_then(|w| w.iter().position(|x| x.to_le_bytes().contains(&0)))
                .map(|p| p + 1);
            let Some(nw) = name_words else { continue };
            if ops[2 + nw..].contains(&v.word()) {
                continue;
            }
            let mut words = ops.to_vec();
            words.push(v.word());
            m.replace_inst(i, Inst::new(Op::EntryPoint, None, None, &words));
        }
    }

    /// `OpSubgroupBlockPrefetchINTEL` of `ptr + k·step` elements before `at`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn emit_1d(
        &mut self,
        m: &mut Module,
        ptr: Id,
        step: &AffineExpr,
        num_bytes: u32,
        k: i64,
        at: InstId,
        rename: &dyn Fn(Id) -> Id,
    ) -> bool {
        let off = step.scale(k);
        let width = off
            .terms()
            .iter()
            .filter_map(|t| t.monomial.value())
            .filter_map(|v| m.type_of(rename(v)).and_then(|t| int_width(m, t)))
            .max()
            .unwrap_or(32)
            .max(32);
        let ity = self.types.int(m, width);
        let index = if off.as_constant() == Some(0) {
            None
        } else {
            match materialize(m, &mut self.types, &off, ity, width, at, rename) {
                Some(i) => Some(i),
                None => return false,
            }
        };
        let Some(p) = self.prefetch_pointer(m, ptr, index, at) else {
            return false;
        };
        let nb = self.types.u32_const(m, num_bytes);
        m.insert_before(
            at,
            Inst::new(
                Op::SubgroupBlockPrefetchINTEL,
                None,
                None,
                &[p.word(), nb.word()],
            ),
        );
        self.inserted += 1;
        true
    }
}
