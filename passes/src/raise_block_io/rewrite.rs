//! raise-block-io's rewrite of one kernel function (see `raise_block_io.rs` for what the pass
//! does and why it is correct): the function is copied, each raised operand of the copy is
//! loaded with its 2D block load where the staged data became visible (`rewrite/loop_rewrite.rs`),
//! the staging that no Workgroup load reads any more goes, the copy is tidied (empty branches
//! folded, invariant code hoisted, equal instructions merged), and the original gets the
//! run-time check that calls the copy when every assumption of the plans holds
//! (`rewrite/check.rs`).

use std::collections::HashMap;

use spirv::{BuiltIn, MemorySemantics, Op, StorageClass};
use spvopt_analysis::builtins::{builtin_of_variable, debug_names};
use spvopt_analysis::decorations::Decorations;
use spvopt_analysis::lane_map::LaneMap;
use spvopt_analysis::types::pointer_of;
use spvopt_analysis::Dominators;
use spvopt_ir::{FuncId, Id, InstId, Interner, Module};

use super::emit::{builtin_u32, clone_function, dispatch, remove_dead, Guard};
use super::epilogue::EpiloguePlan;
use super::obligation::{discharge_all, lane_map_obligations, Facts, Obligation};
use super::plan::OperandPlan;
use super::staging::loads_outside_are_rewritten;
use super::{tidy, Slot};
use crate::edit::location;
use crate::pass::Statistics;

pub(super) mod check;
mod loop_rewrite;

use check::{check_groups, Check};
use loop_rewrite::LoopRewriter;

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

/// Rewrites kernel function `p.func`: its copy gets the block loads (and stores) of the plans
/// and loses the staging, and the original dispatches to the copy under the run-time check.
pub(super) fn apply(
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
    // The dispatch: run the copy when the run-time obligations hold.
    let wg_var = builtin_var(m, dec, BuiltIn::WorkgroupSize);
    let groups = check_groups(m, dom, &p);
    let kernel_wide = kernel_obligations(m, dec, &p, &relaxed)?;
    let func = p.func;
    let fallback_kept = dispatch(m, types, func, copy.fast_id, |m, types, at| {
        let mut check = Check::new(m, types, at, func, wg_var);
        for ob in &kernel_wide.shape {
            check.obligation(ob)?;
        }
        for group in &groups {
            check.group(group)?;
        }
        for ob in &kernel_wide.lane_map {
            check.obligation(ob)?;
        }
        // Nothing left to check at run time: the copy is the kernel.
        Some(check.conjunction().map_or(Guard::Always, Guard::When))
    })
    .ok_or("the run-time check could not be built")?;
    if fallback_kept {
        stats.add("kernels_versioned", 1);
    } else {
        stats.add("kernels_raised_unversioned", 1);
        stats.note(format!(
            "{}: every obligation of the raised kernel is proven: no run-time check, no fallback body",
            location(m, m.function(func).def)
        ));
    }
    Ok(())
}

/// The function-wide obligations of a rewrite left to run time: the work-group shape (checked
/// first: the lane map's tables assume it) and the lane map's (after the surfaces').
struct KernelObligations {
    shape: Vec<Obligation>,
    lane_map: Vec<Obligation>,
}

/// Discharges `p`'s function-wide obligations (`relaxed`: remainders whose upper bound the copy
/// no longer needs).
fn kernel_obligations(
    m: &Module,
    dec: &Decorations,
    p: &Planned,
    relaxed: &[Id],
) -> Result<KernelObligations, String> {
    let facts = Facts {
        m,
        dec,
        lanes: &p.lane_map,
        func: p.func,
    };
    let shape = if p.exact {
        Vec::new()
    } else {
        vec![Obligation::WorkgroupShape { lanes: p.lanes }]
    };
    let left = |obs: Vec<Obligation>| {
        discharge_all(&facts, obs)
            .map(|(left, _)| left)
            .map_err(|r| {
                format!(
                    "an obligation planning accepted is rejected: {}",
                    r.reason().1
                )
            })
    };
    Ok(KernelObligations {
        shape: left(shape)?,
        lane_map: left(lane_map_obligations(m, &p.lane_map, p.lanes, relaxed))?,
    })
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
