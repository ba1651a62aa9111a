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
//! barriers go, and the global loads, shuffles and address arithmetic with them. A result
//! tile the kernel writes back through Workgroup memory after its loops is stored with 2D block
//! stores by the invocations that hold it (`epilogue.rs`, which says when and why).
//!
//! When it applies (every condition is checked; a candidate that fails one is counted under
//! one reason): the staging is understood (`staging.rs`); the operand's elements are whole
//! global elements at `base + (Y(s) + row)·pitch + (X(s) + col)·E` for a CrossWorkgroup
//! parameter `base`, a one-term (or constant) pitch and per-subgroup origins (`plan.rs`);
//! masks are exactly the block's bounds (row < M, column < K; a vector-granular column mask
//! needs K to be a multiple of the vector) or work-group-uniform conditions (kept as a select),
//! and a dimension no mask bounds is bounded by a remainder, a loop's trip count or the extent
//! the work-group reads; the loop writes no global memory and calls nothing.
//!
//! Why it is correct: the value an invocation read from Workgroup memory is the value its
//! unique writer stored in the same iteration, which is the global element the writer loaded
//! in that iteration (no global memory is written in the loop, so loading it later gives the
//! same value); the block load deals exactly those elements in that order (the layout's
//! formulas are the simulator's), and returns 0 exactly where the mask did. Every fact the
//! raised copy relies on is an obligation (`obligation.rs`) discharged in one place: proven
//! from the module (then nothing is checked for it), rejected, or checked once per work-group
//! before the kernel body, the unchanged body running when a check fails (and kept only when
//! something is checked): the work-group really is `(n, 1, 1)` (the lane map's assumption),
//! the surfaces are legal for 2D block IO (base aligned as the target needs: 64 bytes, 4 on
//! cri; width 64..2^24 bytes and a multiple of 4, pitch ≥ width, a multiple of 16, ≤ 2^24,
//! height 1..2^24), the masked column
//! bounds are multiples of the vector width, and the surface is under 2^31 bytes (the kernel's
//! 32-bit index arithmetic does not wrap). The body with block loads is a copy of the kernel
//! function, called from the original when the check holds.
//!
//! Phases: find the MMA groups (here), plan each loop (`loop_plan.rs`: screen, lane map,
//! staging, operand plans in `plan.rs`), plan the result tiles (`epilogue.rs`), rewrite
//! (`rewrite.rs`).
//!
//! One rewrite (`--max-changes`): one loop's operands of one kernel function (the copy, the
//! dispatch, the loads and the removal of the staging together).
//! Cost: the lane map is O(values · invocations) per kernel function with staging; each operand
//! costs O(invocations · elements) to trace and match; kernels without Workgroup staging feeding
//! MMAs cost one scan.

use std::collections::HashMap;

use spirv::Op;
use spvopt_analysis::decorations::Decorations;
use spvopt_analysis::lane_map::LaneMap;
use spvopt_analysis::loops::LoopId;
use spvopt_analysis::{
    Analyses, AnalysisSet, Cfg, Dominators, KernelFacts, Loops, PostDominators, Target,
};
use spvopt_ir::{FuncId, Id, InstId, Interner, Module};

use crate::edit::{capabilities, location};
use crate::pass::{Changes, Pass, PassError, PassResult, Statistics};

mod available;
mod dont_care;
mod emit;
mod epilogue;
mod loop_plan;
mod obligation;
mod plan;
mod reject;
mod rewrite;
mod staging;
mod store_rewrite;
mod tidy;
mod trace;
mod unroll;

use available::unavailable;
use loop_plan::{plan_loop, PlanInputs};
use plan::OperandReject;
use rewrite::{apply, Planned};
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

    /// Strided staging loops (`unroll.rs`) are unrolled in a copy of the module first; the copy
    /// is kept only when the pass then raises something in it.
    fn run(
        &mut self,
        m: &mut Module,
        analyses: &mut Analyses,
        target: &Target,
        changes: &mut Changes,
    ) -> Result<PassResult, PassError> {
        let mut over_budget = 0;
        if target.has_2d_block_io() {
            let (work, u) = unrolled_copy(m, analyses);
            over_budget = u.over_budget;
            if let Some(mut work) = work.filter(|_| u.loops > 0) {
                let mut fresh = Analyses::new();
                let mut r = self.run_once(&mut work, &mut fresh, target, changes)?;
                if r.changed {
                    *m = work;
                    r.stats.add("staging_loops_unrolled", u.loops);
                    if over_budget > 0 {
                        r.stats.add("rejected_unroll_over_budget", over_budget);
                    }
                    return Ok(r);
                }
            }
        }
        let mut r = self.run_once(m, analyses, target, changes)?;
        if over_budget > 0 {
            r.stats.add("rejected_unroll_over_budget", over_budget);
        }
        Ok(r)
    }
}

/// A copy of `m` whose strided staging loops are unrolled (`unroll.rs`), in the functions whose
/// work-group size is declared (the lane map's invocations are then the real ones), and what
/// was done; `None` when no function has a nested loop to look at.
fn unrolled_copy(m: &Module, analyses: &mut Analyses) -> (Option<Module>, unroll::Unrolled) {
    let cfg = analyses.get::<Cfg>(m);
    let pdom = analyses.get::<PostDominators>(m);
    let loops = analyses.get::<Loops>(m);
    let facts = analyses.get::<KernelFacts>(m);
    let dec = analyses.get::<Decorations>(m);
    let mut work: Option<Module> = None;
    let mut total = unroll::Unrolled::default();
    for f in m.function_ids() {
        let Ok((sg, shape, true)) = workgroup_shape(&facts, f) else {
            continue;
        };
        let nested = loops
            .ids()
            .any(|l| loops.get(l).is_some_and(|d| d.func == f && d.depth >= 2));
        if !nested || is_dispatcher(m, f) {
            continue;
        }
        let shape = shape.map(|d| d as usize);
        let lanes = LaneMap::build(m, f, &cfg, &pdom, &dec, shape, sg as usize, false);
        let w = work.get_or_insert_with(|| m.clone());
        let u = unroll::unroll_function(w, &cfg, &loops, &lanes, f);
        total.loops += u.loops;
        total.over_budget += u.over_budget;
    }
    (work, total)
}

impl RaiseBlockIo {
    fn run_once(
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
        let dec = analyses.get::<Decorations>(m);
        let groups = mma_slot_groups(m, &loops);
        let inputs = PlanInputs {
            m,
            cfg: &cfg,
            dom: &dom,
            pdom: &pdom,
            loops: &loops,
            facts: &facts,
            dec: &dec,
            target,
        };
        let mut plans_done: Vec<Planned> = Vec::new();
        let mut lane_maps: HashMap<FuncId, LaneMap> = HashMap::new();
        for group in &groups {
            let Some(lp) = plan_loop(&inputs, group, &mut lane_maps, &mut stats) else {
                continue;
            };
            match plans_done.iter_mut().find(|p| p.func == lp.func) {
                Some(p) => p.loops.push(lp.plan),
                None => plans_done.push(Planned {
                    func: lp.func,
                    sg: lp.sg,
                    lanes: lp.lanes,
                    exact: lp.exact,
                    loops: vec![lp.plan],
                    epilogue: None,
                    lane_map: lp.lane_map,
                }),
            }
        }
        // Result tiles stored through Workgroup memory after the loops.
        for f in m.function_ids() {
            plan_epilogue(&inputs, f, &mut lane_maps, &mut plans_done, &mut stats);
        }
        drop((cfg, pdom, loops, facts));
        let changed = apply_plans(m, &dec, &dom, plans_done, changes, &mut stats)?;
        if !changed {
            return Ok(PassResult::unchanged(stats));
        }
        m.sort_global_section();
        let mut errors = Vec::new();
        let mut scratch = Statistics::default();
        capabilities::run(m, &mut scratch, &mut errors);
        if !errors.is_empty() {
            return Err(PassError::failed("raise-block-io", errors));
        }
        Ok(PassResult {
            changed: true,
            preserved: AnalysisSet::NONE,
            stats,
        })
    }
}

/// The subgroup size, the work-group shape the lane map may assume and whether it is exact, of
/// function `f`: a declared work-group size (`LocalSize`, `reqd_work_group_size`) of any shape
/// is the real one; a bound only (`MaxWorkgroupSizeINTEL`) must be `(n, 1, 1)`, and the copy is
/// then only taken after a run-time check that the work-group is exactly that (`rewrite.rs`).
/// The invocations must fill whole subgroups (the subgroups are consecutive linear ids).
fn workgroup_shape(facts: &KernelFacts, f: FuncId) -> Result<(u32, [u32; 3], bool), &'static str> {
    let Some(sg) = facts.subgroup_size(f).known() else {
        return Err("the kernel declares no subgroup size");
    };
    let (shape, exact) = match (
        facts.local_size(f).known(),
        facts.workgroup_size_bound(f).known(),
    ) {
        (Some(s), _) => (s, true),
        (None, Some(b @ [_, 1, 1])) => (b, false),
        _ => return Err(
            "the kernel declares no work-group size, and no work-group bound of the form (n, 1, 1)",
        ),
    };
    let n = shape.iter().try_fold(1u32, |a, &d| a.checked_mul(d));
    match n {
        Some(n) if n != 0 && sg != 0 && n % sg == 0 && n <= 1024 => Ok((sg, shape, exact)),
        _ => Err("the work-group size is not a multiple of the subgroup size (or over 1024)"),
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

/// MMA operand slots of one function and innermost loop (`None`: not in a loop).
struct MmaGroup {
    func: FuncId,
    innermost: Option<LoopId>,
    slots: Vec<Slot>,
}

/// The MMA operand slots of `m` per (function, innermost loop), in module order.
fn mma_slot_groups(m: &Module, loops: &Loops) -> Vec<MmaGroup> {
    let mut groups: Vec<MmaGroup> = Vec::new();
    for f in m.function_ids() {
        for &b in &m.function(f).blocks {
            for i in m.block_insts(b) {
                let inst = m.inst(i);
                if !inst.is(Op::SubgroupMatrixMultiplyAccumulateINTEL) {
                    continue;
                }
                let l = loops.innermost(b);
                let k = match groups.iter().position(|g| g.func == f && g.innermost == l) {
                    Some(k) => k,
                    None => {
                        groups.push(MmaGroup {
                            func: f,
                            innermost: l,
                            slots: Vec::new(),
                        });
                        groups.len() - 1
                    }
                };
                for index in [1usize, 2] {
                    if let Some(operand) = inst.operand_id(index) {
                        groups[k].slots.push(Slot {
                            mma: i,
                            index,
                            operand,
                        });
                    }
                }
            }
        }
    }
    groups
}

/// Plans the result tiles function `f` stores through Workgroup memory after its loops (into
/// `plans_done`), or counts and notes why not.
fn plan_epilogue(
    inp: &PlanInputs,
    f: FuncId,
    lane_maps: &mut HashMap<FuncId, LaneMap>,
    plans_done: &mut Vec<Planned>,
    stats: &mut Statistics,
) {
    let m = inp.m;
    let tracer = Tracer {
        m,
        dec: inp.dec,
        cfg: inp.cfg,
        dom: inp.dom,
        func: f,
    };
    let stores = epilogue::candidates(m, &tracer, inp.loops, f);
    if stores.is_empty() {
        return;
    }
    let n = stores.len() as u64;
    stats.add("store_candidates", n);
    if is_dispatcher(m, f) {
        stats.add("store_skipped_fallback_body", n);
        return;
    }
    let reject = |stats: &mut Statistics, key: &'static str, why: &str, at: InstId| {
        stats.add(key, n);
        stats.note(format!(
            "{}: {n} global store(s) of staged data not raised: {why}",
            location(m, at)
        ));
    };
    let (sg, shape, exact) = match workgroup_shape(inp.facts, f) {
        Ok(s) => s,
        Err(why) => {
            reject(stats, "store_rejected_workgroup_shape", why, stores[0]);
            return;
        }
    };
    let nx = shape.iter().product::<u32>();
    let lanes = lane_maps
        .entry(f)
        .or_insert_with(|| {
            let shape = shape.map(|d| d as usize);
            LaneMap::build(m, f, inp.cfg, inp.pdom, inp.dec, shape, sg as usize, false)
        })
        .clone();
    if let Err((r, at)) = obligation::lane_map_usable(m, inp.dec, &lanes, f, nx) {
        let (key, why) = r.reason();
        let key = match r {
            OperandReject::NarrowWidening => "store_rejected_narrow_widening",
            OperandReject::UnprovableAssumption => "store_rejected_unprovable_assumption",
            _ => epilogue::store_key(key),
        };
        let at = at.unwrap_or(stores[0]);
        reject(stats, key, why, at);
        return;
    }
    if !lanes.assumptions.is_empty() || !lanes.widenings.is_empty() {
        // Only a lane map whose assumptions the loops' plans check is taken.
        if !plans_done.iter().any(|p| p.func == f) {
            reject(
                stats,
                "store_rejected_unprovable_assumption",
                "the addresses need run-time checks no raised loop makes",
                stores[0],
            );
            return;
        }
    }
    let cx = epilogue::Context {
        m,
        dec: inp.dec,
        cfg: inp.cfg,
        dom: inp.dom,
        pdom: inp.pdom,
        loops: inp.loops,
        lanes: &lanes,
        tracer: &tracer,
        target: inp.target,
    };
    let plan = match cx.plan(&stores) {
        Ok(p) => p,
        Err((r, at)) => {
            let (key, why) = r.reason();
            reject(stats, key, why, at.unwrap_or(stores[0]));
            return;
        }
    };
    if let Some((key, why)) = plan
        .tiles
        .iter()
        .find_map(|t| unavailable(m, inp.dom, f, plan.barrier, &t.plan, true))
    {
        reject(stats, epilogue::store_key(key), &why, stores[0]);
        return;
    }
    match plans_done.iter_mut().find(|p| p.func == f) {
        Some(p) => p.epilogue = Some(plan),
        None => plans_done.push(Planned {
            func: f,
            sg,
            lanes: nx,
            exact,
            loops: Vec::new(),
            epilogue: Some(plan),
            lane_map: lanes,
        }),
    }
}

/// Rewrites the planned kernel functions as far as `--max-changes` allows; whether any
/// changed.
fn apply_plans(
    m: &mut Module,
    dec: &Decorations,
    dom: &Dominators,
    plans_done: Vec<Planned>,
    changes: &mut Changes,
    stats: &mut Statistics,
) -> Result<bool, PassError> {
    let mut changed = false;
    let mut types = Interner::default();
    for planned in plans_done {
        let raised: u64 = planned.loops.iter().map(|l| l.plans.len() as u64).sum();
        if !changes.allow() {
            stats.add("skipped_max_changes", raised);
            if let Some(e) = &planned.epilogue {
                stats.add("store_skipped_max_changes", e.global_stores.len() as u64);
            }
            continue;
        }
        match apply(m, &mut types, dec, dom, planned, stats) {
            Ok(()) => changed = true,
            Err(why) => return Err(PassError::failed_because("raise-block-io", why)),
        }
    }
    Ok(changed)
}
