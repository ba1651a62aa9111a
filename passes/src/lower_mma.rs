//! `lower-mma`: every `OpSubgroupMatrixMultiplyAccumulateINTEL` the target lacks is split
//! into MMAs it has, or emulated.
//!
//! What, per MMA (decoded by [`plan::decode`]: M = Result components, N = the subgroup size it
//! executes at, K = K Dim, element types from the operand bits; [`plan::action`] decides):
//! * **native** — the target's table (`--describe-target`) has (N, M, K, types): unchanged.
//! * **split** ([`split`]) — the target has atoms for these types at this subgroup size, K is
//!   a multiple of the atom's K, and the operands are cut in whole components: M rows become
//!   chunks of 8/4/2/1 rows (B shared), K beyond the atom a chain of atoms (C feeds the next;
//!   A repacked with one subgroup shuffle per row and atom). Only for f32 and integer
//!   accumulators when chaining (f16/bf16 accumulators would round between atoms).
//! * **emulate** ([`emulate`]) — everything else the emulation can express: a subgroup-16
//!   kernel on dg2 (DPAS only at SIMD8), any MMA on mtl (no DPAS), types no profile has
//!   (tf32 on dg2, f16/bf16 accumulators on dg2, other widths): M·K subgroup broadcasts and
//!   M·K FMAs.
//! * anything else (f64 elements, a non-constant K, no single subgroup size, malformed
//!   operands) is an error naming the instruction: `-O` stops rather than emit an MMA the
//!   target cannot run.
//! * the MMAs a module has split or emulated are bounded by `lowering_budget` (an error
//!   beyond it): each costs about 14 words of output per unit of M·K.
//!
//! When: on every MMA in native form. Builtin-call form (`intel_sub_group_*_matrix_mad_k*`)
//! is raised first: when the module calls such a builtin, raise-builtins runs inside this
//! pass before anything else (in `-O` it has already run).
//!
//! Why correct / rounding: integers are exact (low Result-width bits of the exact sum, as the
//! extension defines). Floats: splits keep the sequence of fused multiply-adds of one atom
//! per k in order with an f32 accumulator; the emulation computes
//! `acc = C; for k in 0..K: acc = fma(A[r][k], B[k][n], acc)` in f32 with OpenCL.std `fma`
//! (each step rounded once to nearest even; f16/bf16/tf32 inputs convert to f32 exactly) and
//! rounds once to the Result type. That is exactly the simulator's MMA model
//! (`sim/src/mma.rs`), so lowered kernels are bit-identical to the original on spv-sim
//! (0 ulp; NaN payloads excepted: f16 results come from `OpFConvert`, whose NaN keeps the
//! quiet bit, the same as the model's narrowing). Against hardware DPAS (whose summation order
//! and internal precision the extension leaves to the device) the emulation differs like any
//! two f32 summation orders: per element at most K roundings of the running sum, i.e.
//! `|error| ≤ K·2⁻²⁴·Σ|A[r][k]·B[k][n]|` + (one rounding of the Result type).
//!
//! Statistics: `mma_candidates` = `mma_native` + `mma_split` + `mma_emulated`, per type class
//! (`native_*`, `split_*`, `emulated_*` with the type of `MmaTypes::name`, `other` for
//! combinations outside the tables), `split_row_chunks` / `split_k_chains` (MMAs split in each
//! dimension) and `split_atoms` (MMAs emitted by splits).
//! One rewrite (`--max-changes`): raising one builtin call (as raise-builtins counts it), or
//! splitting / emulating one MMA, in module order; the capabilities they need belong to them.
//! Cost: one scan; each MMA becomes O(M·K) instructions (split: O(M/8 · K/K')), so the pass is
//! linear in the module size.

mod build;
pub mod emulate;
/// What one MMA is and what this pass does with it: `spvopt_analysis::block_io::mma`, shared
/// with `legalize` (this path is kept for the library's users).
pub use spvopt_analysis::block_io::mma as plan;
pub mod split;

use spirv::Op;
use spvopt_analysis::target::MmaTypes;
use spvopt_analysis::{Analyses, AnalysisSet, KernelFacts, Target};
use spvopt_ir::{Inst, Interner, Module};

use crate::builtin_mangling::{linkages, parse_builtin, Builtin};
use crate::diagnostic::Diagnostic;
use crate::edit::capabilities;
use crate::pass::{Changes, Pass, PassError, PassResult, Statistics};
use crate::raise_builtins::RaiseBuiltins;

use build::Builder;

/// The total M·K of the MMAs one module may have split or emulated: 2^16 plus 128 (an M 8,
/// K 16 MMA's) per instruction of the module. Each unit costs about 14 words of output, so a
/// hostile shape (M 32, K 256 in 8 words) made a 10 KB module of 300 MMAs 35M words: 573 MB
/// and 1.2 s per target, and 100 KB would need gigabytes; within the budget a module's MMAs
/// cost no more in all than if each had a typical shape.
fn lowering_budget(m: &Module) -> u64 {
    (1 << 16) + 128 * m.instruction_count() as u64
}
use plan::{Action, Mma};

pub struct LowerMma;

/// Counter name of an action on a type class.
fn counter(action: &Action, types: Option<MmaTypes>) -> &'static str {
    use MmaTypes::*;
    match (action, types) {
        (Action::Native, Some(Int8ToInt32)) => "native_i8*i8->i32",
        (Action::Native, Some(Int4ToInt32)) => "native_i4*i4->i32",
        (Action::Native, Some(F16ToF32)) => "native_f16*f16->f32",
        (Action::Native, Some(F16ToF16)) => "native_f16*f16->f16",
        (Action::Native, Some(Bf16ToF32)) => "native_bf16*bf16->f32",
        (Action::Native, Some(Bf16ToBf16)) => "native_bf16*bf16->bf16",
        (Action::Native, Some(Tf32ToF32)) => "native_tf32*tf32->f32",
        (Action::Native, None) => "native_other",
        (Action::Split { .. }, Some(Int8ToInt32)) => "split_i8*i8->i32",
        (Action::Split { .. }, Some(Int4ToInt32)) => "split_i4*i4->i32",
        (Action::Split { .. }, Some(F16ToF32)) => "split_f16*f16->f32",
        (Action::Split { .. }, Some(F16ToF16)) => "split_f16*f16->f16",
        (Action::Split { .. }, Some(Bf16ToF32)) => "split_bf16*bf16->f32",
        (Action::Split { .. }, Some(Bf16ToBf16)) => "split_bf16*bf16->bf16",
        (Action::Split { .. }, Some(Tf32ToF32)) => "split_tf32*tf32->f32",
        (Action::Split { .. }, None) => "split_other",
        (Action::Emulate, Some(Int8ToInt32)) => "emulated_i8*i8->i32",
        (Action::Emulate, Some(Int4ToInt32)) => "emulated_i4*i4->i32",
        (Action::Emulate, Some(F16ToF32)) => "emulated_f16*f16->f32",
        (Action::Emulate, Some(F16ToF16)) => "emulated_f16*f16->f16",
        (Action::Emulate, Some(Bf16ToF32)) => "emulated_bf16*bf16->f32",
        (Action::Emulate, Some(Bf16ToBf16)) => "emulated_bf16*bf16->bf16",
        (Action::Emulate, Some(Tf32ToF32)) => "emulated_tf32*tf32->f32",
        (Action::Emulate, None) => "emulated_other",
    }
}

/// Whether the module calls an imported `intel_sub_group_*_matrix_mad_k*` builtin.
fn calls_mma_builtin(m: &Module) -> bool {
    let imported: Vec<spvopt_ir::Id> = linkages(m)
        .into_iter()
        .filter(|l| l.import && matches!(parse_builtin(&l.name), Some(Builtin::Mma(_))))
        .map(|l| l.target)
        .collect();
    !imported.is_empty()
        && m.all_insts().any(|i| {
            let inst = m.inst(i);
            inst.is(Op::FunctionCall) && inst.operand_id(0).is_some_and(|f| imported.contains(&f))
        })
}

impl Pass for LowerMma {
    fn name(&self) -> &'static str {
        "lower-mma"
    }

    fn run(
        &mut self,
        m: &mut Module,
        analyses: &mut Analyses,
        target: &Target,
        changes: &mut Changes,
    ) -> Result<PassResult, PassError> {
        let mut stats = Statistics::default();
        let mut changed = false;
        if calls_mma_builtin(m) {
            let r = RaiseBuiltins.run(m, analyses, target, changes)?;
            if r.changed {
                changed = true;
                stats.add("raised_builtin_calls", r.stats.get("raised_mma"));
            }
        }
        // 1. Decide, for every MMA, before changing anything.
        let mut work: Vec<(Mma, Action)> = Vec::new();
        let mut errors: Vec<Diagnostic> = Vec::new();
        let facts = analyses.get::<KernelFacts>(m);
        for i in plan::mma_instructions(m) {
            stats.add("mma_candidates", 1);
            match plan::decode(m, &facts, i)
                .and_then(|mma| plan::action(&mma, target).map(|a| (mma, a)))
            {
                Ok((mma, a)) => work.push((mma, a)),
                Err(why) => errors.push(Diagnostic::error_at(m, i, why.to_string())),
            }
        }
        if !errors.is_empty() {
            return Err(PassError::Failed {
                pass: "lower-mma",
                summary: Some(format!(
                    "{} MMA(s) cannot be lowered for target {}",
                    errors.len(),
                    target.name
                )),
                diagnostics: errors,
            });
        }
        let lowering: Vec<&Mma> = work
            .iter()
            .filter(|(_, a)| *a != Action::Native)
            .map(|(mma, _)| mma)
            .collect();
        let lowered: u64 = lowering
            .iter()
            .map(|mma| u64::from(mma.m) * u64::from(mma.k))
            .sum();
        // The budget is at least 2^16: below that (the usual case) no count of the module.
        if lowered > 1 << 16 && lowered > lowering_budget(m) {
            let budget = lowering_budget(m);
            return Err(PassError::failed_because(
                "lower-mma",
                format!(
                    "the {} MMA(s) to split or emulate for target {} have a total M·K of \
                     {lowered}, more than the {budget} lower-mma emits for a module of {} \
                     instructions",
                    lowering.len(),
                    target.name,
                    m.instruction_count()
                ),
            ));
        }
        // 2. Rewrite.
        let mut types = Interner::default();
        let mut lowers_any = false;
        for (mma, action) in &work {
            if *action != Action::Native {
                if !changes.allow() {
                    stats.add("left_by_change_limit", 1);
                    continue;
                }
                lowers_any = true;
            }
            stats.add(counter(action, mma.types), 1);
            let at = mma.inst;
            let parts = match action {
                Action::Native => {
                    stats.add("mma_native", 1);
                    continue;
                }
                Action::Split {
                    rows,
                    k_chunks,
                    atom_k,
                } => {
                    stats.add("mma_split", 1);
                    if rows.len() > 1 {
                        stats.add("split_row_chunks", 1);
                    }
                    if *k_chunks > 1 {
                        stats.add("split_k_chains", 1);
                    }
                    let lane = if *k_chunks > 1 {
                        split::load_lane(m, &mut types, at)
                    } else {
                        None
                    };
                    if *k_chunks > 1 && lane.is_none() {
                        return Err(PassError::failed(
                            "lower-mma",
                            vec![Diagnostic::error_at(
                                m,
                                at,
                                "cannot read SubgroupLocalInvocationId",
                            )],
                        ));
                    }
                    let mut b = Builder {
                        m,
                        types: &mut types,
                        at,
                    };
                    let (parts, atoms) = split::split(&mut b, mma, rows, *k_chunks, *atom_k, lane);
                    stats.add("split_atoms", u64::from(atoms));
                    parts
                }
                Action::Emulate => {
                    stats.add("mma_emulated", 1);
                    let mut b = Builder {
                        m,
                        types: &mut types,
                        at,
                    };
                    emulate::emulate(&mut b, mma)
                }
            };
            // The MMA itself becomes the instruction that assembles the Result (same id).
            let words: Vec<u32> = parts.iter().map(|p| p.word()).collect();
            let op = if parts.len() == 1 {
                Op::CopyObject
            } else {
                Op::CompositeConstruct
            };
            m.replace_inst(at, Inst::new(op, Some(mma.r.ty), Some(mma.result), &words));
            changed = true;
        }
        if lowers_any {
            // Shuffles, fma, 8/16-bit integers, f16: declare exactly what the module now uses.
            let mut scratch = Statistics::default();
            let mut cap_errors = Vec::new();
            capabilities::run(m, &mut scratch, &mut cap_errors);
            if !cap_errors.is_empty() {
                return Err(PassError::failed("lower-mma", cap_errors));
            }
        }
        Ok(if changed {
            PassResult {
                changed: true,
                preserved: AnalysisSet::NONE,
                stats,
            }
        } else {
            PassResult::unchanged(stats)
        })
    }
}
