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

use std::collections::{HashMap, HashSet};

use spirv::{BuiltIn, Capability, Op, StorageClass};
use spvopt_analysis::affine::AffineExpr;
use spvopt_analysis::alias::Alias;
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

use crate::builtin_names::{ensure_capability, ensure_extension, has_capability};
use crate::legalize::location;
use crate::pass::{Pass, PassError, PassResult, Statistics};
use crate::registry::PassOptions;
use spvopt_analysis::block_io::{BlockKind, BlockOperands};

#[path = "insert_prefetches/coverage.rs"]
mod coverage;
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

/// The pass, with its options.
#[derive(Clone, Debug)]
pub struct InsertPrefetches {
    /// Iterations ahead (`prefetch-distance`).
    pub distance: u32,
    /// Split a work-group's shared tile across its subgroups (`prefetch-cooperative`).
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
    let ok = |w, h, c| target.supports_2d_block(BlockKind::Prefetch, elem, w, h, c);
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
    /// Present with `prefetch-cooperative`.
    coop: Option<&'a CoopInfo>,
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
        /// Cooperative split: the pieces cover `rows` rows, at row offset
        /// `(SubgroupId mod parts)·rows`.
        split: Option<Split>,
    },
    Buffer1d {
        ptr: Id,
        /// Step in pointee elements per iteration.
        step: AffineExpr,
        num_bytes: u32,
    },
}

/// A cooperative split of a tile across the subgroups of a work-group.
#[derive(Clone, Copy, Debug)]
struct Split {
    /// Number of parts (a power of two ≥ 2): `parts / cols` row bands × `cols` columns.
    parts: u32,
    /// Rows per part.
    rows: u32,
    /// Column parts (power of two; 1: each subgroup prefetches its whole row band).
    cols: u32,
    /// Elements per column part.
    col_width: u32,
    /// Whether `SubgroupId` may reach `parts` (then it is reduced mod `parts`).
    wrap: bool,
}

/// Built-ins whose value differs between the subgroups of a work-group.
fn per_subgroup_builtin(b: BuiltIn) -> bool {
    matches!(
        b,
        BuiltIn::SubgroupId
            | BuiltIn::SubgroupLocalInvocationId
            | BuiltIn::LocalInvocationId
            | BuiltIn::GlobalInvocationId
            | BuiltIn::LocalInvocationIndex
            | BuiltIn::GlobalLinearId
    )
}

/// What cooperative splitting needs to know about the module.
struct CoopInfo {
    /// Ids that may differ between the subgroups of a work-group.
    dependent: HashSet<Id>,
    /// Functions with a branch on such a value.
    divergent: HashSet<Id>,
    /// Entry-point function → subgroups per work-group (power of two ≥ 2).
    subgroups: HashMap<Id, u32>,
}

/// Follows address arithmetic and casts from `p` to its root; whether that is an `Input` or
/// `UniformConstant` variable (read-only memory nothing writes).
fn read_only_root(m: &Module, mut p: Id) -> bool {
    for _ in 0..64 {
        let Some(inst) = m.def_inst(p) else {
            return false;
        };
        match inst.op() {
            Some(op) if derives_pointer(op) => match inst.operand_id(0) {
                Some(q) => p = q,
                None => return false,
            },
            Some(Op::Variable) => {
                return inst.operand_word(0) == Some(StorageClass::Input as u32)
                    || inst.operand_word(0) == Some(StorageClass::UniformConstant as u32);
            }
            _ => return false,
        }
    }
    false
}

impl CoopInfo {
    fn build(m: &Module, facts: &KernelFacts) -> CoopInfo {
        let dec = Decorations::build(m);
        let vars: Vec<Id> = m
            .section_insts(Section::Global)
            .filter(|(_, i)| i.is(Op::Variable))
            .filter_map(|(_, i)| i.result_id())
            .collect();
        let var_set: HashSet<Id> = vars.iter().copied().collect();
        let names = debug_names(m, &|id| var_set.contains(&id));
        let mut dependent: HashSet<Id> = vars
            .into_iter()
            .filter(|&v| builtin_of_variable(&dec, &names, v).is_some_and(per_subgroup_builtin))
            .collect();
        let insts: Vec<InstId> = m
            .function_ids()
            .flat_map(|f| m.function(f).blocks.clone())
            .flat_map(|b| m.block_insts(b).collect::<Vec<_>>())
            .collect();
        // Callee → its parameters, for call arguments.
        let params: HashMap<Id, Vec<Id>> = m
            .function_ids()
            .filter_map(|f| {
                let r = m.function_result(f)?;
                let ps = m
                    .function(f)
                    .header
                    .iter()
                    .filter(|&&i| m.inst(i).is(Op::FunctionParameter))
                    .filter_map(|&i| m.inst(i).result_id())
                    .collect();
                Some((r, ps))
            })
            .collect();
        // Flow-insensitive fixpoint; memory is one class.
        let mut memory = false;
        loop {
            let mut changed = false;
            for &i in &insts {
                let inst = m.inst(i);
                let mut uses_dep = false;
                m.for_each_used_id(i, |u| uses_dep |= dependent.contains(&u));
                let writes = (!inst.has_result()
                    && !inst.is(Op::Subgroup2DBlockPrefetchINTEL)
                    && !inst.is(Op::SubgroupBlockPrefetchINTEL))
                    || inst.is(Op::FunctionCall)
                    || inst.name().starts_with("OpAtomic");
                if writes && (uses_dep || inst.is(Op::FunctionCall)) && !memory {
                    // Conservative: a write of (or through) a dependent value, or any call.
                    let terminator = matches!(
                        inst.op(),
                        Some(
                            Op::Branch
                                | Op::BranchConditional
                                | Op::Switch
                                | Op::Return
                                | Op::ReturnValue
                                | Op::LoopMerge
                                | Op::SelectionMerge
                        )
                    );
                    if !terminator {
                        memory = true;
                        changed = true;
                    }
                }
                if inst.is(Op::FunctionCall) {
                    let ops = inst.operands();
                    if let Some(ps) = inst.operand_id(0).and_then(|c| params.get(&c)) {
                        for (a, p) in ops[1..].iter().zip(ps) {
                            if Id::new(*a).is_some_and(|a| dependent.contains(&a))
                                && dependent.insert(*p)
                            {
                                changed = true;
                            }
                        }
                    }
                }
                let Some(r) = inst.result_id() else { continue };
                if dependent.contains(&r) {
                    continue;
                }
                let dep = uses_dep
                    || inst.is(Op::FunctionCall)
                    || (memory
                        && inst.is(Op::Load)
                        && !inst.operand_id(0).is_some_and(|p| read_only_root(m, p)));
                if dep {
                    dependent.insert(r);
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        let mut divergent = HashSet::new();
        for f in m.function_ids() {
            let Some(fr) = m.function_result(f) else {
                continue;
            };
            for &b in &m.function(f).blocks {
                if let Some(t) = m.block_terminator(b) {
                    let inst = m.inst(t);
                    if (inst.is(Op::BranchConditional) || inst.is(Op::Switch))
                        && inst.operand_id(0).is_some_and(|c| dependent.contains(&c))
                    {
                        divergent.insert(fr);
                    }
                }
            }
        }
        // Subgroups per work-group of each function: `SubgroupsPerWorkgroup`, else the
        // work-group size bound over the subgroup size, of every kernel reaching it
        // (KernelFacts: Triton's kernels are wrappers calling the real kernel, which inherits).
        let mut subgroups = HashMap::new();
        for f in m.function_ids() {
            let (Some(fr), Fact::Known(s)) =
                (m.function_result(f), facts.subgroups_per_workgroup(f))
            else {
                continue;
            };
            if s >= 2 && s.is_power_of_two() && s <= 1 << 16 {
                subgroups.insert(fr, s);
            }
        }
        // Functions only called (transitively) from entry points with one known count inherit
        // it (Triton's kernels are wrappers calling the real kernel); a caller with subgroup-
        // dependent control makes its callees divergent.
        let mut callers: HashMap<Id, Vec<Id>> = HashMap::new();
        for f in m.function_ids() {
            let Some(fr) = m.function_result(f) else {
                continue;
            };
            for &b in &m.function(f).blocks {
                for i in m.block_insts(b) {
                    if let Some(c) = m
                        .inst(i)
                        .operand_id(0)
                        .filter(|_| m.inst(i).is(Op::FunctionCall))
                    {
                        callers.entry(c).or_default().push(fr);
                    }
                }
            }
        }
        for _ in 0..16 {
            let mut changed = false;
            for (callee, cs) in &callers {
                if cs.iter().any(|c| divergent.contains(c)) && divergent.insert(*callee) {
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        CoopInfo {
            dependent,
            divergent,
            subgroups,
        }
    }
}

impl<'a> Ctx<'a> {
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

    #[allow(clippy::too_many_arguments)]
    fn plan_2d(
        &self,
        m: &Module,
        l: LoopId,
        i: InstId,
        existing: &Existing,
        pre: &mut Option<Preheader>,
        done: &mut Vec<BlockOperands>,
        not_applied: &mut Option<&'static str>,
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
            match self.covered_2d(m, &fp, &ops, l, existing) {
                Coverage::Region(_) => return Err("skipped_already_prefetched"),
                Coverage::Object(_) => return Err("skipped_already_prefetched_object"),
                Coverage::None(_) => {}
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
        let (split, pieces) = match self.coop {
            None => (None, pieces),
            Some(c) => match self.split_2d(
                m,
                c,
                i,
                &ops,
                shape.element_size,
                shape.width,
                shape.count,
                shape.height,
            ) {
                Ok((split, p)) => (Some(split), p),
                Err(reason) => {
                    *not_applied = Some(reason);
                    (None, pieces)
                }
            },
        };
        done.push(key);
        Ok(Plan {
            load: i,
            l,
            what: PlanKind::Block2d {
                ops,
                steps: comps.into_iter().map(|c| c.step).collect(),
                pieces,
                split,
            },
            prologue,
        })
    }

    /// The cooperative split of load `i`'s tile and the pieces of one part; `Err(reason)` when
    /// it cannot be proved that every subgroup of the work-group loads the same tile, or the
    /// tile cannot be split.
    #[allow(clippy::too_many_arguments)]
    fn split_2d(
        &self,
        m: &Module,
        c: &CoopInfo,
        i: InstId,
        ops: &BlockOperands,
        elem: u32,
        width: u32,
        count: u32,
        height: u32,
    ) -> Result<(Split, Vec<Piece>), &'static str> {
        let f = m
            .inst_block(i)
            .and_then(|b| m.function_result(m.block(b).func))
            .ok_or("cooperative_not_applied_unknown_subgroup_count")?;
        let s = *c
            .subgroups
            .get(&f)
            .ok_or("cooperative_not_applied_unknown_subgroup_count")?;
        let operands = [
            ops.base,
            ops.memory_width,
            ops.memory_height,
            ops.memory_pitch,
            ops.coordinate,
        ];
        if operands.iter().any(|v| c.dependent.contains(v)) {
            return Err("cooperative_not_applied_subgroup_dependent");
        }
        if c.divergent.contains(&f) {
            return Err("cooperative_not_applied_subgroup_dependent_control");
        }
        // Row bands first (largest count that the target supports); when a band needs several
        // pieces side by side, they go to different subgroups as well if there are enough.
        let mut bands = s.min(height);
        let mut fallback = None;
        while bands >= 1 {
            if height.is_multiple_of(bands) {
                if let Some(p) = pieces(self.target, elem, width, count, height / bands) {
                    let rows = height / bands;
                    let n = p.len() as u32;
                    let one_band = p.iter().all(|q| q.dy == 0 && q.height == rows);
                    if n >= 2 && one_band && n.is_power_of_two() && bands * n <= s {
                        let piece = Piece { dx: 0, ..p[0] };
                        return Ok((
                            Split {
                                parts: bands * n,
                                rows,
                                cols: n,
                                col_width: piece.width * piece.count,
                                wrap: bands * n < s,
                            },
                            vec![piece],
                        ));
                    }
                    if bands >= 2 && fallback.is_none() {
                        fallback = Some((
                            Split {
                                parts: bands,
                                rows,
                                cols: 1,
                                col_width: 0,
                                wrap: bands < s,
                            },
                            p,
                        ));
                    }
                }
            }
            bands /= 2;
        }
        fallback.ok_or("cooperative_not_applied_unsplittable")
    }

    /// Why load `i` of loop `l` was or was not prefetched, and how the loop's existing
    /// prefetches relate to it (one line for `--stats`' notes).
    fn note(
        &self,
        m: &Module,
        l: LoopId,
        i: InstId,
        existing: &Existing,
        r: &Result<Plan, &'static str>,
    ) -> String {
        let decision = match r {
            Ok(_) => "prefetched",
            Err(reason) => reason,
        };
        let why = if m.inst(i).is(Op::SubgroupBlockReadINTEL) {
            format!(
                "{} buffer prefetch(es) in the loop",
                existing.buffer_1d.len()
            )
        } else {
            match (
                self.alias.block_footprint(m, i),
                BlockOperands::read(m.inst(i)),
            ) {
                (Some(fp), Some(ops)) => match self.covered_2d(m, &fp, &ops, l, existing) {
                    Coverage::None(s) | Coverage::Region(s) | Coverage::Object(s) => s,
                },
                _ => "no footprint (base or coordinate unknown)".into(),
            }
        };
        format!("{}: {decision}: {why}", location(m, i))
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
        Some(op)
            if op_class(op).intersects(
                OpClass::INTEGER_ARITHMETIC
                    | OpClass::BITWISE
                    | OpClass::INTEGER_CONVERSION
                    | OpClass::INTEGER_COMPARISON
                    | OpClass::LOGICAL
                    | OpClass::ACCESS_CHAIN,
            ) && !op_class(op).intersects(OpClass::MAY_BE_UNDEFINED) =>
        {
            true
        }
        Some(
            Bitcast | CopyObject | CompositeExtract | CompositeInsert | CompositeConstruct
            | VectorShuffle | Select | ConvertPtrToU | PtrCastToGeneric | GenericCastToPtr,
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
    /// The `SubgroupId` variable and its pointee type, once needed; whether it was created.
    subgroup_id: Option<(Id, Id, bool)>,
    /// Prefetches emitted with a cooperative split, and the loads split.
    cooperative: u64,
    cooperative_loads: u64,
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
            PlanKind::Block2d {
                ops,
                steps,
                pieces,
                split,
            } => {
                if split.is_some() {
                    self.cooperative_loads += 1;
                }
                self.emit_2d(m, ops, steps, pieces, *split, d, plan.load, &|v| v);
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
                PlanKind::Block2d {
                    ops,
                    steps,
                    pieces,
                    split,
                } => {
                    let hoisted = BlockOperands {
                        base: rename(ops.base),
                        memory_width: rename(ops.memory_width),
                        memory_height: rename(ops.memory_height),
                        memory_pitch: rename(ops.memory_pitch),
                        coordinate: rename(ops.coordinate),
                        ..*ops
                    };
                    self.emit_2d(m, &hoisted, steps, pieces, *split, k, at, &rename);
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
        split: Option<Split>,
        k: i64,
        at: InstId,
        rename: &dyn Fn(Id) -> Id,
    ) {
        let Some(base) = self.prefetch_pointer(m, ops.base, None, at) else {
            return;
        };
        // Cooperative: row offset (SubgroupId mod parts)·rows.
        let part_offset = split.map(|sp| {
            let (var, ty) = self.subgroup_id_var(m);
            let sid = m.fresh_id();
            m.insert_before(at, Inst::new(Op::Load, Some(ty), Some(sid), &[var.word()]));
            let part: Id = if sp.wrap {
                let mask = self.types.int_const(m, ty, u64::from(sp.parts - 1));
                let r = m.fresh_id();
                m.insert_before(
                    at,
                    Inst::new(
                        Op::BitwiseAnd,
                        Some(ty),
                        Some(r),
                        &[sid.word(), mask.word()],
                    ),
                );
                r
            } else {
                sid
            };
            if sp.cols == 1 {
                return (
                    AffineExpr::constant(0),
                    AffineExpr::value(part).scale(i64::from(sp.rows)),
                );
            }
            let cmask = self.types.int_const(m, ty, u64::from(sp.cols - 1));
            let col = m.fresh_id();
            m.insert_before(
                at,
                Inst::new(
                    Op::BitwiseAnd,
                    Some(ty),
                    Some(col),
                    &[part.word(), cmask.word()],
                ),
            );
            let shift = self
                .types
                .int_const(m, ty, u64::from(sp.cols.trailing_zeros()));
            let band = m.fresh_id();
            m.insert_before(
                at,
                Inst::new(
                    Op::ShiftRightLogical,
                    Some(ty),
                    Some(band),
                    &[part.word(), shift.word()],
                ),
            );
            (
                AffineExpr::value(col).scale(i64::from(sp.col_width)),
                AffineExpr::value(band).scale(i64::from(sp.rows)),
            )
        });
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
            if let Some((px, py)) = &part_offset {
                match (offsets[0].add(px), offsets[1].add(py)) {
                    (Some(x), Some(y)) => {
                        offsets[0] = x;
                        offsets[1] = y;
                    }
                    _ => continue,
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
            if split.is_some() {
                self.cooperative += 1;
            }
        }
    }

    /// The `SubgroupId` built-in variable and its integer type (created when missing).
    fn subgroup_id_var(&mut self, m: &mut Module) -> (Id, Id) {
        if let Some((v, t, _)) = self.subgroup_id {
            return (v, t);
        }
        let dec = Decorations::build(m);
        let vars: Vec<(Id, Id)> = m
            .section_insts(Section::Global)
            .filter(|(_, i)| {
                i.is(Op::Variable) && i.operand_word(0) == Some(StorageClass::Input as u32)
            })
            .filter_map(|(_, i)| Some((i.result_id()?, i.result_type()?)))
            .collect();
        let ids: HashSet<Id> = vars.iter().map(|v| v.0).collect();
        let names = debug_names(m, &|id| ids.contains(&id));
        let found = vars.into_iter().find_map(|(v, pty)| {
            if builtin_of_variable(&dec, &names, v) != Some(BuiltIn::SubgroupId) {
                return None;
            }
            let pointee = pointer_of(m, pty)?.1;
            int_width(m, pointee)?;
            Some((v, pointee))
        });
        let (v, t, created) = match found {
            Some((v, t)) => (v, t, false),
            None => {
                let t = self.types.int(m, 32);
                let pty = self.types.pointer(m, StorageClass::Input, t);
                let v = m.fresh_id();
                m.push_to_section(
                    Section::Global,
                    Inst::new(
                        Op::Variable,
                        Some(pty),
                        Some(v),
                        &[StorageClass::Input as u32],
                    ),
                );
                m.push_to_section(
                    Section::Annotation,
                    Inst::new(
                        Op::Decorate,
                        None,
                        None,
                        &[
                            v.word(),
                            spirv::Decoration::BuiltIn as u32,
                            BuiltIn::SubgroupId as u32,
                        ],
                    ),
                );
                (v, t, true)
            }
        };
        self.subgroup_id = Some((v, t, created));
        (v, t)
    }

    /// Lists the `SubgroupId` variable in every entry point's interface that lacks it.
    fn finish_subgroup_id(&mut self, m: &mut Module) {
        let Some((v, _, _)) = self.subgroup_id else {
            return;
        };
        let eps: Vec<InstId> = m
            .section_insts(Section::EntryPoint)
            .filter(|(_, i)| i.is(Op::EntryPoint))
            .map(|(i, _)| i)
            .collect();
        for i in eps {
            let inst = m.inst(i);
            let ops = inst.operands();
            // Execution model, function, name (literal string), interface ids.
            let name_words = ops
                .get(2..)
                .and_then(|w| w.iter().position(|x| x.to_le_bytes().contains(&0)))
                .map(|p| p + 1);
            let Some(nw) = name_words else { continue };
            if ops[2 + nw..].contains(&v.word()) {
                continue;
            }
            let mut words = ops.to_vec();
            words.push(v.word());
            *m.inst_mut(i) = Inst::new(Op::EntryPoint, None, None, &words);
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
        let facts = analyses.get::<KernelFacts>(m);
        let coop = self.cooperative.then(|| CoopInfo::build(m, &facts));
        let ctx = Ctx {
            target,
            cfg: &cfg,
            dom: &dom,
            loops: &loops,
            ind: &ind,
            uni: &uni,
            alias: &alias,
            coop: coop.as_ref(),
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
