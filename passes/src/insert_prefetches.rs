//! `insert-prefetches`: prefetches the data of loop-carried 2D block loads and 1D subgroup block
//! reads a configurable number of iterations ahead of their use.
//!
//! What: for every natural loop (with or without `OpLoopMerge`; Triton's loops are single
//! blocks branching to themselves) and every load whose innermost loop it is:
//! - `OpSubgroup2DBlockLoad{,Transform,Transpose}INTEL` whose coordinate is `base + step·i` in
//!   the loop counter `i` (induction analysis) gets, right before it, an
//!   `OpSubgroup2DBlockPrefetchINTEL` of the same memory rectangle at `coord + d·step`
//!   (`d` = `prefetch-distance`, default 2), and the loop's preheader (the unique predecessor
//!   of the header outside the loop) gets prologue prefetches of iterations `0..d`. The
//!   prefetch shape comes from the target's table: one block `W·Count` wide when supported,
//!   else the load's own shape, else pieces of at most 64 bytes per row and 32 rows.
//! - `OpSubgroupBlockReadINTEL` whose pointer is `root + step·i` bytes gets
//!   `OpSubgroupBlockPrefetchINTEL` of the same number of bytes per invocation at
//!   `ptr + d·step` (and prologue prefetches), when the target honours that size;
//!   `SPV_INTEL_subgroup_buffer_prefetch` is declared.
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
//! has 2D block IO (resp. buffer prefetch); the block shape is constant; every operand of the
//! load is dynamically uniform (uniformity analysis) and all but the coordinate are invariant
//! in the loop; the coordinate (pointer offset) is affine in the loop counter with a nonzero,
//! loop-invariant, uniform step; and no prefetch in the loop already covers the load:
//! a prefetch of the same base object (provenance root) and pitch whose coordinate has the
//! same step and is `k ≥ 1` steps ahead, up to a remainder smaller than one step or made of
//! values the step does not mention (Triton's cooperative prefetches split a tile across
//! subgroups with `SubgroupId`-dependent offsets). So Triton's output, already prefetched,
//! comes out unchanged, and the pass is idempotent.
//!
//! Why correct: prefetches have no functional effect (SPV_INTEL_2d_block_io: out-of-bounds
//! elements of a prefetch are ignored; SPV_INTEL_subgroup_buffer_prefetch: a prefetch "does
//! not affect the functionality of a module"), so prefetching past the end of the data in the
//! last iterations is harmless and needs no guard. The only obligations are the instructions'
//! preconditions: every operand is dynamically uniform (the load's operands are, the step is
//! checked, the cloned prologue computations are the same functions of uniform values) and all
//! invocations execute the same dynamic instance (the in-loop prefetch sits right before the
//! load, in the same block; the prologue is only emitted when the preheader is not under
//! divergent control). New arithmetic only adds to coordinates; the cloned instructions have
//! no side effects.

use std::collections::{HashMap, HashSet};

use spirv::{Capability, Op, StorageClass};
use spvopt_analysis::affine::AffineExpr;
use spvopt_analysis::alias::{Alias, BlockFootprint};
use spvopt_analysis::block_io::BlockIoKind;
use spvopt_analysis::dominators::Dominators;
use spvopt_analysis::induction::{Induction, LoopAffine};
use spvopt_analysis::loops::{LoopId, Loops};
use spvopt_analysis::provenance::Root;
use spvopt_analysis::target::BlockOp;
use spvopt_analysis::types::{int_width, pointer_of, vector_of};
use spvopt_analysis::uniformity::Uniformity;
use spvopt_analysis::{Analyses, AnalysisSet, Cfg, Target};
use spvopt_ir::{BlockId, Id, Inst, InstId, Interner, Module, Section};

use crate::block_io::{BlockKind, BlockOperands};
use crate::builtin_names::{ensure_capability, ensure_extension, has_capability};
use crate::pass::{Pass, PassError, PassResult, Statistics};
use crate::registry::PassOptions;

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

/// The pass, with its options.
#[derive(Clone, Debug)]
pub struct InsertPrefetches {
    /// Iterations ahead (`prefetch-distance`).
    pub distance: u32,
    /// Split a work-group's shared tile across subgroups (`prefetch-cooperative`; not
    /// implemented yet: accepted and reported as `cooperative_not_applied`).
    pub cooperative: bool,
    /// `LoadCacheControl` for L1 and L3 (`prefetch-cache`); `None`: no decoration.
    pub cache: Option<(u32, u32)>,
}

impl Default for InsertPrefetches {
    fn default() -> Self {
        InsertPrefetches {
            distance: 2,
            cooperative: false,
            cache: Some((1, 1)),
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
                    p.cooperative = match v.as_str() {
                        "" | "true" | "1" | "yes" | "on" => true,
                        "false" | "0" | "no" | "off" => false,
                        _ => return Err(bad(k, format!("expected true or false, got \"{v}\""))),
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

/// One prefetch block of a load's rectangle: shape and offset from the load's coordinate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Piece {
    width: u32,
    height: u32,
    count: u32,
    dx: u32,
    dy: u32,
}

/// The prefetches covering a `total_width` (elements) × `height` rectangle of `elem`-byte
/// elements that a load with block width `w` and count `count` reads: one wide block if the
/// target has it, else the load's own shape, else pieces (≤ 64 bytes per row, ≤ 32 rows).
fn pieces(target: &Target, elem: u32, w: u32, count: u32, height: u32) -> Option<Vec<Piece>> {
    let total = w.checked_mul(count)?;
    let ok = |w, h, c| target.supports_2d_block(BlockOp::Prefetch, elem, w, h, c);
    if ok(total, height, 1) {
        return Some(vec![Piece {
            width: total,
            height,
            count: 1,
            dx: 0,
            dy: 0,
        }]);
    }
    if ok(w, height, count) {
        return Some(vec![Piece {
            width: w,
            height,
            count,
            dx: 0,
            dy: 0,
        }]);
    }
    let mut best: Option<(u32, u32)> = None;
    let mut pw = 1u32;
    while pw <= total && pw.saturating_mul(elem) <= 64 {
        let mut ph = 1u32;
        while ph <= height && ph <= 32 {
            if total.is_multiple_of(pw) && height.is_multiple_of(ph) && ok(pw, ph, 1) {
                let better = best.is_none_or(|(bw, bh)| (pw * ph, pw) > (bw * bh, bw));
                if better {
                    best = Some((pw, ph));
                }
            }
            ph *= 2;
        }
        pw *= 2;
    }
    let (pw, ph) = best?;
    let mut v = Vec::new();
    for dy in (0..height).step_by(ph as usize) {
        for dx in (0..total).step_by(pw as usize) {
            v.push(Piece {
                width: pw,
                height: ph,
                count: 1,
                dx,
                dy,
            });
        }
    }
    (v.len() <= 16).then_some(v)
}

/// Analyses the planning reads.
struct Ctx<'a> {
    target: &'a Target,
    cfg: &'a Cfg,
    dom: &'a Dominators,
    loops: &'a Loops,
    ind: &'a Induction,
    uni: &'a Uniformity,
    alias: &'a Alias,
}

/// Where a loop's prologue goes and what has been planned to be cloned there.
struct Preheader {
    block: BlockId,
    /// Prologue instructions go before this one (the terminator or its merge instruction).
    at: InstId,
    /// Ids planned to be available in the preheader (clones and phi substitutions).
    planned: HashSet<Id>,
}

/// A load of a loop and how to prefetch it.
struct Plan {
    load: InstId,
    l: LoopId,
    what: PlanKind,
    /// Instructions to clone into the preheader (in order) for the prologue; `None`: no
    /// prologue.
    prologue: Option<Vec<InstId>>,
}

enum PlanKind {
    Block2d {
        ops: BlockOperands,
        /// Per coordinate component, the step in elements per iteration.
        steps: Vec<AffineExpr>,
        pieces: Vec<Piece>,
    },
    Buffer1d {
        ptr: Id,
        /// Step in pointee elements per iteration.
        step: AffineExpr,
        num_bytes: u32,
    },
}

/// Existing prefetches of a loop, as (base object, pitch form or id, x-bytes and y split in the
/// loop) for 2D and (root, offset split) for 1D.
#[derive(Default)]
struct Existing {
    block_2d: Vec<(Root, Id, PitchKey, LoopAffine, LoopAffine)>,
    buffer_1d: Vec<(Root, Id, LoopAffine)>,
}

/// How existing prefetches cover a load.
enum Coverage {
    None,
    Region,
    Object,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum PitchKey {
    Form(AffineExpr),
    Id(Id),
}

fn pitch_key(ind: &Induction, pitch: Id) -> PitchKey {
    ind.form(pitch).map_or(PitchKey::Id(pitch), PitchKey::Form)
}

/// Same base object: the same provenance root when known, else the same pointer id.
fn same_base(ra: Root, ia: Id, rb: Root, ib: Id) -> bool {
    match (ra, rb) {
        (Root::Unknown, _) | (_, Root::Unknown) => ia == ib,
        _ => ra == rb,
    }
}

/// Whether `diff` (prefetch minus load, in some component) is `k` steps ahead, up to a
/// remainder that is smaller than one (constant) step or independent of the step's values.
fn ahead_by(diff: &AffineExpr, step: &AffineExpr, k: i64) -> bool {
    if step.as_constant() == Some(0) {
        return true;
    }
    let Some(r) = diff.sub(&step.scale(k)) else {
        return false;
    };
    if r.terms()
        .iter()
        .any(|t| step.terms().iter().any(|s| s.monomial == t.monomial))
    {
        return false;
    }
    match step.as_constant() {
        Some(s) if s > 0 => (0..s).contains(&r.constant),
        Some(s) => (s + 1..=0).contains(&r.constant),
        None => true,
    }
}

/// Whether a prefetch at `p` covers a load at `load` (per component) at distance ≥ 1.
fn covers(load: &[&LoopAffine], p: &[&LoopAffine]) -> bool {
    if load.len() != p.len() || load.iter().zip(p).any(|(a, b)| a.step != b.step) {
        return false;
    }
    if load.iter().all(|a| a.step.as_constant() == Some(0)) {
        return false;
    }
    let diffs: Option<Vec<AffineExpr>> = load
        .iter()
        .zip(p)
        .map(|(a, b)| b.base.sub(&a.base))
        .collect();
    let Some(diffs) = diffs else { return false };
    (1..=MAX_AHEAD).any(|k| diffs.iter().zip(load).all(|(d, a)| ahead_by(d, &a.step, k)))
}

impl<'a> Ctx<'a> {
    fn existing(&self, m: &Module, l: LoopId) -> Existing {
        let mut e = Existing::default();
        let prov = self.alias.provenance();
        for &b in self.loops.blocks(l) {
            for i in m.block_insts(b) {
                let inst = m.inst(i);
                if inst.is(Op::SubgroupBlockPrefetchINTEL) {
                    let Some(ptr) = inst.operand_id(0) else {
                        continue;
                    };
                    let Some(info) = prov.info(ptr) else { continue };
                    if let Some(s) = info
                        .offset
                        .as_ref()
                        .and_then(|o| self.ind.split_in_loop(o, l))
                    {
                        e.buffer_1d.push((info.root, ptr, s));
                    }
                    continue;
                }
                let Some(bio) = self.alias.block_io(m, i) else {
                    continue;
                };
                if bio.kind != BlockIoKind::Prefetch {
                    continue;
                }
                let Some(fp) = self.alias.block_footprint(m, i) else {
                    continue;
                };
                let (Some(x), Some(y)) = (
                    self.ind.split_in_loop(&fp.x_bytes, l),
                    self.ind.split_in_loop(&fp.y, l),
                ) else {
                    continue;
                };
                e.block_2d.push((
                    fp.base.root,
                    bio.base,
                    pitch_key(self.ind, bio.mem_pitch),
                    x,
                    y,
                ));
            }
        }
        e
    }

    /// Whether `v` is available right before `at` (its definition dominates it).
    fn available_at(&self, m: &Module, v: Id, at: InstId) -> bool {
        let Some(def) = m.def(v) else { return false };
        let Some(db) = m.inst_block(def) else {
            return true; // module level
        };
        let Some(ab) = m.inst_block(at) else {
            return false;
        };
        if db != ab {
            return self.dom.strictly_dominates(db, ab);
        }
        for i in m.block_insts(ab) {
            if i == def {
                return true;
            }
            if i == at {
                return false;
            }
        }
        false
    }

    /// The values an expression mentions, if it mentions no loop counter and only integers.
    fn expr_values(&self, m: &Module, e: &AffineExpr) -> Option<Vec<Id>> {
        let mut v = Vec::new();
        for t in e.terms() {
            if t.monomial.counter().is_some() {
                return None;
            }
            let id = t.monomial.value()?;
            int_width(m, m.type_of(id)?)?;
            v.push(id);
        }
        Some(v)
    }

    /// The step values are uniform and available at `load`; `Err(reason)` otherwise.
    fn check_step(&self, m: &Module, e: &AffineExpr, load: InstId) -> Result<(), &'static str> {
        let vals = self.expr_values(m, e).ok_or("skipped_not_affine")?;
        if vals.iter().any(|&v| !self.uni.is_uniform(v)) {
            return Err("skipped_not_uniform");
        }
        if vals.iter().any(|&v| !self.available_at(m, v, load)) {
            return Err("skipped_not_affine");
        }
        Ok(())
    }

    /// The preheader of `l` where a prologue may go.
    fn preheader(&self, m: &Module, l: LoopId) -> Option<Preheader> {
        let block = self.loops.preheader(l, self.cfg)?;
        if self.uni.is_divergent_control(block) {
            return None;
        }
        let term = m.block_terminator(block)?;
        let at = match m.prev_inst(term) {
            Some(p) if m.inst(p).is(Op::LoopMerge) || m.inst(p).is(Op::SelectionMerge) => p,
            _ => term,
        };
        Some(Preheader {
            block,
            at,
            planned: HashSet::new(),
        })
    }

    /// Plans making `id` available at the end of the preheader of `l`: appends the
    /// instructions to clone (header phis stand for their incoming value from the preheader).
    fn hoist(
        &self,
        m: &Module,
        l: LoopId,
        pre: &Preheader,
        id: Id,
        out: &mut Vec<InstId>,
        seen: &mut HashSet<Id>,
    ) -> bool {
        if pre.planned.contains(&id) || seen.contains(&id) {
            return true;
        }
        let Some(def) = m.def(id) else { return false };
        let Some(b) = m.inst_block(def) else {
            return true;
        };
        if !self.loops.contains(l, b) {
            return self.dom.dominates(b, pre.block);
        }
        if out.len() >= HOIST_BUDGET {
            return false;
        }
        let inst = m.inst(def);
        let header = self.loops.header(l);
        if Some(b) == header && inst.is(Op::Phi) {
            let label = m.block_label(pre.block);
            let ops = inst.operands();
            let Some(v) = ops
                .chunks(2)
                .find(|p| p.len() == 2 && p[1] == label.word())
                .and_then(|p| Id::new(p[0]))
            else {
                return false;
            };
            if !self.hoist(m, l, pre, v, out, seen) {
                return false;
            }
            seen.insert(id);
            out.push(def);
            return true;
        }
        if !cloneable(m, inst) {
            return false;
        }
        let mut operands = Vec::new();
        spvopt_analysis::operands::for_each_value_operand(m, def, |u| operands.push(u));
        for u in operands {
            if !self.hoist(m, l, pre, u, out, seen) {
                return false;
            }
        }
        seen.insert(id);
        out.push(def);
        true
    }

    /// Plans the prologue of a load: every id in `ids` and every value of `exprs` available in
    /// the preheader.
    fn plan_prologue(
        &self,
        m: &Module,
        l: LoopId,
        pre: &mut Preheader,
        ids: &[Id],
        exprs: &[&AffineExpr],
    ) -> Option<Vec<InstId>> {
        let mut out = Vec::new();
        let mut seen = HashSet::new();
        let mut all: Vec<Id> = ids.to_vec();
        for e in exprs {
            all.extend(self.expr_values(m, e)?);
        }
        for id in all {
            if !self.hoist(m, l, pre, id, &mut out, &mut seen) {
                return None;
            }
        }
        pre.planned.extend(seen);
        Some(out)
    }

    fn plan_2d(
        &self,
        m: &Module,
        l: LoopId,
        i: InstId,
        existing: &Existing,
        pre: &mut Option<Preheader>,
        done: &mut Vec<BlockOperands>,
    ) -> Result<Plan, &'static str> {
        if !self.target.has_2d_block_io() {
            return Err("skipped_target_without_prefetch");
        }
        let ops = BlockOperands::read(m.inst(i)).ok_or("skipped_malformed")?;
        let shape = ops.shape(m).ok_or("skipped_unsupported_shape")?;
        let uniform = [
            ops.element_size,
            ops.width,
            ops.height,
            ops.count,
            ops.base,
            ops.memory_width,
            ops.memory_height,
            ops.memory_pitch,
            ops.coordinate,
        ];
        if uniform.iter().any(|&v| !self.uni.is_uniform(v)) {
            return Err("skipped_not_uniform");
        }
        if uniform[..8]
            .iter()
            .any(|&v| !self.ind.is_invariant_in(v, l))
        {
            return Err("skipped_loop_variant_operand");
        }
        let comps = self
            .ind
            .vector_affine_in_loop(ops.coordinate, l)
            .filter(|c| c.len() == 2)
            .ok_or("skipped_not_affine")?;
        if comps.iter().all(|c| c.step.as_constant() == Some(0)) {
            return Err("skipped_invariant_coordinate");
        }
        for c in &comps {
            self.check_step(m, &c.step, i)?;
        }
        // Covered by an existing prefetch of the loop, or by one planned for an identical load.
        let key = BlockOperands {
            private: None,
            kind: BlockKind::Prefetch,
            ..ops
        };
        if done.contains(&key) {
            return Err("skipped_already_prefetched");
        }
        if let Some(fp) = self.alias.block_footprint(m, i) {
            match self.covered_2d(&fp, &ops, l, existing) {
                Coverage::Region => return Err("skipped_already_prefetched"),
                Coverage::Object => return Err("skipped_already_prefetched_object"),
                Coverage::None => {}
            }
        }
        let pieces = pieces(
            self.target,
            shape.element_size,
            shape.width,
            shape.count,
            shape.height,
        )
        .ok_or("skipped_unsupported_shape")?;
        let prologue = pre.as_mut().and_then(|p| {
            let steps: Vec<&AffineExpr> = comps.iter().map(|c| &c.step).collect();
            self.plan_prologue(
                m,
                l,
                p,
                &[
                    ops.coordinate,
                    ops.base,
                    ops.memory_width,
                    ops.memory_height,
                    ops.memory_pitch,
                ],
                &steps,
            )
        });
        done.push(key);
        Ok(Plan {
            load: i,
            l,
            what: PlanKind::Block2d {
                ops,
                steps: comps.into_iter().map(|c| c.step).collect(),
                pieces,
            },
            prologue,
        })
    }

    /// Whether an existing prefetch of the loop covers the load's region at distance ≥ 1
    /// ([`Coverage::Region`]) or at least prefetches the same object (base and pitch) with a
    /// coordinate advancing in the loop ([`Coverage::Object`]: the producer manages this
    /// buffer's prefetching itself, e.g. Triton's transposed-B GEMM, whose B prefetch walks the
    /// other axis; adding ours would double the traffic).
    fn covered_2d(
        &self,
        fp: &BlockFootprint,
        ops: &BlockOperands,
        l: LoopId,
        existing: &Existing,
    ) -> Coverage {
        let (Some(x), Some(y)) = (
            self.ind.split_in_loop(&fp.x_bytes, l),
            self.ind.split_in_loop(&fp.y, l),
        ) else {
            return Coverage::None;
        };
        let pitch = pitch_key(self.ind, ops.memory_pitch);
        let same_object: Vec<_> = existing
            .block_2d
            .iter()
            .filter(|(root, base, p, _, _)| {
                same_base(fp.base.root, ops.base, *root, *base) && *p == pitch
            })
            .collect();
        if same_object
            .iter()
            .any(|(_, _, _, px, py)| covers(&[&x, &y], &[px, py]))
        {
            Coverage::Region
        } else if same_object.iter().any(|(_, _, _, px, py)| {
            px.step.as_constant() != Some(0) || py.step.as_constant() != Some(0)
        }) {
            Coverage::Object
        } else {
            Coverage::None
        }
    }

    fn plan_1d(
        &self,
        m: &Module,
        l: LoopId,
        i: InstId,
        existing: &Existing,
        pre: &mut Option<Preheader>,
        done: &mut Vec<Id>,
    ) -> Result<Plan, &'static str> {
        if !self.target.features.buffer_prefetch || self.target.prefetch_byte_sizes().is_empty() {
            return Err("skipped_target_without_prefetch");
        }
        let inst = m.inst(i);
        let (Some(rty), Some(ptr)) = (inst.result_type(), inst.operand_id(0)) else {
            return Err("skipped_malformed");
        };
        let (comp, n) = vector_of(m, rty).unwrap_or((rty, 1));
        let bits = int_width(m, comp).ok_or("skipped_unsupported_shape")?;
        let num_bytes = bits / 8 * n;
        if !self.target.prefetch_byte_sizes().contains(&num_bytes) {
            return Err("skipped_unsupported_shape");
        }
        let (sc, pointee) = m
            .type_of(ptr)
            .and_then(|t| pointer_of(m, t))
            .ok_or("skipped_malformed")?;
        let elem_bits = int_width(m, pointee).ok_or("skipped_unsupported_shape")?;
        if sc != StorageClass::CrossWorkgroup as u32 || elem_bits < 8 {
            return Err("skipped_unsupported_shape");
        }
        if !self.uni.is_uniform(ptr) {
            return Err("skipped_not_uniform");
        }
        let info = self
            .alias
            .provenance()
            .info(ptr)
            .ok_or("skipped_not_affine")?;
        let split = info
            .offset
            .as_ref()
            .and_then(|o| self.ind.split_in_loop(o, l))
            .ok_or("skipped_not_affine")?;
        if split.step.as_constant() == Some(0) {
            return Err("skipped_invariant_coordinate");
        }
        let step = split
            .step
            .exact_div(i64::from(elem_bits / 8))
            .ok_or("skipped_not_affine")?;
        self.check_step(m, &step, i)?;
        if done.contains(&ptr) {
            return Err("skipped_already_prefetched");
        }
        if existing
            .buffer_1d
            .iter()
            .any(|(root, p, s)| same_base(info.root, ptr, *root, *p) && covers(&[&split], &[s]))
        {
            return Err("skipped_already_prefetched");
        }
        let prologue = pre
            .as_mut()
            .and_then(|p| self.plan_prologue(m, l, p, &[ptr], &[&step]));
        done.push(ptr);
        Ok(Plan {
            load: i,
            l,
            what: PlanKind::Buffer1d {
                ptr,
                step,
                num_bytes,
            },
            prologue,
        })
    }
}

/// Instructions whose clone in a preheader computes the same value: pure arithmetic, address
/// arithmetic and composite operations (no divisions: they could trap where the original
/// never runs), and reads of built-in input variables.
fn cloneable(m: &Module, inst: &Inst) -> bool {
    use Op::*;
    match inst.op() {
        Some(
            IAdd
            | ISub
            | IMul
            | SNegate
            | ShiftLeftLogical
            | ShiftRightLogical
            | ShiftRightArithmetic
            | BitwiseAnd
            | BitwiseOr
            | BitwiseXor
            | Not
            | UConvert
            | SConvert
            | Bitcast
            | CopyObject
            | CompositeExtract
            | CompositeInsert
            | CompositeConstruct
            | VectorShuffle
            | Select
            | IEqual
            | INotEqual
            | ULessThan
            | SLessThan
            | UGreaterThan
            | SGreaterThan
            | ULessThanEqual
            | SLessThanEqual
            | UGreaterThanEqual
            | SGreaterThanEqual
            | LogicalAnd
            | LogicalOr
            | LogicalNot
            | PtrAccessChain
            | InBoundsPtrAccessChain
            | AccessChain
            | InBoundsAccessChain
            | ConvertPtrToU
            | PtrCastToGeneric
            | GenericCastToPtr,
        ) => true,
        Some(Load) => {
            // Non-volatile load of a module-scope Input variable (built-ins).
            let volatile = inst.operand_word(1).is_some_and(|mask| mask & 1 != 0);
            !volatile
                && inst
                    .operand_id(0)
                    .and_then(|p| m.def_inst(p))
                    .is_some_and(|v| {
                        v.is(Variable)
                            && v.operand_word(0) == Some(StorageClass::Input as u32)
                            && v.result_id()
                                .and_then(|r| m.def(r))
                                .is_some_and(|d| m.inst_block(d).is_none())
                    })
        }
        _ => false,
    }
}

/// Emits `e` (no counters) as a value of integer type `ty` (`width` bits) before `at`, with
/// values renamed through `rename`.
fn materialize(
    m: &mut Module,
    types: &mut Interner,
    e: &AffineExpr,
    ty: Id,
    width: u32,
    at: InstId,
    rename: &dyn Fn(Id) -> Id,
) -> Option<Id> {
    let mask = if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    };
    let mut acc: Option<Id> = None;
    for t in e.terms() {
        let v = rename(t.monomial.value()?);
        let vw = int_width(m, m.type_of(v)?)?;
        let v = if vw != width {
            let c = m.fresh_id();
            m.insert_before(at, Inst::new(Op::UConvert, Some(ty), Some(c), &[v.word()]));
            c
        } else {
            v
        };
        let term = if t.coeff == 1 {
            v
        } else {
            let k = types.int_const(m, ty, t.coeff as u64 & mask);
            let r = m.fresh_id();
            m.insert_before(
                at,
                Inst::new(Op::IMul, Some(ty), Some(r), &[v.word(), k.word()]),
            );
            r
        };
        acc = Some(match acc {
            None => term,
            Some(a) => {
                let r = m.fresh_id();
                m.insert_before(
                    at,
                    Inst::new(Op::IAdd, Some(ty), Some(r), &[a.word(), term.word()]),
                );
                r
            }
        });
    }
    if e.constant != 0 || acc.is_none() {
        let k = types.int_const(m, ty, e.constant as u64 & mask);
        acc = Some(match acc {
            None => k,
            Some(a) => {
                let r = m.fresh_id();
                m.insert_before(
                    at,
                    Inst::new(Op::IAdd, Some(ty), Some(r), &[a.word(), k.word()]),
                );
                r
            }
        });
    }
    acc
}

/// Emits `coord + offsets[c]` per component (components whose offset is 0 are kept).
#[allow(clippy::too_many_arguments)]
fn offset_coordinate(
    m: &mut Module,
    types: &mut Interner,
    coord: Id,
    offsets: &[AffineExpr],
    at: InstId,
    rename: &dyn Fn(Id) -> Id,
) -> Option<Id> {
    let vty = m.type_of(coord)?;
    let (cty, _) = vector_of(m, vty)?;
    let width = int_width(m, cty)?;
    let mut cur = coord;
    for (k, off) in offsets.iter().enumerate() {
        if off.as_constant() == Some(0) {
            continue;
        }
        let x = m.fresh_id();
        m.insert_before(
            at,
            Inst::new(
                Op::CompositeExtract,
                Some(cty),
                Some(x),
                &[cur.word(), k as u32],
            ),
        );
        let o = materialize(m, types, off, cty, width, at, rename)?;
        let x2 = m.fresh_id();
        m.insert_before(
            at,
            Inst::new(Op::IAdd, Some(cty), Some(x2), &[x.word(), o.word()]),
        );
        let c2 = m.fresh_id();
        m.insert_before(
            at,
            Inst::new(
                Op::CompositeInsert,
                Some(vty),
                Some(c2),
                &[x2.word(), cur.word(), k as u32],
            ),
        );
        cur = c2;
    }
    Some(cur)
}

/// Emission state.
struct Emitter {
    types: Interner,
    cache: Option<(u32, u32)>,
    /// Per loop: ids available in its preheader for in-loop ones.
    hoisted: HashMap<LoopId, HashMap<Id, Id>>,
    inserted: u64,
    prologue: u64,
    buffer: u64,
    decorated: bool,
}

impl Emitter {
    /// A fresh pointer equal to `p` (decorated with the cache controls), or `p` itself when no
    /// decoration is asked for.
    fn prefetch_pointer(
        &mut self,
        m: &mut Module,
        p: Id,
        index: Option<Id>,
        at: InstId,
    ) -> Option<Id> {
        if self.cache.is_none() && index.is_none() {
            return Some(p);
        }
        let ty = m.type_of(p)?;
        let idx = match index {
            Some(i) => i,
            None => self.types.u32_const(m, 0),
        };
        let r = m.fresh_id();
        m.insert_before(
            at,
            Inst::new(
                Op::PtrAccessChain,
                Some(ty),
                Some(r),
                &[p.word(), idx.word()],
            ),
        );
        if let Some((l1, l3)) = self.cache {
            // L3 Cached is the hardware default for prefetches (IGC), so it is left implicit:
            // spirv-val (2025) rejects a second CacheControlLoadINTEL on one id although
            // SPV_INTEL_cache_controls allows one per cache level (llvm-project PR 165229).
            let mut levels = vec![(0, l1)];
            if l3 != 1 {
                levels.push((1, l3));
            }
            for (level, control) in levels {
                m.push_to_section(
                    Section::Annotation,
                    Inst::new(
                        Op::Decorate,
                        None,
                        None,
                        &[r.word(), CACHE_CONTROL_LOAD, level, control],
                    ),
                );
            }
            self.decorated = true;
        }
        Some(r)
    }

    fn hoist(&mut self, m: &mut Module, l: LoopId, at: InstId, insts: &[InstId]) {
        let map = self.hoisted.entry(l).or_default();
        for &def in insts {
            let inst = m.inst(def).clone();
            let Some(orig) = inst.result_id() else {
                continue;
            };
            if map.contains_key(&orig) {
                continue;
            }
            if inst.is(Op::Phi) {
                // Planned with its incoming value from the preheader (words: value, label).
                let label = m.inst_block(at).map(|b| m.block_label(b));
                let v = inst
                    .operands()
                    .chunks(2)
                    .find(|p| p.len() == 2 && Some(p[1]) == label.map(|l| l.word()))
                    .and_then(|p| Id::new(p[0]));
                if let Some(v) = v {
                    let v = map.get(&v).copied().unwrap_or(v);
                    map.insert(orig, v);
                }
                continue;
            }
            let mut clone = inst;
            let new = m.fresh_id();
            clone.set_result_id(new);
            let ni = m.insert_before(at, clone);
            m.map_used_ids(ni, |u| map.get(&u).copied().unwrap_or(u));
            map.insert(orig, new);
        }
    }

    fn emit(&mut self, m: &mut Module, plan: &Plan, distance: u32, pre_at: Option<InstId>) {
        let d = i64::from(distance);
        // In the loop, before the load: iteration i + d.
        match &plan.what {
            PlanKind::Block2d { ops, steps, pieces } => {
                self.emit_2d(m, ops, steps, pieces, d, plan.load, &|v| v);
            }
            PlanKind::Buffer1d {
                ptr,
                step,
                num_bytes,
            } => {
                if self.emit_1d(m, *ptr, step, *num_bytes, d, plan.load, &|v| v) {
                    self.buffer += 1;
                }
            }
        }
        // The prologue: iterations 0..d in the preheader.
        let (Some(clones), Some(at)) = (&plan.prologue, pre_at) else {
            return;
        };
        self.hoist(m, plan.l, at, clones);
        let map = self.hoisted.get(&plan.l).cloned().unwrap_or_default();
        let rename = move |v: Id| map.get(&v).copied().unwrap_or(v);
        for k in 0..d {
            let before = self.inserted;
            match &plan.what {
                PlanKind::Block2d { ops, steps, pieces } => {
                    let hoisted = BlockOperands {
                        base: rename(ops.base),
                        memory_width: rename(ops.memory_width),
                        memory_height: rename(ops.memory_height),
                        memory_pitch: rename(ops.memory_pitch),
                        coordinate: rename(ops.coordinate),
                        ..*ops
                    };
                    self.emit_2d(m, &hoisted, steps, pieces, k, at, &rename);
                }
                PlanKind::Buffer1d {
                    ptr,
                    step,
                    num_bytes,
                } => {
                    if self.emit_1d(m, rename(*ptr), step, *num_bytes, k, at, &rename) {
                        self.buffer += 1;
                    }
                }
            }
            self.prologue += self.inserted - before;
        }
    }

    /// Prefetches of the rectangle `ops` reads, `k` steps ahead, before `at`.
    #[allow(clippy::too_many_arguments)]
    fn emit_2d(
        &mut self,
        m: &mut Module,
        ops: &BlockOperands,
        steps: &[AffineExpr],
        pieces: &[Piece],
        k: i64,
        at: InstId,
        rename: &dyn Fn(Id) -> Id,
    ) {
        let Some(base) = self.prefetch_pointer(m, ops.base, None, at) else {
            return;
        };
        let ty = m.type_of(ops.width);
        for p in pieces {
            let mut offsets: Vec<AffineExpr> = steps.iter().map(|s| s.scale(k)).collect();
            for (c, extra) in [(0, p.dx), (1, p.dy)] {
                if extra != 0 {
                    if let Some(o) = offsets[c].add(&AffineExpr::constant(i64::from(extra))) {
                        offsets[c] = o;
                    }
                }
            }
            let Some(coord) =
                offset_coordinate(m, &mut self.types, ops.coordinate, &offsets, at, rename)
            else {
                continue;
            };
            let konst = |m: &mut Module, types: &mut Interner, v: u32| match ty {
                Some(t) => types.int_const(m, t, u64::from(v)),
                None => types.u32_const(m, v),
            };
            let pf = BlockOperands {
                kind: BlockKind::Prefetch,
                width: konst(m, &mut self.types, p.width),
                height: konst(m, &mut self.types, p.height),
                count: konst(m, &mut self.types, p.count),
                base,
                coordinate: coord,
                private: None,
                ..*ops
            };
            m.insert_before(at, pf.to_inst());
            self.inserted += 1;
        }
    }

    /// `OpSubgroupBlockPrefetchINTEL` of `ptr + k·step` elements before `at`.
    #[allow(clippy::too_many_arguments)]
    fn emit_1d(
        &mut self,
        m: &mut Module,
        ptr: Id,
        step: &AffineExpr,
        num_bytes: u32,
        k: i64,
        at: InstId,
        rename: &dyn Fn(Id) -> Id,
    ) -> bool {
        let off = step.scale(k);
        let width = off
            .terms()
            .iter()
            .filter_map(|t| t.monomial.value())
            .filter_map(|v| m.type_of(rename(v)).and_then(|t| int_width(m, t)))
            .max()
            .unwrap_or(32)
            .max(32);
        let ity = self.types.int(m, width);
        let index = if off.as_constant() == Some(0) {
            None
        } else {
            match materialize(m, &mut self.types, &off, ity, width, at, rename) {
                Some(i) => Some(i),
                None => return false,
            }
        };
        let Some(p) = self.prefetch_pointer(m, ptr, index, at) else {
            return false;
        };
        let nb = self.types.u32_const(m, num_bytes);
        m.insert_before(
            at,
            Inst::new(
                Op::SubgroupBlockPrefetchINTEL,
                None,
                None,
                &[p.word(), nb.word()],
            ),
        );
        self.inserted += 1;
        true
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
        let ind = analyses.get::<Induction>(m);
        let uni = analyses.get::<Uniformity>(m);
        let alias = analyses.get::<Alias>(m);
        let ctx = Ctx {
            target,
            cfg: &cfg,
            dom: &dom,
            loops: &loops,
            ind: &ind,
            uni: &uni,
            alias: &alias,
        };
        let addresses = has_capability(m, Capability::Addresses);
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
            let mut pre = ctx.preheader(m, l);
            let mut done_2d = Vec::new();
            let mut done_1d = Vec::new();
            for i in candidates {
                stats.add("loads_considered", 1);
                let r = if m.inst(i).is(Op::SubgroupBlockReadINTEL) {
                    if addresses {
                        ctx.plan_1d(m, l, i, &existing, &mut pre, &mut done_1d)
                    } else {
                        Err("skipped_unsupported_shape")
                    }
                } else {
                    ctx.plan_2d(m, l, i, &existing, &mut pre, &mut done_2d)
                };
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
            preheaders.insert(l, pre.map(|p| p.at));
        }
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
        if self.cooperative {
            stats.add("cooperative_not_applied", plans.len() as u64);
            stats.warn(
                "insert-prefetches: prefetch-cooperative is not implemented yet; every subgroup \
                 prefetches its own loads"
                    .into(),
            );
        }
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
