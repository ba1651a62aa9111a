//! `insert-prefetches`: prefetches the data of loop-carried 2D block loads and 1D subgroup block
//! reads a configurable number of iterations ahead of their use.
//!
//! What: for every natural loop (with or without `OpLoopMerge`; Triton's loops are single
//! blocks branching to themselves) and every load whose innermost loop it is:
//! - `OpSubgroup2DBlockLoad{,Transform,Transpose}INTEL` whose coordinate is `base + step·i` in
//!   the loop counter `i` (induction analysis) gets, right before it, an
//!   `OpSubgroup2DBlockPrefetchINTEL` of the same memory rectangle at `coord + d·step`
//!   (`d` = `prefetch-distance`, default 2), and the loop's preheader (the unique predecessor
//!   of the header outside the loop) gets prologue prefetches of iterations `0..d` when the
//!   load runs whenever the loop is entered (its block dominates every latch and exit: a
//!   prefetch needs the load's legal surface, which a load behind a guard, such as
//!   convert-tensor-addressing's run-time check, or behind a top-tested trip count does not
//!   guarantee). The
//!   prefetch shape comes from the target's table: one block `W·Count` wide when supported,
//!   else the load's own shape, else pieces of at most 64 bytes per row and 32 rows.
//! - `OpSubgroupBlockReadINTEL` whose pointer is `root + step·i` bytes gets
//!   `OpSubgroupBlockPrefetchINTEL` of the same number of bytes per invocation at
//!   `ptr + d·step` (and prologue prefetches), when the target honours that size;
//!   `SPV_INTEL_subgroup_buffer_prefetch` is declared. Only with `prefetch-1d=true`, or with
//!   the default `auto` when the target's consumer is not IGC (`skipped_buffer_prefetch_off`
//!   otherwise): measured on IGC 2.40 they cost sends and instructions that nothing in its
//!   output shows to pay back ([`BufferPrefetches::Auto`]).
//! - Every new prefetch reads through a fresh pointer (`OpPtrAccessChain %base 0`) decorated
//!   `CacheControlLoadINTEL` for L1 (level 0) and L3 (level 1) per `prefetch-cache`
//!   (default `L1C_L3C`: cached in both; `none`: no decoration), with `SPV_INTEL_cache_controls`.
//!   L3 `Cached` is the default and is not spelled out (spirv-val rejects two
//!   `CacheControlLoadINTEL` on one id, although the extension allows one per level).
//!
//! The prologue coordinate of iteration `k` is `coord(0) + k·step`, where `coord(0)` is the
//! load's coordinate computation re-evaluated in the preheader with each header phi replaced by
//! its incoming value from the preheader (pure instructions and reads of built-in variables
//! are cloned; anything else means no prologue).
//!
//! When (everything else is counted, by reason, in the statistics `skipped_*`): the target
//! has 2D block IO (resp. buffer prefetch); the block shape is constant; all operands of the
//! 2D block load but the coordinate are invariant in the loop (their uniformity is the
//! load's own precondition, see below; a 1D block read's pointer must be proved uniform by the
//! uniformity analysis); the coordinate (pointer offset) is affine in the loop counter with a nonzero,
//! loop-invariant, uniform step; and no prefetch in the loop already covers the load:
//! a prefetch of the same base object (provenance root) and pitch whose coordinate has the
//! same step and is `k ≥ 1` steps ahead, up to a remainder smaller than one step or made of
//! values the step does not mention (Triton's cooperative prefetches split a tile across
//! subgroups with `SubgroupId`-dependent offsets). So Triton's output, already prefetched,
//! comes out unchanged, and the pass is idempotent. (Coverage is checked before uniformity, and
//! the preheader, under uniform control, is looked for only for a load that gets a plan: a
//! loop whose loads are all prefetched already never computes the uniformity analysis.)
//!
//! Why correct: prefetches have no functional effect (SPV_INTEL_2d_block_io: out-of-bounds
//! elements of a prefetch are ignored; SPV_INTEL_subgroup_buffer_prefetch: a prefetch "does
//! not affect the functionality of a module"), so prefetching past the end of the data in the
//! last iterations is harmless and needs no guard. The only obligations are the instructions'
//! preconditions: every operand is dynamically uniform and all
//! invocations execute the same dynamic instance (the in-loop prefetch sits right before the
//! load, in the same block; the prologue is only emitted when the preheader is not under
//! divergent control). Uniformity of a 2D prefetch's operands: SPV_INTEL_2d_block_io makes a
//! 2D block load whose operands are not dynamically uniform undefined behaviour, so in every
//! execution with defined behaviour the load's operands are uniform wherever it executes (the
//! uniformity analysis is not asked about them). An in-loop prefetch runs exactly where the
//! load runs, with the load's invariant operands and the coordinate `c(i) + d*step`; a
//! prologue prefetch (only for a load that runs in the first iteration whenever the loop is
//! entered) with `c(0) + k*step`, `c(0)` being the coordinate the load uses in the first
//! iteration, recomputed per invocation from the same values. Those are uniform when the step
//! is, and the step is proved uniform by the analysis (the load's uniformity in one iteration
//! says nothing about it: the loop may run once). A 1D block read's pointer (SPV_INTEL_subgroups)
//! is proved uniform by the analysis. New arithmetic only adds to coordinates; the cloned
//! instructions have no side effects.
//!
//! Cooperative prefetching (`prefetch-cooperative`): when every subgroup of a work-group loads
//! the same tile, each of them prefetching all of it multiplies the traffic by the number of
//! subgroups `S`. Triton instead splits the tile across subgroups (`SubgroupId`-dependent
//! offsets). With the option, a 2D plan is split when (else `cooperative_not_applied_*`, by
//! reason): the load's base, memory width/height/pitch and coordinate do not depend (data
//! dependence, transitively, through memory conservatively: a write of a dependent value
//! anywhere makes every load from non-`Input` memory dependent) on `SubgroupId`,
//! `SubgroupLocalInvocationId`, `LocalInvocationId`, `GlobalInvocationId`,
//! `LocalInvocationIndex` or `GlobalLinearId`; no branch of the function depends on them (so
//! every subgroup runs the same loop iterations); every kernel reaching the function
//! ([`KernelFacts`]) has the same number of subgroups per work-group `S`, a power of two
//! `≥ 2` (`SubgroupsPerWorkgroup`, else its `LocalSize` / `MaxWorkgroupSizeINTEL` product divided
//! by its `SubgroupSize`). The `H` rows are split into `P` parts (`P` the largest power of two
//! `≤ S` dividing `H` whose `H/P`-row prefetch the target supports; `P ≥ 2`) and subgroup `s`
//! prefetches rows `y + (s mod P)·H/P` (`SubgroupId` is read from its built-in variable, added
//! with the entry points' interfaces when missing). Correctness is unchanged: the offset is
//! subgroup-uniform, and the prefetches still have no functional effect. A work-group smaller
//! than `MaxWorkgroupSizeINTEL` only loses part of the prefetch (performance, not results).
//!
//! One rewrite (`--max-changes`): prefetching one load (its in-loop prefetches and prologue),
//! in plan order (loops in preorder, loads in block order).

use std::cell::{OnceCell, RefCell};
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use spirv::{BuiltIn, Capability, Op, StorageClass};
use spvopt_analysis::affine::AffineExpr;
use spvopt_analysis::alias::BlockGeometry;
use spvopt_analysis::builtins::{builtin_of_variable, debug_names};
use spvopt_analysis::decorations::Decorations;
use spvopt_analysis::dominators::Dominators;
use spvopt_analysis::induction::Induction;
use spvopt_analysis::loops::{LoopId, Loops};
use spvopt_analysis::provenance::derives_pointer;
use spvopt_analysis::types::{int_width, pointer_of, vector_of};
use spvopt_analysis::uniformity::Uniformity;
use spvopt_analysis::{Analyses, AnalysisSet, Cfg, Fact, KernelFacts, Target};
use spvopt_ir::opcode_class::{op_class, OpClass};
use spvopt_ir::{BlockId, Id, Inst, InstId, Interner, Module, Section};

use crate::edit::capabilities::{ensure_capability, ensure_extension, has_capability};
use crate::edit::location;
use crate::pass::{Changes, Pass, PassError, PassOptions, PassResult, Statistics};
use spvopt_analysis::block_io::{BlockKind, BlockOperands};

mod cooperative;
mod coverage;
mod emit;
mod pieces;
mod planning;
use cooperative::*;
use emit::*;
use pieces::*;
use planning::*;

use coverage::{covers, same_base, Coverage, Existing};

/// `Decoration CacheControlLoadINTEL`.
const CACHE_CONTROL_LOAD: u32 = 6442;
const EXT_CACHE_CONTROLS: &str = "SPV_INTEL_cache_controls";
const EXT_BUFFER_PREFETCH: &str = "SPV_INTEL_subgroup_buffer_prefetch";
/// Largest prefetch distance accepted.
const MAX_DISTANCE: u32 = 16;
/// How many steps ahead an existing prefetch may be to count as covering a load.
const MAX_AHEAD: i64 = 64;
/// Instructions cloned into a preheader for one load, at most.
const HOIST_BUDGET: usize = 64;

/// Whether 1D subgroup block reads get buffer prefetches (`prefetch-1d`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BufferPrefetches {
    /// Not when the target's consumer is IGC ([`IGC_TARGETS`]), else yes. By measurement
    /// (IGC 2.40, 256 GRF, the 85 DPAS kernels of `tests/corpus/opencl-samples` on pvc):
    /// IGC issues every buffer prefetch as one more send with its own address arithmetic, so
    /// the K loops' sends grow by 30% and their instructions by 19% with them, and 29 kernels
    /// end up with more sends than their input because of them alone; nothing in IGC's output
    /// shows what they save, and no producer's best build (Triton's) emits them. 2D block
    /// prefetches stay: Triton's own 2D builds issue them (docs/isa-parity.md).
    Auto,
    /// Always (where the target honours the size).
    On,
    /// Never.
    Off,
}

use crate::util::IGC_TARGETS;

/// The pass, with its options.
#[derive(Clone, Debug)]
pub struct InsertPrefetches {
    /// Iterations ahead (`prefetch-distance`).
    pub distance: u32,
    /// Split a work-group's shared tile across its subgroups (`prefetch-cooperative`).
    pub cooperative: bool,
    /// `LoadCacheControl` for L1 and L3 (`prefetch-cache`); `None`: no decoration.
    pub cache: Option<(u32, u32)>,
    /// Buffer prefetches of 1D subgroup block reads (`prefetch-1d`).
    pub buffer: BufferPrefetches,
}

impl Default for InsertPrefetches {
    fn default() -> Self {
        InsertPrefetches {
            distance: 2,
            cooperative: false,
            cache: Some((1, 1)),
            buffer: BufferPrefetches::Auto,
        }
    }
}

/// `UC`, `C`, `S`, `IAR`, `CC` → `LoadCacheControl` (Uncached, Cached, Streaming,
/// InvalidateAfterRead, ConstCached).
fn load_cache_control(s: &str) -> Option<u32> {
    Some(match s {
        "UC" => 0,
        "C" => 1,
        "S" => 2,
        "IAR" => 3,
        "CC" => 4,
        _ => return None,
    })
}

/// An on/off option value: empty (the bare flag), `true`/`1`/`yes`/`on` or
/// `false`/`0`/`no`/`off`.
fn switch(v: &str) -> Option<bool> {
    match v {
        "" | "true" | "1" | "yes" | "on" => Some(true),
        "false" | "0" | "no" | "off" => Some(false),
        _ => None,
    }
}

/// `L1<c>_L3<c>` or `none`.
fn parse_cache(v: &str) -> Option<Option<(u32, u32)>> {
    let v = v.trim();
    if v.eq_ignore_ascii_case("none") {
        return Some(None);
    }
    let (a, b) = v.split_once('_')?;
    let l1 = load_cache_control(&a.strip_prefix("L1")?.to_ascii_uppercase())?;
    let l3 = load_cache_control(&b.strip_prefix("L3")?.to_ascii_uppercase())?;
    Some(Some((l1, l3)))
}

impl InsertPrefetches {
    /// The pass configured by pipeline / CLI options.
    pub fn from_options(opts: &PassOptions) -> Result<InsertPrefetches, PassError> {
        let mut p = InsertPrefetches::default();
        let bad = |k: &str, message: String| PassError::BadOption {
            pass: "insert-prefetches".into(),
            option: k.to_string(),
            message,
        };
        for (k, v) in opts {
            match k.as_str() {
                "prefetch-distance" => {
                    p.distance = v
                        .parse::<u32>()
                        .ok()
                        .filter(|d| (1..=MAX_DISTANCE).contains(d))
                        .ok_or_else(|| {
                            bad(
                                k,
                                format!("expected an integer in 1..={MAX_DISTANCE}, got \"{v}\""),
                            )
                        })?;
                }
                "prefetch-cooperative" => {
                    p.cooperative = switch(v)
                        .ok_or_else(|| bad(k, format!("expected true or false, got \"{v}\"")))?;
                }
                "prefetch-1d" => {
                    p.buffer = match (v.as_str(), switch(v)) {
                        ("auto", _) => BufferPrefetches::Auto,
                        (_, Some(true)) => BufferPrefetches::On,
                        (_, Some(false)) => BufferPrefetches::Off,
                        (_, None) => {
                            return Err(bad(
                                k,
                                format!("expected auto, true or false, got \"{v}\""),
                            ))
                        }
                    };
                }
                "prefetch-cache" => {
                    p.cache = parse_cache(v).ok_or_else(|| {
                        bad(
                            k,
                            format!(
                                "expected L1<x>_L3<y> with x, y in UC, C, S, IAR, CC, or none; \
                                 got \"{v}\""
                            ),
                        )
                    })?;
                }
                _ => return Err(bad(k, "unknown option".into())),
            }
        }
        Ok(p)
    }
}

impl Pass for InsertPrefetches {
    fn name(&self) -> &'static str {
        "insert-prefetches"
    }

    fn run(
        &mut self,
        m: &mut Module,
        analyses: &mut Analyses,
        target: &Target,
        changes: &mut Changes,
    ) -> Result<PassResult, PassError> {
        let mut stats = Statistics::default();
        let has_loads = m.function_ids().any(|f| {
            m.function(f).blocks.iter().any(|&b| {
                m.block_insts(b).any(|i| {
                    BlockKind::of(m.inst(i)).is_some_and(BlockKind::is_load)
                        || m.inst(i).is(Op::SubgroupBlockReadINTEL)
                })
            })
        });
        if !has_loads {
            return Ok(PassResult::unchanged(stats));
        }
        let cfg = analyses.get::<Cfg>(m);
        let dom = analyses.get::<Dominators>(m);
        let loops = analyses.get::<Loops>(m);
        // Forms and variance of the values block operations read: the geometry's.
        let geo = BlockGeometry::from_cache(m, analyses);
        let ind = geo.induction();
        let facts = analyses.get::<KernelFacts>(m);
        let coop = self.cooperative.then(|| {
            let dec = analyses.get::<Decorations>(m);
            CoopInfo::build(m, &facts, &dec)
        });
        let uni = OnDemandUniformity {
            m,
            analyses: RefCell::new(analyses),
            uni: OnceCell::new(),
        };
        let ctx = Ctx {
            target,
            cfg: &cfg,
            dom: &dom,
            loops: &loops,
            ind,
            uni: &uni,
            geo: &geo,
            coop: coop.as_ref(),
        };
        let addresses = has_capability(m, Capability::Addresses);
        let buffer_prefetches = match self.buffer {
            BufferPrefetches::Auto => !IGC_TARGETS.contains(&target.name.as_str()),
            BufferPrefetches::On => true,
            BufferPrefetches::Off => false,
        };
        // Plan everything on the unmodified module, then emit.
        let mut plans: Vec<Plan> = Vec::new();
        let mut preheaders: HashMap<LoopId, Option<InstId>> = HashMap::new();
        for &l in loops.preorder() {
            stats.add("loops_visited", 1);
            let blocks: Vec<BlockId> = loops
                .blocks(l)
                .iter()
                .copied()
                .filter(|&b| loops.innermost(b) == Some(l))
                .collect();
            let candidates: Vec<InstId> = blocks
                .iter()
                .flat_map(|&b| m.block_insts(b))
                .filter(|&i| {
                    BlockKind::of(m.inst(i)).is_some_and(BlockKind::is_load)
                        || m.inst(i).is(Op::SubgroupBlockReadINTEL)
                })
                .collect();
            if candidates.is_empty() {
                continue;
            }
            let existing = ctx.existing(m, l);
            // Found when a load of the loop gets a plan (it needs uniformity).
            let mut pre: Option<Option<Preheader>> = None;
            let mut done_2d = Vec::new();
            let mut done_1d = Vec::new();
            for i in candidates {
                stats.add("loads_considered", 1);
                let r = if m.inst(i).is(Op::SubgroupBlockReadINTEL) {
                    if !buffer_prefetches {
                        Err("skipped_buffer_prefetch_off")
                    } else if addresses {
                        ctx.plan_1d(m, l, i, &existing, &mut pre, &mut done_1d)
                    } else {
                        Err("skipped_unsupported_shape")
                    }
                } else {
                    let mut not_applied = None;
                    let r =
                        ctx.plan_2d(m, l, i, &existing, &mut pre, &mut done_2d, &mut not_applied);
                    if r.is_ok() {
                        if let Some(reason) = not_applied {
                            stats.add("cooperative_not_applied", 1);
                            stats.add(reason, 1);
                        }
                    }
                    r
                };
                if self.cooperative && r.is_ok() && m.inst(i).is(Op::SubgroupBlockReadINTEL) {
                    stats.add("cooperative_not_applied", 1);
                    stats.add("cooperative_not_applied_buffer", 1);
                }
                stats.note(ctx.note(m, l, i, &existing, &r));
                match r {
                    Ok(p) => {
                        if p.prologue.is_none() {
                            stats.add("prologues_skipped", 1);
                        }
                        plans.push(p);
                    }
                    Err(reason) => stats.add(reason, 1),
                }
            }
            preheaders.insert(l, pre.flatten().map(|p| p.at));
        }
        plans.truncate(changes.allow_up_to(plans.len()));
        if plans.is_empty() {
            return Ok(PassResult::unchanged(stats));
        }
        let mut e = Emitter {
            types: Interner::default(),
            cache: if addresses { self.cache } else { None },
            hoisted: HashMap::new(),
            inserted: 0,
            prologue: 0,
            buffer: 0,
            decorated: false,
            subgroup_id: None,
            cooperative: 0,
            cooperative_loads: 0,
        };
        for p in &plans {
            let at = preheaders.get(&p.l).copied().flatten();
            e.emit(m, p, self.distance, at);
        }
        if e.inserted == 0 {
            // Planned but nothing could be emitted (a materialisation failed); the module may
            // hold new constants, so it counts as changed.
            stats.warn("insert-prefetches: planned prefetches could not be emitted".into());
        }
        if e.decorated {
            ensure_capability(m, Capability::CacheControlsINTEL);
            ensure_extension(m, EXT_CACHE_CONTROLS);
        }
        if e.buffer > 0 {
            ensure_capability(m, Capability::SubgroupBufferPrefetchINTEL);
            ensure_extension(m, EXT_BUFFER_PREFETCH);
        }
        if e.subgroup_id.is_some() {
            e.finish_subgroup_id(m);
        }
        stats.add("cooperative_loads", e.cooperative_loads);
        stats.add("cooperative_prefetches", e.cooperative);
        stats.add("loads_prefetched", plans.len() as u64);
        stats.add("prefetches_inserted", e.inserted);
        stats.add("prologue_prefetches", e.prologue);
        stats.add("buffer_prefetches", e.buffer);
        Ok(PassResult {
            changed: true,
            preserved: AnalysisSet::CFG | AnalysisSet::DOMINATORS | AnalysisSet::LOOPS,
            stats,
        })
    }
}
