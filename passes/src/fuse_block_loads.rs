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
//! - Then, on that output, loads and prefetches of the same surface, columns and shape at rows
//!   `y, y+H, …` become one of height `k·H` (vertical phase, `vertical.rs`: when the data is
//!   the concatenation by the spec's layout rules, the target has the shape, IGC's measured
//!   cost table neither rejects it nor makes it as many messages, and it fits one message's
//!   registers; counted as `vertical_*`).
//! - A load repeating an earlier one in the same block (same operands, nothing in between that
//!   may write the region or the first destination) becomes a copy of the first destination.
//! - The "nothing in between" checks of a function scan at most 64 instructions per instruction
//!   of it (plus 65,536) in all; past that they fail (`rejected_scan_budget`), so hostile
//!   repeats far apart cost linear time.
//!
//! Analyses: footprints come from `BlockGeometry` (provenance and induction of the values
//! block operations read, constants); alias (with the whole module's provenance) only for the
//! "nothing between" checks of a planned fusion or reuse; uniformity (divergent control) and
//! the dominator trees only for a pair of candidates in two blocks.
//!
//! Accounting: `rejected_*` count rejection events; in addition every load considered ends
//! with exactly one `load_outcome_*` (`fused`, `reused`, or `kept_<reason>`, the last reason
//! recorded for it, `kept_no_partner` when nothing it could merge with was in its block), and
//! these sum to `loads_before` (test `fuse_corpus::every_considered_load_has_one_outcome`).
//!
//! When (everything else is counted as a rejection, by reason, in the statistics): shapes are
//! constants; the function's
//! subgroup size is known (every kernel reaching it declares the same `SubgroupSize`, per
//! [`KernelFacts`]; a helper shared by kernels of different sizes is left alone,
//! `rejected_conflicting_subgroup_size`, the kernels' own loads are not; a function no kernel
//! calls, e.g. an exported helper clang kept after inlining it, `rejected_no_kernel_reaches_function`); the fused count is one the target supports for the shape and the target's
//! register rule (IGC: each block fills whole GRFs, or subgroup size × element size = GRF) says
//! the multi-block destination is the concatenation of the single-block ones; no instruction
//! between the first and the last merged load may synchronise with other invocations (a
//! barrier, split or not, or an atomic: `rejected_barrier_between`; a merged load at either
//! end would see another invocation's writes on the wrong side of it), write memory the loads
//! read (alias analysis) or touch a destination of the merged loads. Across blocks, "between" is the rest of `BA`
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
//! bytes. Operand uniformity is not checked: SPV_INTEL_2d_block_io makes a 2D block load or
//! prefetch whose operands (shape, base, memory width/height/pitch, coordinate) are not
//! dynamically uniform in the subgroup undefined behaviour, so in every execution with defined
//! behaviour each original's operands are uniform where it executes; the fused load executes
//! exactly where and when the originals do (same block, or the same conditions and iteration
//! across blocks), with the leader's base, surface and coordinate (values some original used
//! in that same iteration) and a constant count, so its operands are uniform too; a reuse
//! reads nothing new. (Uniform *control* across blocks is still proved by the analysis.)
//! One rewrite (`--max-changes`): one fusion (a group of loads or prefetches becoming one) or
//! one reuse (a repeated load becoming a copy), fusions first, each in plan order; loads left
//! by the limit are counted as `load_outcome_kept_change_limit`.

use spvopt_analysis::fxhash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::cell::{Cell, OnceCell, RefCell};

use spirv::Op;
use spvopt_analysis::alias::{Alias, BlockFootprint, BlockGeometry};
use spvopt_analysis::provenance::{Provenance, Root};
use spvopt_analysis::uniformity::Uniformity;
use spvopt_analysis::{Analyses, AnalysisSet, Cfg, Fact, KernelFacts, Loops, Target};
use spvopt_ir::opcode_class::synchronizes;
use spvopt_ir::{BlockId, FuncId, Id, InstId, Interner, Module};

use crate::pass::{Changes, Pass, PassError, PassResult, Statistics};
use spvopt_analysis::block_io::{block_instructions, BlockKind, BlockOperands, BlockShape};

pub struct FuseBlockLoads;

mod accounting;
mod across_blocks;
mod on_demand;
mod rewrite;
mod vertical;

use accounting::{account_for_loads, count_block_loads};
use on_demand::OnDemand;
use rewrite::{fuse_loads, fuse_prefetches, reuse_load};

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

struct Ctx<'a> {
    target: &'a Target,
    sg: Option<u32>,
    geo: &'a BlockGeometry,
    /// Alias and uniformity, asked for only by a decision that needs them.
    lazy: &'a OnDemand<'a>,
    /// Provenance of the values block operations read (a destination's root).
    prov: &'a Provenance,
    /// Why each considered operation was not merged (the last reason recorded wins).
    reasons: &'a RefCell<HashMap<InstId, &'static str>>,
    /// The function planned.
    func: FuncId,
    /// Instructions the legality checks of this function may still scan (see
    /// [`scan_budget`]; counted on the first check).
    scan_budget: Cell<Option<usize>>,
}

impl Ctx<'_> {
    /// Bytes right of `leader`'s first column where `c` starts, when both start in the same
    /// row of the same surface in the same loop iteration (0 for the leader itself); `None`
    /// otherwise. How candidates are placed around a leader, for `runs` and `may_form_run`.
    fn dx_from(&self, m: &Module, leader: &Candidate, c: &Candidate) -> Option<i64> {
        if c.inst == leader.inst {
            return Some(0);
        }
        self.geo
            .block_relation_in_same_iteration(
                m,
                leader.inst,
                &leader.footprint,
                c.inst,
                &c.footprint,
            )
            .dx_in_same_rows()
    }

    fn alias(&self) -> &Alias {
        self.lazy.alias()
    }

    fn uni(&self) -> &Uniformity {
        self.lazy.uni()
    }

    /// Counts a rejection event under `key` and records it as the reason of `insts`.
    fn reject(&self, stats: &mut Statistics, key: &'static str, n: u64, insts: &[InstId]) {
        stats.add(key, n);
        let mut r = self.reasons.borrow_mut();
        for &i in insts {
            r.insert(i, key);
        }
    }
}

/// Control-flow analyses for merging across blocks (the dominator trees asked for when a pair
/// of candidates in two blocks is compared).
struct Graph<'a> {
    cfg: &'a Cfg,
    loops: &'a Loops,
    lazy: &'a OnDemand<'a>,
}

/// Instructions the "nothing between" checks of one function may scan in all: each check
/// scans from the first to the last merged load, so repeats of one load far apart made the
/// pass quadratic (a load, 4,100 stores, 1,100 repeats of the load: 4.5M alias queries, 1.9 s
/// for a 99 KB module). Real blocks check a few short spans; beyond the budget a check fails
/// (`rejected_scan_budget`) and the loads stay.
fn scan_budget(instructions: usize) -> usize {
    instructions.saturating_mul(64).saturating_add(1 << 16)
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
    /// The candidates among `block_ops` (the 2D block instructions of block `b`, in order).
    fn candidates(
        m: &Module,
        ctx: &Ctx<'_>,
        b: BlockId,
        block_ops: &[InstId],
        stats: &mut Statistics,
    ) -> Vec<Candidate> {
        let mut v = Vec::new();
        // Positions in the block, found in one walk (both lists are in block order).
        let mut positions = m.block_insts(b).enumerate();
        for &i in block_ops {
            let Some(pos) = positions.find(|&(_, x)| x == i).map(|(pos, _)| pos) else {
                continue;
            };
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
                ctx.reject(stats, "rejected_non_constant_shape", 1, &[i]);
                continue;
            };
            let Some(footprint) = ctx.geo.block_footprint(m, i) else {
                ctx.reject(stats, "rejected_non_affine_coordinate", 1, &[i]);
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

    /// Splits one group (same key, program order) into runs of column-adjacent candidates.
    /// Candidates are clustered around a leader (the first not yet placed): offsets within a
    /// cluster are proved relative to its leader.
    fn runs(m: &Module, ctx: &Ctx<'_>, group: &[Candidate], stats: &mut Statistics) -> Vec<Run> {
        // Every candidate's operands are subgroup-uniform wherever it executes (a precondition
        // of the instruction, see the top comment): no uniformity analysis is asked.
        let mut pending: Vec<Candidate> = group.to_vec();
        let mut runs: Vec<Run> = Vec::new();
        while pending.len() >= 2 {
            let leader = pending[0].clone();
            let mut placed: Vec<(i64, Candidate)> = Vec::new();
            let mut unrelated: Vec<Candidate> = Vec::new();
            for c in &pending {
                match ctx.dx_from(m, &leader, c) {
                    Some(dx) => placed.push((dx, c.clone())),
                    None => unrelated.push(c.clone()),
                }
            }
            if placed.len() < 2 {
                ctx.reject(stats, "rejected_not_adjacent", 1, &[leader.inst]);
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
            ctx.reject(stats, "rejected_not_adjacent", 1, &[pending[0].inst]);
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
                    BlockKind::Prefetch,
                    s.element_size,
                    s.width * t,
                    s.height,
                    1,
                ) || ctx.target.supports_2d_block(
                    BlockKind::Prefetch,
                    s.element_size,
                    s.width,
                    s.height,
                    t,
                )
            } else {
                ctx.target
                    .supports_2d_block(k, s.element_size, s.width, s.height, t)
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
                .supports_2d_block(k, s.element_size, s.width, s.height, 2)
            {
                ctx.reject(stats, "rejected_register_rule", 1, &insts(&run.members));
            } else {
                ctx.reject(stats, "rejected_over_target_limit", 1, &insts(&run.members));
            }
            return None;
        }
        if take < run.members.len() {
            ctx.reject(
                stats,
                "rejected_over_target_limit",
                (run.members.len() - take) as u64,
                &insts(&run.members[take..]),
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
    /// loads) synchronises with other invocations, may write their region or touch their
    /// destinations.
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
            let budget = ctx.scan_budget.get().unwrap_or_else(|| {
                let f = &m.function(ctx.func);
                scan_budget(f.blocks.iter().map(|&b| m.block_insts(b).count()).sum())
            });
            let Some(left) = budget.checked_sub(1) else {
                ctx.reject(stats, "rejected_scan_budget", 1, &member_insts);
                return false;
            };
            ctx.scan_budget.set(Some(left));
            if member_insts.contains(&i) {
                continue;
            }
            // A barrier (or atomic) between them orders other invocations' accesses against
            // each load: the merged load, at either end, would see another set of writes.
            if m.inst(i).op().is_some_and(synchronizes) {
                ctx.reject(stats, "rejected_barrier_between", 1, &member_insts);
                return false;
            }
            if ctx.alias().may_write(m, i)
                && members.iter().any(|c| {
                    ctx.alias()
                        .may_write_read_region_in_same_iteration(m, i, c.inst)
                })
            {
                ctx.reject(stats, "rejected_aliasing_write_between", 1, &member_insts);
                return false;
            }
            // Address arithmetic on a destination does not touch its memory.
            if is_address_arithmetic(m.inst(i).op()) {
                continue;
            }
            // Any value may be used here: the whole module's provenance (the geometry's
            // knows only the values block operations read).
            let prov = ctx.alias().provenance();
            let mut touches = false;
            m.for_each_used_id(i, |u| {
                if dsts.contains(&u) {
                    touches = true;
                } else if let Root::Variable(v) = prov.root(u) {
                    if dst_roots.contains(&v) {
                        touches = true;
                    }
                }
            });
            if touches {
                ctx.reject(stats, "rejected_destination_used_between", 1, &member_insts);
                return false;
            }
        }
        true
    }
}

/// The instructions of candidates.
fn insts(cs: &[Candidate]) -> Vec<InstId> {
    cs.iter().map(|c| c.inst).collect()
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
        changes: &mut Changes,
    ) -> Result<PassResult, PassError> {
        let mut r = Self::column_phase(m, analyses, target, changes)?;
        // The vertical phase plans on the column phase's output.
        if r.changed {
            analyses.invalidate_except(r.preserved);
        }
        if vertical::fuse_vertically(m, analyses, target, changes, &mut r.stats) {
            r.changed = true;
            r.preserved = AnalysisSet::CFG | AnalysisSet::DOMINATORS | AnalysisSet::LOOPS;
            let (loads, prefetches) = count_block_loads(m);
            r.stats
                .counters
                .retain(|(k, _)| !matches!(*k, "loads_after" | "prefetches_after"));
            r.stats.add("loads_after", loads);
            r.stats.add("prefetches_after", prefetches);
        }
        Ok(r)
    }
}

impl FuseBlockLoads {
    /// The column-wise phase: Block Count fusion, wider prefetches, reuse.
    fn column_phase(
        m: &mut Module,
        analyses: &mut Analyses,
        target: &Target,
        changes: &mut Changes,
    ) -> Result<PassResult, PassError> {
        let mut stats = Statistics::default();
        // Every native 2D block instruction, in layout order: the one scan of the module.
        let block_ops = block_instructions(m);
        if block_ops.is_empty() {
            return Ok(PassResult::unchanged(stats));
        }
        // Footprints need provenance, induction and constants; alias and uniformity are asked
        // for only by the decisions that need them (`OnDemand`).
        let geo = BlockGeometry::from_cache(m, analyses);
        let cfg = analyses.get::<Cfg>(m);
        let loops = analyses.get::<Loops>(m);
        let facts = analyses.get::<KernelFacts>(m);
        let lazy = OnDemand {
            m,
            analyses: RefCell::new(analyses),
            alias: OnceCell::new(),
            uni: OnceCell::new(),
            dom: OnceCell::new(),
            pdom: OnceCell::new(),
        };
        let graph = Graph {
            cfg: &cfg,
            loops: &loops,
            lazy: &lazy,
        };
        // Plan everything first (analyses describe the unmodified module), then rewrite.
        // (block of the fused operation, members in column order, position of the fused load)
        let mut plans: Vec<(BlockId, Vec<Candidate>, InstId)> = Vec::new();
        let mut reuses: Vec<(Candidate, Candidate)> = Vec::new();
        let reasons: RefCell<HashMap<InstId, &'static str>> = RefCell::new(HashMap::default());
        // Every load considered: each ends fused, reused, or kept with one reason.
        let considered_loads: Vec<InstId> = block_ops
            .iter()
            .copied()
            .filter(|&i| BlockKind::of(m.inst(i)).is_some_and(|k| k.is_load()))
            .collect();
        // Functions without a 2D block instruction plan nothing: only the others are visited,
        // each with its block operations (contiguous in `block_ops`), block by block.
        let func_of = |i: InstId| m.inst_block(i).map(|b| m.block(b).func);
        for func_ops in block_ops.chunk_by(|&a, &b| func_of(a) == func_of(b)) {
            let Some(f) = func_of(func_ops[0]) else {
                continue;
            };
            // Plans and reuses of this function start here (the cross-block search only
            // looks at this function's, keeping the whole pass linear).
            let (plans_start, reuses_start) = (plans.len(), reuses.len());
            // The subgroup size is the one of the kernels reaching this function.
            let sg_fact = facts.subgroup_size(f);
            let ctx = Ctx {
                target,
                sg: sg_fact.known(),
                geo: &geo,
                lazy: &lazy,
                prov: geo.provenance(),
                reasons: &reasons,
                func: f,
                scan_budget: Cell::new(None),
            };
            let mut func_cands: Vec<(BlockId, Candidate)> = Vec::new();
            for ops_of_block in func_ops.chunk_by(|&a, &b| m.inst_block(a) == m.inst_block(b)) {
                let Some(b) = m.inst_block(ops_of_block[0]) else {
                    continue;
                };
                let cands = Self::candidates(m, &ctx, b, ops_of_block, &mut stats);
                func_cands.extend(cands.iter().map(|c| (b, c.clone())));
                if cands.len() < 2 {
                    continue;
                }
                let body: Vec<InstId> = m.block_insts(b).collect();
                let mut groups: HashMap<GroupKey, Vec<Candidate>> = HashMap::default();
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
                        ctx.reject(
                            &mut stats,
                            if sg_fact == Fact::Conflicting {
                                "rejected_conflicting_subgroup_size"
                            } else if !facts.is_reached(f) {
                                // Dead or exported code no kernel calls (dce removes it).
                                "rejected_no_kernel_reaches_function"
                            } else {
                                "rejected_unknown_subgroup_size"
                            },
                            group.len() as u64,
                            &insts(group),
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
            let reasons = reasons.into_inner();
            account_for_loads(&considered_loads, &HashSet::default(), &reasons, &mut stats);
            return Ok(PassResult::unchanged(stats));
        }
        let mut reasons = reasons.into_inner();
        let mut merged_loads: HashSet<InstId> = HashSet::default();
        let mut types = Interner::default();
        let sg_of =
            |m: &Module, b: BlockId| facts.subgroup_size(m.block(b).func).known().unwrap_or(0);
        let mut merged_away = 0u64;
        for (b, members, at) in plans {
            let kind = members[0].ops.kind;
            if !changes.allow() {
                for c in &members {
                    reasons.insert(c.inst, "rejected_change_limit");
                }
                continue;
            }
            if kind == BlockKind::Prefetch {
                if fuse_prefetches(m, &mut types, target, &members) {
                    merged_away += members.len() as u64 - 1;
                    stats.add("prefetches_fused", members.len() as u64);
                } else {
                    changes.undo();
                }
            } else {
                let across = members.iter().any(|c| m.inst_block(c.inst) != Some(b));
                let sg = sg_of(&*m, b);
                if fuse_loads(m, &mut types, b, sg, &members, at) {
                    merged_away += members.len() as u64 - 1;
                    stats.add("loads_fused", members.len() as u64);
                    for c in &members {
                        merged_loads.insert(c.inst);
                        reasons.insert(c.inst, "fused");
                    }
                    if across {
                        stats.add("fused_across_blocks", members.len() as u64);
                    }
                } else {
                    changes.undo();
                    stats.add("rejected_destination_type", 1);
                    for c in &members {
                        reasons.insert(c.inst, "rejected_destination_type");
                    }
                }
            }
        }
        for (first, again) in reuses {
            let Some(b) = m.inst_block(first.inst) else {
                continue;
            };
            let sg = sg_of(&*m, b);
            if !changes.allow() {
                reasons.insert(again.inst, "rejected_change_limit");
                continue;
            }
            if reuse_load(m, &mut types, sg, &first, &again) {
                merged_away += 1;
                stats.add("loads_reused", 1);
                merged_loads.insert(again.inst);
                reasons.insert(again.inst, "reused");
                reasons.entry(first.inst).or_insert("kept_data_reused");
            } else {
                changes.undo();
            }
        }
        stats.add("messages_saved", merged_away);
        account_for_loads(&considered_loads, &merged_loads, &reasons, &mut stats);
        let loads_before = stats.get("loads_before");
        let prefetches_before = stats.get("prefetches_before");
        let changed = merged_away > 0;
        let mut after = Statistics::default();
        let (loads_after, prefetches_after) = count_block_loads(m);
        after.add("loads_before", loads_before);
        after.add("loads_after", loads_after);
        after.add("prefetches_before", prefetches_before);
        after.add("prefetches_after", prefetches_after);
        for (k, v) in stats.counters {
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

/// Address arithmetic on a pointer (casts, access chains, copies): touches no memory.
pub(super) fn is_address_arithmetic(op: Option<Op>) -> bool {
    matches!(
        op,
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
    )
}
