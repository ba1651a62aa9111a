//! `raise-builtins`: turns calls to Intel's OpenCL 2D block and MMA builtins into the native
//! SPIR-V instructions.
//!
//! What: an `OpFunctionCall` of a body-less function imported with
//! `LinkageAttributes "<name>" Import`, where `<name>` (Itanium-mangled or plain) is
//! - `intel_sub_group_2d_block_{read,read_transform,read_transpose,write,prefetch}_<E>b_<H>r<W>x<C>c`
//!   → `OpSubgroup2DBlock{Load,LoadTransform,LoadTranspose,Store,Prefetch}INTEL` with interned
//!   u32 constants Element Size = E/8, Block Width = W, Block Height = H, Block Count = C;
//!   the call's arguments `(base, width, height, pitch, coord[, ptr])` become the op's operands
//!   in order (reads: `base width height pitch coord ptr`; prefetch: no `ptr`; writes move
//!   the private source pointer first: `ptr base width height pitch coord`);
//! - `intel_sub_group_<a>_<b>_matrix_mad_k<K>` → `OpSubgroupMatrixMultiplyAccumulateINTEL`
//!   (same result id and type, K Dim = interned K, operands `a b acc`, and the operand mask
//!   the name implies: i8/u8 → PackedInt8 (+Signed for i8), i4/u4 → PackedInt4 (+Signed),
//!   f16 → PackedFloat16, bf16 → PackedBFloat16 (+ CBFloat16|ResultBFloat16 when the
//!   accumulator is 16-bit integers), tf32 → TF32).
//!
//! - `llvm.genx.GenISA.LSC2DBlock{Read,Write,Prefetch}.*` (Triton's fallback: IGC's GenISA
//!   intrinsics as imports) → the same native ops, with the data through a Function variable
//!   (the third form; `raise_builtins/genisa.rs` has the argument layout and the rules).
//!
//! Afterwards the imported declarations whose calls were all raised (and their names and
//! decorations) are removed, and the capabilities (Subgroup2DBlockIOINTEL, …TransformINTEL,
//! …TransposeINTEL, SubgroupMatrixMultiplyAccumulateINTEL) and extensions
//! (SPV_INTEL_2d_block_io, SPV_INTEL_subgroup_matrix_multiply_accumulate) are declared.
//!
//! When: always applicable. Unknown builtin names, functions that are not imported
//! declarations (a defined or exported function with a builtin-like name), and calls whose
//! argument count or types do not match the builtin's signature are left alone (the latter
//! are counted as `malformed_calls`). Declared-but-never-called builtins are left alone.
//!
//! Why correct: each builtin is specified as exactly the corresponding native instruction
//! (cl_intel_subgroup_2d_block_io / cl_intel_subgroup_matrix_multiply_accumulate define the
//! builtins with the same semantics, and the SPIR-V extensions are their SPIR-V form);
//! Intel's translator, rewriting the same kernels (corpus `triton/native/`), produces the same
//! operand lists: reads and writes go through the same private pointer (the builtins return
//! nothing), so no temporaries are needed. The shape constants come from the name, which is
//! what the builtin implements. Removing a declaration nothing calls any more cannot change
//! behaviour.
//! One rewrite (`--max-changes`): raising one call, in module order; removing the declarations
//! no call uses any more and declaring the capabilities belong to the raises before them.
//! Cost: linear in module size.

use spirv::{Capability, Op, StorageClass};
use spvopt_analysis::block_io::BlockKind;
use spvopt_analysis::decorations::Decorations;
use spvopt_analysis::{Analyses, AnalysisSet, Target};
use spvopt_ir::entity::{EntitySet, SecondaryMap};
use spvopt_ir::{FuncId, Id, Inst, InstId, Interner, Module, Section};

use crate::builtin_mangling::{
    block_opcode, extra_block_capability, linkages, numeric_kind, parse_builtin, pointer_kind,
    scalar_kind, BlockBuiltin, Builtin, MmaBuiltin, MmaElem, EXT_2D_BLOCK_IO, EXT_MMA,
};
use crate::edit::capabilities::{ensure_capability, ensure_extension};
use crate::pass::{Changes, Pass, PassError, PassResult, Statistics};
use spvopt_analysis::builtin_names::{parse_genisa_block, GenIsaBlock};

mod genisa;

pub struct RaiseBuiltins;

/// Statistic name of a raised 2D block op.
fn stat_name(op: BlockKind) -> &'static str {
    match op {
        BlockKind::Load => "raised_load",
        BlockKind::LoadTransform => "raised_load_transform",
        BlockKind::LoadTranspose => "raised_load_transpose",
        BlockKind::Store => "raised_store",
        BlockKind::Prefetch => "raised_prefetch",
    }
}

/// Statistic name of a raised GenISA call.
fn genisa_stat_name(op: BlockKind) -> &'static str {
    match op {
        BlockKind::Load => "raised_genisa_load",
        BlockKind::LoadTransform => "raised_genisa_load_transform",
        BlockKind::LoadTranspose => "raised_genisa_load_transpose",
        BlockKind::Store => "raised_genisa_store",
        BlockKind::Prefetch => "raised_genisa_prefetch",
    }
}

/// Statistic name of a GenISA call kept, by reason.
fn genisa_kept_stat(reason: &str) -> &'static str {
    match reason {
        "non_constant_shape" => "genisa_kept_non_constant_shape",
        "transpose_and_transform" => "genisa_kept_transpose_and_transform",
        "cache_controls" => "genisa_kept_cache_controls",
        "subgroup_size_unknown" => "genisa_kept_subgroup_size_unknown",
        "value_size" => "genisa_kept_value_size",
        "shape" => "genisa_kept_shape",
        _ => "genisa_kept_arguments",
    }
}

/// Why a GenISA call was kept, for people.
fn genisa_kept_text(reason: &str) -> &'static str {
    match reason {
        "non_constant_shape" => {
            "element size, block shape, transpose/transform flags or cache controls not constant"
        }
        "transpose_and_transform" => {
            "transpose together with VNNI transform (no native op has both)"
        }
        "cache_controls" => "unknown cache-control value",
        "subgroup_size_unknown" => {
            "no kernel declares a SubgroupSize, so the data each invocation gets is unknown"
        }
        "value_size" => "the value's size is not what the block gives each invocation",
        "shape" => "element size not 8/16/32/64 bits, or a zero dimension",
        _ => "arguments of the wrong number or type",
    }
}

/// The imported builtins the pass can raise, by callee id (dense side table): the body-less
/// functions whose `Import` linkage name (from the cached `Decorations`) parses as a 2D block or
/// MMA builtin, or as one of IGC's GenISA 2D block intrinsics.
struct ImportedBuiltins {
    by_id: SecondaryMap<Id, Option<(Builtin, FuncId)>>,
    genisa: SecondaryMap<Id, Option<(GenIsaBlock, FuncId)>>,
}

impl ImportedBuiltins {
    fn build(m: &Module, dec: &Decorations) -> ImportedBuiltins {
        let mut by_id = SecondaryMap::with_default(None);
        let mut genisa = SecondaryMap::with_default(None);
        for f in m.function_ids() {
            if !m.function(f).blocks.is_empty() {
                continue;
            }
            let Some(r) = m.function_result(f) else {
                continue;
            };
            let Some(l) = dec.linkage(r).filter(|l| l.import) else {
                continue;
            };
            if let Some(b) = parse_builtin(&l.name) {
                by_id.set(r, Some((b, f)));
            }
            if let Some(g) = parse_genisa_block(&l.name) {
                genisa.set(r, Some((g, f)));
            }
        }
        ImportedBuiltins { by_id, genisa }
    }

    fn get(&self, id: Id) -> Option<(Builtin, FuncId)> {
        self.by_id[id]
    }

    fn get_genisa(&self, id: Id) -> Option<(GenIsaBlock, FuncId)> {
        self.genisa[id]
    }

    fn is_empty(&self) -> bool {
        self.by_id.as_slice().iter().all(Option::is_none)
            && self.genisa.as_slice().iter().all(Option::is_none)
    }
}

/// Whether the module imports any OpenCL builtin `raise-builtins` knows (2D block IO or MMA),
/// i.e. whether it may hold builtin calls (the pass manager's test for raising before a pass
/// that works on native ops, and lowering back to builtin calls at the end). GenISA imports
/// do not count: lowering back would turn them into OpenCL builtin calls, which need not exist
/// for their shapes (why Triton called GenISA); they are raised by an explicit
/// `raise-builtins` (as in `-O`). One scan of the annotations.
pub fn imports_builtins(m: &Module) -> bool {
    linkages(m)
        .iter()
        .any(|l| l.import && parse_builtin(&l.name).is_some())
}

fn is_void(m: &Module, ty: Option<Id>) -> bool {
    ty.and_then(|t| m.def_inst(t))
        .is_some_and(|t| t.is(Op::TypeVoid))
}

fn is_int_scalar(m: &Module, v: Id) -> bool {
    m.type_of(v)
        .and_then(|t| scalar_kind(m, t))
        .is_some_and(|(float, _)| !float)
}

fn is_int2(m: &Module, v: Id) -> bool {
    m.type_of(v)
        .filter(|&t| m.def_inst(t).is_some_and(|i| i.is(Op::TypeVector)))
        .and_then(|t| numeric_kind(m, t))
        .is_some_and(|(float, _, n)| !float && n == 2)
}

fn pointer_in(m: &Module, v: Id, sc: StorageClass) -> Option<Option<Id>> {
    let (s, pointee) = pointer_kind(m, m.type_of(v)?)?;
    (s == sc as u32).then_some(pointee)
}

/// The native operands for a 2D block builtin call with arguments `args`, or `None` when the
/// arguments do not fit the builtin's signature.
fn block_operands(
    m: &Module,
    b: BlockBuiltin,
    result_type: Option<Id>,
    args: &[u32],
) -> Option<Vec<Id>> {
    if args.len() != b.param_count() || !is_void(m, result_type) {
        return None;
    }
    let ids: Vec<Id> = args.iter().map(|&w| Id::new(w)).collect::<Option<_>>()?;
    pointer_in(m, ids[0], StorageClass::CrossWorkgroup)?;
    if !ids[1..4].iter().all(|&v| is_int_scalar(m, v)) || !is_int2(m, ids[4]) {
        return None;
    }
    if b.op == BlockKind::Prefetch {
        return Some(ids);
    }
    let pointee = pointer_in(m, ids[5], StorageClass::Function)?;
    if b.op == BlockKind::LoadTransform {
        // SPV_INTEL_2d_block_io: a typed Dst pointer must point to a 32-bit integer.
        if let Some(p) = pointee {
            let t = m.def_inst(p)?;
            if !(t.is(Op::TypeInt) && t.operand_word(0) == Some(32)) {
                return None;
            }
        }
    }
    if b.op == BlockKind::Store {
        let mut v = Vec::with_capacity(6);
        v.push(ids[5]);
        v.extend_from_slice(&ids[..5]);
        return Some(v);
    }
    Some(ids)
}

/// The operand mask for an MMA builtin call, or `None` when the types do not fit.
fn mma_mask(m: &Module, b: MmaBuiltin, result_type: Option<Id>, args: &[u32]) -> Option<u32> {
    if args.len() != 3 {
        return None;
    }
    let rt = result_type?;
    let ids: Vec<Id> = args.iter().map(|&w| Id::new(w)).collect::<Option<_>>()?;
    let c_ty = m.type_of(ids[2])?;
    if c_ty != rt {
        return None;
    }
    numeric_kind(m, m.type_of(ids[0])?)?;
    numeric_kind(m, m.type_of(ids[1])?)?;
    let (float, bits, _) = numeric_kind(m, rt)?;
    let int16_acc = match (b.a, float, bits) {
        (MmaElem::I8 | MmaElem::U8 | MmaElem::I4 | MmaElem::U4, false, 32) => false,
        (MmaElem::F16, true, 32 | 16) => false,
        (MmaElem::Bf16, true, 32) => false,
        (MmaElem::Bf16, false, 16) => true,
        (MmaElem::Tf32, true, 32) => false,
        _ => return None,
    };
    Some(b.operands_mask(int16_acc))
}

impl Pass for RaiseBuiltins {
    fn name(&self) -> &'static str {
        "raise-builtins"
    }

    fn run(
        &mut self,
        m: &mut Module,
        analyses: &mut Analyses,
        _: &Target,
        changes: &mut Changes,
    ) -> Result<PassResult, PassError> {
        let mut stats = Statistics::default();
        let callees = ImportedBuiltins::build(m, &analyses.get::<Decorations>(m));
        if callees.is_empty() {
            return Ok(PassResult::unchanged(stats));
        }
        let sg_sizes = genisa::declared_subgroup_sizes(m);
        // 1. Find the calls and what they become (no mutation yet).
        enum Plan {
            Block(BlockBuiltin, Vec<Id>),
            Mma(MmaBuiltin, u32),
            GenIsa(genisa::GenIsaPlan),
        }
        let mut plans: Vec<(InstId, FuncId, Plan)> = Vec::new();
        for f in m.function_ids() {
            for &b in &m.function(f).blocks {
                for i in m.block_insts(b) {
                    let inst = m.inst(i);
                    if !inst.is(Op::FunctionCall) {
                        continue;
                    }
                    if let Some((g, decl)) = inst.operand_id(0).and_then(|c| callees.get_genisa(c))
                    {
                        match genisa::plan(m, g, inst, &sg_sizes) {
                            Ok(p) => plans.push((i, decl, Plan::GenIsa(p))),
                            Err(reason) => {
                                stats.add(genisa_kept_stat(reason), 1);
                                stats.warn_at(
                                    crate::diagnostic::Location::of(m, i),
                                    format!("{} call kept: {}", g.name(), genisa_kept_text(reason)),
                                );
                            }
                        }
                        continue;
                    }
                    let Some((builtin, decl)) = inst.operand_id(0).and_then(|c| callees.get(c))
                    else {
                        continue;
                    };
                    let args = &inst.operands()[1..];
                    let plan = match builtin {
                        Builtin::Block(bb) => block_operands(m, bb, inst.result_type(), args)
                            .map(|ops| Plan::Block(bb, ops)),
                        Builtin::Mma(mb) => mma_mask(m, mb, inst.result_type(), args)
                            .map(|mask| Plan::Mma(mb, mask)),
                    };
                    match plan {
                        Some(p) => plans.push((i, decl, p)),
                        None => stats.add("malformed_calls", 1),
                    }
                }
            }
        }
        plans.truncate(changes.allow_up_to(plans.len()));
        if plans.is_empty() {
            return Ok(PassResult::unchanged(stats));
        }
        // 2. Rewrite.
        let mut interner = Interner::default();
        let mut removed_ids: Vec<Id> = Vec::new();
        let mut raised_decl = vec![false; m.functions.len()];
        let (mut need_block, mut need_mma, mut need_cache_controls) = (false, false, false);
        let mut extra_caps: Vec<Capability> = Vec::new();
        for (call, decl, plan) in plans {
            raised_decl[decl.index()] = true;
            let plan = match plan {
                Plan::GenIsa(p) => {
                    if genisa::emit(m, &mut interner, call, &p) {
                        need_block = true;
                        if let Some(cap) = extra_block_capability(p.kind) {
                            if !extra_caps.contains(&cap) {
                                extra_caps.push(cap);
                            }
                        }
                        if p.cache.is_some() {
                            need_cache_controls = true;
                        }
                        stats.add(genisa_stat_name(p.kind), 1);
                    }
                    continue;
                }
                other => other,
            };
            let (result_type, result) = {
                let c = m.inst(call);
                (c.result_type(), c.result_id())
            };
            let new = match plan {
                Plan::Block(bb, ops) => {
                    need_block = true;
                    if let Some(cap) = extra_block_capability(bb.op) {
                        if !extra_caps.contains(&cap) {
                            extra_caps.push(cap);
                        }
                    }
                    stats.add(stat_name(bb.op), 1);
                    let mut words: Vec<u32> = [bb.elem_bytes, bb.width, bb.height, bb.count]
                        .iter()
                        .map(|&v| interner.u32_const(m, v).word())
                        .collect();
                    words.extend(ops.iter().map(|i| i.word()));
                    if let Some(r) = result {
                        removed_ids.push(r);
                    }
                    Inst::new(block_opcode(bb.op), None, None, &words)
                }
                Plan::GenIsa(_) => continue,
                Plan::Mma(mb, mask) => {
                    need_mma = true;
                    stats.add("raised_mma", 1);
                    let k = interner.u32_const(m, mb.k).word();
                    let args = m.inst(call).operands()[1..].to_vec();
                    let mut words = vec![k];
                    words.extend_from_slice(&args);
                    words.push(mask);
                    Inst::new(
                        Op::SubgroupMatrixMultiplyAccumulateINTEL,
                        result_type,
                        result,
                        &words,
                    )
                }
            };
            m.insert_before(call, new);
            m.erase(call);
        }
        // 3. Declarations nothing calls any more.
        let mut used: EntitySet<Id> = EntitySet::with_capacity(m.id_capacity());
        let all: Vec<InstId> = m.all_insts().collect();
        for &i in &all {
            let op = m.inst(i).op();
            if matches!(
                op,
                Some(
                    Op::Name | Op::MemberName | Op::Decorate | Op::DecorateId | Op::DecorateString
                )
            ) {
                continue;
            }
            m.for_each_used_id(i, |id| {
                used.insert(id);
            });
        }
        let mut dead_decls: Vec<FuncId> = (0..raised_decl.len())
            .filter(|&f| raised_decl[f])
            .map(FuncId::from_index)
            .filter(|&f| m.function_result(f).is_some_and(|r| !used.contains(r)))
            .collect();
        dead_decls.sort_by_key(|f| std::cmp::Reverse(f.index()));
        for f in dead_decls {
            if let Some(r) = m.function_result(f) {
                removed_ids.push(r);
            }
            // Parameters may carry names and decorations (FuncParamAttr…) too.
            let params: Vec<Id> = m.parameter_ids(f);
            removed_ids.extend(params);
            m.remove_function(f);
            stats.add("declarations_removed", 1);
        }
        // Names and decorations of removed ids (call results, declarations).
        let mut gone: EntitySet<Id> = EntitySet::with_capacity(m.id_capacity());
        for &r in &removed_ids {
            gone.insert(r);
        }
        let targets_gone =
            |m: &Module, i: InstId| m.inst(i).operand_id(0).is_some_and(|t| gone.contains(t));
        let mut names = 0;
        m.retain_section(Section::Debug, |m, i| {
            let drop = matches!(m.inst(i).op(), Some(Op::Name)) && targets_gone(m, i);
            names += u64::from(drop);
            !drop
        });
        let mut decorations = 0;
        m.retain_section(Section::Annotation, |m, i| {
            let drop = matches!(
                m.inst(i).op(),
                Some(Op::Decorate | Op::DecorateId | Op::DecorateString)
            ) && targets_gone(m, i);
            decorations += u64::from(drop);
            !drop
        });
        if names > 0 {
            stats.add("names_removed", names);
        }
        if decorations > 0 {
            stats.add("decorations_removed", decorations);
        }
        // 4. Capabilities and extensions.
        let mut caps = 0;
        let mut exts = 0;
        if need_block {
            caps += u64::from(ensure_capability(m, Capability::Subgroup2DBlockIOINTEL));
            for c in extra_caps {
                caps += u64::from(ensure_capability(m, c));
            }
            exts += u64::from(ensure_extension(m, EXT_2D_BLOCK_IO));
        }
        if need_cache_controls {
            caps += u64::from(ensure_capability(m, Capability::CacheControlsINTEL));
            exts += u64::from(ensure_extension(m, "SPV_INTEL_cache_controls"));
        }
        if need_mma {
            caps += u64::from(ensure_capability(
                m,
                Capability::SubgroupMatrixMultiplyAccumulateINTEL,
            ));
            exts += u64::from(ensure_extension(m, EXT_MMA));
        }
        if caps > 0 {
            stats.add("capabilities_added", caps);
        }
        if exts > 0 {
            stats.add("extensions_added", exts);
        }
        Ok(PassResult {
            changed: true,
            // Calls became instructions in place: no block or edge changed.
            preserved: AnalysisSet::ALL
                .without(AnalysisSet::DEF_USE)
                .without(AnalysisSet::CONSTANTS)
                .without(AnalysisSet::ALIAS)
                .without(AnalysisSet::UNIFORMITY)
                // Declarations, their names and linkage decorations went.
                .without(AnalysisSet::DECORATIONS),
            stats,
        })
    }
}
