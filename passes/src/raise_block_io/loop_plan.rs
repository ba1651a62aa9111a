//! Planning one loop's MMA operands (see `raise_block_io.rs` for what the pass does and why
//! it is correct), in phases: the group is screened (not a fallback body, in an innermost
//! loop of depth 1, a work-group shape the lane map can take); its operands are staged or
//! gathered; the function's lane map is built and its own obligations (`obligation.rs`) must
//! be dischargeable; the staging is understood; the block loads' insertion point is found;
//! each operand is planned; and what is kept is what nothing else undoes (an operand left
//! staged keeps the staging for all, an operand whose values are not available at the
//! insertion point stays). Every rejection is counted under one reason and noted.

use std::collections::HashMap;

use spirv::StorageClass;
use spvopt_analysis::block_io::BlockKind;
use spvopt_analysis::decorations::Decorations;
use spvopt_analysis::lane_map::{LaneMap, Poly};
use spvopt_analysis::loops::LoopId;
use spvopt_analysis::types::pointer_of;
use spvopt_analysis::{Cfg, Dominators, KernelFacts, Loops, PostDominators, Target};
use spvopt_ir::{FuncId, Id, InstId, Module};

use super::available::unavailable;
use super::plan::{OperandPlan, OperandReject, Planner};
use super::rewrite::LoopPlan;
use super::staging::{Staging, StagingReject};
use super::trace::{ByteSource, Tracer};
use super::{element_size, emit, is_dispatcher, obligation, workgroup_shape, MmaGroup, Slot};
use crate::edit::location;
use crate::pass::Statistics;

/// The module and analyses the planning reads.
pub(super) struct PlanInputs<'a> {
    pub(super) m: &'a Module,
    pub(super) cfg: &'a Cfg,
    pub(super) dom: &'a Dominators,
    pub(super) pdom: &'a PostDominators,
    pub(super) loops: &'a Loops,
    pub(super) facts: &'a KernelFacts,
    pub(super) dec: &'a Decorations,
    pub(super) target: &'a Target,
}

/// A loop's plan and what its function's rewrite needs to know.
pub(super) struct LoopPlanned {
    pub(super) func: FuncId,
    pub(super) sg: u32,
    pub(super) lanes: u32,
    pub(super) exact: bool,
    pub(super) lane_map: LaneMap,
    pub(super) plan: LoopPlan,
}

/// A group that passed the screening: its loop, work-group and distinct operands.
struct Screened {
    l: LoopId,
    sg: u32,
    shape: [u32; 3],
    exact: bool,
    operands: Vec<Id>,
}

/// Counts and notes the rejection of every operand of one group.
struct GroupReport<'g> {
    n: u64,
    slots: &'g [Slot],
}

impl GroupReport<'_> {
    fn reject(
        &self,
        m: &Module,
        stats: &mut Statistics,
        key: &'static str,
        why: &str,
        at: Option<InstId>,
    ) {
        let n = self.n;
        stats.add(key, n);
        let loc = at
            .or(self.slots.first().map(|s| s.mma))
            .map(|i| location(m, i))
            .unwrap_or_default();
        stats.note(format!("{loc}: {n} MMA operand(s) not raised: {why}"));
    }
}

/// One operand's plan and the MMA slots it feeds.
type OperandPlanned = (Id, OperandPlan, Vec<Slot>);

/// Plans the operands of one group of MMAs (one function, one innermost loop), or counts and
/// notes why not; `lane_maps` caches each function's lane map.
pub(super) fn plan_loop(
    inp: &PlanInputs,
    group: &MmaGroup,
    lane_maps: &mut HashMap<FuncId, LaneMap>,
    stats: &mut Statistics,
) -> Option<LoopPlanned> {
    let m = inp.m;
    let f = group.func;
    let mut operands: Vec<Id> = group.slots.iter().map(|s| s.operand).collect();
    operands.sort_unstable();
    operands.dedup();
    let report = GroupReport {
        n: operands.len() as u64,
        slots: &group.slots,
    };
    stats.add("candidates", report.n);
    let sc = screen(inp, group, operands, &report, stats)?;
    let tracer = Tracer {
        m,
        dec: inp.dec,
        cfg: inp.cfg,
        dom: inp.dom,
        func: f,
    };
    let (staged, gathered) = sources(m, &tracer, &sc.operands);
    if !staged && !gathered {
        stats.add("not_staged", report.n);
        return None;
    }
    let lanes = lane_map(inp, f, sc.shape, sc.sg, lane_maps);
    // The lane map's own obligations (remainders, widenings): each must be checkable before
    // the body, and no lane-varying index may be widened from fewer than 32 bits.
    let nx = sc.shape.iter().product::<u32>();
    if let Err((r, at)) = obligation::lane_map_usable(m, inp.dec, &lanes, f, nx) {
        let (key, why) = r.reason();
        report.reject(m, stats, key, why, at);
        return None;
    }
    // The staging (its scan also rejects loops that write global memory or call); gathers
    // need none, only that scan.
    let st = match Staging::build(m, inp.dec, inp.loops, inp.dom, &lanes, sc.l) {
        Ok(s) => Some(s),
        Err(StagingReject::NoBarrier) if gathered => None,
        Err(e) => {
            let (key, why) = e.reason();
            report.reject(m, stats, key, why, e.at());
            return None;
        }
    };
    let insert_at = insertion_point(inp, st.as_ref(), &group.slots, &report, stats)?;
    let mut planner = Planner {
        m,
        lanes: &lanes,
        staging: st.as_ref(),
        tracer: &tracer,
        target: inp.target,
        stored: Default::default(),
    };
    let (plans, rejected) = plan_operands(&mut planner, &group.slots, &sc.operands);
    let plans = kept_plans(inp, group, insert_at, st.is_some(), plans, &rejected, stats);
    if plans.is_empty() {
        return None;
    }
    let plan = LoopPlan {
        staging_stores: st.as_ref().map(|s| s.stores.clone()).unwrap_or_default(),
        staging_loads: st.as_ref().map(|s| s.loads.clone()).unwrap_or_default(),
        barriers: st.as_ref().map(|s| s.barriers.clone()).unwrap_or_default(),
        barrier: insert_at,
        plans,
    };
    Some(LoopPlanned {
        func: f,
        sg: sc.sg,
        lanes: nx,
        exact: sc.exact,
        lane_map: lanes,
        plan,
    })
}

/// The group's loop and work-group, or the rejection (a fallback body is skipped).
fn screen(
    inp: &PlanInputs,
    group: &MmaGroup,
    operands: Vec<Id>,
    report: &GroupReport,
    stats: &mut Statistics,
) -> Option<Screened> {
    let m = inp.m;
    if is_dispatcher(m, group.func) {
        // The fallback body of a kernel this pass already raised.
        stats.add("skipped_fallback_body", report.n);
        return None;
    }
    let Some(l) = group.innermost else {
        report.reject(
            m,
            stats,
            "rejected_not_in_loop",
            "the MMA is not in a loop",
            None,
        );
        return None;
    };
    let (sg, shape, exact) = match workgroup_shape(inp.facts, group.func) {
        Ok(s) => s,
        Err(why) => {
            report.reject(m, stats, "rejected_workgroup_shape", why, None);
            return None;
        }
    };
    if inp.loops.get(l).is_some_and(|d| d.depth != 1) {
        let why = "the loop is nested in another loop";
        report.reject(m, stats, "rejected_loop_shape", why, None);
        return None;
    }
    Some(Screened {
        l,
        sg,
        shape,
        exact,
        operands,
    })
}

/// Whether some operand comes from a Workgroup load (staged), and otherwise whether some is
/// gathered by every invocation from global memory: a cheap filter before the lane map.
fn sources(m: &Module, tracer: &Tracer, operands: &[Id]) -> (bool, bool) {
    let class_of = |load: InstId| {
        m.inst(load)
            .operand_id(0)
            .and_then(|p| m.type_of(p))
            .and_then(|t| pointer_of(m, t))
            .map(|(sc, _)| sc)
    };
    let staged = operands.iter().any(|&x| {
        matches!(tracer.trace(x, 0), Ok(ByteSource::Load { load, .. })
            if class_of(load) == Some(StorageClass::Workgroup as u32))
    });
    let gathered = !staged
        && operands.iter().any(|&x| {
            matches!(tracer.trace(x, 0),
                Ok(ByteSource::Load { load, .. } | ByteSource::Masked { load, .. })
                if class_of(load) == Some(StorageClass::CrossWorkgroup as u32))
        });
    (staged, gathered)
}

/// Function `f`'s lane map (built once): widenings taken exactly need a run-time check of
/// their operand; where one cannot be checked before the body, they stay atoms.
fn lane_map(
    inp: &PlanInputs,
    f: FuncId,
    shape: [u32; 3],
    sg: u32,
    lane_maps: &mut HashMap<FuncId, LaneMap>,
) -> LaneMap {
    let m = inp.m;
    let checkable = |p: &Poly| {
        p.terms()
            .iter()
            .all(|(mono, _)| mono.iter().all(|&x| emit::copyable(m, f, x)))
    };
    lane_maps
        .entry(f)
        .or_insert_with(|| {
            let (shape, sg) = (shape.map(|d| d as usize), sg as usize);
            let (cfg, pdom, dec) = (inp.cfg, inp.pdom, inp.dec);
            let exact = LaneMap::build(m, f, cfg, pdom, dec, shape, sg, true);
            if exact.widenings.iter().all(|(_, a, _)| checkable(a)) {
                exact
            } else {
                LaneMap::build(m, f, cfg, pdom, dec, shape, sg, false)
            }
        })
        .clone()
}

/// Where the block loads go: at the barrier after the staging stores, or for gathers right
/// before the loop's first MMA (which must dominate the others).
fn insertion_point(
    inp: &PlanInputs,
    st: Option<&Staging>,
    slots: &[Slot],
    report: &GroupReport,
    stats: &mut Statistics,
) -> Option<InstId> {
    if let Some(st) = st {
        return Some(st.barrier);
    }
    let m = inp.m;
    let first = slots[0].mma;
    let fb = m.inst_block(first)?;
    let pos = |i: InstId| m.block_insts(fb).position(|x| x == i);
    let dominates_all = slots.iter().all(|s| match m.inst_block(s.mma) {
        Some(sb) if sb == fb => pos(first) <= pos(s.mma),
        Some(sb) => inp.dom.dominates(fb, sb),
        None => false,
    });
    if !dominates_all {
        let why = "the loop's first MMA does not dominate the others";
        report.reject(m, stats, "rejected_loop_shape", why, None);
        return None;
    }
    Some(first)
}

/// Each operand's plan (A: plain or transposed; B: VNNI, plain or transposed), or why not.
fn plan_operands(
    planner: &mut Planner,
    slots: &[Slot],
    operands: &[Id],
) -> (Vec<OperandPlanned>, Vec<(Id, OperandReject)>) {
    let m = planner.m;
    let mut plans = Vec::new();
    let mut rejected = Vec::new();
    for &x in operands {
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
    (plans, rejected)
}

/// The plans that are kept, the others counted and noted: an operand left staged keeps the
/// staging (stores, barriers, global loads), so loading the others with block loads on top of
/// it would add work, not remove it (gathers share nothing: each raised one is work removed);
/// and every atom a block load uses must be available where it goes.
fn kept_plans(
    inp: &PlanInputs,
    group: &MmaGroup,
    insert_at: InstId,
    staged: bool,
    mut plans: Vec<OperandPlanned>,
    rejected: &[(Id, OperandReject)],
    stats: &mut Statistics,
) -> Vec<OperandPlanned> {
    let (m, f, slots) = (inp.m, group.func, &group.slots);
    let note = |stats: &mut Statistics, at: InstId, x: Id, why: &str| {
        let loc = location(m, at);
        stats.note(format!("{loc}: operand %{} not raised: {why}", x.word()));
    };
    // Availability first: an operand whose block load cannot go where the data is needed stays
    // staged, and so keeps the staging for the others too.
    let mut available = Vec::with_capacity(plans.len());
    let mut unavailable_count = 0;
    for (x, p, uses) in plans.drain(..) {
        match unavailable(m, inp.dom, f, insert_at, &p, true) {
            None => available.push((x, p, uses)),
            Some((key, why)) => {
                stats.add(key, 1);
                note(stats, uses[0].mma, x, &why);
                unavailable_count += 1;
            }
        }
    }
    if (!rejected.is_empty() || unavailable_count > 0) && staged {
        for (x, _, uses) in available.drain(..) {
            stats.add("rejected_staging_kept", 1);
            note(
                stats,
                uses[0].mma,
                x,
                "other operands of the loop keep the staging",
            );
        }
    }
    for &(x, r) in rejected {
        let (key, why) = r.reason();
        stats.add(key, 1);
        match slots.iter().find(|s| s.operand == x) {
            Some(s) => note(stats, s.mma, x, why),
            None => stats.note(format!(": operand %{} not raised: {why}", x.word())),
        }
    }
    available
}
