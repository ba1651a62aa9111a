//! The run-time check the original kernel function evaluates before it calls the rewritten
//! copy: the terms of every obligation `obligation.rs` leaves to run time (the work-group
//! size, every surface's legality for 2D block IO, grouped by the uniform branch conditions
//! under which the loop that needs it runs, the lane map's remainder and widening
//! assumptions), one arm per kind in `Check::obligation`; the conjunction of the distinct
//! conditions.

use std::collections::HashMap;

use spirv::{BuiltIn, Op};
use spvopt_analysis::lane_map::{Coef, Poly};
use spvopt_analysis::types::pointer_of;
use spvopt_analysis::Dominators;
use spvopt_ir::{FuncId, Id, InstId, Interner, Module};

use super::super::emit::{self, builtin_vec3, Builder};
use super::super::obligation::{Obligation, SURFACE_LIMIT, SURFACE_SIZE_LIMIT};
use super::Planned;

/// Obligations whose run-time terms share one guard: the uniform branch conditions under which
/// the loop that needs them runs (empty: always), distinct, in order.
pub(super) struct CheckGroup {
    guard: Vec<(Id, bool)>,
    obligations: Vec<Obligation>,
}

/// The plans' run-time obligations grouped by the guard under which they are needed, each
/// distinct obligation once per group.
pub(super) fn check_groups(m: &Module, dom: &Dominators, p: &Planned) -> Vec<CheckGroup> {
    // Plans of one surface (every A operand of both K loops, say) need one check.
    // A loop's plans need their checks only when the loop can run: the uniform branch
    // conditions on the way to it guard them (tutorial 03's loop for K a multiple of 32).
    let mut groups: Vec<CheckGroup> = Vec::new();
    let loop_groups = p.loops.iter().map(|l| {
        (
            entry_guard(m, dom, p.func, l.barrier),
            l.plans.iter().map(|(_, pl, _)| pl).collect::<Vec<_>>(),
        )
    });
    let epilogue_group = p.epilogue.iter().map(|e| {
        (
            Vec::new(),
            e.tiles.iter().map(|t| &t.plan).collect::<Vec<_>>(),
        )
    });
    for (guard, pls) in loop_groups.chain(epilogue_group) {
        let k = match groups.iter().position(|g| g.guard == guard) {
            Some(k) => k,
            None => {
                groups.push(CheckGroup {
                    guard,
                    obligations: Vec::new(),
                });
                groups.len() - 1
            }
        };
        for ob in pls.iter().flat_map(|pl| &pl.obligations) {
            if !groups[k].obligations.iter().any(|o| o.same_as(ob)) {
                groups[k].obligations.push(ob.clone());
            }
        }
    }
    groups
}

/// The run-time check under construction in the dispatch block: its conditions so far, and
/// copies of the original function's values they read (recomputed from the kernel's
/// arguments).
pub(in crate::raise_block_io) struct Check<'a> {
    b: Builder<'a>,
    /// The original kernel function.
    func: FuncId,
    /// [`emit::copy_tree`]'s memo: the original's values already copied.
    copied: HashMap<Id, Id>,
    bt: Id,
    i64t: Id,
    conds: Vec<Id>,
    /// The work-group-size built-in variable, if the module has one.
    wg_var: Option<Id>,
}

impl<'a> Check<'a> {
    /// A check emitted before `at`, of kernel function `func`.
    pub(in crate::raise_block_io) fn new(
        m: &'a mut Module,
        types: &'a mut Interner,
        at: InstId,
        func: FuncId,
        wg_var: Option<Id>,
    ) -> Self {
        let mut b = Builder {
            m,
            types,
            at,
            atom_map: HashMap::new(),
            count: 0,
            // The checks of several surfaces share their arithmetic.
            memo: Some(HashMap::new()),
        };
        let bt = b.types.bool(b.m);
        let i64t = b.int(64);
        Check {
            b,
            func,
            copied: HashMap::new(),
            bt,
            i64t,
            conds: Vec::new(),
            wg_var,
        }
    }

    /// `x` of the original function, copied to the check.
    fn copy(&mut self, x: Id) -> Option<Id> {
        emit::copy_tree(self.b.m, self.func, x, self.b.at, &mut self.copied)
    }

    /// Copies the atoms of `polys` (in order) and reads them as their copies.
    fn copy_atoms(&mut self, polys: &[&Poly]) -> Option<()> {
        for poly in polys {
            for (mono, _) in poly.terms() {
                for &x in mono {
                    let v = self.copy(x)?;
                    self.b.atom_map.insert(x, v);
                }
            }
        }
        Some(())
    }

    /// `v op k` for a 64-bit constant `k`.
    fn compare(&mut self, op: Op, v: Id, k: i64) -> Id {
        let kk = self.b.konst(64, k);
        self.b.op(op, self.bt, &[v.word(), kk.word()])
    }

    /// `v & mask == 0` (64-bit).
    fn low_bits_zero(&mut self, v: Id, mask: i64) -> Id {
        let kk = self.b.konst(64, mask);
        let r = self.b.op(Op::BitwiseAnd, self.i64t, &[v.word(), kk.word()]);
        let z = self.b.konst(64, 0);
        self.b.op(Op::IEqual, self.bt, &[r.word(), z.word()])
    }

    /// The checks of one group: every obligation's terms, taken only when the group's guard
    /// holds.
    pub(super) fn group(&mut self, group: &CheckGroup) -> Option<()> {
        let first = self.conds.len();
        for ob in &group.obligations {
            self.obligation(ob)?;
        }
        if !group.guard.is_empty() && self.conds.len() > first {
            self.guarded(first, &group.guard)?;
        }
        Some(())
    }

    /// The run-time terms of obligation `ob` (`obligation.rs` decided it is checked at run
    /// time); `None` for a kind that is never checked at run time, or when a value it reads
    /// cannot be recomputed before the body.
    pub(in crate::raise_block_io) fn obligation(&mut self, ob: &Obligation) -> Option<()> {
        let (bt, i64t) = (self.bt, self.i64t);
        // Atoms are recomputed here from the kernel's arguments.
        self.copy_atoms(&ob.polys())?;
        match ob {
            Obligation::WorkgroupShape { lanes } => self.workgroup_size(*lanes)?,
            Obligation::BaseAligned { base, align } => {
                let v = self.b.op(Op::ConvertPtrToU, i64t, &[base.word()]);
                let c = self.low_bits_zero(v, i64::from(*align) - 1);
                self.conds.push(c);
            }
            Obligation::SurfaceWidth { width } => {
                let w = self.b.poly(width, 64)?;
                self.at_least_const(w, 64);
                self.at_most_const(w, SURFACE_LIMIT);
                let c = self.low_bits_zero(w, 3);
                self.conds.push(c);
            }
            Obligation::SurfacePitch { pitch, width } => {
                let w = self.b.poly(width, 64)?;
                let p = self.b.poly(pitch, 64)?;
                self.at_least_const(p, 64);
                self.at_most_const(p, SURFACE_LIMIT);
                let c = self.low_bits_zero(p, 15);
                self.conds.push(c);
                let c = self.b.op(Op::SGreaterThanEqual, bt, &[p.word(), w.word()]);
                self.conds.push(c);
            }
            Obligation::SurfaceHeight { height } => {
                let h = self.b.poly(height, 64)?;
                self.at_least_const(h, 1);
                self.at_most_const(h, SURFACE_LIMIT);
            }
            Obligation::SurfaceSize { height, pitch } => {
                let h = self.b.poly(height, 64)?;
                let p = self.b.poly(pitch, 64)?;
                let size = self.b.op(Op::IMul, i64t, &[h.word(), p.word()]);
                let c = self.compare(Op::SLessThan, size, SURFACE_SIZE_LIMIT);
                self.conds.push(c);
            }
            Obligation::ColumnBoundMultiple { width, bytes } => {
                let w = self.b.poly(width, 64)?;
                let c = self.low_bits_zero(w, i64::from(*bytes) - 1);
                self.conds.push(c);
            }
            Obligation::AtLeast { lhs, rhs } => {
                let l = self.b.poly(lhs, 64)?;
                let r = self.b.poly(rhs, 64)?;
                let c = self.b.op(Op::SGreaterThanEqual, bt, &[l.word(), r.word()]);
                self.conds.push(c);
            }
            Obligation::NonNegative { atom } => {
                // At 64 bits: the atom as the lane map reads it (sign-extended), never
                // truncated (a 64-bit 2^32 is not 0).
                let v = self.copy(*atom)?;
                let v = self.b.resize(v, 64);
                let z = self.b.konst(64, 0);
                let c = self.b.op(Op::SGreaterThanEqual, bt, &[v.word(), z.word()]);
                self.conds.push(c);
            }
            Obligation::RemainderAsDividend {
                dividend,
                divisor,
                upper,
                lanes,
                ..
            } => self.remainder(dividend, divisor, *upper, *lanes)?,
            Obligation::WideningExact { operand, signed } => {
                let narrow = self.b.poly(operand, operand.width)?;
                let extended = if *signed {
                    self.b.resize(narrow, 64)
                } else {
                    self.b.op(Op::UConvert, i64t, &[narrow.word()])
                };
                let exact = self.b.poly(operand, 64)?;
                let c = self.b.op(Op::IEqual, bt, &[extended.word(), exact.word()]);
                self.conds.push(c);
            }
            Obligation::NarrowWidening { .. }
            | Obligation::MaskWidth { .. }
            | Obligation::ColumnAligned { .. }
            | Obligation::VectorFirstColumn { .. }
            | Obligation::OriginFits { .. } => return None,
        }
        Some(())
    }

    /// How many terms the check has so far.
    #[cfg(test)]
    pub(in crate::raise_block_io) fn terms(&self) -> usize {
        self.conds.len()
    }

    /// `v ≥ k` for a 64-bit constant `k`.
    fn at_least_const(&mut self, v: Id, k: i64) {
        let c = self.compare(Op::SGreaterThanEqual, v, k);
        self.conds.push(c);
    }

    /// `v ≤ k` for a 64-bit constant `k`.
    fn at_most_const(&mut self, v: Id, k: i64) {
        let c = self.compare(Op::SLessThanEqual, v, k);
        self.conds.push(c);
    }

    /// The work-group is exactly `(lanes, 1, 1)`.
    fn workgroup_size(&mut self, lanes: u32) -> Option<()> {
        let b = &mut self.b;
        let var = builtin_vec3(b.m, b.types, BuiltIn::WorkgroupSize, self.wg_var);
        let vt =
            b.m.def_inst(var)
                .and_then(|v| v.result_type())
                .and_then(|pt| pointer_of(b.m, pt))
                .map(|(_, t)| t)?;
        let ct = b.m.def_inst(vt).and_then(|t| t.operand_id(0))?;
        let v = b.op(Op::Load, vt, &[var.word()]);
        for (d, want) in [(0u32, i64::from(lanes)), (1, 1), (2, 1)] {
            let c = self.b.op(Op::CompositeExtract, ct, &[v.word(), d]);
            let c = self.b.resize(c, 64);
            let k = self.b.konst(64, want);
            let eq = self.b.op(Op::IEqual, self.bt, &[c.word(), k.word()]);
            self.conds.push(eq);
        }
        Some(())
    }

    /// A remainder taken as its dividend `a`: `0 ≤ a` and, with `upper`, `a < bound` in every
    /// invocation (the constant part's least and greatest value over the `lanes`).
    fn remainder(&mut self, a: &Poly, bound: &Poly, upper: bool, lanes: u32) -> Option<()> {
        let (bt, i64t) = (self.bt, self.i64t);
        let sym = a.with_constant_part(Coef::Same(0));
        let cst = a.constant_part();
        let (lo, hi) = (0..lanes as usize).fold((i64::MAX, i64::MIN), |(lo, hi), l| {
            (lo.min(cst.at(l)), hi.max(cst.at(l)))
        });
        let b = &mut self.b;
        let sv = b.poly(&sym, a.width)?;
        let sv = b.resize(sv, 64);
        let bv = b.poly(bound, bound.width)?;
        let bv = b.resize(bv, 64);
        let lo_k = b.konst(64, lo);
        let hi_k = b.konst(64, hi);
        let smin = b.op(Op::IAdd, i64t, &[sv.word(), lo_k.word()]);
        let smax = b.op(Op::IAdd, i64t, &[sv.word(), hi_k.word()]);
        let z = b.konst(64, 0);
        let c = b.op(Op::SGreaterThanEqual, bt, &[smin.word(), z.word()]);
        self.conds.push(c);
        if upper {
            let c = self.b.op(Op::SLessThan, bt, &[smax.word(), bv.word()]);
            self.conds.push(c);
        }
        Some(())
    }

    /// Replaces the conditions from `first` on by (not guard) or (all of them).
    fn guarded(&mut self, first: usize, guard: &[(Id, bool)]) -> Option<()> {
        let bt = self.bt;
        // (not guard) or (every check of the group).
        let mut sub = self.conds.split_off(first);
        let mut seen = std::collections::HashSet::new();
        sub.retain(|c| seen.insert(*c));
        let mut all = sub[0];
        for &c in &sub[1..] {
            all = self.b.op(Op::LogicalAnd, bt, &[all.word(), c.word()]);
        }
        let mut entered: Option<Id> = None;
        for &(c, polarity) in guard {
            let v = self.copy(c)?;
            let v = if polarity {
                v
            } else {
                self.b.op(Op::LogicalNot, bt, &[v.word()])
            };
            entered = Some(match entered {
                None => v,
                Some(e) => self.b.op(Op::LogicalAnd, bt, &[e.word(), v.word()]),
            });
        }
        let entered = entered?;
        let skipped = self.b.op(Op::LogicalNot, bt, &[entered.word()]);
        let c = self.b.op(Op::LogicalOr, bt, &[skipped.word(), all.word()]);
        self.conds.push(c);
        Some(())
    }

    /// The conjunction of the distinct conditions (`None` when there are none).
    pub(in crate::raise_block_io) fn conjunction(mut self) -> Option<Id> {
        let mut seen = std::collections::HashSet::new();
        self.conds.retain(|c| seen.insert(*c));
        let mut g = *self.conds.first()?;
        for &c in &self.conds[1..] {
            g = self.b.op(Op::LogicalAnd, self.bt, &[g.word(), c.word()]);
        }
        Some(g)
    }
}

/// The uniform conditions under which `at`'s block is reached: `(c, p)` for each conditional
/// branch on the dominator-tree path to it whose `p` successor is entered only from that
/// branch, `c` a function of the kernel's arguments (so the dispatch can evaluate it).
fn entry_guard(m: &Module, dom: &Dominators, f: FuncId, at: InstId) -> Vec<(Id, bool)> {
    let blocks = &m.function(f).blocks;
    let labels: std::collections::HashSet<Id> = blocks.iter().map(|&b| m.block_label(b)).collect();
    let mut preds: HashMap<Id, u32> = HashMap::new();
    for &b in blocks {
        if let Some(t) = m.block_terminator(b) {
            m.for_each_used_id(t, |u| {
                if labels.contains(&u) {
                    *preds.entry(u).or_default() += 1;
                }
            });
        }
    }
    let mut guard = Vec::new();
    let Some(mut x) = m.inst_block(at) else {
        return guard;
    };
    while let Some(d) = dom.idom(x) {
        let lx = m.block_label(x);
        if let Some(t) = m.block_terminator(d) {
            let term = m.inst(t);
            let (c, tl, fl) = (term.operand_id(0), term.operand_id(1), term.operand_id(2));
            if term.is(Op::BranchConditional) && tl != fl && preds.get(&lx) == Some(&1) {
                if let Some(c) = c.filter(|&c| emit::copyable(m, f, c)) {
                    if tl == Some(lx) {
                        guard.push((c, true));
                    } else if fl == Some(lx) {
                        guard.push((c, false));
                    }
                }
            }
        }
        x = d;
    }
    guard
}
