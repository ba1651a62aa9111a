//! `convert-tensor-addressing`: Subgroup-scope cooperative matrices moved through
//! `SPV_NV_tensor_addressing` layouts/views (or plain `SPV_KHR_cooperative_matrix` loads and
//! stores) become per-invocation data, Intel subgroup MMA and ordinary memory accesses.
//!
//! What:
//! - Every `OpTypeCooperativeMatrixKHR` (Subgroup scope, constant shape) becomes a vector of
//!   `R·C / SG` components (a scalar for one) dealt as [`distribution`] describes: the layouts of
//!   `SPV_INTEL_subgroup_matrix_multiply_accumulate` for A / B / C where the shape allows it.
//!   Values keep their ids; element-wise arithmetic, conversions between types of the same deal,
//!   phis, selects, Function variables and calls carry over component-wise;
//!   `OpMatrixTimesScalar` becomes `OpVectorTimesScalar` (or a multiply by the splat);
//!   `OpCooperativeMatrixLengthKHR` the slot count; composite construct/extract/insert index the
//!   invocation's components as the KHR spec defines (implementation-defined order, here the
//!   deal's).
//! - Tensor layouts and views become arrays of 32-bit fields (`tensor_values`).
//! - `OpCooperativeMatrixLoadTensorNV` / `StoreTensorNV` / `LoadKHR` / `StoreKHR` become the exact
//!   per-element loop of `element_access` (every clamp mode and value, block size, view,
//!   clip and dimension count), each reported as `fallback` with its reason. The loop is a
//!   `DontInline` function (`edit::outline`) the access calls with its slots and the values the
//!   loop reads, its loop marked DontUnroll; accesses of one shape share one function
//!   (`per_element_functions` counts them), so an unrolled kernel of 144 accesses grows by a
//!   call per access, not a loop (tensor-hw `bg_f16_64x48x80`: IGC's compile on pvc 70 s ->
//!   1.7 s, docs/measurements.md).
//! - `OpCooperativeMatrixMulAddKHR` becomes `OpSubgroupMatrixMultiplyAccumulateINTEL` atoms
//!   (`mul_add`).
//! - DPC++ joint_matrix's translator-internal instructions (`spvopt_ir::grammar::internal`,
//!   `joint_matrix`): checked loads/stores become the per-element loop with the bounds test
//!   (out of bounds: 0 / not written), or 2D block loads/stores of a Height x Width surface
//!   where their legality is proved or checked at run time (counted `block_checked_*`,
//!   `runtime_checked_checked_*`, `fallback_checked_*` with the reason); checked constructs a
//!   loop over the slots (`checked_constructs`); element coordinates the deal computed from the
//!   lane id (`element_coords`); prefetches 2D block prefetches where legal, else nothing
//!   (`block_prefetches`, `runtime_checked_prefetches`, `dropped_prefetches` with the reason).
//! - Capabilities and extensions are re-derived (`legalize`'s rule): the cooperative-matrix,
//!   tensor and joint_matrix ones (6192 / 6411 / 6435, `SPV_INTEL_joint_matrix`) go, the Intel
//!   ones come.
//!
//! When: the module has cooperative-matrix types or joint_matrix instructions; every kernel
//! declares one subgroup size (Subgroup-scope matrices are dealt over it; a module with
//! joint_matrix prefetches alone needs none: without one they are dropped). A construct the conversion cannot express
//! (decode functions, spec-constant shapes or clamp modes, Workgroup scope, a MulAdd outside
//! the MMA atoms, an unknown use of a matrix, a joint_matrix PackedINTEL layout) is an error
//! naming the instruction; the module is then left unchanged. A module with
//! `OpCooperativeMatrixApplyFunctionINTEL` is left unchanged with a warning naming it
//! (`kept_apply_function`; the other joint_matrix instructions beside it are counted
//! `kept_beside_apply_function`): its operand is a function object (a pointer to a struct),
//! not a function, so there is nothing the conversion could call per element.
//!
//! Why correct: each load/store computes, per element, exactly the address and the
//! clamp/clip/drop decision of the specification (the same formulas as spv-sim's tensor
//! addressing, which reproduces the H100's results), and the per-invocation deal is a
//! bijection between matrix elements and (invocation, slot) pairs (tested), so loads fill and
//! stores drain every element exactly once. Element-wise operations act on the same element in
//! both forms. The MMA chain computes the same sums as MulAdd (K chained through C); the
//! operand layouts are the INTEL extension's. A joint_matrix checked access touches exactly
//! the elements below (Height, Width) (zero-extended operands, as spv-sim reads them), which is
//! also what a 2D block access of that surface touches (the hardware's bounds); a coordinate
//! is `Distribution::position` of (lane, slot), the element every other use of that slot sees.
//!
//! One rewrite (`--max-changes`): the whole conversion. Every matrix type changes at once and
//! every use of a matrix value with it, so no part of it is a valid module on its own.

mod access_run;
mod block_path;
mod builder;
mod cleanup;
pub mod distribution;
mod element_access;
mod error;
mod instructions;
mod joint_matrix;
mod model;
mod mul_add;
mod tensor_addresses;
mod tensor_values;
mod tile_group;
mod types;

use spirv::Op;
use spvopt_analysis::fxhash::{FxHashMap as HashMap, FxHashSet as HashSet};
use spvopt_analysis::tensor_layout::TensorState;
use spvopt_analysis::uniformity::Uniformity;
use spvopt_analysis::{Analyses, AnalysisSet, Constants, Fact, KernelFacts, Target};
use spvopt_ir::grammar::internal;
use spvopt_ir::{Id, Inst, InstId, Interner, Module, Section};

use crate::diagnostic::Diagnostic;
use crate::edit::variables::lane_variable;
use crate::edit::{capabilities, outline};
use crate::pass::{Changes, Pass, PassError, PassResult, Statistics};
use cleanup::{bitcast_setter_operands, merge_duplicate_types, remove_dead};
use error::ConvertError;
use instructions::Converter;
use model::memory_operands;
use tensor_values::Consts;
use types::plan;

pub struct ConvertTensorAddressing;

/// `has_internal`: the module has a translator-internal instruction (`internal`).
fn convert(
    m: &mut Module,
    analyses: &mut Analyses,
    target: &Target,
    has_internal: bool,
    stats: &mut Statistics,
    changes: &mut Changes,
) -> Result<bool, Diagnostic> {
    let has_matrices = m
        .section_insts(Section::Global)
        .any(|(_, t)| t.is(Op::TypeCooperativeMatrixKHR) || t.is(Op::TypeTensorLayoutNV));
    // joint_matrix prefetches need no matrix type.
    if !has_matrices && !has_internal {
        return Ok(false);
    }
    let sg = match analyses.get::<KernelFacts>(m).module_subgroup_size() {
        Some(sg) => sg,
        // Prefetches alone: dropped unless the subgroup size allows 2D block prefetch.
        None if !has_matrices => 0,
        None => {
            let facts = analyses.get::<KernelFacts>(m);
            let sizes: Vec<String> = m
                .function_ids()
                .filter(|&f| facts.is_reached(f))
                .map(|f| match facts.subgroup_size(f) {
                    Fact::Known(s) => s.to_string(),
                    _ => "unknown".into(),
                })
                .collect();
            return Err(Diagnostic::error(
                None,
                format!(
                    "Subgroup-scope cooperative matrices need every kernel to declare one \
                     SubgroupSize (found: {}; --subgroup-size N declares one for kernels that \
                     declare none)",
                    sizes.join(", ")
                ),
            ));
        }
    };
    if !changes.allow() {
        return Ok(false);
    }
    let tensor_states: HashMap<Id, TensorState> = {
        let consts = analyses.get::<Constants>(m);
        m.all_insts()
            .filter_map(|i| m.inst(i).result_id())
            .filter_map(|r| consts.tensor_state(r).map(|s| (r, s.clone())))
            .collect()
    };
    let uniform_accesses = uniform_tensor_accesses(m, analyses);
    let first_new_id = m.id_capacity();
    // Functions from here on are the outlined per-element paths (`element_access`).
    let first_outlined = m.function_ids().count();
    let mut types = Interner::default();
    let plan = plan(m, &mut types, sg).map_err(|e| Diagnostic::error(None, e.to_string()))?;
    let lane_var = lane_variable(m, &mut types);
    let u32t = types.int(m, 32);
    let consts = Consts {
        u32t,
        boolt: types.bool(m),
        zero: types.u32_const(m, 0),
        one: types.u32_const(m, 1),
        all_ones: types.u32_const(m, u32::MAX),
    };
    // Setter operands must be u32 for the array inserts: other 32-bit integer types are
    // bitcast first.
    let mut conv = Converter {
        plan: &plan,
        target,
        uniform_accesses,
        tensor_states: &tensor_states,
        lane_var,
        sg,
        stats,
        replaced: HashMap::default(),
    };
    let mut tensor_seeds = Vec::new();
    let funcs: Vec<_> = m.function_ids().collect();
    for f in funcs {
        // Adjacent tile loads are converted together (tile_group); their runs are made
        // consecutive first.
        let runs = tile_group::collect_runs(m, f);
        let mut run_of: HashMap<InstId, usize> = HashMap::default();
        for (k, r) in runs.iter().enumerate() {
            for &i in r {
                run_of.insert(i, k);
            }
        }
        let blocks = m.function(f).blocks.clone();
        let insts: Vec<InstId> = blocks
            .iter()
            .flat_map(|&b| m.block_insts(b).collect::<Vec<_>>())
            .collect();
        for at in insts {
            if let Some(&k) = run_of.get(&at) {
                if runs[k][0] == at {
                    conv.convert_tensor_group(m, &mut types, &runs[k])
                        .map_err(|e| located(m, at, e))?;
                }
                continue;
            }
            let inst = m.inst(at);
            if spvopt_analysis::tensor_layout::is_tensor_op(inst.op()) {
                if let Some(r) = inst.result_id() {
                    tensor_seeds.push(r);
                }
                bitcast_setter_operands(m, at, u32t);
            }
            conv.convert_inst(m, &mut types, at, &consts)
                .map_err(|e| located(m, at, e))?;
        }
    }
    let replaced = std::mem::take(&mut conv.replaced);
    let mut scalar_constants: HashMap<Id, Id> = HashMap::default();
    // Matrix constants: one constituent (the splat) becomes one per slot.
    let global: Vec<InstId> = m.section(Section::Global).to_vec();
    for i in global {
        let inst = m.inst(i);
        let Some(mat) = inst.result_type().and_then(|t| plan.matrices.get(&t)) else {
            continue;
        };
        if !(inst.is(Op::ConstantComposite) || inst.is(Op::SpecConstantComposite)) {
            continue;
        }
        let x = inst.operands()[0];
        let slots = mat.dist.slots() as usize;
        let (ty, r, op) = (mat.lowered, inst.result_id(), inst.op());
        if slots == 1 {
            // A scalar: the constituent itself.
            if let (Some(r), Some(c)) = (r, Id::new(x)) {
                scalar_constants.insert(r, c);
            }
        } else if let Some(op) = op {
            m.replace_inst(i, Inst::new(op, Some(ty), r, &vec![x; slots]));
        }
    }
    // Replace the types (and the values that became others) everywhere.
    let mut map: HashMap<Id, Id> = replaced;
    map.extend(scalar_constants.iter().map(|(&a, &b)| (a, b)));
    for (&t, mat) in &plan.matrices {
        map.insert(t, mat.lowered);
    }
    for (&t, &(_, arr)) in &plan.tensors {
        map.insert(t, arr);
    }
    for i in m.all_insts().collect::<Vec<_>>() {
        m.map_used_ids(i, |x| map.get(&x).copied().unwrap_or(x));
    }
    let old_types: HashSet<Id> = plan
        .matrices
        .keys()
        .chain(plan.tensors.keys())
        .chain(scalar_constants.keys())
        .copied()
        .collect();
    // What the removed types named (scope, shape, use constants) may now be unused.
    let mut seeds = tensor_seeds;
    for &t in &old_types {
        if let Some(d) = m.def(t) {
            m.for_each_used_id(d, |x| seeds.push(x));
        }
    }
    m.retain_section(Section::Global, |m, i| {
        m.inst(i)
            .result_id()
            .is_none_or(|r| !old_types.contains(&r))
    });
    m.sort_global_section();
    merge_duplicate_types(m);
    // One per-element function per access shape (the types are merged, so equal shapes have
    // equal keys).
    let outlined = m.function_ids().count() - first_outlined;
    let merged = outline::merge_identical_functions(m, first_outlined);
    stats.add("per_element_functions", (outlined - merged) as u64);
    // Everything the conversion created that nothing uses (folded conditions, unused fields).
    seeds.extend((first_new_id..m.id_capacity()).filter_map(|k| Id::new(k as u32)));
    remove_dead(m, seeds);
    let mut errors = Vec::new();
    capabilities::run(m, stats, &mut errors);
    if let Some(e) = errors.into_iter().next() {
        return Err(e);
    }
    drop_joint_matrix_extension(m, stats);
    stats.add("matrix_types", plan.matrices.len() as u64);
    Ok(true)
}

/// Capabilities of `SPV_INTEL_joint_matrix`: checked instructions, prefetch, packed layout,
/// invocation instructions, TF32 and BF16 component types.
const JOINT_MATRIX_CAPABILITIES: [u32; 6] = [6192, 6411, 6434, 6435, 6436, 6437];

/// Removes `OpExtension "SPV_INTEL_joint_matrix"` once neither an instruction nor a capability
/// of it is left (the grammar does not know the extension, so `capabilities` keeps it).
fn drop_joint_matrix_extension(m: &mut Module, stats: &mut Statistics) {
    let used = m
        .all_insts()
        .any(|i| internal::is_joint_matrix(m.inst(i).opcode()))
        || m.section_insts(Section::Capability).any(|(_, c)| {
            c.operand_word(0)
                .is_some_and(|w| JOINT_MATRIX_CAPABILITIES.contains(&w))
        });
    if used {
        return;
    }
    let mut removed = 0;
    m.retain_section(Section::Extension, |m, i| {
        let keep = spvopt_ir::grammar::decode_string(m.inst(i).operands())
            != Some("SPV_INTEL_joint_matrix");
        removed += u64::from(!keep);
        keep
    });
    stats.add("extensions_removed", removed);
}

/// Tensor loads/stores whose pointer, layout and view are subgroup-uniform (joint_matrix's
/// checked loads/stores and prefetches: pointer, offsets, bounds and stride), in blocks the
/// whole subgroup reaches.
fn uniform_tensor_accesses(m: &Module, analyses: &mut Analyses) -> HashSet<InstId> {
    let u = analyses.get::<Uniformity>(m);
    let mut out = HashSet::default();
    for i in m.all_insts() {
        let inst = m.inst(i);
        let jm = joint_matrix::uniform_operands(inst.opcode(), inst.operands());
        if !jm.is_empty() {
            let reached = m.inst_block(i).is_some_and(|b| !u.is_divergent_control(b));
            if reached
                && jm
                    .iter()
                    .filter_map(|&w| Id::new(w))
                    .all(|id| u.is_uniform(id))
            {
                out.insert(i);
            }
            continue;
        }
        if !(inst.is(Op::CooperativeMatrixLoadTensorNV)
            || inst.is(Op::CooperativeMatrixStoreTensorNV))
        {
            continue;
        }
        let Some(b) = m.inst_block(i) else { continue };
        if u.is_divergent_control(b) {
            continue;
        }
        let ops = inst.operands();
        let mo = memory_operands(ops.get(3..).unwrap_or(&[]));
        let ta = ops.get(3 + mo.words).copied().unwrap_or(0);
        let mut ids = vec![ops[0], ops[2]];
        if ta & 0x1 != 0 {
            ids.extend(ops.get(4 + mo.words).copied());
        }
        if ids
            .iter()
            .filter_map(|&w| Id::new(w))
            .all(|id| u.is_uniform(id))
        {
            out.insert(i);
        }
    }
    out
}

/// Error `why` at `at`, or at an instruction the conversion already replaced.
fn located(m: &Module, at: InstId, why: ConvertError) -> Diagnostic {
    if m.inst_block(at).is_some() {
        Diagnostic::error_at(m, at, why.to_string())
    } else {
        Diagnostic::error(None, format!("(converted instruction): {why}"))
    }
}

impl Pass for ConvertTensorAddressing {
    fn name(&self) -> &'static str {
        "convert-tensor-addressing"
    }

    fn run(
        &mut self,
        m: &mut Module,
        analyses: &mut Analyses,
        target: &Target,
        changes: &mut Changes,
    ) -> Result<PassResult, PassError> {
        let mut stats = Statistics::default();
        // OpCooperativeMatrixApplyFunctionINTEL names no function to call (a pointer to a
        // function object): not expressible. Converting the other uses alone would leave it on
        // types that no longer exist, so the module is left as it is (IGC reads both forms).
        let apply = internal::OP_COOPERATIVE_MATRIX_APPLY_FUNCTION_INTEL;
        // One walk finds whether any translator-internal instruction is there, and the first
        // OpCooperativeMatrixApplyFunctionINTEL (one of them).
        let (mut has_internal, mut first_apply) = (false, None);
        m.for_each_inst_in_order(|i| {
            let o = m.inst(i).opcode();
            if internal::is_joint_matrix(o) {
                has_internal = true;
                if o == apply && first_apply.is_none() {
                    first_apply = Some(i);
                }
            }
        });
        if let Some(i) = first_apply {
            let (mut applies, mut others) = (0, 0);
            for j in m.all_insts() {
                match m.inst(j).opcode() {
                    o if o == apply => applies += 1,
                    o if internal::is_joint_matrix(o) => others += 1,
                    _ => {}
                }
            }
            stats.add("kept_apply_function", applies);
            if others > 0 {
                stats.add("kept_beside_apply_function", others);
            }
            stats.warn_at(
                crate::diagnostic::Location::of(m, i),
                "OpCooperativeMatrixApplyFunctionINTEL names no function the conversion could \
                 call; the module's cooperative matrices are left unconverted"
                    .into(),
            );
            return Ok(PassResult::unchanged(stats));
        }
        // On an error the pass manager discards the module (a pass may leave it partial).
        match convert(m, analyses, target, has_internal, &mut stats, changes) {
            Ok(false) => Ok(PassResult::unchanged(stats)),
            // Types, values, blocks and instructions all change: no analysis survives.
            Ok(true) => Ok(PassResult {
                changed: true,
                preserved: AnalysisSet::NONE,
                stats,
            }),
            Err(e) => Err(PassError::failed("convert-tensor-addressing", vec![e])),
        }
    }
}
