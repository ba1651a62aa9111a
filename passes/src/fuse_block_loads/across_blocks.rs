//! Merging two loads in different blocks of one function (see the pass's top comment: `BA`
//! dominates `BB`, `BB` post-dominates `BA`, same innermost loop, uniform control, nothing that
//! may write their region or touch their destinations on any path between them).

use spvopt_analysis::fxhash::{FxHashMap as HashMap, FxHashSet as HashSet};

use spvopt_ir::{BlockId, InstId, Module};

use super::{
    Candidate, Ctx, FuseBlockLoads, Graph, GroupKey, Run, MAX_CROSS_GROUP, MAX_REGION_BLOCKS,
};
use crate::pass::Statistics;
use spvopt_analysis::block_io::BlockKind;

impl FuseBlockLoads {
    /// Blocks strictly between `ba` and `bb` (reachable from `ba` without passing through
    /// `bb`), when every path from `ba` reaches `bb` within one iteration: no loop header
    /// (back edge or inner loop), no block of another loop, no function exit on the way.
    pub(super) fn region_between(
        g: &Graph<'_>,
        ctx: &Ctx<'_>,
        (ba, bb): (BlockId, BlockId),
        pair: &[InstId],
        stats: &mut Statistics,
    ) -> Option<Vec<BlockId>> {
        let l = g.loops.innermost(ba);
        let mut seen: HashSet<BlockId> = HashSet::default();
        let mut region: Vec<BlockId> = Vec::new();
        let mut stack: Vec<BlockId> = g.cfg.succs(ba).to_vec();
        if stack.is_empty() {
            ctx.reject(stats, "rejected_cross_block_exit", 1, pair);
            return None;
        }
        while let Some(x) = stack.pop() {
            if x == bb || !seen.insert(x) {
                continue;
            }
            if x == ba || g.loops.loop_of_header(x).is_some() || g.loops.innermost(x) != l {
                ctx.reject(stats, "rejected_cross_block_loop", 1, pair);
                return None;
            }
            let succs = g.cfg.succs(x);
            if succs.is_empty() {
                ctx.reject(stats, "rejected_cross_block_exit", 1, pair);
                return None;
            }
            region.push(x);
            if region.len() > MAX_REGION_BLOCKS {
                ctx.reject(stats, "rejected_region_too_large", 1, pair);
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
    pub(super) fn plan_across_blocks(
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
        let mut groups: HashMap<GroupKey, Vec<(BlockId, Candidate)>> = HashMap::default();
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
                    if !g.lazy.dom().strictly_dominates(*ba, *bb)
                        || !g.lazy.pdom().post_dominates(*bb, *ba)
                        || g.loops.innermost(*ba) != g.loops.innermost(*bb)
                    {
                        continue;
                    }
                    // Adjacency (geometry) before divergent control: both only skip the pair,
                    // and uniformity is computed only for a pair that is adjacent.
                    use spvopt_analysis::alias::BlockRelation::*;
                    let dx = match ctx.geo.block_relation_in_same_iteration(
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
                    if ctx.uni().is_divergent_control(*ba) || ctx.uni().is_divergent_control(*bb) {
                        ctx.reject(stats, "rejected_divergent_control", 1, &[a.inst, b.inst]);
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
                    let Some(region) =
                        Self::region_between(g, ctx, (*ba, *bb), &[a.inst, b.inst], stats)
                    else {
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
