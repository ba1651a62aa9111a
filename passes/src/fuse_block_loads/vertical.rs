//! Vertical fusion, `fuse-block-loads`' second phase: 2D block loads (and prefetches) of one
//! surface, the same columns and the same shape `W × H × count` at rows `y, y+H, …, y+(k-1)·H`
//! become one load of height `k·H` (and count `count`), placed where the last of them was.
//!
//! It runs after the column-wise phase, on its output, so blocks already merged across
//! columns (Block Count) are stacked too: four `8r16x2c` A loads at rows y, y+8, y+16, y+24
//! become one `32r16x2c`.
//!
//! Why the data is exactly the concatenation (SPV_INTEL_2d_block_io, "Mapping Block Data to
//! Invocations"; `W'` = W padded to a power of two, `S` = subgroup size):
//! - plain loads: the rows of a block are dealt to invocations in order — `W' = S`: one
//!   element per row; `W' > S`: `W'/S` elements per row; `W' < S`: `S/W'` rows per "row" of
//!   the subgroup. In every case rows `0..H` are invocation `l`'s first elements and rows
//!   `H..2H` its next ones, provided a block of `H` rows fills whole subgroup rows
//!   (`W'·H` a multiple of `S`); so the `k·H` block's data is the `k` blocks' data, one after
//!   the other;
//! - transformed loads: rows are first packed (2 per 32-bit value for 2-byte elements, 4 for
//!   1-byte ones) and the packed rows are dealt like a plain 32-bit block: exact when `H` is a
//!   multiple of the packing and `W'·H/pack` a multiple of `S`;
//! - transposed loads: the transposed block's rows are the original columns, so a taller block
//!   makes every transposed row longer and deals it differently: never exact (not fused);
//! - Block Count `c > 1`: each block's data comes whole, block 0 first; the `k·H` load's
//!   block `j` is the concatenation of the members' blocks `j`, so member `i`'s block `j` is at
//!   `(j·k + i)·P` (`P` per-invocation bytes of one `H`-row block), and the target's register
//!   rule (each block fills whole GRFs, `Target::block_count_concatenates`) must hold for the
//!   `k·H` block too;
//! - prefetches: no data; the `k·H` prefetch covers exactly the members' rows.
//!
//! When: as the column-wise phase (same block, nothing between that synchronises, writes the
//! region or touches a destination; constant shapes; known subgroup size), plus: the target's
//! table has the `k·H` shape; IGC is not measured to reject it (`Target::igc_rejects_block`,
//! the cost table); it costs fewer messages than the members (`Target::igc_messages`); and its
//! destination is at most [`MAX_LOAD_GRFS`] registers (the register budget of one message,
//! IGC's largest 2D load). Each considered load ends with one `vertical_outcome_*`, which sum
//! to `vertical_loads_considered`.

use spvopt_analysis::fxhash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::cell::{Cell, OnceCell, RefCell};

use spirv::{Op, StorageClass};
use spvopt_analysis::alias::{BlockGeometry, BlockRelation};
use spvopt_analysis::block_io::{block_instructions, BlockKind, BlockOperands};
use spvopt_analysis::provenance::Root;
use spvopt_analysis::{Analyses, KernelFacts, Target};
use spvopt_ir::opcode_class::synchronizes;
use spvopt_ir::{BlockId, Id, Inst, InstId, Interner, Module};

use super::on_demand::OnDemand;
use super::{Candidate, Ctx, FuseBlockLoads};
use crate::pass::{Changes, Statistics};

/// Most registers one fused load may write (IGC's largest 2D load, `32r16x2c` of 16-bit
/// elements, writes 32 64-byte GRFs).
pub(super) const MAX_LOAD_GRFS: u32 = 32;

/// Operands two loads must share to be stacked (the column-wise key plus the count).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct Key {
    kind: u8,
    element_size: u32,
    width: u32,
    height: u32,
    count: u32,
    base: spvopt_ir::Id,
    memory_width: spvopt_ir::Id,
    memory_height: spvopt_ir::Id,
    memory_pitch: spvopt_ir::Id,
}

fn key(c: &Candidate) -> Key {
    Key {
        kind: c.ops.kind as u8,
        element_size: c.shape.element_size,
        width: c.shape.width,
        height: c.shape.height,
        count: c.shape.count,
        base: c.ops.base,
        memory_width: c.ops.memory_width,
        memory_height: c.ops.memory_height,
        memory_pitch: c.ops.memory_pitch,
    }
}

/// Rows below `a` where `b` starts when both start at the same column of one surface in the
/// same iteration.
fn dy_in_same_columns(r: BlockRelation) -> Option<i64> {
    match r {
        BlockRelation::Disjoint {
            dx_bytes: 0,
            dy_rows,
        }
        | BlockRelation::Overlapping {
            dx_bytes: 0,
            dy_rows,
        } => Some(dy_rows),
        _ => None,
    }
}

/// Why `k` members of shape `c` cannot become one `k·H` operation, or `None` when they can.
pub(super) fn vertical_obstacle(
    target: &Target,
    sg: u32,
    c: &Candidate,
    k: u32,
) -> Option<&'static str> {
    let kind = c.ops.kind;
    let s = c.shape;
    if kind == BlockKind::LoadTranspose {
        return Some("transposed_layout");
    }
    let Some(h) = s.height.checked_mul(k) else {
        return Some("over_target_limit");
    };
    if !target.supports_2d_block(kind, s.element_size, s.width, h, s.count) {
        return Some("over_target_limit");
    }
    if target.igc_rejects_block(kind, s.element_size, s.width, h, s.count) {
        return Some("igc_rejects_shape");
    }
    let one = target.igc_messages(kind, s.element_size, s.width, s.height, s.count);
    let merged = target.igc_messages(kind, s.element_size, s.width, h, s.count);
    match (one, merged) {
        (Some(one), Some(merged)) if merged < one.saturating_mul(k) => {}
        _ => return Some("no_gain"),
    }
    if kind == BlockKind::Prefetch {
        return None;
    }
    let Some(wp) = s.width.checked_next_power_of_two() else {
        return Some("layout");
    };
    let rows = match (kind, s.element_size) {
        (BlockKind::LoadTransform, 1) => 4,
        (BlockKind::LoadTransform, 2) => 2,
        _ => 1,
    };
    if !s.height.is_multiple_of(rows)
        || !(u64::from(wp) * u64::from(s.height / rows)).is_multiple_of(u64::from(sg))
    {
        return Some("layout");
    }
    if !target.block_count_concatenates(s.element_size, s.width, h, s.count, sg) {
        return Some("register_rule");
    }
    let grfs = match target.igc_block_cost(kind, s.element_size, s.width, h, s.count) {
        Some(cost) => cost.registers,
        None => {
            let per = s
                .bytes_per_invocation_per_block(kind, sg)
                .unwrap_or(u32::MAX);
            let bytes = u64::from(per) * u64::from(k) * u64::from(s.count) * u64::from(sg);
            u32::try_from(bytes.div_ceil(u64::from(target.grf_bytes.max(1)))).unwrap_or(u32::MAX)
        }
    };
    if grfs > MAX_LOAD_GRFS {
        return Some("register_budget");
    }
    None
}

/// A planned stack: members from the top row down, and the last of them in program order.
struct Stack {
    members: Vec<Candidate>,
    at: InstId,
    /// Copies out of a member's destination between the members (the column phase's slices),
    /// moved, in order, after the stacked load's own copies.
    sink: Vec<InstId>,
}

/// Runs the phase; returns whether the module changed. Statistics go to `stats`
/// (`vertical_*`).
pub(super) fn fuse_vertically(
    m: &mut Module,
    analyses: &mut Analyses,
    target: &Target,
    changes: &mut Changes,
    stats: &mut Statistics,
) -> bool {
    let block_ops = block_instructions(m);
    if block_ops.len() < 2 {
        return false;
    }
    let geo = BlockGeometry::from_cache(m, analyses);
    let facts = analyses.get::<KernelFacts>(m);
    let lazy = OnDemand {
        m,
        analyses: RefCell::new(analyses),
        alias: OnceCell::new(),
        uni: OnceCell::new(),
        dom: OnceCell::new(),
        pdom: OnceCell::new(),
    };
    let reasons: RefCell<HashMap<InstId, &'static str>> = RefCell::new(HashMap::default());
    let mut considered: Vec<InstId> = Vec::new();
    let mut stacks: Vec<(BlockId, u32, Stack)> = Vec::new();
    // Rejections the shared checks record go here; the outcome per load is what counts.
    let mut scratch = Statistics::default();
    let func_of = |i: InstId| m.inst_block(i).map(|b| m.block(b).func);
    for func_ops in block_ops.chunk_by(|&a, &b| func_of(a) == func_of(b)) {
        let Some(f) = func_of(func_ops[0]) else {
            continue;
        };
        let ctx = Ctx {
            target,
            sg: facts.subgroup_size(f).known(),
            geo: &geo,
            lazy: &lazy,
            prov: geo.provenance(),
            reasons: &reasons,
            func: f,
            scan_budget: Cell::new(None),
        };
        for ops_of_block in func_ops.chunk_by(|&a, &b| m.inst_block(a) == m.inst_block(b)) {
            let Some(b) = m.inst_block(ops_of_block[0]) else {
                continue;
            };
            let cands = FuseBlockLoads::candidates(m, &ctx, b, ops_of_block, &mut scratch);
            considered.extend(
                cands
                    .iter()
                    .filter(|c| c.ops.kind.is_load())
                    .map(|c| c.inst),
            );
            if cands.len() < 2 {
                continue;
            }
            let Some(sg) = ctx.sg else {
                for c in &cands {
                    reasons.borrow_mut().insert(c.inst, "unknown_subgroup_size");
                }
                continue;
            };
            let body: Vec<InstId> = m.block_insts(b).collect();
            let mut groups: HashMap<Key, Vec<Candidate>> = HashMap::default();
            let mut order: Vec<Key> = Vec::new();
            for c in cands {
                let k = key(&c);
                if !groups.contains_key(&k) {
                    order.push(k);
                }
                groups.entry(k).or_default().push(c);
            }
            for k in order {
                let mut pending = groups.remove(&k).unwrap_or_default();
                while pending.len() >= 2 {
                    let leader = pending[0].clone();
                    let mut placed: Vec<(i64, Candidate)> = Vec::new();
                    let mut rest: Vec<Candidate> = Vec::new();
                    for c in pending {
                        let dy = if c.inst == leader.inst {
                            Some(0)
                        } else {
                            dy_in_same_columns(geo.block_relation_in_same_iteration(
                                m,
                                leader.inst,
                                &leader.footprint,
                                c.inst,
                                &c.footprint,
                            ))
                        };
                        match dy {
                            Some(dy) => placed.push((dy, c)),
                            None => rest.push(c),
                        }
                    }
                    placed.sort_by_key(|(dy, c)| (*dy, c.pos));
                    plan_column(m, &ctx, &body, b, sg, &placed, &mut stacks, &mut scratch);
                    pending = rest;
                }
            }
        }
    }

    let mut types = Interner::default();
    let mut fused: HashSet<InstId> = HashSet::default();
    let mut changed = false;
    for (b, sg, s) in stacks {
        let is_prefetch = s.members[0].ops.kind == BlockKind::Prefetch;
        if !changes.allow() {
            for c in &s.members {
                reasons.borrow_mut().insert(c.inst, "change_limit");
            }
            continue;
        }
        let ok = if is_prefetch {
            stack_prefetches(m, &mut types, &s.members)
        } else {
            stack_loads(m, &mut types, b, sg, &s)
        };
        if !ok {
            changes.undo();
            for c in &s.members {
                reasons.borrow_mut().insert(c.inst, "destination_type");
            }
            continue;
        }
        changed = true;
        let n = s.members.len() as u64;
        stats.add("vertical_messages_saved", n - 1);
        if is_prefetch {
            stats.add("vertical_prefetches_fused", n);
        } else {
            stats.add("vertical_loads_fused", n);
            fused.extend(s.members.iter().map(|c| c.inst));
        }
    }
    let reasons = reasons.into_inner();
    stats.add("vertical_loads_considered", considered.len() as u64);
    for i in considered {
        let key = if fused.contains(&i) {
            "vertical_outcome_fused"
        } else {
            match reasons.get(&i).copied().unwrap_or("no_partner") {
                "transposed_layout" => "vertical_outcome_kept_transposed_layout",
                "over_target_limit" => "vertical_outcome_kept_over_target_limit",
                "igc_rejects_shape" => "vertical_outcome_kept_igc_rejects_shape",
                "no_gain" => "vertical_outcome_kept_no_gain",
                "layout" => "vertical_outcome_kept_layout",
                "register_rule" => "vertical_outcome_kept_register_rule",
                "register_budget" => "vertical_outcome_kept_register_budget",
                "unknown_subgroup_size" => "vertical_outcome_kept_unknown_subgroup_size",
                "change_limit" => "vertical_outcome_kept_change_limit",
                "destination_type" => "vertical_outcome_kept_destination_type",
                "not_stacked" => "vertical_outcome_kept_not_stacked",
                r if r.starts_with("rejected_") => "vertical_outcome_kept_unsafe_between",
                _ => "vertical_outcome_kept_no_partner",
            }
        };
        stats.add(key, 1);
    }
    changed
}

/// Plans the stacks of one column (`placed`: candidates with their row offset from the
/// leader, top down): runs of rows `y, y+H, …`, each cut into the tallest fusable stacks.
#[allow(clippy::too_many_arguments)]
fn plan_column(
    m: &Module,
    ctx: &Ctx<'_>,
    body: &[InstId],
    b: BlockId,
    sg: u32,
    placed: &[(i64, Candidate)],
    stacks: &mut Vec<(BlockId, u32, Stack)>,
    scratch: &mut Statistics,
) {
    // Runs of exactly stacked members (equal offsets: a repeat, left to the reuse rule).
    let mut runs: Vec<Vec<Candidate>> = Vec::new();
    let mut next: Option<i64> = None;
    for (dy, c) in placed {
        if next == Some(*dy) {
            runs.last_mut().expect("started").push(c.clone());
        } else {
            runs.push(vec![c.clone()]);
        }
        next = Some(dy + i64::from(c.shape.height));
    }
    for run in &runs {
        if let [lone] = &run[..] {
            ctx.reasons.borrow_mut().insert(lone.inst, "not_stacked");
        }
    }
    for run in runs {
        let mut from = 0;
        while run.len() - from >= 2 {
            let first = &run[from];
            // The tallest stack starting here that every rule accepts.
            let mut best = None;
            let mut why = None;
            for k in 2..=(run.len() - from) {
                match vertical_obstacle(ctx.target, sg, first, k as u32) {
                    None => best = Some(k),
                    Some(r) => why = why.or(Some(r)),
                }
            }
            let Some(k) = best else {
                // The reason applies to the pair that could not start a stack.
                let why = why.unwrap_or("over_target_limit");
                let mut r = ctx.reasons.borrow_mut();
                r.insert(first.inst, why);
                r.insert(run[from + 1].inst, why);
                from += 1;
                continue;
            };
            let members = run[from..from + k].to_vec();
            let sink = if first.ops.kind == BlockKind::Prefetch {
                Some(Vec::new())
            } else {
                legal_stack(m, ctx, body, &members, scratch)
            };
            if let Some(sink) = sink {
                let at = members.iter().max_by_key(|c| c.pos).expect("k >= 2").inst;
                stacks.push((b, sg, Stack { members, at, sink }));
                from += k;
            } else {
                from += 1;
            }
        }
        if run.len() - from == 1 && run.len() > 1 {
            ctx.reasons
                .borrow_mut()
                .entry(run[from].inst)
                .or_insert("not_stacked");
        }
    }
}

/// Replaces `members` (loads, top row first) by one load of their total height at `at`, and
/// copies each member's blocks to its destination.
fn stack_loads(m: &mut Module, types: &mut Interner, b: BlockId, sg: u32, s: &Stack) -> bool {
    let (members, at) = (&s.members[..], s.at);
    let top = &members[0];
    let kind = top.ops.kind;
    let bits = if kind == BlockKind::LoadTransform {
        32
    } else {
        top.shape.element_size * 8
    };
    let Some(scalar) = super::rewrite::scalar_type(m, types, bits) else {
        return false;
    };
    let scalar_bytes = bits / 8;
    let Some(per_block) = top.shape.bytes_per_invocation_per_block(kind, sg) else {
        return false;
    };
    if per_block % scalar_bytes != 0 {
        return false;
    }
    let k = members.len() as u32;
    let count = top.shape.count;
    let Some(at_var) = super::rewrite::variable_insertion_point(m, b) else {
        return false;
    };
    let len = types.u32_const(m, per_block * k * count / scalar_bytes);
    let arr = types.array(m, scalar, len);
    let ptr_arr = types.pointer(m, StorageClass::Function, arr);
    let ptr_scalar = types.pointer(m, StorageClass::Function, scalar);
    let var = m.fresh_id();
    m.insert_before(
        at_var,
        Inst::new(
            Op::Variable,
            Some(ptr_arr),
            Some(var),
            &[StorageClass::Function as u32],
        ),
    );
    let p0 = m.fresh_id();
    m.insert_before(
        at,
        Inst::new(Op::Bitcast, Some(ptr_scalar), Some(p0), &[var.word()]),
    );
    let height = match m.type_of(top.ops.height) {
        Some(t) => types.int_const(m, t, u64::from(top.shape.height * k)),
        None => types.u32_const(m, top.shape.height * k),
    };
    let fused = BlockOperands {
        height,
        private: Some(p0),
        ..top.ops
    };
    m.insert_before(at, fused.to_inst());
    let size = types.u32_const(m, per_block);
    let offset_ptr = |m: &mut Module, types: &mut Interner, base, bytes: u32| {
        if bytes == 0 {
            return base;
        }
        let idx = types.u32_const(m, bytes / scalar_bytes);
        let p = m.fresh_id();
        m.insert_before(
            at,
            Inst::new(
                Op::InBoundsPtrAccessChain,
                Some(ptr_scalar),
                Some(p),
                &[base, idx.word()],
            ),
        );
        p.word()
    };
    for (i, c) in members.iter().enumerate() {
        let dst = c.ops.private.expect("loads have destinations");
        let dst_scalar = if count > 1 {
            let p = m.fresh_id();
            m.insert_before(
                at,
                Inst::new(Op::Bitcast, Some(ptr_scalar), Some(p), &[dst.word()]),
            );
            p.word()
        } else {
            dst.word()
        };
        for j in 0..count {
            let src = offset_ptr(m, types, p0.word(), (j * k + i as u32) * per_block);
            let to = offset_ptr(m, types, dst_scalar, j * per_block);
            m.insert_before(
                at,
                Inst::new(Op::CopyMemorySized, None, None, &[to, src, size.word()]),
            );
        }
    }
    for &i in &s.sink {
        m.move_before(i, at);
    }
    for c in members {
        m.erase(c.inst);
    }
    true
}

/// Whether `members` (loads of one block, top row first) may become one load at the last of
/// them: nothing between synchronises with other invocations or may write their region, and
/// whatever touches a member's destination there is a copy out of it into memory nothing else
/// between touches (the column phase's slices), which then moves after the stacked load. The
/// copies to move are returned; `None` (a rejection recorded) when the stack is not legal.
fn legal_stack(
    m: &Module,
    ctx: &Ctx<'_>,
    body: &[InstId],
    members: &[Candidate],
    stats: &mut Statistics,
) -> Option<Vec<InstId>> {
    let insts: Vec<InstId> = members.iter().map(|c| c.inst).collect();
    let lo = members.iter().map(|c| c.pos).min().unwrap_or(0);
    let hi = members.iter().map(|c| c.pos).max().unwrap_or(0);
    let prov = ctx.alias().provenance();
    let root = |id| match prov.root(id) {
        Root::Variable(v) => Some(v),
        _ => None,
    };
    let dst_roots: HashSet<Id> = members
        .iter()
        .filter_map(|c| c.ops.private.and_then(root))
        .collect();
    if dst_roots.len() != members.len() {
        // A destination that is not a variable of its own.
        ctx.reject(stats, "rejected_destination_used_between", 1, &insts);
        return None;
    }
    let mut sink = Vec::new();
    let mut sunk_targets: HashSet<Id> = HashSet::default();
    for &i in &body[lo + 1..hi] {
        let budget = ctx.scan_budget.get().unwrap_or_else(|| {
            let f = &m.function(ctx.func);
            super::scan_budget(f.blocks.iter().map(|&b| m.block_insts(b).count()).sum())
        });
        let Some(left) = budget.checked_sub(1) else {
            ctx.reject(stats, "rejected_scan_budget", 1, &insts);
            return None;
        };
        ctx.scan_budget.set(Some(left));
        if insts.contains(&i) {
            continue;
        }
        let inst = m.inst(i);
        if inst.op().is_some_and(synchronizes) {
            ctx.reject(stats, "rejected_barrier_between", 1, &insts);
            return None;
        }
        if super::is_address_arithmetic(inst.op()) {
            continue;
        }
        let mut roots: Vec<Option<Id>> = Vec::new();
        m.for_each_used_id(i, |u| roots.push(root(u)));
        let touches_dst = roots.iter().flatten().any(|v| dst_roots.contains(v));
        let touches_sunk = roots.iter().flatten().any(|v| sunk_targets.contains(v));
        if inst.is(Op::CopyMemorySized) && touches_dst && !touches_sunk {
            let (to, from) = (inst.operand_id(0), inst.operand_id(1));
            let (to, from) = (to.and_then(root), from.and_then(root));
            if let (Some(to), Some(from)) = (to, from) {
                if dst_roots.contains(&from) && !dst_roots.contains(&to) {
                    sink.push(i);
                    sunk_targets.insert(to);
                    continue;
                }
            }
        }
        if touches_dst || touches_sunk {
            ctx.reject(stats, "rejected_destination_used_between", 1, &insts);
            return None;
        }
        if ctx.alias().may_write(m, i)
            && members.iter().any(|c| {
                ctx.alias()
                    .may_write_read_region_in_same_iteration(m, i, c.inst)
            })
        {
            ctx.reject(stats, "rejected_aliasing_write_between", 1, &insts);
            return None;
        }
    }
    Some(sink)
}

/// Replaces `members` (prefetches, top row first) by one prefetch of their total height,
/// at the top member's position (its operands are available there).
fn stack_prefetches(m: &mut Module, types: &mut Interner, members: &[Candidate]) -> bool {
    let top = &members[0];
    let k = members.len() as u32;
    let height = match m.type_of(top.ops.height) {
        Some(t) => types.int_const(m, t, u64::from(top.shape.height * k)),
        None => types.u32_const(m, top.shape.height * k),
    };
    let fused = BlockOperands { height, ..top.ops };
    // The earliest member in program order: every member's operands are defined before the
    // last one, but the top member's coordinate only before the top member itself.
    m.insert_before(top.inst, fused.to_inst());
    for c in members {
        m.erase(c.inst);
    }
    true
}
