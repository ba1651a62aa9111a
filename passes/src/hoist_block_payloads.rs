//! `hoist-block-payloads`: builds the address payload of a loop's 2D block prefetches once,
//! before the loop, through IGC's payload builtins, and only updates the coordinate that
//! changes in the loop.
//!
//! What: an `OpSubgroup2DBlockPrefetchINTEL` in loop `L` (its innermost loop) becomes
//! - in `L`'s preheader: `%ap = __builtin_IB_subgroup_createBlock2DAddressPayload(base as
//!   u64, width - 1, height - 1, pitch - 1, x0, y0, W, H, C)`, where `x0`/`y0` is the
//!   coordinate's component when that is invariant in `L`, else 0 (instructions the
//!   invariant operands are computed by inside the loop are cloned into the preheader);
//! - in the loop, where the prefetch was: `__builtin_IB_subgroup_setBlock2DAddressPayload
//!   Block{X,Y}(%ap, c)` for each component `c` of the coordinate that varies in `L`, then
//!   `__builtin_IB_subgroup_block_read_ap_prefetch_u<E>_m<H>k<W>v<C>(%ap, 0, 0, cache)` with
//!   the base pointer's `CacheControlLoadINTEL` (L1, L3) as IGC's `LSC_LDCC` value.
//!   The builtins are imported functions (`LinkageAttributes … Import`, capability `Linkage`)
//!   that IGC's `LSCFuncsResolution` resolves; names and semantics:
//!   `spvopt_analysis::block_payload`.
//!
//! When (else counted by reason, `skipped_*`; every 2D prefetch is one of `prefetches_seen`):
//! - the consumer is IGC: by default (`hoist-consumer=auto`) only for `--target` pvc, bmg,
//!   lnl, ptl and cri (`skipped_target_not_igc` otherwise; `hoist-consumer=igc` forces it on
//!   any target with 2D block IO, for A/B);
//! - the prefetch is in a loop with a preheader (the header's unique predecessor outside the
//!   loop) that is not under divergent control;
//! - its shape is constant and one IGC 2.40 resolves as a payload prefetch;
//! - base, memory width, height and pitch are invariant in `L` (induction analysis' loop
//!   variance, which sees through pure instructions and reads of built-in variables repeated
//!   in every iteration) and can be computed in the preheader (at most
//!   [`CLONE_BUDGET`] cloned instructions per prefetch);
//! - the coordinate is affine in `L`'s counter (`step·i + base`, both invariant) and the
//!   step's values are uniform (uniformity analysis) — the loop-carried prefetches Triton and
//!   `insert-prefetches` emit; anything else would not pay (see below);
//! - the cache controls are none, or L1 (and L3, Cached when not given) in a combination
//!   `LSC_LDCC` has.
//!
//! Loads and stores are left alone, by measurement (IGC 2.40, 256 GRF, Triton's 2D fp16 GEMM
//! on pvc): `read_ap` forms of its three K-loop loads make ocloc crash (exit -11), while the
//! prefetches alone take the K loop from 68 to 56 instructions on pvc and 60 to 47 on bmg,
//! with the same sends (docs/hoist-block-payloads.md). Prefetches outside loops gain nothing
//! (the payload is built once either way).
//!
//! Why correct: the payload created in the preheader holds the prefetch's base, width,
//! height and pitch, which are the same in every iteration (invariant in `L`), the block
//! shape of the prefetch, and its invariant coordinate component; right before each dynamic
//! instance of the prefetch the varying components are set to the prefetch's own coordinate
//! values, and nothing else writes the payload. So each payload prefetch is the 2D block
//! prefetch of exactly the surface, shape and coordinate the native op had. The payload is a
//! subgroup-uniform value: its operands are the prefetch's, uniform wherever the prefetch
//! executes (SPV_INTEL_2d_block_io makes non-uniform operands undefined behaviour) and, being
//! invariant, the same values in the preheader, which the whole subgroup executes (not under
//! divergent control). Cloned instructions are pure and cannot be undefined (no divisions),
//! so computing them in the preheader even when the loop body does not prefetch is harmless.
//! A prefetch has no functional effect anyway; `spv-sim` runs the builtins exactly
//! (`sim/src/collective/payload.rs`), so results are checked before and after.
//! `lower-block-payloads` is the inverse.
//!
//! One rewrite (`--max-changes`): one prefetch. Linear: one walk over the instructions, the
//! shared analyses, and a bounded clone per prefetch.

use std::collections::HashMap;

use spirv::{Op, StorageClass};
use spvopt_analysis::block_io::{BlockKind, BlockOperands};
use spvopt_analysis::block_payload::{lsc_load_cache, PayloadAccess, PayloadBuiltin, PayloadField};
use spvopt_analysis::cfg::Cfg;
use spvopt_analysis::dominators::Dominators;
use spvopt_analysis::induction::Induction;
use spvopt_analysis::loops::{LoopId, Loops};
use spvopt_analysis::uniformity::Uniformity;
use spvopt_analysis::{Analyses, AnalysisSet, Target};
use spvopt_ir::opcode_class::{op_class, OpClass};
use spvopt_ir::{BlockId, Id, Inst, InstId, Interner, Module};

use crate::pass::{Changes, Pass, PassError, PassOptions, PassResult, Statistics};

use crate::edit::block_payload_imports::{emit, load_cache_controls, minus_or_plus_one, Imports};

/// Instructions one prefetch may clone into the preheader.
pub const CLONE_BUDGET: usize = 32;

/// The targets whose consumer is IGC (the `auto` consumer).
pub use crate::util::IGC_TARGETS;

/// Whose compiler consumes the output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Consumer {
    /// IGC for the targets in [`IGC_TARGETS`], else none.
    Auto,
    /// IGC, whatever the target.
    Igc,
}

pub struct HoistBlockPayloads {
    consumer: Consumer,
}

impl HoistBlockPayloads {
    /// The pass with its options (`hoist-consumer=auto|igc`).
    pub fn from_options(opts: &PassOptions) -> Result<HoistBlockPayloads, PassError> {
        let mut consumer = Consumer::Auto;
        for (k, v) in opts {
            match (k.as_str(), v.as_str()) {
                ("hoist-consumer", "auto") => consumer = Consumer::Auto,
                ("hoist-consumer", "igc") => consumer = Consumer::Igc,
                _ => {
                    return Err(PassError::BadOption {
                        pass: "hoist-block-payloads".into(),
                        option: k.clone(),
                        message: format!("\"{v}\": expected hoist-consumer=auto or igc"),
                    })
                }
            }
        }
        Ok(HoistBlockPayloads { consumer })
    }
}

/// One prefetch to rewrite.
struct Plan {
    prefetch: InstId,
    loop_id: LoopId,
    preheader: BlockId,
    ops: BlockOperands,
    access: PayloadAccess,
    cache: u32,
    /// Per component (x, y): `Some(value)` when invariant (goes into the create).
    fixed: [Option<Id>; 2],
    /// Loop instructions to clone into the preheader, operands first.
    clones: Vec<InstId>,
}

/// The analyses planning reads.
struct Ctx<'a> {
    m: &'a Module,
    dom: &'a Dominators,
    loops: &'a Loops,
    ind: &'a Induction,
    uni: &'a Uniformity,
    cfg: &'a Cfg,
}

/// Whether `inst` computes the same value wherever it is executed from the same operands,
/// and is never undefined: pure instructions but divisions, and reads of built-in (`Input`)
/// variables.
fn cloneable(m: &Module, inst: &Inst) -> bool {
    match inst.op() {
        Some(Op::Load) => {
            let volatile = inst.operand_word(1).is_some_and(|mask| mask & 1 != 0);
            !volatile
                && inst
                    .operand_id(0)
                    .and_then(|p| m.def_inst(p))
                    .is_some_and(|v| {
                        v.is(Op::Variable) && v.operand_word(0) == Some(StorageClass::Input as u32)
                    })
        }
        Some(op) => {
            let c = op_class(op);
            c.intersects(OpClass::PURE) && !c.intersects(OpClass::MAY_BE_UNDEFINED)
        }
        None => false,
    }
}

impl Ctx<'_> {
    /// Plans making the invariant value `id` available at the end of `pre`: appends the loop
    /// instructions to clone to `out` (operands first). An explicit stack; at most
    /// [`CLONE_BUDGET`] instructions.
    fn hoist(&self, l: LoopId, pre: BlockId, id: Id, out: &mut Vec<InstId>) -> bool {
        let mut stack: Vec<(InstId, bool)> = Vec::new();
        let push = |v: Id, stack: &mut Vec<(InstId, bool)>, out: &Vec<InstId>| -> bool {
            let Some(def) = self.m.def(v) else {
                return false;
            };
            let Some(b) = self.m.inst_block(def) else {
                return true; // global: types, constants, variables
            };
            if !self.loops.contains(l, b) {
                return self.dom.dominates(b, pre);
            }
            if !self.ind.is_invariant_in(v, l) || !cloneable(self.m, self.m.inst(def)) {
                return false;
            }
            if !out.contains(&def) {
                stack.push((def, false));
            }
            true
        };
        if !push(id, &mut stack, out) {
            return false;
        }
        while let Some((def, expanded)) = stack.pop() {
            if expanded {
                if !out.contains(&def) {
                    out.push(def);
                }
                continue;
            }
            if out.len() + stack.len() >= CLONE_BUDGET {
                return false;
            }
            stack.push((def, true));
            let mut operands = Vec::new();
            spvopt_analysis::operands::for_each_value_operand(self.m, def, |u| operands.push(u));
            for u in operands {
                if !push(u, &mut stack, out) {
                    return false;
                }
            }
        }
        true
    }

    /// The scalar value of component `k` of the coordinate `coord`, found through
    /// `OpCompositeInsert` / `OpCompositeConstruct` chains.
    fn component(&self, mut coord: Id, k: u32) -> Option<Id> {
        for _ in 0..8 {
            let d = self.m.def_inst(coord)?;
            match d.op()? {
                Op::CompositeInsert if d.operands().len() == 3 => {
                    if d.operand_word(2) == Some(k) {
                        return d.operand_id(0);
                    }
                    coord = d.operand_id(1)?;
                }
                Op::CompositeConstruct if d.operands().len() == 2 => {
                    return d.operand_id(k as usize);
                }
                _ => return None,
            }
        }
        None
    }

    /// The plan for one prefetch, or the statistic saying why not.
    fn plan(
        &self,
        at: InstId,
        caches: &HashMap<Id, Vec<(u32, u32)>>,
    ) -> Result<Plan, &'static str> {
        let m = self.m;
        let ops = BlockOperands::read(m.inst(at)).ok_or("skipped_malformed")?;
        let b = m.inst_block(at).ok_or("skipped_malformed")?;
        let l = self.loops.innermost(b).ok_or("skipped_not_in_loop")?;
        let shape = ops.shape(m).ok_or("skipped_shape_not_constant")?;
        let access = PayloadAccess {
            kind: BlockKind::Prefetch,
            element_bits: shape.element_size * 8,
            width: shape.width,
            height: shape.height,
            count: shape.count,
        };
        if !access.igc_resolves() {
            return Err("skipped_shape_not_resolved_by_igc");
        }
        let surface = [
            ops.base,
            ops.memory_width,
            ops.memory_height,
            ops.memory_pitch,
        ];
        if !surface.iter().all(|&v| self.ind.is_invariant_in(v, l)) {
            return Err("skipped_surface_varies");
        }
        let int32 = |v: Id| {
            m.type_of(v)
                .and_then(|t| m.def_inst(t))
                .is_some_and(|t| t.is(Op::TypeInt) && t.operand_word(0) == Some(32))
        };
        if !surface[1..].iter().all(|&v| int32(v)) {
            return Err("skipped_operand_types");
        }
        let comps = self
            .ind
            .vector_affine_in_loop(ops.coordinate, l)
            .filter(|c| c.len() == 2)
            .ok_or("skipped_coordinate_not_affine")?;
        let step_uniform = comps.iter().all(|c| {
            c.step
                .terms()
                .iter()
                .all(|t| t.monomial.value().is_none_or(|v| self.uni.is_uniform(v)))
        });
        if !step_uniform {
            return Err("skipped_step_not_uniform");
        }
        let cache = {
            let cc = caches.get(&ops.base).map(Vec::as_slice).unwrap_or(&[]);
            let level = |k: u32| cc.iter().find(|&&(l, _)| l == k).map(|&(_, c)| c);
            if cc.iter().any(|&(l, _)| l > 1) {
                return Err("skipped_cache_controls");
            }
            // L3 Cached is the default `insert-prefetches` leaves implicit (spirv-val takes one
            // CacheControlLoadINTEL per id).
            let l3 = level(1).or(level(0).map(|_| 1));
            lsc_load_cache(level(0), l3).ok_or("skipped_cache_controls")?
        };
        let pre = self
            .loops
            .preheader(l, self.cfg)
            .ok_or("skipped_no_preheader")?;
        if self.uni.is_divergent_control(pre) {
            return Err("skipped_divergent_preheader");
        }
        let mut clones = Vec::new();
        for &v in &surface {
            if !self.hoist(l, pre, v, &mut clones) {
                return Err("skipped_not_computable_before_loop");
            }
        }
        let mut fixed = [None, None];
        for (k, c) in comps.iter().enumerate() {
            if c.step.as_constant() != Some(0) {
                continue;
            }
            // An invariant component whose scalar is found and computable in the preheader
            // goes into the create; otherwise it is set in the loop like a varying one.
            if let Some(v) = self.component(ops.coordinate, k as u32) {
                let mark = clones.len();
                if self.ind.is_invariant_in(v, l) && int32(v) && self.hoist(l, pre, v, &mut clones)
                {
                    fixed[k] = Some(v);
                } else {
                    clones.truncate(mark);
                }
            }
        }
        Ok(Plan {
            prefetch: at,
            loop_id: l,
            preheader: pre,
            ops,
            access,
            cache,
            fixed,
            clones,
        })
    }
}

/// Where instructions go at the end of block `b`: before its merge instruction, if any,
/// else before its terminator.
fn end_of_block(m: &Module, b: BlockId) -> Option<InstId> {
    let term = m.block_terminator(b)?;
    Some(match m.prev_inst(term) {
        Some(p) if m.inst(p).is(Op::LoopMerge) || m.inst(p).is(Op::SelectionMerge) => p,
        _ => term,
    })
}

/// Emission state of one run.
struct Emitter {
    types: Interner,
    imports: Imports,
    /// Per loop: original id → its clone in the preheader.
    hoisted: HashMap<LoopId, HashMap<Id, Id>>,
}

impl Emitter {
    fn builtin(&mut self, m: &mut Module, b: PayloadBuiltin) -> Id {
        let t = &mut self.types;
        let u32_ty = t.int(m, 32);
        let u64_ty = t.int(m, 64);
        let void = t.void(m);
        let ap = t.pointer(m, StorageClass::Function, u32_ty);
        let (ret, params) = match b {
            PayloadBuiltin::Create => (
                ap,
                vec![
                    u64_ty, u32_ty, u32_ty, u32_ty, u32_ty, u32_ty, u32_ty, u32_ty, u32_ty,
                ],
            ),
            PayloadBuiltin::Set(_) | PayloadBuiltin::Add(_) => (void, vec![ap, u32_ty]),
            _ => (void, vec![ap, u32_ty, u32_ty, u32_ty]),
        };
        self.imports.function(m, t, &b.name(), ret, &params)
    }

    fn clone_into(&mut self, m: &mut Module, l: LoopId, at: InstId, insts: &[InstId]) {
        let map = self.hoisted.entry(l).or_default();
        for &def in insts {
            let inst = m.inst(def).to_owned();
            let Some(orig) = inst.result_id() else {
                continue;
            };
            if map.contains_key(&orig) {
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

    fn rewrite(&mut self, m: &mut Module, p: &Plan) -> Option<()> {
        let at = end_of_block(m, p.preheader)?;
        self.clone_into(m, p.loop_id, at, &p.clones);
        let map = &self.hoisted[&p.loop_id];
        let get = |v: Id| map.get(&v).copied().unwrap_or(v);
        let (base, w, h, pitch) = (
            get(p.ops.base),
            get(p.ops.memory_width),
            get(p.ops.memory_height),
            get(p.ops.memory_pitch),
        );
        let fixed = p.fixed.map(|f| f.map(get));
        let u32_ty = self.types.int(m, 32);
        let u64_ty = self.types.int(m, 64);
        let ap_ty = self.types.pointer(m, StorageClass::Function, u32_ty);
        let base64 = emit(m, at, Op::ConvertPtrToU, u64_ty, &[base.word()]);
        let wm1 = minus_or_plus_one(m, &mut self.types, at, w, false);
        let hm1 = minus_or_plus_one(m, &mut self.types, at, h, false);
        let pm1 = minus_or_plus_one(m, &mut self.types, at, pitch, false);
        let zero = self.types.u32_const(m, 0);
        let a = p.access;
        let shape = [a.width, a.height, a.count].map(|v| self.types.u32_const(m, v));
        let create = self.builtin(m, PayloadBuiltin::Create);
        let mut args = vec![
            create.word(),
            base64.word(),
            wm1.word(),
            hm1.word(),
            pm1.word(),
        ];
        args.extend(fixed.map(|f| f.unwrap_or(zero).word()));
        args.extend(shape.map(Id::word));
        let ap = emit(m, at, Op::FunctionCall, ap_ty, &args);
        // In the loop, where the prefetch is.
        let void = self.types.void(m);
        for (k, field) in [PayloadField::BlockX, PayloadField::BlockY]
            .into_iter()
            .enumerate()
        {
            if fixed[k].is_some() {
                continue;
            }
            let c = emit(
                m,
                p.prefetch,
                Op::CompositeExtract,
                u32_ty,
                &[p.ops.coordinate.word(), k as u32],
            );
            let set = self.builtin(m, PayloadBuiltin::Set(field));
            emit(
                m,
                p.prefetch,
                Op::FunctionCall,
                void,
                &[set.word(), ap.word(), c.word()],
            );
        }
        let cache = self.types.u32_const(m, p.cache);
        let f = self.builtin(m, PayloadBuiltin::Access(a));
        emit(
            m,
            p.prefetch,
            Op::FunctionCall,
            void,
            &[f.word(), ap.word(), zero.word(), zero.word(), cache.word()],
        );
        m.erase(p.prefetch);
        Some(())
    }
}

impl Pass for HoistBlockPayloads {
    fn name(&self) -> &'static str {
        "hoist-block-payloads"
    }

    fn run(
        &mut self,
        m: &mut Module,
        analyses: &mut Analyses,
        target: &Target,
        changes: &mut Changes,
    ) -> Result<PassResult, PassError> {
        let mut stats = Statistics::default();
        let prefetches: Vec<InstId> = m
            .function_ids()
            .flat_map(|f| m.function(f).blocks.clone())
            .flat_map(|b| m.block_insts(b).collect::<Vec<_>>())
            .filter(|&i| m.inst(i).is(Op::Subgroup2DBlockPrefetchINTEL))
            .collect();
        if prefetches.is_empty() {
            return Ok(PassResult::unchanged(stats));
        }
        stats.add("prefetches_seen", prefetches.len() as u64);
        let igc = match self.consumer {
            Consumer::Auto => IGC_TARGETS.contains(&target.name.as_str()),
            Consumer::Igc => target.features.block_io_2d,
        };
        if !igc {
            stats.add("skipped_target_not_igc", prefetches.len() as u64);
            return Ok(PassResult::unchanged(stats));
        }
        let cfg = analyses.get::<Cfg>(m);
        let dom = analyses.get::<Dominators>(m);
        let loops = analyses.get::<Loops>(m);
        let ind = analyses.get::<Induction>(m);
        let uni = analyses.get::<Uniformity>(m);
        let caches = load_cache_controls(m);
        let ctx = Ctx {
            m,
            dom: &dom,
            loops: &loops,
            ind: &ind,
            uni: &uni,
            cfg: &cfg,
        };
        let mut plans = Vec::new();
        for &i in &prefetches {
            match ctx.plan(i, &caches) {
                Ok(p) => plans.push(p),
                Err(why) => stats.add(why, 1),
            }
        }
        let mut em = Emitter {
            types: Interner::default(),
            imports: Imports::default(),
            hoisted: HashMap::new(),
        };
        let mut done = 0u64;
        for p in &plans {
            if !changes.allow() {
                stats.add("skipped_max_changes", 1);
                continue;
            }
            if em.rewrite(m, p).is_some() {
                done += 1;
            } else {
                changes.undo();
                stats.add("skipped_malformed", 1);
            }
        }
        if done == 0 {
            return Ok(PassResult::unchanged(stats));
        }
        stats.add("prefetches_hoisted", done);
        let n = em.imports.finish(m);
        stats.add("declarations_added", n);
        // New declarations renumber the functions: nothing is preserved.
        Ok(PassResult {
            changed: true,
            preserved: AnalysisSet::NONE,
            stats,
        })
    }
}
