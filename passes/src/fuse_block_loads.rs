//! `fuse-block-loads`: merges adjacent 2D block loads into one with Block Count > 1, adjacent
//! 2D block prefetches into one wider prefetch, and reuses repeated loads.
//!
//! What:
//! - Loads (`OpSubgroup2DBlockLoadINTEL`, `…LoadTransformINTEL`) in one basic block with the same
//!   kind, element size, block width and height, the same base pointer, memory width, height
//!   and pitch, the same row coordinate, and column coordinates `x, x+W·c0, x+W·(c0+c1), …`
//!   (proved by the alias analysis' block footprints, i.e. affine forms, not syntax) become one
//!   load with Block Count `c0+c1+…` into a new private array, placed where the last of them
//!   was; each original destination then receives its slice with `OpCopyMemorySized`.
//! - Two such loads in different blocks `BA` (load `A`) and `BB` (load `B`) of one function
//!   merge the same way, the fused load placed at `B`, when they execute under the same
//!   conditions: `BA` dominates `BB`, `BB` post-dominates `BA`, both are in the same innermost
//!   loop, neither is under divergent control, and every path from `BA` reaches `BB` without a
//!   loop header (no back edge, no inner loop), a block of another loop, or a function exit,
//!   through at most 256 blocks (`rejected_region_too_large`). Counted as `fused_across_blocks`.
//! - Prefetches (`OpSubgroup2DBlockPrefetchINTEL`) adjacent in the same way become one prefetch
//!   of width `W·count` and count 1 (what IGC and Triton prefer), when the target supports it.
//! - A load repeating an earlier one in the same block (same operands, nothing in between that
//!   may write the region or the first destination) becomes a copy of the first destination.
//!
//! When (everything else is counted as a rejection, by reason, in the statistics): all block
//! operands are dynamically uniform (uniformity analysis); shapes are constants; the function's
//! subgroup size is known (every kernel reaching it declares the same `SubgroupSize`, per
//! [`KernelFacts`]; a helper shared by kernels of different sizes is left alone,
//! `rejected_conflicting_subgroup_size`, the kernels' own loads are not; a function no kernel
//! calls, e.g. an exported helper clang kept after inlining it, `rejected_no_kernel_reaches_function`); the fused count is one the target supports for the shape and the target's
//! register rule (IGC: each block fills whole GRFs, or subgroup size × element size = GRF) says
//! the multi-block destination is the concatenation of the single-block ones; no instruction
//! between the first and the last merged load may write memory the loads read (alias analysis)
//! or touch a destination of the merged loads. Across blocks, "between" is the rest of `BA`
//! after `A`, every block reachable from `BA` before `BB`, and `BB` before `B`.
//!
//! Why correct: by the SPV_INTEL_2d_block_io spec, a load with Block Count N reads N blocks at
//! columns `x + b·W` and its per-invocation data is block 0's, then block 1's, …; so with the
//! region unchanged between the original loads (nothing may write it) the fused load yields
//! exactly the bytes the originals yielded, and the copies put each original's bytes where it
//! wrote them, at a point no original destination was read or written before. Moving the
//! earlier loads down to the last one is allowed because nothing between reads their
//! destinations. Across blocks, `A` executes in an iteration iff `B` does (dominance, post-
//! dominance, no back edge or exit between), with the same subgroup (uniform control), and
//! `A`'s operands (defined before `A`, whose block dominates `B`'s) are available at `B`. Prefetches have no functional effect, and the widened prefetch covers the same
//! bytes. Uniformity is a precondition of the instruction itself, re-checked here.

use std::collections::{HashMap, HashSet};

use spirv::{Op, StorageClass};
use spvopt_analysis::alias::{Alias, BlockFootprint};
use spvopt_analysis::provenance::{Provenance, Root};
use spvopt_analysis::target::BlockOp;
use spvopt_analysis::uniformity::Uniformity;
use spvopt_analysis::{
    Analyses, AnalysisSet, Cfg, Dominators, Fact, KernelFacts, Loops, PostDominators, Target,
};
use spvopt_ir::{BlockId, Id, Inst, InstId, Interner, Module, Section};

use crate::block_io::{BlockKind, BlockOperands, BlockShape};
use crate::pass::{Pass, PassError, PassResult, Statistics};

pub struct FuseBlockLoads;

/// A 2D block load or prefetch considered for merging.
#[derive(Clone)]
struct Candidate {
    inst: InstId,
    /// Position in its basic block.
    pos: usize,
    ops: BlockOperands,
    shape: BlockShape,
    footprint: BlockFootprint,
}

/// Operands that must be the same ids for two operations to merge.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct GroupKey {
    kind: u8,
    element_size: u32,
    width: u32,
    height: u32,
    base: Id,
    memory_width: Id,
    memory_height: Id,
    memory_pitch: Id,
}

fn block_op(kind: BlockKind) -> BlockOp {
    match kind {
        BlockKind::Load => BlockOp::Load,
        BlockKind::LoadTransform => BlockOp::LoadTransform,
        BlockKind::LoadTranspose => BlockOp::LoadTranspose,
        BlockKind::Prefetch => BlockOp::Prefetch,
        BlockKind::Store => BlockOp::Store,
    }
}

struct Ctx<'a> {
    target: &'a Target,
    sg: Option<u32>,
    alias: &'a Alias,
    uni: &'a Uniformity,
    prov: &'a Provenance,
}

/// Control-flow analyses for merging across blocks.
struct Graph<'a> {
    cfg: &'a Cfg,
    dom: &'a Dominators,
    pdom: &'a PostDominators,
    loops: &'a Loops,
}

/// Most blocks between two loads merged across blocks (else `rejected_region_too_large`).
const MAX_REGION_BLOCKS: usize = 256;

/// Largest group (same key, one function) searched for pairs across blocks.
const MAX_CROSS_GROUP: usize = 64;

/// A run of candidates to merge, in column order, with the total count.
struct Run {
    members: Vec<Candidate>,
    count: u32,
}

impl FuseBlockLoads {
    fn candidates(m: &Module, ctx: &Ctx<'_>, b: BlockId, stats: &mut Statistics) -> Vec<Candidate> {
        let mut v = Vec::new();
        for (pos, i) in m.block_insts(b).enumerate() {
            let Some(ops) = BlockOperands::read(m.inst(i)) else {
                continue;
            };
            match ops.kind {
                BlockKind::Load | BlockKind::LoadTransform | BlockKind::LoadTranspose => {
                    stats.add("loads_before", 1)
                }
                BlockKind::Prefetch => stats.add("prefetches_before", 1),
                BlockKind::Store => continue,
            }
            let Some(shape) = ops.shape(m) else {
                stats.add("rejected_non_constant_shape", 1);
                continue;
            };
            let Some(footprint) = ctx.alias.block_footprint(m, i) else {
                stats.add("rejected_non_affine_coordinate", 1);
                continue;
            };
            v.push(Candidate {
                inst: i,
                pos,
                ops,
                shape,
                footprint,
            });
        }
        v
    }

    fn key(c: &Candidate) -> GroupKey {
        GroupKey {
            kind: c.ops.kind as u8,
            element_size: c.shape.element_size,
            width: c.shape.width,
            height: c.shape.height,
            base: c.ops.base,
            memory_width: c.ops.memory_width,
            memory_height: c.ops.memory_height,
            memory_pitch: c.ops.memory_pitch,
        }
    }

    fn uniform(ctx: &Ctx<'_>, c: &Candidate) -> bool {
        let o = &c.ops;
        [
            o.element_size,
            o.width,
            o.height,
            o.count,
            o.base,
            o.memory_width,
            o.memory_height,
            o.memory_pitch,
            o.coordinate,
        ]
        .iter()
        .all(|&id| ctx.uni.is_uniform(id))
    }

    /// Splits one group (same key, program order) into runs of column-adjacent candidates.
    /// Candidates are clustered around a leader (the first not yet placed): offsets within a
    /// cluster are proved relative to its leader.
    fn runs(m: &Module, ctx: &Ctx<'_>, group: &[Candidate], stats: &mut Statistics) -> Vec<Run> {
        let mut pending: Vec<Candidate> = Vec::new();
        for c in group {
            if Self::uniform(ctx, c) {
                pending.push(c.clone());
            } else {
                stats.add("rejected_non_uniform", 1);
            }
        }
        let mut runs: Vec<Run> = Vec::new();
        while pending.len() >= 2 {
            let leader = pending[0].clone();
            let mut placed: Vec<(i64, Candidate)> = Vec::new();
            let mut unrelated: Vec<Candidate> = Vec::new();
            for c in &pending {
                use spvopt_analysis::alias::BlockRelation::*;
                let rel = ctx.alias.block_relation_in_same_iteration(
                    m,
                    leader.inst,
                    &leader.footprint,
                    c.inst,
                    &c.footprint,
                );
                match rel {
                    _ if c.inst == leader.inst => placed.push((0, c.clone())),
                    Disjoint {
                        dx_bytes,
                        dy_rows: 0,
                    }
                    | Overlapping {
                        dx_bytes,
                        dy_rows: 0,
                    } => placed.push((dx_bytes, c.clone())),
                    _ => unrelated.push(c.clone()),
                }
            }
            if placed.len() < 2 {
                stats.add("rejected_not_adjacent", 1);
            }
            placed.sort_by_key(|(dx, c)| (*dx, c.pos));
            let mut next_dx: Option<i64> = None;
            let start = runs.len();
            for (dx, c) in placed {
                if next_dx == Some(dx) && runs.len() > start {
                    let run = runs.last_mut().expect("checked");
                    run.count += c.shape.count;
                    run.members.push(c.clone());
                } else {
                    runs.push(Run {
                        count: c.shape.count,
                        members: vec![c.clone()],
                    });
                }
                next_dx = Some(dx + c.footprint.row_bytes as i64);
            }
            pending = unrelated;
        }
        if pending.len() == 1 && group.len() > 1 {
            stats.add("rejected_not_adjacent", 1);
        }
        runs.retain(|r| r.members.len() > 1);
        runs
    }

    /// The longest prefix of `run` (in column order) whose count the target supports and whose
    /// data the register rule keeps concatenated; the rest is returned for another attempt.
    fn fit_to_target(
        ctx: &Ctx<'_>,
        run: &Run,
        stats: &mut Statistics,
    ) -> Option<(Vec<Candidate>, Vec<Candidate>)> {
        let k = run.members[0].ops.kind;
        let s = run.members[0].shape;
        let sg = ctx.sg?;
        let mut total = 0;
        let mut take = 0;
        // Supported counts need not be contiguous (PVC: 1, 2, 4), so a prefix whose total is
        // unsupported (3) does not end the search: keep the longest supported one.
        for (n, c) in run.members.iter().enumerate() {
            let t = total + c.shape.count;
            total = t;
            let ok = if k == BlockKind::Prefetch {
                // One wide block, or several blocks if the wide one is not supported.
                ctx.target.supports_2d_block(
                    BlockOp::Prefetch,
                    s.element_size,
                    s.width * t,
                    s.height,
                    1,
                ) || ctx.target.supports_2d_block(
                    BlockOp::Prefetch,
                    s.element_size,
                    s.width,
                    s.height,
                    t,
                )
            } else {
                ctx.target
                    .supports_2d_block(block_op(k), s.element_size, s.width, s.height, t)
                    && ctx
                        .target
                        .block_count_concatenates(s.element_size, s.width, s.height, t, sg)
            };
            if ok {
                take = n + 1;
            }
        }
        if take < 2 {
            if ctx
                .target
                .supports_2d_block(block_op(k), s.element_size, s.width, s.height, 2)
            {
                stats.add("rejected_register_rule", 1);
            } else {
                stats.add("rejected_over_target_limit", 1);
            }
            return None;
        }
        if take < run.members.len() {
            stats.add(
                "rejected_over_target_limit",
                (run.members.len() - take) as u64,
            );
        }
        Some((run.members[..take].to_vec(), run.members[take..].to_vec()))
    }

    /// Whether merging `members` (loads) is legal: nothing between the first and the last may
    /// write their region or touch their destinations.
    fn legal_to_merge_loads(
        m: &Module,
        ctx: &Ctx<'_>,
        body: &[InstId],
        members: &[Candidate],
        stats: &mut Statistics,
    ) -> bool {
        let lo = members.iter().map(|c| c.pos).min().unwrap_or(0);
        let hi = members.iter().map(|c| c.pos).max().unwrap_or(0);
        Self::legal_between(m, ctx, &body[lo + 1..hi], members, stats)
    }

    /// Whether nothing in `between` (every instruction that may execute between the merged
    /// loads) may write their region or touch their destinations.
    fn legal_between(
        m: &Module,
        ctx: &Ctx<'_>,
        between: &[InstId],
        members: &[Candidate],
        stats: &mut Statistics,
    ) -> bool {
        let member_insts: Vec<InstId> = members.iter().map(|c| c.inst).collect();
        let mut dst_roots: Vec<Id> = Vec::new();
        let mut dsts: Vec<Id> = Vec::new();
        for c in members {
            if let Some(d) = c.ops.private {
                dsts.push(d);
                if let Root::Variable(v) = ctx.prov.root(d) {
                    dst_roots.push(v);
                }
            }
        }
        for &i in between {
            if member_insts.contains(&i) {
                continue;
            }
            if ctx.alias.may_write(m, i)
                && members.iter().any(|c| {
                    ctx.alias
                        .may_write_read_region_in_same_iteration(m, i, c.inst)
                })
            {
                stats.add("rejected_aliasing_write_between", 1);
                return false;
            }
            // Address arithmetic on a destination does not touch its memory.
            if matches!(
                m.inst(i).op(),
                Some(
                    Op::Bitcast
                        | Op::PtrAccessChain
                        | Op::InBoundsPtrAccessChain
                        | Op::AccessChain
                        | Op::InBoundsAccessChain
                        | Op::PtrCastToGeneric
                        | Op::GenericCastToPtr
                        | Op::CopyObject
                )
            ) {
                continue;
            }
            let mut touches = false;
            m.for_each_used_id(i, |u| {
                if dsts.contains(&u) {
                    touches = true;
                } else if let Root::Variable(v) = ctx.prov.root(u) {
                    if dst_roots.contains(&v) {
                        touches = true;
                    }
                }
            });
            if touches {
                stats.add("rejected_destination_used_between", 1);
                return false;
            }
        }
        true
    }

    /// Blocks strictly between `ba` and `bb` (reachable from `ba` without passing through
    /// `bb`), when every path from `ba` reaches `bb` within one iteration: no loop header
    /// (back edge or inner loop), no block of another loop, no function exit on the way.
    fn region_between(
        g: &Graph<'_>,
        ba: BlockId,
        bb: BlockId,
        stats: &mut Statistics,
    ) -> Option<Vec<BlockId>> {
        let l = g.loops.innermost(ba);
        let mut seen: HashSet<BlockId> = HashSet::new();
        let mut region: Vec<BlockId> = Vec::new();
        let mut stack: Vec<BlockId> = g.cfg.succs(ba).to_vec();
        if stack.is_empty() {
            stats.add("rejected_cross_block_exit", 1);
            return None;
        }
        while let Some(x) = stack.pop() {
            if x == bb || !seen.insert(x) {
                continue;
            }
            if x == ba || g.loops.loop_of_header(x).is_some() || g.loops.innermost(x) != l {
                stats.add("rejected_cross_block_loop", 1);
                return None;
            }
            let succs = g.cfg.succs(x);
            if succs.is_empty() {
                stats.add("rejected_cross_block_exit", 1);
                return None;
            }
            region.push(x);
            if region.len() > MAX_REGION_BLOCKS {
                stats.add("rejected_region_too_large", 1);
                return None;
            }
            stack.extend_from_slice(succs);
        }
        Some(region)
    }

    /// Pairs of column-adjacent loads in different blocks of one function that execute under
    /// the same conditions: `A`'s block dominates `B`'s, `B`'s post-dominates `A`'s, both are in
    /// the same innermost loop with uniform control, and every path from `A` to `B` stays in
    /// that iteration. The fused load goes at `B` (all of `A`'s operands dominate it).
    fn plan_across_blocks(
        m: &Module,
        ctx: &Ctx<'_>,
        g: &Graph<'_>,
        func_cands: &[(BlockId, Candidate)],
        plans: &mut Vec<(BlockId, Vec<Candidate>, InstId)>,
        mut taken: HashSet<InstId>,
        stats: &mut Statistics,
    ) {
        if ctx.sg.is_none() {
            return;
        }
        // `taken`: loads this function already merges or reuses within a block.
        let mut groups: HashMap<GroupKey, Vec<(BlockId, Candidate)>> = HashMap::new();
        let mut order: Vec<GroupKey> = Vec::new();
        for (b, c) in func_cands {
            if c.ops.kind == BlockKind::Prefetch || taken.contains(&c.inst) {
                continue;
            }
            let k = Self::key(c);
            if !groups.contains_key(&k) {
                order.push(k);
            }
            groups.entry(k).or_default().push((*b, c.clone()));
        }
        for k in order {
            let group = &groups[&k];
            if group.len() < 2 || group.len() > MAX_CROSS_GROUP {
                continue;
            }
            for (ba, a) in group {
                for (bb, b) in group {
                    if ba == bb || taken.contains(&a.inst) || taken.contains(&b.inst) {
                        continue;
                    }
                    if !g.dom.strictly_dominates(*ba, *bb)
                        || !g.pdom.post_dominates(*bb, *ba)
                        || g.loops.innermost(*ba) != g.loops.innermost(*bb)
                    {
                        continue;
                    }
                    if !Self::uniform(ctx, a) || !Self::uniform(ctx, b) {
                        continue;
                    }
                    use spvopt_analysis::alias::BlockRelation::*;
                    let dx = match ctx.alias.block_relation_in_same_iteration(
                        m,
                        a.inst,
                        &a.footprint,
                        b.inst,
                        &b.footprint,
                    ) {
                        Disjoint {
                            dx_bytes,
                            dy_rows: 0,
                        } => dx_bytes,
                        _ => continue,
                    };
                    let members = if dx == a.footprint.row_bytes as i64 {
                        vec![a.clone(), b.clone()]
                    } else if dx == -(b.footprint.row_bytes as i64) {
                        vec![b.clone(), a.clone()]
                    } else {
                        continue;
                    };
                    if ctx.uni.is_divergent_control(*ba) || ctx.uni.is_divergent_control(*bb) {
                        stats.add("rejected_divergent_control", 1);
                        continue;
                    }
                    let run = Run {
                        count: a.shape.count + b.shape.count,
                        members,
                    };
                    let Some((take, _)) = Self::fit_to_target(ctx, &run, stats) else {
                        continue;
                    };
                    if take.len() != 2 {
                        continue;
                    }
                    let Some(region) = Self::region_between(g, *ba, *bb, stats) else {
                        continue;
                    };
                    let mut between: Vec<InstId> = m.block_insts(*ba).skip(a.pos + 1).collect();
                    for &x in &region {
                        between.extend(m.block_insts(x));
                    }
                    between.extend(m.block_insts(*bb).take(b.pos));
                    if !Self::legal_between(m, ctx, &between, &take, stats) {
                        continue;
                    }
                    taken.insert(a.inst);
                    taken.insert(b.inst);
                    plans.push((*bb, take, b.inst));
                }
            }
        }
    }
}

/// Integer type of `bits` width, if the module may use it (capability declared).
fn scalar_type(m: &mut Module, types: &mut Interner, bits: u32) -> Option<Id> {
    let cap = match bits {
        8 => Some(spirv::Capability::Int8),
        16 => Some(spirv::Capability::Int16),
        64 => Some(spirv::Capability::Int64),
        _ => None,
    };
    if let Some(cap) = cap {
        let declared = m
            .section_insts(Section::Capability)
            .any(|(_, i)| i.operand_word(0) == Some(cap as u32));
        if !declared {
            return None;
        }
    }
    Some(types.int(m, bits))
}

impl Pass for FuseBlockLoads {
    fn name(&self) -> &'static str {
        "fuse-block-loads"
    }

    fn run(
        &mut self,
        m: &mut Module,
        analyses: &mut Analyses,
        target: &Target,
    ) -> Result<PassResult, PassError> {
        let mut stats = Statistics::default();
        let any_block_io = m.function_ids().any(|f| {
            m.function(f)
                .blocks
                .iter()
                .any(|&b| m.block_insts(b).any(|i| BlockKind::of(m.inst(i)).is_some()))
        });
        if !any_block_io {
            return Ok(PassResult::unchanged(stats));
        }
        let alias = analyses.get::<Alias>(m);
        let uni = analyses.get::<Uniformity>(m);
        let prov = analyses.get::<Provenance>(m);
        let cfg = analyses.get::<Cfg>(m);
        let dom = analyses.get::<Dominators>(m);
        let pdom = analyses.get::<PostDominators>(m);
        let loops = analyses.get::<Loops>(m);
        let graph = Graph {
            cfg: &cfg,
            dom: &dom,
            pdom: &pdom,
            loops: &loops,
        };
        let facts = analyses.get::<KernelFacts>(m);
        // Plan everything first (analyses describe the unmodified module), then rewrite.
        // (block of the fused operation, members in column order, position of the fused load)
        let mut plans: Vec<(BlockId, Vec<Candidate>, InstId)> = Vec::new();
        let mut reuses: Vec<(Candidate, Candidate)> = Vec::new();
        for f in m.function_ids().collect::<Vec<_>>() {
            // Plans and reuses of this function start here (the cross-block search only
            // looks at this function's, keeping the whole pass linear).
            let (plans_start, reuses_start) = (plans.len(), reuses.len());
            // The subgroup size is the one of the kernels reaching this function.
            let sg_fact = facts.subgroup_size(f);
            let ctx = Ctx {
                target,
                sg: sg_fact.known(),
                alias: &alias,
                uni: &uni,
                prov: &prov,
            };
            let mut func_cands: Vec<(BlockId, Candidate)> = Vec::new();
            for &b in &m.function(f).blocks.clone() {
                let cands = Self::candidates(m, &ctx, b, &mut stats);
                func_cands.extend(cands.iter().map(|c| (b, c.clone())));
                if cands.len() < 2 {
                    continue;
                }
                let body: Vec<InstId> = m.block_insts(b).collect();
                let mut groups: HashMap<GroupKey, Vec<Candidate>> = HashMap::new();
                let mut order: Vec<GroupKey> = Vec::new();
                for c in cands {
                    let k = Self::key(&c);
                    if !groups.contains_key(&k) {
                        order.push(k);
                    }
                    groups.entry(k).or_default().push(c);
                }
                for k in order {
                    let group = &groups[&k];
                    if group.len() < 2 {
                        continue;
                    }
                    if ctx.sg.is_none() {
                        stats.add(
                            if sg_fact == Fact::Conflicting {
                                "rejected_conflicting_subgroup_size"
                            } else if !facts.is_reached(f) {
                                // Dead or exported code no kernel calls (dce removes it).
                                "rejected_no_kernel_reaches_function"
                            } else {
                                "rejected_unknown_subgroup_size"
                            },
                            group.len() as u64,
                        );
                        continue;
                    }
                    // Repeated identical loads: reuse the first.
                    let mut rest: Vec<Candidate> = Vec::new();
                    for c in group {
                        let dup = rest.iter().find(|p| {
                            p.ops.kind != BlockKind::Prefetch
                                && p.ops.coordinate == c.ops.coordinate
                                && p.shape == c.shape
                        });
                        match dup {
                            Some(p)
                                if Self::legal_to_merge_loads(
                                    m,
                                    &ctx,
                                    &body,
                                    &[p.clone(), c.clone()],
                                    &mut stats,
                                ) =>
                            {
                                reuses.push((p.clone(), c.clone()));
                            }
                            _ => rest.push(c.clone()),
                        }
                    }
                    // A load whose data is reused stays where it is.
                    rest.retain(|c| !reuses.iter().any(|(p, _)| p.inst == c.inst));
                    if rest.len() < 2 {
                        continue;
                    }
                    for run in Self::runs(m, &ctx, &rest, &mut stats) {
                        let mut remaining = run.members;
                        while remaining.len() >= 2 {
                            let r = Run {
                                count: remaining.iter().map(|c| c.shape.count).sum(),
                                members: remaining.clone(),
                            };
                            let Some((take, left)) = Self::fit_to_target(&ctx, &r, &mut stats)
                            else {
                                // The leftmost cannot start a fusable run: try from the next.
                                remaining.remove(0);
                                continue;
                            };
                            let is_prefetch = take[0].ops.kind == BlockKind::Prefetch;
                            if is_prefetch
                                || Self::legal_to_merge_loads(m, &ctx, &body, &take, &mut stats)
                            {
                                let at = take.iter().max_by_key(|c| c.pos).expect("non-empty").inst;
                                plans.push((b, take, at));
                            }
                            remaining = left;
                        }
                    }
                }
            }
            let blocks_with_candidates: HashSet<BlockId> =
                func_cands.iter().map(|(b, _)| *b).collect();
            if blocks_with_candidates.len() >= 2 {
                let taken: HashSet<InstId> = plans[plans_start..]
                    .iter()
                    .flat_map(|(_, ms, _)| ms.iter().map(|c| c.inst))
                    .chain(
                        reuses[reuses_start..]
                            .iter()
                            .flat_map(|(a, b)| [a.inst, b.inst]),
                    )
                    .collect();
                Self::plan_across_blocks(
                    m,
                    &ctx,
                    &graph,
                    &func_cands,
                    &mut plans,
                    taken,
                    &mut stats,
                );
            }
        }
        if plans.is_empty() && reuses.is_empty() {
            return Ok(PassResult::unchanged(stats));
        }
        let mut types = Interner::default();
        let sg_of =
            |m: &Module, b: BlockId| facts.subgroup_size(m.block(b).func).known().unwrap_or(0);
        let mut merged_away = 0u64;
        for (b, members, at) in plans {
            let kind = members[0].ops.kind;
            if kind == BlockKind::Prefetch {
                if fuse_prefetches(m, &mut types, target, &members) {
                    merged_away += members.len() as u64 - 1;
                    stats.add("prefetches_fused", members.len() as u64);
                }
            } else {
                let across = members.iter().any(|c| m.inst_block(c.inst) != Some(b));
                let sg = sg_of(&*m, b);
                if fuse_loads(m, &mut types, b, sg, &members, at) {
                    merged_away += members.len() as u64 - 1;
                    stats.add("loads_fused", members.len() as u64);
                    if across {
                        stats.add("fused_across_blocks", members.len() as u64);
                    }
                } else {
                    stats.add("rejected_destination_type", 1);
                }
            }
        }
        for (first, again) in reuses {
            let Some(b) = m.inst_block(first.inst) else {
                continue;
            };
            let sg = sg_of(&*m, b);
            if reuse_load(m, &mut types, sg, &first, &again) {
                merged_away += 1;
                stats.add("loads_reused", 1);
            }
        }
        stats.add("messages_saved", merged_away);
        let loads_before = stats.get("loads_before");
        let prefetches_before = stats.get("prefetches_before");
        let changed = merged_away > 0;
        let mut after = Statistics::default();
        let (mut loads_after, mut prefetches_after) = (0u64, 0u64);
        for f in m.function_ids() {
            for &bb in &m.function(f).blocks {
                for i in m.block_insts(bb) {
                    match BlockKind::of(m.inst(i)) {
                        Some(BlockKind::Prefetch) => prefetches_after += 1,
                        Some(k) if k.is_load() => loads_after += 1,
                        _ => {}
                    }
                }
            }
        }
        after.add("loads_before", loads_before);
        after.add("loads_after", loads_after);
        after.add("prefetches_before", prefetches_before);
        after.add("prefetches_after", prefetches_after);
        for (k, v) in stats.0 {
            if !matches!(k, "loads_before" | "prefetches_before") {
                after.add(k, v);
            }
        }
        Ok(PassResult {
            changed,
            preserved: AnalysisSet::CFG | AnalysisSet::DOMINATORS | AnalysisSet::LOOPS,
            stats: after,
        })
    }
}

/// The first instruction of function block `b`'s function's entry block, where new Function
/// variables go (after the existing OpVariables).
fn variable_insertion_point(m: &Module, b: BlockId) -> Option<InstId> {
    let f = m.block(b).func;
    let entry = *m.function(f).blocks.first()?;
    m.block_insts(entry).find(|&i| !m.inst(i).is(Op::Variable))
}

/// Element type and size for addressing the fused destination.
fn destination_scalar(
    m: &mut Module,
    types: &mut Interner,
    kind: BlockKind,
    element_size: u32,
) -> Option<(Id, u32)> {
    let bits = if kind == BlockKind::LoadTransform {
        32
    } else {
        element_size * 8
    };
    scalar_type(m, types, bits).map(|t| (t, bits / 8))
}

fn fuse_loads(
    m: &mut Module,
    types: &mut Interner,
    b: BlockId,
    sg: u32,
    members: &[Candidate],
    at: InstId,
) -> bool {
    let first = &members[0];
    let kind = first.ops.kind;
    let Some((scalar, scalar_bytes)) = destination_scalar(m, types, kind, first.shape.element_size)
    else {
        return false;
    };
    let Some(per_block) = first.shape.bytes_per_invocation_per_block(kind, sg) else {
        return false;
    };
    if per_block % scalar_bytes != 0 {
        return false;
    }
    let total: u32 = members.iter().map(|c| c.shape.count).sum();
    let Some(at_var) = variable_insertion_point(m, b) else {
        return false;
    };
    // The fused load goes where the last (in program order) of the members was.
    let last = at;
    let total_bytes = per_block * total;
    let len = types.u32_const(m, total_bytes / scalar_bytes);
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
        last,
        Inst::new(Op::Bitcast, Some(ptr_scalar), Some(p0), &[var.word()]),
    );
    let count_ty = m.type_of(first.ops.count);
    let count = match count_ty {
        Some(t) => types.int_const(m, t, u64::from(total)),
        None => types.u32_const(m, total),
    };
    let fused = BlockOperands {
        count,
        coordinate: first.ops.coordinate,
        private: Some(p0),
        ..first.ops
    };
    m.insert_before(last, fused.to_inst());
    let mut offset = 0u32;
    for c in members {
        let bytes = per_block * c.shape.count;
        let src = if offset == 0 {
            p0
        } else {
            let idx = types.u32_const(m, offset / scalar_bytes);
            let p = m.fresh_id();
            m.insert_before(
                last,
                Inst::new(
                    Op::InBoundsPtrAccessChain,
                    Some(ptr_scalar),
                    Some(p),
                    &[p0.word(), idx.word()],
                ),
            );
            p
        };
        let size = types.u32_const(m, bytes);
        let dst = c.ops.private.expect("loads have destinations");
        m.insert_before(
            last,
            Inst::new(
                Op::CopyMemorySized,
                None,
                None,
                &[dst.word(), src.word(), size.word()],
            ),
        );
        offset += bytes;
    }
    for c in members {
        m.erase(c.inst);
    }
    true
}

fn fuse_prefetches(
    m: &mut Module,
    types: &mut Interner,
    target: &Target,
    members: &[Candidate],
) -> bool {
    let first = &members[0];
    let s = first.shape;
    let total: u32 = members.iter().map(|c| c.shape.count).sum();
    let wide = target.supports_2d_block(
        BlockOp::Prefetch,
        s.element_size,
        s.width * total,
        s.height,
        1,
    );
    let ty = m.type_of(first.ops.width);
    let konst = |m: &mut Module, types: &mut Interner, v: u32| match ty {
        Some(t) => types.int_const(m, t, u64::from(v)),
        None => types.u32_const(m, v),
    };
    let (width, count) = if wide {
        (konst(m, types, s.width * total), konst(m, types, 1))
    } else {
        (first.ops.width, konst(m, types, total))
    };
    let fused = BlockOperands {
        width,
        count,
        ..first.ops
    };
    // The leftmost member's own position has all its operands available.
    m.insert_before(first.inst, fused.to_inst());
    for c in members {
        m.erase(c.inst);
    }
    true
}

fn reuse_load(
    m: &mut Module,
    types: &mut Interner,
    sg: u32,
    first: &Candidate,
    again: &Candidate,
) -> bool {
    let Some(bytes) = again
        .shape
        .bytes_per_invocation_per_block(again.ops.kind, sg)
        .map(|b| b * again.shape.count)
    else {
        return false;
    };
    let (Some(src), Some(dst)) = (first.ops.private, again.ops.private) else {
        return false;
    };
    let size = types.u32_const(m, bytes);
    m.insert_before(
        again.inst,
        Inst::new(
            Op::CopyMemorySized,
            None,
            None,
            &[dst.word(), src.word(), size.word()],
        ),
    );
    m.erase(again.inst);
    true
}
