//! `raise-block-io`: MMA operands that a kernel stages through shared local memory are loaded
//! with 2D block loads instead (what Triton's no-2D and tensor-of-pointers GEMMs need to reach
//! the speed of its block-pointer builds).
//!
//! What: in a loop of a kernel whose work-group size bound is `(n, 1, 1)`, every invocation
//! loads global vectors, stores them to Workgroup memory, a barrier follows, and the
//! invocations assemble their MMA operands (A and B of `OpSubgroupMatrixMultiplyAccumulateINTEL`)
//! from Workgroup loads. For each operand the pass finds, per invocation and element, which
//! global element reached it (the lane map evaluates every address for all invocations; the
//! staging analysis inverts the writers' Workgroup addresses) and matches the result against
//! the data layout of a 2D block load the target supports (plain, transformed (VNNI) or
//! transposed). A matching operand is loaded with that block load right where the staged data
//! became visible; when every staged load became dead, the Workgroup stores and the loop's
//! barriers go, and the global loads, shuffles and address arithmetic with them.
//!
//! When it applies (every condition is checked; a candidate that fails one is counted under
//! one reason): the staging is understood (`staging.rs`); the operand's elements are whole
//! global elements at `base + (Y(s) + row)·pitch + (X(s) + col)·E` for a CrossWorkgroup
//! parameter `base`, a one-term pitch and per-subgroup origins (`plan.rs`); Triton's masks are
//! exactly the block's bounds (row < M, column < K; a vector-granular column mask needs K to be
//! a multiple of the vector, checked at run time) or work-group-uniform conditions (kept as a
//! select); the loop writes no global memory and calls nothing.
//!
//! Why it is correct: the value an invocation read from Workgroup memory is the value its
//! unique writer stored in the same iteration, which is the global element the writer loaded
//! in that iteration (no global memory is written in the loop, so loading it later gives the
//! same value); the block load deals exactly those elements in that order (the layout's
//! formulas are the simulator's), and returns 0 exactly where the mask did. What is only known
//! at run time is checked once per work-group before the kernel body, and the unchanged body
//! runs when a check fails: the work-group really is `(n, 1, 1)` (the lane map's assumption),
//! the surfaces are legal for 2D block IO (base 64-byte aligned, width 64..2^24 bytes and a
//! multiple of 4, pitch ≥ width, a multiple of 16, ≤ 2^24, height 1..2^24), the masked column
//! bounds are multiples of the vector width, and the surface is under 2^31 bytes (the kernel's
//! 32-bit index arithmetic does not wrap). The body with block loads is a copy of the kernel
//! function, called from the original when the check holds.
//!
//! One rewrite (`--max-changes`): one loop's operands of one kernel function (the copy, the
//! dispatch, the loads and the removal of the staging together).
//! Cost: the lane map is O(values · invocations) per kernel function with staging; each operand
//! costs O(invocations · elements) to trace and match; kernels without Workgroup staging feeding
//! MMAs cost one scan.

use std::collections::HashMap;

use spirv::{BuiltIn, Op, StorageClass};
use spvopt_analysis::block_io::BlockKind;
use spvopt_analysis::builtins::{builtin_of_variable, debug_names};
use spvopt_analysis::decorations::Decorations;
use spvopt_analysis::lane_map::{Coef, LaneMap, Poly};
use spvopt_analysis::loops::LoopId;
use spvopt_analysis::types::pointer_of;
use spvopt_analysis::{
    Analyses, AnalysisSet, Cfg, Dominators, KernelFacts, Loops, PostDominators, Target,
};
use spvopt_ir::{FuncId, Id, Inst, InstId, Interner, Module};

use crate::legalize::{capabilities, location};
use crate::pass::{Changes, Pass, PassError, PassResult, Statistics};

mod emit;
mod plan;
mod staging;
mod tidy;
mod trace;

use emit::{
    builtin_u32, builtin_vec3, clone_function, dispatch, load_opcode, remove_dead, Builder,
};
use plan::{OperandPlan, OperandReject, Planner};
use staging::Staging;
use trace::Tracer;

pub struct RaiseBlockIo;

/// One MMA operand slot to rewrite: the MMA, operand index (1 = A, 2 = B) and the operand.
#[derive(Clone, Copy, Debug)]
struct Slot {
    mma: InstId,
    index: usize,
    operand: Id,
}

/// Element size of MMA operand A (`b = false`) or B from the MMA's operands mask.
fn element_size(m: &Module, mma: InstId, b: bool) -> Option<u32> {
    let mask = m.inst(mma).operand_word(4).unwrap_or(0);
    let bits = if b { mask >> 1 } else { mask };
    if bits & 0x10 != 0 {
        Some(1)
    } else if bits & 0x40 != 0 {
        None
    } else if bits & 0x100 != 0 {
        Some(4)
    } else if bits & 0x400 != 0 || bits & 0x1000 != 0 {
        Some(2)
    } else if mask == 0 || mask & !0xF == 0 {
        // No type bits: signed/unsigned integers of the operand's component width.
        None
    } else {
        None
    }
}

impl Pass for RaiseBlockIo {
    fn name(&self) -> &'static str {
        "raise-block-io"
    }

    fn run(
        &mut self,
        m: &mut Module,
        analyses: &mut Analyses,
        target: &Target,
        changes: &mut Changes,
    ) -> Result<PassResult, PassError> {
        let mut stats = Statistics::default();
        if !target.has_2d_block_io() {
            // Count the candidates anyway, so the statistics account for them.
            let n = count_candidates(m);
            if n > 0 {
                stats.add("candidates", n);
                stats.add("rejected_no_2d_block_io", n);
            }
            return Ok(PassResult::unchanged(stats));
        }
        let cfg = analyses.get::<Cfg>(m);
        let dom = analyses.get::<Dominators>(m);
        let pdom = analyses.get::<PostDominators>(m);
        let loops = analyses.get::<Loops>(m);
        let facts = analyses.get::<KernelFacts>(m);
        let dec = Decorations::build(m);
        // MMA operand slots per (function, innermost loop).
        let mut groups: Vec<(FuncId, Option<LoopId>, Vec<Slot>)> = Vec::new();
        for f in m.function_ids() {
            for &b in &m.function(f).blocks {
                for i in m.block_insts(b) {
                    let inst = m.inst(i);
                    if !inst.is(Op::SubgroupMatrixMultiplyAccumulateINTEL) {
                        continue;
                    }
                    let l = loops.innermost(b);
                    let k = match groups.iter().position(|g| g.0 == f && g.1 == l) {
                        Some(k) => k,
                        None => {
                            groups.push((f, l, Vec::new()));
                            groups.len() - 1
                        }
                    };
                    for index in [1usize, 2] {
                        if let Some(operand) = inst.operand_id(index) {
                            groups[k].2.push(Slot {
                                mma: i,
                                index,
                                operand,
                            });
                        }
                    }
                }
            }
        }
        let mut plans_done: Vec<Planned> = Vec::new();
        let mut lane_maps: HashMap<FuncId, LaneMap> = HashMap::new();
        for (f, l, slots) in &groups {
            let mut operands: Vec<Id> = slots.iter().map(|s| s.operand).collect();
            operands.sort_unstable();
            operands.dedup();
            let n = operands.len() as u64;
            stats.add("candidates", n);
            let reject_all = |stats: &mut Statistics,
                              key: &'static str,
                              why: &str,
                              at: Option<InstId>,
                              m: &Module| {
                stats.add(key, n);
                let loc = at
                    .or(slots.first().map(|s| s.mma))
                    .map(|i| location(m, i))
                    .unwrap_or_default();
                stats.note(format!("{loc}: {n} MMA operand(s) not raised: {why}"));
            };
            if is_dispatcher(m, *f) {
                // The fallback body of a kernel this pass already raised.
                stats.add("skipped_fallback_body", n);
                continue;
            }
            let Some(l) = *l else {
                reject_all(
                    &mut stats,
                    "rejected_not_in_loop",
                    "the MMA is not in a loop",
                    None,
                    m,
                );
                continue;
            };
            let sg = facts.subgroup_size(*f).known();
            let bound = facts.workgroup_size_bound(*f).known();
            let exact = facts.local_size(*f).known().is_some();
            let (Some(sg), Some([nx, 1, 1])) = (sg, bound) else {
                reject_all(
                    &mut stats,
                    "rejected_workgroup_shape",
                    "the kernel declares no subgroup size or no work-group bound of the form (n, 1, 1)",
                    None,
                    m,
                );
                continue;
            };
            if nx == 0 || nx % sg != 0 || nx > 1024 {
                reject_all(
                    &mut stats,
                    "rejected_workgroup_shape",
                    "the work-group bound is not a multiple of the subgroup size",
                    None,
                    m,
                );
                continue;
            }
            if loops.get(l).is_some_and(|d| d.depth != 1) {
                reject_all(
                    &mut stats,
                    "rejected_loop_shape",
                    "the loop is nested in another loop",
                    None,
                    m,
                );
                continue;
            }
            // Cheap filter before the lane map: some operand comes from a Workgroup load.
            let tracer = Tracer {
                m,
                dec: &dec,
                cfg: &cfg,
                func: *f,
            };
            let staged = operands.iter().any(|&x| {
                matches!(tracer.trace(x, 0), Ok(trace::ByteSource::Load { load, .. })
                    if m.inst(load).operand_id(0).and_then(|p| m.type_of(p)).and_then(|t| pointer_of(m, t))
                        .is_some_and(|(sc, _)| sc == StorageClass::Workgroup as u32))
            });
            if !staged {
                stats.add("not_staged", n);
                continue;
            }
            let checkable_poly = |p: &Poly| {
                p.terms()
                    .iter()
                    .all(|(mono, _)| mono.iter().all(|&x| emit::copyable(m, *f, x)))
            };
            let lanes = lane_maps
                .entry(*f)
                .or_insert_with(|| {
                    // Widenings taken exactly need a run-time check of their operand; where
                    // one cannot be checked before the body, they stay atoms.
                    let (nx, sg) = (nx as usize, sg as usize);
                    let exact = LaneMap::build(m, *f, &cfg, &pdom, &dec, nx, sg, true);
                    if exact.widenings.iter().all(|(_, a, _)| checkable_poly(a)) {
                        exact
                    } else {
                        LaneMap::build(m, *f, &cfg, &pdom, &dec, nx, sg, false)
                    }
                })
                .clone();
            let checkable = lanes
                .assumptions
                .iter()
                .all(|(_, a, b)| checkable_poly(a) && checkable_poly(b));
            if !checkable {
                reject_all(
                    &mut stats,
                    "rejected_unprovable_assumption",
                    "a remainder's range cannot be checked before the kernel body",
                    None,
                    m,
                );
                continue;
            }
            let st = match Staging::build(m, &dec, &loops, &dom, &lanes, l) {
                Ok(s) => s,
                Err(e) => {
                    let (key, why) = e.reason();
                    reject_all(&mut stats, key, why, e.at(), m);
                    continue;
                }
            };
            let mut planner = Planner {
                m,
                lanes: &lanes,
                staging: &st,
                tracer: &tracer,
                target,
                stored: HashMap::new(),
            };
            let mut plans: Vec<(Id, OperandPlan, Vec<Slot>)> = Vec::new();
            let mut rejected: Vec<(Id, OperandReject)> = Vec::new();
            for &x in &operands {
                let uses: Vec<Slot> = slots.iter().copied().filter(|s| s.operand == x).collect();
                let is_b = uses.iter().all(|s| s.index == 2);
                let is_a = uses.iter().all(|s| s.index == 1);
                let e = uses
                    .first()
                    .and_then(|s| element_size(m, s.mma, s.index == 2));
                let Some(e) = e.filter(|_| is_a || is_b) else {
                    rejected.push((x, OperandReject::NoLayout));
                    continue;
                };
                let kinds: &[BlockKind] = if is_b {
                    &[
                        BlockKind::LoadTransform,
                        BlockKind::Load,
                        BlockKind::LoadTranspose,
                    ]
                } else {
                    &[BlockKind::Load, BlockKind::LoadTranspose]
                };
                match planner.plan(x, e, kinds) {
                    Ok(p) => plans.push((x, p, uses)),
                    Err(r) => rejected.push((x, r)),
                }
            }
            // An operand left staged keeps the staging (stores, barriers, global loads): loading
            // the others with block loads on top of it would add work, not remove it.
            if !rejected.is_empty() {
                for (x, _, uses) in plans.drain(..) {
                    stats.add("rejected_staging_kept", 1);
                    stats.note(format!(
                        "{}: operand %{} not raised: other operands of the loop keep the staging",
                        location(m, uses[0].mma),
                        x.word()
                    ));
                }
            }
            for (x, r) in &rejected {
                let (key, why) = r.reason();
                stats.add(key, 1);
                let at = slots.iter().find(|s| s.operand == *x).map(|s| s.mma);
                let loc = at.map(|i| location(m, i)).unwrap_or_default();
                stats.note(format!("{loc}: operand %{} not raised: {why}", x.word()));
            }
            if plans.is_empty() {
                continue;
            }
            // Where the block loads go: at the barrier after the stores; every atom they use
            // must be available there.
            let at = st.barrier;
            let at_block = m.inst_block(at).expect("barrier in a block");
            let available = |a: Id| -> bool {
                let Some(d) = m.def(a) else { return true };
                match m.inst_block(d) {
                    None => true,
                    Some(b) if b == at_block => {
                        let mut i = m.prev_inst(at);
                        while let Some(x) = i {
                            if x == d {
                                return true;
                            }
                            i = m.prev_inst(x);
                        }
                        false
                    }
                    Some(b) => dom.dominates(b, at_block),
                }
            };
            // An atom computed where the data is not visible (in a masked block) is recomputed
            // at the insertion point when it is a pure function of available values.
            let recomputable = |a: Id| -> bool {
                let mut stack = vec![a];
                let mut steps = 0;
                while let Some(v) = stack.pop() {
                    steps += 1;
                    if steps > 64 {
                        return false;
                    }
                    if available(v) {
                        continue;
                    }
                    let Some(d) = m.def(v) else { return false };
                    let inst = m.inst(d);
                    if inst.is(Op::Phi)
                        || !crate::util::is_side_effect_free(m, inst)
                        || inst.is(Op::Load)
                    {
                        return false;
                    }
                    m.for_each_used_id(d, |u| {
                        if m.def(u).and_then(|x| m.inst_block(x)).is_some() {
                            stack.push(u);
                        }
                    });
                }
                true
            };
            let mut ok_plans = Vec::new();
            for (x, p, uses) in plans {
                let mut atoms: Vec<Id> = Vec::new();
                for poly in
                    p.x.iter()
                        .chain(&p.y)
                        .chain([&p.pitch, &p.width, &p.height])
                {
                    for (mono, _) in poly.terms() {
                        atoms.extend(mono.iter().copied());
                    }
                }
                let conds: Vec<Id> = p.uniform_conds.iter().map(|c| c.0).collect();
                let params: Vec<Id> = m
                    .function(*f)
                    .header
                    .iter()
                    .filter_map(|&h| m.inst(h).result_id())
                    .collect();
                let surface_atoms_are_params =
                    [&p.pitch, &p.width, &p.height].iter().all(|poly| {
                        poly.terms()
                            .iter()
                            .all(|(mono, _)| mono.iter().all(|&a| emit::copyable(m, *f, a)))
                    }) && p.nonneg_checks.iter().all(|&a| emit::copyable(m, *f, a))
                        && p.at_least.iter().all(|(l, r)| {
                            [l, r].iter().all(|poly| {
                                poly.terms()
                                    .iter()
                                    .all(|(mono, _)| mono.iter().all(|&a| emit::copyable(m, *f, a)))
                            })
                        });
                if !atoms.iter().all(|&a| recomputable(a))
                    || !conds.iter().all(|&a| available(a))
                    || !params.contains(&p.base)
                {
                    stats.add("rejected_not_available", 1);
                    stats.note(format!(
                        "{}: operand %{} not raised: a value its address needs is not available where the data is",
                        location(m, uses[0].mma),
                        x.word()
                    ));
                    continue;
                }
                if !surface_atoms_are_params {
                    let mut bad: Vec<String> = Vec::new();
                    for poly in [&p.pitch, &p.width, &p.height] {
                        for (mono, _) in poly.terms() {
                            for &a in mono {
                                if !emit::copyable(m, *f, a)
                                    && !bad.contains(&format!("%{}", a.word()))
                                {
                                    bad.push(format!("%{}", a.word()));
                                }
                            }
                        }
                    }
                    stats.add("rejected_surface_not_invariant", 1);
                    stats.note(format!(
                        "{}: operand %{} not raised: the surface (width, height, pitch) is not a function of kernel arguments ({})",
                        location(m, uses[0].mma),
                        x.word(),
                        bad.join(", ")
                    ));
                    continue;
                }
                ok_plans.push((x, p, uses));
            }
            if ok_plans.is_empty() {
                continue;
            }
            let lp = LoopPlan {
                staging_stores: st.stores.clone(),
                staging_loads: st.loads.clone(),
                barriers: st.barriers.clone(),
                barrier: st.barrier,
                plans: ok_plans,
            };
            match plans_done.iter_mut().find(|p| p.func == *f) {
                Some(p) => p.loops.push(lp),
                None => plans_done.push(Planned {
                    func: *f,
                    sg,
                    lanes: nx,
                    exact,
                    loops: vec![lp],
                    lane_map: lanes,
                }),
            }
        }
        drop((cfg, pdom, loops, facts));
        let mut changed = false;
        let mut types = Interner::default();
        for planned in plans_done {
            let raised: u64 = planned.loops.iter().map(|l| l.plans.len() as u64).sum();
            if !changes.allow() {
                stats.add("skipped_max_changes", raised);
                continue;
            }
            match apply(m, &mut types, &dec, &dom, planned, &mut stats) {
                Ok(()) => changed = true,
                Err(why) => {
                    return Err(PassError::Failed {
                        pass: "raise-block-io",
                        message: why,
                    })
                }
            }
        }
        if !changed {
            return Ok(PassResult::unchanged(stats));
        }
        m.sort_global_section();
        let mut errors = Vec::new();
        let mut scratch = Statistics::default();
        capabilities::run(m, &mut scratch, &mut errors);
        if let Some(e) = errors.first() {
            return Err(PassError::Failed {
                pass: "raise-block-io",
                message: e.clone(),
            });
        }
        Ok(PassResult {
            changed: true,
            preserved: AnalysisSet::NONE,
            stats,
        })
    }
}

/// Whether `f` starts with this pass's dispatch: a first block ending in a conditional branch
/// to a block that only calls another function with `f`'s parameters and returns its result.
fn is_dispatcher(m: &Module, f: FuncId) -> bool {
    let func = m.function(f);
    let Some(&entry) = func.blocks.first() else {
        return false;
    };
    let Some(t) = m.block_terminator(entry) else {
        return false;
    };
    let term = m.inst(t);
    if !term.is(Op::BranchConditional) {
        return false;
    }
    let Some(target) = term.operand_id(1) else {
        return false;
    };
    let Some(fast) = func
        .blocks
        .iter()
        .copied()
        .find(|&b| m.block_label(b) == target)
    else {
        return false;
    };
    let insts: Vec<InstId> = m
        .block_insts(fast)
        .filter(|&i| !m.inst(i).is(Op::Label))
        .collect();
    let [call, ret] = insts[..] else { return false };
    let (call, ret) = (m.inst(call), m.inst(ret));
    let params: Vec<u32> = func
        .header
        .iter()
        .filter_map(|&p| m.inst(p).result_id())
        .map(|p| p.word())
        .collect();
    call.is(Op::FunctionCall)
        && call.operands().len() == 1 + params.len()
        && call.operands()[1..] == params[..]
        && (ret.is(Op::Return) || ret.is(Op::ReturnValue))
}

/// MMA operands in the module (for statistics on targets without 2D block IO).
fn count_candidates(m: &Module) -> u64 {
    let mut n = 0;
    for f in m.function_ids() {
        let mut seen = Vec::new();
        for &b in &m.function(f).blocks {
            for i in m.block_insts(b) {
                let inst = m.inst(i);
                if inst.is(Op::SubgroupMatrixMultiplyAccumulateINTEL) {
                    for k in [1, 2] {
                        if let Some(x) = inst.operand_id(k) {
                            if !seen.contains(&x) {
                                seen.push(x);
                            }
                        }
                    }
                }
            }
        }
        n += seen.len() as u64;
    }
    n
}

/// What one loop's rewrite needs.
struct LoopPlan {
    staging_stores: Vec<InstId>,
    staging_loads: Vec<InstId>,
    barriers: Vec<InstId>,
    barrier: InstId,
    plans: Vec<(Id, OperandPlan, Vec<Slot>)>,
}

/// What one kernel function's rewrite needs: its loops.
struct Planned {
    func: FuncId,
    sg: u32,
    lanes: u32,
    exact: bool,
    loops: Vec<LoopPlan>,
    lane_map: LaneMap,
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

fn apply(
    m: &mut Module,
    types: &mut Interner,
    dec: &Decorations,
    dom: &Dominators,
    p: Planned,
    stats: &mut Statistics,
) -> Result<(), String> {
    let outside_ok: Vec<bool> = p
        .loops
        .iter()
        .map(|lp| loads_outside_are_rewritten(m, dec, dom, &p, lp))
        .collect();
    let (fast, map) = clone_function(m, p.func);
    let fast_id = m.function_result(fast).ok_or("clone without a result id")?;
    let sg_var = builtin_var(m, dec, BuiltIn::SubgroupId);
    let sg_var = builtin_u32(m, types, BuiltIn::SubgroupId, sg_var);
    let mapped = |id: Id| map.get(&id).copied().unwrap_or(id);
    // The clone's instructions, in the original's order.
    let all = |m: &Module, f: FuncId| -> Vec<InstId> {
        m.function(f)
            .blocks
            .iter()
            .flat_map(|&b| m.block_insts(b).collect::<Vec<_>>())
            .collect()
    };
    let (orig_insts, new_insts) = (all(m, p.func), all(m, fast));
    if orig_insts.len() != new_insts.len() {
        return Err("the copy of the kernel function differs in size".into());
    }
    let corr: HashMap<InstId, InstId> = orig_insts.into_iter().zip(new_insts).collect();
    for (lp, outside_ok) in p.loops.iter().zip(outside_ok) {
        let at = corr[&lp.barrier];
        let mut b = Builder {
            m: &mut *m,
            types: &mut *types,
            at,
            atom_map: map.clone(),
            count: 0,
        };
        let u32t = b.int(32);
        // The subgroup id (lid.x / SG in a (n, 1, 1) work-group, which the dispatch checks).
        let sg_ty =
            b.m.def_inst(sg_var)
                .and_then(|v| v.result_type())
                .and_then(|pt| pointer_of(b.m, pt))
                .map(|(_, t)| t)
                .ok_or("subgroup id type")?;
        let sgid = b.op(Op::Load, sg_ty, &[sg_var.word()]);
        let sgid = b.resize(sgid, 32);
        let n_sub = (p.lanes / p.sg) as usize;
        let mut bits = Vec::new();
        let one = b.konst(32, 1);
        let mut k = 0;
        while (1usize << k) < n_sub {
            let sh = b.konst(32, k as i64);
            let v = b.op(Op::ShiftRightLogical, u32t, &[sgid.word(), sh.word()]);
            bits.push(b.op(Op::BitwiseAnd, u32t, &[v.word(), one.word()]));
            k += 1;
        }
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
                        recompute_in_clone(&mut b, dom, lp.barrier, a, &corr);
                    }
                }
            }
        }
        let v2 = b.types.vector(b.m, u32t, 2);
        let mut replaced: Vec<(InstId, usize, Id)> = Vec::new();
        for (x, plan, uses) in &lp.plans {
            let xv = b
                .subgroup_poly(&plan.x, &bits, 32)
                .ok_or("column origin does not fit the subgroups")?;
            let yv = b
                .subgroup_poly(&plan.y, &bits, 32)
                .ok_or("row origin does not fit the subgroups")?;
            let wv = b.poly(&plan.width, 32).ok_or("width")?;
            let hv = b.poly(&plan.height, 32).ok_or("height")?;
            let pv = b.poly(&plan.pitch, 32).ok_or("pitch")?;
            let coord = b.op(Op::CompositeConstruct, v2, &[xv.word(), yv.word()]);
            let ty = b.m.type_of(*x).ok_or("operand type")?;
            let pty = b.types.pointer(b.m, StorageClass::Function, ty);
            let var = b.m.fresh_id();
            let entry = *b.m.function(fast).blocks.first().ok_or("empty copy")?;
            let first = b.m.block_first(entry).ok_or("empty entry")?;
            b.m.insert_before(
                first,
                Inst::new(
                    Op::Variable,
                    Some(pty),
                    Some(var),
                    &[StorageClass::Function as u32],
                ),
            );
            let (e, w, h, c) = plan.shape;
            let ek = b.konst(32, i64::from(e));
            let wk = b.konst(32, i64::from(w));
            let hk = b.konst(32, i64::from(h));
            let ck = b.konst(32, i64::from(c));
            let base = mapped(plan.base);
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
            let mut val = b.op(Op::Load, ty, &[var.word()]);
            if !plan.uniform_conds.is_empty() {
                let bt = b.types.bool(b.m);
                let mut c: Option<Id> = None;
                for &(cid, _) in &plan.uniform_conds {
                    let cid = mapped(cid);
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
            stats.add(kind_key(plan.kind), 1);
            stats.note(format!(
                "{}: operand %{} raised: {} {}b {}r{}x{}c",
                location(b.m, uses[0].mma),
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
        for (mma, index, val) in replaced {
            m.inst_mut(mma).operands_mut()[index] = val.word();
        }
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
            stats.add("staging_stores_removed", lp.staging_stores.len() as u64);
            stats.add("barriers_removed", lp.barriers.len() as u64);
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
    // The masked loads' branches are empty now; their conditions go with them.
    let folded = crate::cfg_edit::fold_empty_branches(m, fast);
    if folded > 0 {
        remove_dead(m, fast);
        stats.add("branches_folded", folded as u64);
    }
    // The loads' coordinates: computed once, outside the loop.
    let tidied = tidy::tidy(m, fast);
    stats.add("loop_invariants_hoisted", tidied.hoisted);
    stats.add("subexpressions_merged", tidied.merged);
    // The dispatch: run the copy when the run-time conditions hold.
    let wg_var = builtin_var(m, dec, BuiltIn::WorkgroupSize);
    // Plans of one surface (every A operand of both K loops, say) need one check.
    let mut plans: Vec<&OperandPlan> = Vec::new();
    for pl in p
        .loops
        .iter()
        .flat_map(|l| l.plans.iter().map(|(_, pl, _)| pl))
    {
        if !plans.iter().any(|q| same_checks(q, pl)) {
            plans.push(pl);
        }
    }
    let (lanes, exact, func) = (p.lanes, p.exact, p.func);
    let assumptions = p.lane_map.assumptions.clone();
    let widenings = p.lane_map.widenings.clone();
    dispatch(m, types, func, fast_id, |m, types, at| {
        let mut b = Builder {
            m,
            types,
            at,
            atom_map: HashMap::new(),
            count: 0,
        };
        let bt = b.types.bool(b.m);
        let i64t = b.int(64);
        let mut conds: Vec<Id> = Vec::new();
        if !exact {
            let var = builtin_vec3(b.m, b.types, BuiltIn::WorkgroupSize, wg_var);
            let vt =
                b.m.def_inst(var)
                    .and_then(|v| v.result_type())
                    .and_then(|pt| pointer_of(b.m, pt))
                    .map(|(_, t)| t)?;
            let ct = b.m.def_inst(vt).and_then(|t| t.operand_id(0))?;
            let v = b.op(Op::Load, vt, &[var.word()]);
            for (d, want) in [(0u32, i64::from(lanes)), (1, 1), (2, 1)] {
                let c = b.op(Op::CompositeExtract, ct, &[v.word(), d]);
                let c = b.resize(c, 64);
                let k = b.konst(64, want);
                conds.push(b.op(Op::IEqual, bt, &[c.word(), k.word()]));
            }
        }
        let mut memo = HashMap::new();
        for plan in &plans {
            // Atoms of the surface are recomputed here from the kernel's arguments.
            for poly in [&plan.width, &plan.height, &plan.pitch] {
                for (mono, _) in poly.terms() {
                    for &a in mono {
                        let v = emit::copy_tree(b.m, func, a, b.at, &mut memo)?;
                        b.atom_map.insert(a, v);
                    }
                }
            }
            let w = b.poly(&plan.width, 64)?;
            let h = b.poly(&plan.height, 64)?;
            let pitch = b.poly(&plan.pitch, 64)?;
            let base = b.op(Op::ConvertPtrToU, i64t, &[plan.base.word()]);
            let cmp = |b: &mut Builder, op: Op, v: Id, k: i64| {
                let kk = b.konst(64, k);
                b.op(op, bt, &[v.word(), kk.word()])
            };
            let low_bits_zero = |b: &mut Builder, v: Id, mask: i64| {
                let kk = b.konst(64, mask);
                let r = b.op(Op::BitwiseAnd, i64t, &[v.word(), kk.word()]);
                let z = b.konst(64, 0);
                b.op(Op::IEqual, bt, &[r.word(), z.word()])
            };
            conds.push(low_bits_zero(&mut b, base, 63));
            conds.push(cmp(&mut b, Op::SGreaterThanEqual, w, 64));
            conds.push(cmp(&mut b, Op::SLessThanEqual, w, 1 << 24));
            conds.push(low_bits_zero(&mut b, w, 3));
            conds.push(cmp(&mut b, Op::SGreaterThanEqual, pitch, 64));
            conds.push(cmp(&mut b, Op::SLessThanEqual, pitch, 1 << 24));
            conds.push(low_bits_zero(&mut b, pitch, 15));
            conds.push(b.op(Op::SGreaterThanEqual, bt, &[pitch.word(), w.word()]));
            conds.push(cmp(&mut b, Op::SGreaterThanEqual, h, 1));
            conds.push(cmp(&mut b, Op::SLessThanEqual, h, 1 << 24));
            let size = b.op(Op::IMul, i64t, &[h.word(), pitch.word()]);
            conds.push(cmp(&mut b, Op::SLessThan, size, 1 << 31));
            if plan.width_multiple > 1 {
                let bytes = i64::from(plan.width_multiple * plan.shape.0);
                conds.push(low_bits_zero(&mut b, w, bytes - 1));
            }
            for (lhs, rhs) in &plan.at_least {
                for poly in [lhs, rhs] {
                    for (mono, _) in poly.terms() {
                        for &x in mono {
                            let v = emit::copy_tree(b.m, func, x, b.at, &mut memo)?;
                            b.atom_map.insert(x, v);
                        }
                    }
                }
                let l = b.poly(lhs, 64)?;
                let r = b.poly(rhs, 64)?;
                conds.push(b.op(Op::SGreaterThanEqual, bt, &[l.word(), r.word()]));
            }
            for &a in &plan.nonneg_checks {
                let v = emit::copy_tree(b.m, func, a, b.at, &mut memo)?;
                let v = b.resize(v, 32);
                let z = b.konst(32, 0);
                conds.push(b.op(Op::SGreaterThanEqual, bt, &[v.word(), z.word()]));
            }
        }
        // The lane map's remainders taken as their dividend: 0 ≤ a < b in every invocation.
        for (_, a, bound) in &assumptions {
            let sym = a.with_constant_part(Coef::Same(0));
            let cst = a.constant_part();
            let (lo, hi) = (0..lanes as usize).fold((i64::MAX, i64::MIN), |(lo, hi), l| {
                (lo.min(cst.at(l)), hi.max(cst.at(l)))
            });
            for poly in [&sym, bound] {
                for (mono, _) in poly.terms() {
                    for &x in mono {
                        let v = emit::copy_tree(b.m, func, x, b.at, &mut memo)?;
                        b.atom_map.insert(x, v);
                    }
                }
            }
            let sv = b.poly(&sym, a.width)?;
            let sv = b.resize(sv, 64);
            let bv = b.poly(bound, bound.width)?;
            let bv = b.resize(bv, 64);
            let lo_k = b.konst(64, lo);
            let hi_k = b.konst(64, hi);
            let smin = b.op(Op::IAdd, i64t, &[sv.word(), lo_k.word()]);
            let smax = b.op(Op::IAdd, i64t, &[sv.word(), hi_k.word()]);
            let z = b.konst(64, 0);
            conds.push(b.op(Op::SGreaterThanEqual, bt, &[smin.word(), z.word()]));
            conds.push(b.op(Op::SLessThan, bt, &[smax.word(), bv.word()]));
        }
        // Widenings taken exactly: the operand at its own width, extended, is its polynomial.
        for (_, a, signed) in &widenings {
            for (mono, _) in a.terms() {
                for &x in mono {
                    let v = emit::copy_tree(b.m, func, x, b.at, &mut memo)?;
                    b.atom_map.insert(x, v);
                }
            }
            let narrow = b.poly(a, a.width)?;
            let extended = if *signed {
                b.resize(narrow, 64)
            } else {
                b.op(Op::UConvert, i64t, &[narrow.word()])
            };
            let exact = b.poly(a, 64)?;
            conds.push(b.op(Op::IEqual, bt, &[extended.word(), exact.word()]));
        }
        let mut g = *conds.first()?;
        for &c in &conds[1..] {
            g = b.op(Op::LogicalAnd, bt, &[g.word(), c.word()]);
        }
        Some(g)
    })
    .ok_or("the run-time check could not be built")?;
    stats.add("kernels_versioned", 1);
    Ok(())
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
        && a.shape.0 == b.shape.0
        && a.width_multiple == b.width_multiple
        && a.width.same_as(&b.width)
        && a.height.same_as(&b.height)
        && a.pitch.same_as(&b.pitch)
        && a.nonneg_checks == b.nonneg_checks
        && same_pairs(&a.at_least, &b.at_least)
}

/// Makes `Builder::atom_map[a]` a value of the clone available at the builder's insertion point
/// (`at` in the original): the clone's copy of `a` when `a` dominates `at`, else a recomputation
/// of `a`'s pure definition there (operands first).
fn recompute_in_clone(
    b: &mut Builder,
    dom: &Dominators,
    at: InstId,
    a: Id,
    corr: &HashMap<InstId, InstId>,
) {
    let m = &*b.m;
    let Some(d) = m.def(a) else { return };
    let Some(db) = m.inst_block(d) else { return };
    let Some(ab) = m.inst_block(at) else { return };
    let before = if db == ab {
        let mut i = m.prev_inst(at);
        let mut found = false;
        while let Some(x) = i {
            if x == d {
                found = true;
                break;
            }
            i = m.prev_inst(x);
        }
        found
    } else {
        dom.dominates(db, ab)
    };
    if before || !corr.contains_key(&d) {
        return;
    }
    let mut used = Vec::new();
    m.for_each_used_id(d, |u| used.push(u));
    let mut inst = m.inst(d).clone();
    for u in used {
        recompute_in_clone(b, dom, at, u, corr);
    }
    let r = b.m.fresh_id();
    inst.set_result_id(r);
    let ni = b.m.insert_before(b.at, inst);
    let map = b.atom_map.clone();
    b.m.map_used_ids(ni, |u| map.get(&u).copied().unwrap_or(u));
    b.atom_map.insert(a, r);
}

/// Whether every Workgroup load of the function outside the loop reads only bytes that
/// stores after the loop write again before it (so removing the loop's stores changes
/// nothing it reads): each such store dominates the load, and is itself dominated by the
/// loop's header without being in the loop.
fn loads_outside_are_rewritten(
    m: &Module,
    dec: &Decorations,
    dom: &Dominators,
    p: &Planned,
    lp: &LoopPlan,
) -> bool {
    let lanes = &p.lane_map;
    let f = p.func;
    let Some(loop_block) = m.inst_block(lp.barrier) else {
        return false;
    };
    let in_loop = |b| {
        lp.staging_stores
            .iter()
            .chain(&lp.staging_loads)
            .chain(&lp.barriers)
            .any(|&i| m.inst_block(i) == Some(b))
    };
    let mut outside_loads = Vec::new();
    let mut outside_stores = Vec::new();
    for &b in &m.function(f).blocks {
        for i in m.block_insts(b) {
            if lp.staging_stores.contains(&i) || lp.staging_loads.contains(&i) {
                continue;
            }
            let inst = m.inst(i);
            let ptr = match inst.op() {
                Some(Op::Load) => inst.operand_id(0),
                Some(Op::Store) => inst.operand_id(0),
                _ => continue,
            };
            let Some(ptr) = ptr else { continue };
            let wg = m
                .type_of(ptr)
                .and_then(|t| pointer_of(m, t))
                .is_some_and(|(sc, _)| sc == StorageClass::Workgroup as u32);
            if !wg {
                continue;
            }
            if inst.is(Op::Load) {
                outside_loads.push((i, b, ptr));
            } else {
                outside_stores.push((i, b, ptr));
            }
        }
    }
    let size_of = |id: Id| {
        m.type_of(id)
            .and_then(|t| spvopt_analysis::types::size_of(m, dec, t))
    };
    // Whether instruction a (in block ab) comes before b (in block bb) on every path.
    let before = |a: InstId, ab, b: InstId, bb| {
        if ab == bb {
            let mut i = m.next_inst(a);
            while let Some(x) = i {
                if x == b {
                    return true;
                }
                i = m.next_inst(x);
            }
            false
        } else {
            dom.dominates(ab, bb)
        }
    };
    // Whether the loop can run after `from` (a path from `from` to the loop's block).
    let mut reach_cache: HashMap<spvopt_ir::BlockId, bool> = HashMap::new();
    let reaches = |from: spvopt_ir::BlockId,
                   to: spvopt_ir::BlockId,
                   cache: &mut HashMap<spvopt_ir::BlockId, bool>|
     -> bool {
        if let Some(&r) = cache.get(&from) {
            return r;
        }
        let mut seen = std::collections::HashSet::new();
        let mut stack = vec![from];
        let mut found = false;
        while let Some(b) = stack.pop() {
            if b == to {
                found = true;
                break;
            }
            if !seen.insert(b) {
                continue;
            }
            spvopt_analysis::cfg::for_each_successor(m, b, |x| stack.push(x));
        }
        cache.insert(from, found);
        found
    };
    for &(ld, lb, ptr) in &outside_loads {
        if in_loop(lb) {
            // A Workgroup load of the loop that is not part of the staging.
            return false;
        }
        let Some(pp) = lanes.poly(ptr) else {
            return false;
        };
        let Some(size) = m.inst(ld).result_id().and_then(size_of) else {
            return false;
        };
        let mut written = std::collections::HashSet::new();
        for &(st, sb, sptr) in &outside_stores {
            if in_loop(sb) || !before(st, sb, ld, lb) || reaches(sb, loop_block, &mut reach_cache) {
                continue;
            }
            let Some(sp) = lanes.poly(sptr) else { continue };
            let Some(sroot) = workgroup_root(sp) else {
                continue;
            };
            let Some(ssize) = m.inst(st).operand_id(1).and_then(size_of) else {
                continue;
            };
            let off = sp.constant_part();
            for l in 0..lanes.lanes {
                for k in 0..ssize as i64 {
                    written.insert((sroot, off.at(l) + k));
                }
            }
        }
        let Some(root) = workgroup_root(pp) else {
            return false;
        };
        let off = pp.constant_part();
        for l in 0..lanes.lanes {
            for k in 0..size as i64 {
                if !written.contains(&(root, off.at(l) + k)) {
                    return false;
                }
            }
        }
    }
    true
}

/// The root of a Workgroup address: its one atom (coefficient 1), the rest a table.
fn workgroup_root(p: &Poly) -> Option<Id> {
    let mut root = None;
    for (mono, c) in p.terms() {
        match mono.as_slice() {
            [] => {}
            [a] if matches!(c, Coef::Same(1)) && root.is_none() => root = Some(*a),
            _ => return None,
        }
    }
    root
}
