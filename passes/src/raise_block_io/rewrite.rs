//! raise-block-io's rewrite of one kernel function (see `raise_block_io.rs` for what the pass
//! does and why it is correct): the function is copied, each raised operand of the copy is
//! loaded with its 2D block load where the staged data became visible, the staging that no
//! Workgroup load reads any more goes, the copy is tidied (empty branches folded, invariant code
//! hoisted, equal instructions merged), and the original gets the run-time check that calls
//! the copy when every assumption of the plans holds.

use std::collections::HashMap;

use spirv::{BuiltIn, MemorySemantics, Op, StorageClass};
use spvopt_analysis::block_io::BlockKind;
use spvopt_analysis::builtins::{builtin_of_variable, debug_names};
use spvopt_analysis::decorations::Decorations;
use spvopt_analysis::lane_map::{Coef, LaneMap, Poly};
use spvopt_analysis::types::pointer_of;
use spvopt_analysis::{Dominators, Target};
use spvopt_ir::{FuncId, Id, InstId, Interner, Module};

use super::emit::{
    self, builtin_u32, builtin_vec3, clone_function, dispatch, function_variable, load_opcode,
    recompute_in_clone, remove_dead, subgroup_bits, Builder,
};
use super::epilogue::EpiloguePlan;
use super::plan::OperandPlan;
use super::staging::loads_outside_are_rewritten;
use super::{tidy, Slot};
use crate::edit::location;
use crate::pass::Statistics;

/// What one loop's rewrite needs.
pub(super) struct LoopPlan {
    pub(super) staging_stores: Vec<InstId>,
    pub(super) staging_loads: Vec<InstId>,
    pub(super) barriers: Vec<InstId>,
    pub(super) barrier: InstId,
    pub(super) plans: Vec<(Id, OperandPlan, Vec<Slot>)>,
}

/// What one kernel function's rewrite needs: its loops.
pub(super) struct Planned {
    pub(super) func: FuncId,
    pub(super) sg: u32,
    pub(super) lanes: u32,
    pub(super) exact: bool,
    pub(super) loops: Vec<LoopPlan>,
    pub(super) epilogue: Option<EpiloguePlan>,
    pub(super) lane_map: LaneMap,
}

fn kind_key(kind: BlockKind) -> &'static str {
    match kind {
        BlockKind::LoadTransform => "raised_load_transform",
        BlockKind::LoadTranspose => "raised_load_transpose",
        _ => "raised_load",
    }
}

/// The local-id variable of the module, if any.
fn builtin_var(m: &Module, dec: &Decorations, which: BuiltIn) -> Option<Id> {
    let names = debug_names(m, &|_| true);
    m.section_insts(spvopt_ir::Section::Global)
        .filter(|(_, i)| i.is(Op::Variable))
        .filter_map(|(_, i)| i.result_id())
        .find(|&v| builtin_of_variable(dec, &names, v) == Some(which))
}

/// The copy of the kernel function the rewrite works on, and how it corresponds to the
/// original.
struct FastCopy {
    /// The copy.
    fast: FuncId,
    /// The copy's result id (what the dispatch calls).
    fast_id: Id,
    /// The original's ids → the copy's.
    map: HashMap<Id, Id>,
    /// The original's instructions → the copy's.
    corr: HashMap<InstId, InstId>,
    /// The subgroup-id built-in variable.
    sg_var: Id,
}

impl FastCopy {
    /// The copy's value of the original's `id` (`id` itself when defined outside the function).
    fn mapped(&self, id: Id) -> Id {
        self.map.get(&id).copied().unwrap_or(id)
    }
}

/// A raised operand whose block load is issued: the Function variable it loads into, the
/// operand's type, its plan and the MMA operand slots it feeds.
struct IssuedLoad<'a> {
    var: Id,
    ty: Id,
    plan: &'a OperandPlan,
    uses: &'a [Slot],
}

/// Plans whose run-time checks share one guard: the uniform branch conditions under which
/// their loop runs (empty: always) and one plan per distinct surface check.
struct CheckGroup<'a> {
    guard: Vec<(Id, bool)>,
    plans: Vec<&'a OperandPlan>,
}

/// Rewrites kernel function `p.func`: its copy gets the block loads (and stores) of the plans
/// and loses the staging, and the original dispatches to the copy under the run-time check.
pub(super) fn apply(
    m: &mut Module,
    types: &mut Interner,
    dec: &Decorations,
    dom: &Dominators,
    p: Planned,
    target: &Target,
    stats: &mut Statistics,
) -> Result<(), String> {
    let base_align = i64::from(target.block_base_alignment().max(1));
    let outside_ok: Vec<bool> = p
        .loops
        .iter()
        .map(|lp| {
            loads_outside_are_rewritten(
                m,
                dec,
                dom,
                &p.lane_map,
                p.func,
                (&lp.staging_stores, &lp.staging_loads, &lp.barriers),
                lp.barrier,
            )
        })
        .collect();
    let loop_plans: Vec<&[(Id, OperandPlan, Vec<Slot>)]> =
        p.loops.iter().map(|l| l.plans.as_slice()).collect();
    let relaxable = super::dont_care::relaxable(m, p.func, &loop_plans, p.epilogue.as_ref(), p.sg);
    let copy = copy_kernel(m, types, dec, p.func)?;
    let rewriter = LoopRewriter {
        dom,
        copy: &copy,
        n_sub: (p.lanes / p.sg) as usize,
    };
    for (lp, outside_ok) in p.loops.iter().zip(outside_ok) {
        rewriter.rewrite(m, types, lp, outside_ok, stats)?;
    }
    if let Some(ep) = &p.epilogue {
        super::store_rewrite::store_epilogue(
            m,
            types,
            dom,
            ep,
            (p.lanes, p.sg),
            copy.sg_var,
            &copy.map,
            &copy.corr,
            copy.fast,
            stats,
        )?;
    }
    tidy_copy(m, copy.fast, stats);
    let relaxed = relaxed_remainders(m, &p, &copy, relaxable, stats);
    // The dispatch: run the copy when the run-time conditions hold.
    let wg_var = builtin_var(m, dec, BuiltIn::WorkgroupSize);
    let groups = check_groups(m, dom, &p);
    let (lanes, exact, func) = (p.lanes, p.exact, p.func);
    let lane_map = &p.lane_map;
    dispatch(m, types, func, copy.fast_id, |m, types, at| {
        let mut check = Check::new(m, types, at, func);
        if !exact {
            check.workgroup_size(wg_var, lanes)?;
        }
        for group in &groups {
            check.group(group, base_align)?;
        }
        check.assumptions(&lane_map.assumptions, lanes, &relaxed)?;
        check.widenings(&lane_map.widenings)?;
        check.conjunction()
    })
    .ok_or("the run-time check could not be built")?;
    stats.add("kernels_versioned", 1);
    Ok(())
}

/// Copies kernel function `f` and pairs the copy's instructions with the original's.
fn copy_kernel(
    m: &mut Module,
    types: &mut Interner,
    dec: &Decorations,
    f: FuncId,
) -> Result<FastCopy, String> {
    let (fast, map) = clone_function(m, f);
    let fast_id = m.function_result(fast).ok_or("clone without a result id")?;
    let sg_var = builtin_var(m, dec, BuiltIn::SubgroupId);
    let sg_var = builtin_u32(m, types, BuiltIn::SubgroupId, sg_var);
    // The clone's instructions, in the original's order.
    let all = |m: &Module, f: FuncId| -> Vec<InstId> {
        m.function(f)
            .blocks
            .iter()
            .flat_map(|&b| m.block_insts(b).collect::<Vec<_>>())
            .collect()
    };
    let (orig_insts, new_insts) = (all(m, f), all(m, fast));
    if orig_insts.len() != new_insts.len() {
        return Err("the copy of the kernel function differs in size".into());
    }
    let corr: HashMap<InstId, InstId> = orig_insts.into_iter().zip(new_insts).collect();
    Ok(FastCopy {
        fast,
        fast_id,
        map,
        corr,
        sg_var,
    })
}

/// What every loop's rewrite reads: the original's dominators, its copy and the number of
/// subgroups of a work-group.
struct LoopRewriter<'a> {
    dom: &'a Dominators,
    copy: &'a FastCopy,
    n_sub: usize,
}

impl LoopRewriter<'_> {
    /// Rewrites one loop in the copy: its raised operands are loaded with block loads at the
    /// loop's insertion point, and the staging goes when nothing reads it any more.
    fn rewrite(
        &self,
        m: &mut Module,
        types: &mut Interner,
        lp: &LoopPlan,
        outside_ok: bool,
        stats: &mut Statistics,
    ) -> Result<(), String> {
        let copy = self.copy;
        let mut b = Builder {
            m: &mut *m,
            types: &mut *types,
            at: copy.corr[&lp.barrier],
            atom_map: copy.map.clone(),
            count: 0,
            memo: None,
        };
        let u32t = b.int(32);
        let bits = subgroup_bits(&mut b, copy.sg_var, self.n_sub)?;
        recompute_loop_atoms(&mut b, self.dom, lp, &copy.corr);
        let v2 = b.types.vector(b.m, u32t, 2);
        let mut reads = Vec::new();
        for (x, plan, uses) in &lp.plans {
            let (var, ty) = issue_block_load(&mut b, copy, &bits, (u32t, v2), *x, plan)?;
            reads.push(IssuedLoad {
                var,
                ty,
                plan,
                uses,
            });
            note_raised(b.m, stats, *x, plan, uses);
        }
        let replaced = read_loaded_values(&mut b, reads, &copy.corr);
        for (mma, index, val) in replaced {
            m.inst_mut(mma).operands_mut()[index] = val.word();
        }
        remove_staging(m, copy, lp, outside_ok, stats);
        Ok(())
    }
}

/// Makes the atoms of `lp`'s plans (and their uniform mask conditions) available at the
/// builder's insertion point, recomputing there those defined where it does not see them.
fn recompute_loop_atoms(
    b: &mut Builder,
    dom: &Dominators,
    lp: &LoopPlan,
    corr: &HashMap<InstId, InstId>,
) {
    // Atoms defined where the insertion point does not see them: recomputed here.
    for (_, plan, _) in &lp.plans {
        for poly in plan
            .x
            .iter()
            .chain(&plan.y)
            .chain([&plan.pitch, &plan.width, &plan.height])
        {
            for (mono, _) in poly.terms() {
                for &a in mono {
                    recompute_in_clone(b, dom, lp.barrier, a, corr);
                }
            }
        }
        // So are uniform mask conditions computed under a branch (a gather's).
        for &(c, _) in &plan.uniform_conds {
            recompute_in_clone(b, dom, lp.barrier, c, corr);
        }
    }
}

/// Emits operand `x`'s 2D block load (into a new Function variable) at the builder's
/// insertion point (`u32t`, `v2`: the 32-bit integer and its 2-vector); returns the variable
/// and the operand's type.
fn issue_block_load(
    b: &mut Builder,
    copy: &FastCopy,
    bits: &[Id],
    (u32t, v2): (Id, Id),
    x: Id,
    plan: &OperandPlan,
) -> Result<(Id, Id), String> {
    let mut xv = b
        .origin(&plan.x, bits, plan.saturate[1])
        .ok_or("column origin does not fit the subgroups")?;
    if plan.pack > 1 {
        // The origin in the block's (packed) elements: a multiple of the pack.
        let sh = b.konst(32, i64::from(plan.pack.trailing_zeros()));
        xv = b.op(Op::ShiftRightArithmetic, u32t, &[xv.word(), sh.word()]);
    }
    let yv = b
        .origin(&plan.y, bits, plan.saturate[0])
        .ok_or("row origin does not fit the subgroups")?;
    let wv = b.poly(&plan.width, 32).ok_or("width")?;
    let hv = b.poly(&plan.height, 32).ok_or("height")?;
    let pv = b.poly(&plan.pitch, 32).ok_or("pitch")?;
    let coord = b.op(Op::CompositeConstruct, v2, &[xv.word(), yv.word()]);
    let ty = b.m.type_of(x).ok_or("operand type")?;
    let var = function_variable(b, copy.fast, ty)?;
    let (e, w, h, c) = plan.shape;
    let ek = b.konst(32, i64::from(e));
    let wk = b.konst(32, i64::from(w));
    let hk = b.konst(32, i64::from(h));
    let ck = b.konst(32, i64::from(c));
    let base = copy.mapped(plan.base);
    // The destination as a byte pointer, as Intel's translator writes it.
    let u8t = b.int(8);
    let bptr = b.types.pointer(b.m, StorageClass::Function, u8t);
    let dst = b.op(Op::Bitcast, bptr, &[var.word()]);
    b.void(
        load_opcode(plan.kind),
        &[
            ek.word(),
            wk.word(),
            hk.word(),
            ck.word(),
            base.word(),
            wv.word(),
            hv.word(),
            pv.word(),
            coord.word(),
            dst.word(),
        ],
    );
    Ok((var, ty))
}

/// Counts operand `x` as raised and notes its block load.
fn note_raised(m: &Module, stats: &mut Statistics, x: Id, plan: &OperandPlan, uses: &[Slot]) {
    let (e, w, h, c) = plan.shape;
    stats.add(kind_key(plan.kind), 1);
    stats.note(format!(
        "{}: operand %{} raised: {} {}b {}r{}x{}c",
        location(m, uses[0].mma),
        x.word(),
        match plan.kind {
            BlockKind::LoadTransform => "load_transform",
            BlockKind::LoadTranspose => "load_transpose",
            _ => "load",
        },
        e * 8,
        h,
        w,
        c
    ));
}

/// Reads the loaded values (selected with 0 under their uniform conditions) after all loads
/// are issued; returns the copy's MMA operands to replace: (MMA, operand index, value).
fn read_loaded_values(
    b: &mut Builder,
    reads: Vec<IssuedLoad>,
    corr: &HashMap<InstId, InstId>,
) -> Vec<(InstId, usize, Id)> {
    let mut replaced: Vec<(InstId, usize, Id)> = Vec::new();
    // The loaded values are read after all loads are issued: adjacent loads stay
    // adjacent, so fuse-block-loads can merge them.
    for IssuedLoad {
        var,
        ty,
        plan,
        uses,
    } in reads
    {
        let mut val = b.op(Op::Load, ty, &[var.word()]);
        if !plan.uniform_conds.is_empty() {
            let bt = b.types.bool(b.m);
            let mut c: Option<Id> = None;
            for &(cid, _) in &plan.uniform_conds {
                let cid = b.atom_map.get(&cid).copied().unwrap_or(cid);
                c = Some(match c {
                    None => cid,
                    Some(a) => b.op(Op::LogicalAnd, bt, &[a.word(), cid.word()]),
                });
            }
            let zero = b.types.null_const(b.m, ty);
            val = b.op(
                Op::Select,
                ty,
                &[c.expect("a condition").word(), val.word(), zero.word()],
            );
        }
        for s in uses {
            replaced.push((corr[&s.mma], s.index, val));
        }
    }
    replaced
}

/// Removes loop `lp`'s staging (stores and barriers) from the copy when no Workgroup load
/// reads it any more; notes why it stays otherwise.
fn remove_staging(
    m: &mut Module,
    copy: &FastCopy,
    lp: &LoopPlan,
    outside_ok: bool,
    stats: &mut Statistics,
) {
    let (fast, corr) = (copy.fast, &copy.corr);
    // The staging goes when nothing reads it any more.
    remove_dead(m, fast);
    let staged_loads_left = lp
        .staging_loads
        .iter()
        .any(|l| m.inst_block(corr[l]).is_some());
    if !staged_loads_left && outside_ok {
        for s in &lp.staging_stores {
            m.erase(corr[s]);
        }
        for bar in &lp.barriers {
            m.erase(corr[bar]);
        }
        if !lp.staging_stores.is_empty() {
            stats.add("staging_stores_removed", lp.staging_stores.len() as u64);
            stats.add("barriers_removed", lp.barriers.len() as u64);
        }
        remove_dead(m, fast);
    } else {
        stats.note(format!(
            "{}: the staging stays: {}",
            location(m, lp.barrier),
            if staged_loads_left {
                "some Workgroup loads of the loop are still used"
            } else {
                "Workgroup loads after the loop may read what the loop stored"
            }
        ));
    }
}

/// Tidies the copy after the rewrite: empty branches folded, idle barriers dropped, invariant
/// code hoisted and equal instructions merged.
fn tidy_copy(m: &mut Module, fast: FuncId, stats: &mut Statistics) {
    // The masked loads' branches are empty now; their conditions go with them.
    let folded = crate::edit::cfg::fold_empty_branches(m, fast);
    if folded > 0 {
        remove_dead(m, fast);
        stats.add("branches_folded", folded as u64);
    }
    let idle = drop_idle_barriers(m, fast);
    if idle > 0 {
        stats.add("barriers_removed", idle);
    }
    // The loads' coordinates: computed once, outside the loop.
    let tidied = tidy::tidy(m, fast);
    stats.add("loop_invariants_hoisted", tidied.hoisted);
    stats.add("subexpressions_merged", tidied.merged);
}

/// The relaxable remainders that nothing in the copy uses any more (their upper bound needs no
/// run-time check), counted and noted.
fn relaxed_remainders(
    m: &Module,
    p: &Planned,
    copy: &FastCopy,
    relaxable: Vec<Id>,
    stats: &mut Statistics,
) -> Vec<Id> {
    // Remainders whose wrapped rows only reach rows the copy never stores: their upper bound
    // needs no check when nothing in the copy uses them any more.
    let relaxed: Vec<Id> = relaxable
        .into_iter()
        .filter(|r| {
            let c = copy.mapped(*r);
            m.def(c).and_then(|d| m.inst_block(d)).is_none()
        })
        .collect();
    if !relaxed.is_empty() {
        stats.add("remainders_unchecked_above", relaxed.len() as u64);
        stats.note(format!(
            "{}: {} remainder(s) ({}) need no upper-bound check: their wrapped rows and columns only reach rows and columns the 2D block stores leave out",
            location(m, relaxed_at(m, p)),
            relaxed.len(),
            relaxed.iter().map(|r| format!("%{}", r.word())).collect::<Vec<_>>().join(", ")
        ));
    }
    relaxed
}

/// The plans' run-time checks grouped by the guard under which they are needed, one plan per
/// distinct surface check in each group.
fn check_groups<'a>(m: &Module, dom: &Dominators, p: &'a Planned) -> Vec<CheckGroup<'a>> {
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
                    plans: Vec::new(),
                });
                groups.len() - 1
            }
        };
        for pl in pls {
            if !groups[k].plans.iter().any(|q| same_checks(q, pl)) {
                groups[k].plans.push(pl);
            }
        }
    }
    groups
}

/// The run-time check under construction in the dispatch block: its conditions so far, and
/// copies of the original function's values they read (recomputed from the kernel's
/// arguments).
struct Check<'a> {
    b: Builder<'a>,
    /// The original kernel function.
    func: FuncId,
    /// [`emit::copy_tree`]'s memo: the original's values already copied.
    copied: HashMap<Id, Id>,
    bt: Id,
    i64t: Id,
    conds: Vec<Id>,
}

impl<'a> Check<'a> {
    /// A check emitted before `at`, of kernel function `func`.
    fn new(m: &'a mut Module, types: &'a mut Interner, at: InstId, func: FuncId) -> Self {
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

    /// The work-group is exactly `(lanes, 1, 1)`.
    fn workgroup_size(&mut self, wg_var: Option<Id>, lanes: u32) -> Option<()> {
        let b = &mut self.b;
        let var = builtin_vec3(b.m, b.types, BuiltIn::WorkgroupSize, wg_var);
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

    /// The checks of one group: every plan's, taken only when the group's guard holds.
    fn group(&mut self, group: &CheckGroup, base_align: i64) -> Option<()> {
        let first = self.conds.len();
        for plan in &group.plans {
            self.surface(plan, base_align)?;
        }
        if !group.guard.is_empty() && self.conds.len() > first {
            self.guarded(first, &group.guard)?;
        }
        Some(())
    }

    /// The checks one plan needs: its surface is legal for 2D block IO, and its run-time
    /// conditions (column bound multiple, `a ≥ b` pairs, atoms ≥ 0) hold.
    fn surface(&mut self, plan: &OperandPlan, base_align: i64) -> Option<()> {
        let (bt, i64t) = (self.bt, self.i64t);
        // Atoms of the surface are recomputed here from the kernel's arguments.
        self.copy_atoms(&[&plan.width, &plan.height, &plan.pitch])?;
        let w = self.b.poly(&plan.width, 64)?;
        let h = self.b.poly(&plan.height, 64)?;
        let pitch = self.b.poly(&plan.pitch, 64)?;
        let base = self.b.op(Op::ConvertPtrToU, i64t, &[plan.base.word()]);
        let c = self.low_bits_zero(base, base_align - 1);
        self.conds.push(c);
        let c = self.compare(Op::SGreaterThanEqual, w, 64);
        self.conds.push(c);
        let c = self.compare(Op::SLessThanEqual, w, 1 << 24);
        self.conds.push(c);
        let c = self.low_bits_zero(w, 3);
        self.conds.push(c);
        let c = self.compare(Op::SGreaterThanEqual, pitch, 64);
        self.conds.push(c);
        let c = self.compare(Op::SLessThanEqual, pitch, 1 << 24);
        self.conds.push(c);
        let c = self.low_bits_zero(pitch, 15);
        self.conds.push(c);
        let c = self
            .b
            .op(Op::SGreaterThanEqual, bt, &[pitch.word(), w.word()]);
        self.conds.push(c);
        let c = self.compare(Op::SGreaterThanEqual, h, 1);
        self.conds.push(c);
        let c = self.compare(Op::SLessThanEqual, h, 1 << 24);
        self.conds.push(c);
        let size = self.b.op(Op::IMul, i64t, &[h.word(), pitch.word()]);
        let c = self.compare(Op::SLessThan, size, 1 << 31);
        self.conds.push(c);
        if plan.width_multiple > 1 {
            let bytes = i64::from(plan.width_multiple * plan.shape.0 / plan.pack);
            let c = self.low_bits_zero(w, bytes - 1);
            self.conds.push(c);
        }
        for (lhs, rhs) in &plan.at_least {
            self.copy_atoms(&[lhs, rhs])?;
            let l = self.b.poly(lhs, 64)?;
            let r = self.b.poly(rhs, 64)?;
            let c = self.b.op(Op::SGreaterThanEqual, bt, &[l.word(), r.word()]);
            self.conds.push(c);
        }
        for &a in &plan.nonneg_checks {
            // At 64 bits: the atom as the lane map reads it (sign-extended), never
            // truncated (a 64-bit 2^32 is not 0).
            let v = self.copy(a)?;
            let v = self.b.resize(v, 64);
            let z = self.b.konst(64, 0);
            let c = self.b.op(Op::SGreaterThanEqual, bt, &[v.word(), z.word()]);
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

    /// The lane map's remainders taken as their dividend: 0 ≤ a < b in every invocation (the
    /// upper bound not for the `relaxed` ones).
    fn assumptions(
        &mut self,
        assumptions: &[(Id, Poly, Poly)],
        lanes: u32,
        relaxed: &[Id],
    ) -> Option<()> {
        let (bt, i64t) = (self.bt, self.i64t);
        for (rem, a, bound) in assumptions {
            let sym = a.with_constant_part(Coef::Same(0));
            let cst = a.constant_part();
            let (lo, hi) = (0..lanes as usize).fold((i64::MAX, i64::MIN), |(lo, hi), l| {
                (lo.min(cst.at(l)), hi.max(cst.at(l)))
            });
            self.copy_atoms(&[&sym, bound])?;
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
            if !relaxed.contains(rem) {
                let c = self.b.op(Op::SLessThan, bt, &[smax.word(), bv.word()]);
                self.conds.push(c);
            }
        }
        Some(())
    }

    /// Widenings taken exactly: the operand at its own width, extended, is its polynomial.
    fn widenings(&mut self, widenings: &[(Id, Poly, bool)]) -> Option<()> {
        let (bt, i64t) = (self.bt, self.i64t);
        for (_, a, signed) in widenings {
            self.copy_atoms(&[a])?;
            let b = &mut self.b;
            let narrow = b.poly(a, a.width)?;
            let extended = if *signed {
                b.resize(narrow, 64)
            } else {
                b.op(Op::UConvert, i64t, &[narrow.word()])
            };
            let exact = b.poly(a, 64)?;
            let c = b.op(Op::IEqual, bt, &[extended.word(), exact.word()]);
            self.conds.push(c);
        }
        Some(())
    }

    /// The conjunction of the distinct conditions (`None` when there are none).
    fn conjunction(mut self) -> Option<Id> {
        let mut seen = std::collections::HashSet::new();
        self.conds.retain(|c| seen.insert(*c));
        let mut g = *self.conds.first()?;
        for &c in &self.conds[1..] {
            g = self.b.op(Op::LogicalAnd, self.bt, &[g.word(), c.word()]);
        }
        Some(g)
    }
}

/// Whether two plans need the same run-time checks (same surface and conditions).
fn same_checks(a: &OperandPlan, b: &OperandPlan) -> bool {
    let same_pairs = |x: &[(Poly, Poly)], y: &[(Poly, Poly)]| {
        x.len() == y.len()
            && x.iter()
                .zip(y)
                .all(|((a0, a1), (b0, b1))| a0.same_as(b0) && a1.same_as(b1))
    };
    a.base == b.base
        && a.shape.0 / a.pack == b.shape.0 / b.pack
        && a.width_multiple == b.width_multiple
        && a.width.same_as(&b.width)
        && a.height.same_as(&b.height)
        && a.pitch.same_as(&b.pitch)
        && a.nonneg_checks == b.nonneg_checks
        && same_pairs(&a.at_least, &b.at_least)
}

/// Removes the work-group barriers of `f` that only order Workgroup memory when `f` no longer
/// touches Workgroup memory (no instruction uses a Workgroup pointer) and calls nothing: with
/// no such access left, the barrier orders nothing any invocation can observe.
fn drop_idle_barriers(m: &mut Module, f: FuncId) -> u64 {
    let mut barriers = Vec::new();
    for &b in &m.function(f).blocks {
        for i in m.block_insts(b) {
            let inst = m.inst(i);
            if inst.is(Op::FunctionCall) {
                return 0;
            }
            if inst.is(Op::ControlBarrier) {
                let sem = inst
                    .operand_id(2)
                    .and_then(|id| m.const_int_value(id))
                    .map(|v| v as u32);
                let ordering = MemorySemantics::ACQUIRE.bits()
                    | MemorySemantics::RELEASE.bits()
                    | MemorySemantics::ACQUIRE_RELEASE.bits()
                    | MemorySemantics::SEQUENTIALLY_CONSISTENT.bits();
                let wg = MemorySemantics::WORKGROUP_MEMORY.bits();
                match sem {
                    Some(s) if s & wg != 0 && s & !(wg | ordering) == 0 => barriers.push(i),
                    _ => {}
                }
                continue;
            }
            let mut touches = false;
            m.for_each_used_id(i, |u| {
                touches |= m
                    .type_of(u)
                    .and_then(|t| pointer_of(m, t))
                    .is_some_and(|(sc, _)| sc == StorageClass::Workgroup as u32);
            });
            if touches {
                return 0;
            }
        }
    }
    for &i in &barriers {
        m.erase(i);
    }
    barriers.len() as u64
}

/// Where to report the relaxed remainders: the epilogue's first global store.
fn relaxed_at(m: &Module, p: &Planned) -> InstId {
    p.epilogue
        .as_ref()
        .map(|e| e.global_stores[0])
        .unwrap_or_else(|| {
            let b = m.function(p.func).blocks[0];
            m.block_first(b).expect("a block has a label")
        })
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
