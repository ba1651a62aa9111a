//! The Level Zero SPIR-V environment's validation rules (`level-zero-spirv-environment`,
//! "Validation Rules"): checked by [`check`] (`spv-opt --check-env`), fixed by [`fix`] where
//! that cannot change meaning.
//!
//! Checked: entry points use the Kernel execution model; `OpMemoryModel Physical64 OpenCL`;
//! integer types have Signedness 0; image types (Sampled Type void, Sampled 0, MS 0, Arrayed
//! only for 1D/2D, format Unknown, access qualifier present); `OpImageWrite` without image
//! operands, `OpImageRead` / `OpImageSampleExplicitLod` without ConstOffset; atomics on 32- or
//! 64-bit integers through Function/Workgroup/CrossWorkgroup/Generic pointers; execution
//! scopes Workgroup or Subgroup (Workgroup for `OpGroupAsyncCopy` / `OpGroupWaitEvents`),
//! memory scopes CrossDevice/Device/Workgroup/Invocation/Subgroup (constant scopes only); no
//! recursion in the static call graph.
//!
//! Fixed: Signedness 1 integer types become Signedness 0. Why correct: in Kernel modules
//! signedness has no semantics of its own (the opcode says signed or unsigned: OpSDiv vs
//! OpUDiv, s_/u_ OpenCL.std instructions); the only place it shows is how literals narrower
//! than 32 bits are extended into their word (sign- vs zero-extension), so narrow `OpConstant`
//! / `OpSpecConstant` literals and `OpSwitch` case literals are re-encoded zero-extended — the
//! same bit pattern of the type's width. The rewritten type is then merged with its unsigned
//! twin, and every type and constant that becomes identical to an earlier one is merged too
//! (all uses redirected; names of the removed ids dropped; decorated ids are never merged).
//! Cost: linear (one walk of the global section with a hash map, one walk of all uses).

use std::collections::{HashMap, HashSet};

use spirv::Op;
use spvopt_ir::opcode_class::{op_class, scope_operands, OpClass, ScopeOperands};
use spvopt_ir::{FuncId, Id, InstId, Module, Section};

use super::body_scan::BodyScan;
use crate::diagnostic::Diagnostic;
use crate::pass::{Changes, Statistics};

/// Every violation of the rules, as an error located at the instruction breaking it. Does not
/// change the module.
pub fn check(m: &Module) -> Vec<Diagnostic> {
    let mut v = Vec::new();
    check_signedness(m, &mut v);
    check_rest(m, &BodyScan::take(m), &mut v);
    v
}

fn check_signedness(m: &Module, v: &mut Vec<Diagnostic>) {
    for (i, inst) in m.section_insts(Section::Global) {
        if inst.is(Op::TypeInt) && inst.operand_word(1) == Some(1) {
            v.push(Diagnostic::error_at(
                m,
                i,
                "integer type with Signedness 1 (Level Zero requires 0)",
            ));
        }
    }
}

/// Fixes what can be fixed (signedness); every remaining violation goes to `errors`.
/// One rewrite (`--max-changes`): the whole signedness rewrite (types merge with their twins,
/// so no part of it stands alone).
/// `scan` is legalize's scan of the bodies (taken again if the fix changed the module).
pub fn fix(
    m: &mut Module,
    scan: &mut BodyScan,
    stats: &mut Statistics,
    errors: &mut Vec<Diagnostic>,
    changes: &mut Changes,
) {
    fix_signedness(m, stats, changes);
    check_rest(m, scan.current(m, changes), errors);
}

const SCOPE_CROSS_DEVICE: u64 = 0;
const SCOPE_DEVICE: u64 = 1;
const SCOPE_WORKGROUP: u64 = 2;
const SCOPE_SUBGROUP: u64 = 3;
const SCOPE_INVOCATION: u64 = 4;

fn scope_name(s: u64) -> String {
    match s {
        0 => "CrossDevice".into(),
        1 => "Device".into(),
        2 => "Workgroup".into(),
        3 => "Subgroup".into(),
        4 => "Invocation".into(),
        5 => "QueueFamily".into(),
        6 => "ShaderCallKHR".into(),
        n => format!("scope {n}"),
    }
}

/// Every rule but signedness (`scan`: the bodies' instructions the rules look at).
fn check_rest(m: &Module, scan: &BodyScan, v: &mut Vec<Diagnostic>) {
    for (i, inst) in m.section_insts(Section::EntryPoint) {
        if inst.operand_word(0) != Some(spirv::ExecutionModel::Kernel as u32) {
            v.push(Diagnostic::error_at(m, i, "execution model must be Kernel"));
        }
    }
    for (i, inst) in m.section_insts(Section::MemoryModel) {
        if inst.operand_word(0) != Some(spirv::AddressingModel::Physical64 as u32) {
            v.push(Diagnostic::error_at(
                m,
                i,
                "addressing model must be Physical64",
            ));
        }
        if inst.operand_word(1) != Some(spirv::MemoryModel::OpenCL as u32) {
            v.push(Diagnostic::error_at(m, i, "memory model must be OpenCL"));
        }
    }
    for (i, inst) in m.section_insts(Section::Global) {
        if inst.is(Op::TypeImage) {
            check_image_type(m, i, v);
        }
    }
    for &i in &scan.checked {
        check_body_inst(m, i, v);
    }
    check_recursion(m, &scan.calls, v);
}

fn check_image_type(m: &Module, i: InstId, v: &mut Vec<Diagnostic>) {
    let inst = m.inst(i);
    let o = inst.operands();
    let mut bad = |what: &str| v.push(Diagnostic::error_at(m, i, format!("image type: {what}")));
    if o.len() < 7 {
        bad("malformed");
        return;
    }
    if !o
        .first()
        .and_then(|&t| Id::new(t))
        .and_then(|t| m.def_inst(t))
        .is_some_and(|t| t.is(Op::TypeVoid))
    {
        bad("Sampled Type must be OpTypeVoid");
    }
    if o[5] != 0 {
        bad("Sampled must be 0");
    }
    if o[4] != 0 {
        bad("MS must be 0");
    }
    if o[3] == 1 && !(o[1] == spirv::Dim::Dim1D as u32 || o[1] == spirv::Dim::Dim2D as u32) {
        bad("Arrayed may be 1 only for 1D and 2D images");
    }
    if o[6] != spirv::ImageFormat::Unknown as u32 {
        bad("Image Format must be Unknown");
    }
    if o.len() < 8 {
        bad("the access qualifier must be present");
    }
}

fn int_width(m: &Module, ty: Option<Id>) -> Option<u32> {
    let t = m.def_inst(ty?)?;
    t.is(Op::TypeInt).then(|| t.operand_word(0)).flatten()
}

fn check_body_inst(m: &Module, i: InstId, v: &mut Vec<Diagnostic>) {
    let inst = m.inst(i);
    let Some(op) = inst.op() else { return };
    let o = inst.operands();
    match op {
        Op::ImageWrite if o.len() > 3 => v.push(Diagnostic::error_at(
            m,
            i,
            "OpImageWrite must not have image operands",
        )),
        Op::ImageRead | Op::ImageSampleExplicitLod
            if o.get(2)
                .is_some_and(|&mask| mask & spirv::ImageOperands::CONST_OFFSET.bits() != 0) =>
        {
            v.push(Diagnostic::error_at(
                m,
                i,
                "image read must not use ConstOffset",
            ))
        }
        _ => {}
    }
    if op_class(op).intersects(OpClass::ATOMIC) {
        let value_ty = if op == Op::AtomicStore {
            o.get(3)
                .and_then(|&x| Id::new(x))
                .and_then(|x| m.type_of(x))
        } else {
            inst.result_type()
        };
        if let Some(w) = int_width(m, value_ty) {
            if w != 32 && w != 64 {
                v.push(Diagnostic::error_at(
                    m,
                    i,
                    format!("atomics support 32- and 64-bit integers only (got {w}-bit)"),
                ));
            }
        }
        let storage = o
            .first()
            .and_then(|&p| Id::new(p))
            .and_then(|p| m.type_of(p))
            .and_then(|t| m.def_inst(t))
            .filter(|t| t.is(Op::TypePointer))
            .and_then(|t| t.operand_word(0));
        use spirv::StorageClass as S;
        if let Some(s) = storage {
            if ![
                S::Function as u32,
                S::Workgroup as u32,
                S::CrossWorkgroup as u32,
                S::Generic as u32,
            ]
            .contains(&s)
            {
                v.push(Diagnostic::error_at(
                    m,
                    i,
                    "atomic pointer must be Function, Workgroup, CrossWorkgroup or Generic",
                ));
            }
        }
    }
    let ScopeOperands {
        execution: exec,
        memory: mem,
    } = scope_operands(op as u16);
    let scope = |pos: Option<usize>| {
        pos.and_then(|p| o.get(p))
            .and_then(|&x| Id::new(x))
            .and_then(|x| m.const_int_value(x))
    };
    if let Some(s) = scope(exec) {
        let workgroup_only = matches!(op, Op::GroupAsyncCopy | Op::GroupWaitEvents);
        let ok = if workgroup_only {
            s == SCOPE_WORKGROUP
        } else {
            s == SCOPE_WORKGROUP || s == SCOPE_SUBGROUP
        };
        if !ok {
            v.push(Diagnostic::error_at(
                m,
                i,
                format!(
                    "execution scope {} not allowed (must be Workgroup{})",
                    scope_name(s),
                    if workgroup_only { "" } else { " or Subgroup" }
                ),
            ));
        }
    }
    if let Some(s) = scope(mem) {
        if ![
            SCOPE_CROSS_DEVICE,
            SCOPE_DEVICE,
            SCOPE_WORKGROUP,
            SCOPE_INVOCATION,
            SCOPE_SUBGROUP,
        ]
        .contains(&s)
        {
            v.push(Diagnostic::error_at(
                m,
                i,
                format!("memory scope {} not allowed", scope_name(s)),
            ));
        }
    }
}

/// Reports one call of every cycle-closing edge of the static call graph (iterative DFS);
/// `calls`: the module's `OpFunctionCall`s with their functions, in layout order.
fn check_recursion(m: &Module, calls_in: &[(FuncId, InstId)], v: &mut Vec<Diagnostic>) {
    let n = m.functions.len();
    let mut index_of: HashMap<Id, usize> = HashMap::new();
    for f in m.function_ids() {
        if let Some(id) = m.function_result(f) {
            index_of.insert(id, f.index());
        }
    }
    let mut calls: Vec<Vec<(usize, InstId)>> = vec![Vec::new(); n];
    for &(f, i) in calls_in {
        if let Some(&t) = m.inst(i).operand_id(0).and_then(|c| index_of.get(&c)) {
            calls[f.index()].push((t, i));
        }
    }
    // 0 unvisited, 1 on the stack, 2 done.
    let mut state = vec![0u8; n];
    for root in 0..n {
        if state[root] != 0 {
            continue;
        }
        let mut stack: Vec<(usize, usize)> = vec![(root, 0)];
        state[root] = 1;
        while let Some(&mut (f, ref mut k)) = stack.last_mut() {
            if let Some(&(t, call)) = calls[f].get(*k) {
                *k += 1;
                match state[t] {
                    0 => {
                        state[t] = 1;
                        stack.push((t, 0));
                    }
                    1 => v.push(Diagnostic::error_at(
                        m,
                        call,
                        "recursion (the static call graph has a cycle)",
                    )),
                    _ => {}
                }
            } else {
                state[f] = 2;
                stack.pop();
            }
        }
    }
}

fn mask_literal(word: u32, width: u32) -> u32 {
    if width >= 32 {
        word
    } else {
        word & ((1u32 << width) - 1)
    }
}

/// Rewrites Signedness 1 integer types to 0 and merges what becomes identical.
fn fix_signedness(m: &mut Module, stats: &mut Statistics, changes: &mut Changes) {
    let mut narrow_signed: HashMap<Id, u32> = HashMap::new();
    let mut any_signed = false;
    for (_, inst) in m.section_insts(Section::Global) {
        if inst.is(Op::TypeInt) && inst.operand_word(1) == Some(1) {
            any_signed = true;
            if let (Some(r), Some(w)) = (inst.result_id(), inst.operand_word(0)) {
                if w < 32 {
                    narrow_signed.insert(r, w);
                }
            }
        }
    }
    if !any_signed || !changes.allow() {
        return;
    }
    // Literals narrower than 32 bits: sign-extended for signed types, zero-extended for
    // unsigned ones. Re-encode them before the types change.
    if !narrow_signed.is_empty() {
        let global: Vec<InstId> = m.section(Section::Global).to_vec();
        for i in global {
            let inst = m.inst(i);
            if !(inst.is(Op::Constant) || inst.is(Op::SpecConstant)) {
                continue;
            }
            if let Some(&w) = inst.result_type().and_then(|t| narrow_signed.get(&t)) {
                if let Some(word) = m.inst_mut(i).operands_mut().first_mut() {
                    *word = mask_literal(*word, w);
                }
            }
        }
        for i in m.all_insts().collect::<Vec<_>>() {
            let inst = m.inst(i);
            if !inst.is(Op::Switch) {
                continue;
            }
            let Some(&w) = inst
                .operand_id(0)
                .and_then(|s| m.type_of(s))
                .and_then(|t| narrow_signed.get(&t))
            else {
                continue;
            };
            let ops = m.inst_mut(i).operands_mut();
            let mut k = 2;
            while k < ops.len() {
                ops[k] = mask_literal(ops[k], w);
                k += 2;
            }
        }
    }
    // Ids with decorations (other than names) are never merged.
    let mut decorated: HashSet<u32> = HashSet::new();
    for (_, inst) in m.section_insts(Section::Annotation) {
        if let Some(&t) = inst.operands().first() {
            decorated.insert(t);
        }
    }
    let cap = m.id_capacity();
    let mut remap: Vec<Option<Id>> = vec![None; cap];
    let mut seen: HashMap<(u16, Vec<u32>), Id> = HashMap::new();
    let mut merged: HashSet<InstId> = HashSet::new();
    let global: Vec<InstId> = m.section(Section::Global).to_vec();
    for i in global {
        m.map_used_ids(i, |x| remap.get(x.index()).copied().flatten().unwrap_or(x));
        if m.inst(i).is(Op::TypeInt) && m.inst(i).operand_word(1) == Some(1) {
            if let Some(w) = m.inst_mut(i).operands_mut().get_mut(1) {
                *w = 0;
            }
            stats.add("signedness_fixed", 1);
        }
        let inst = m.inst(i);
        if !spvopt_ir::interning::is_internable(inst.op()) {
            continue;
        }
        let Some(r) = inst.result_id() else { continue };
        if decorated.contains(&r.word()) {
            continue;
        }
        let mut key: Vec<u32> = Vec::with_capacity(inst.words.len());
        if let Some(t) = inst.result_type() {
            key.push(t.word());
        }
        key.extend_from_slice(inst.operands());
        match seen.get(&(inst.opcode(), key.clone())) {
            Some(&first) => {
                if let Some(slot) = remap.get_mut(r.index()) {
                    *slot = Some(first);
                }
                merged.insert(i);
            }
            None => {
                seen.insert((inst.opcode(), key), r);
            }
        }
    }
    if merged.is_empty() {
        return;
    }
    stats.add("merged_types_and_constants", merged.len() as u64);
    let is_merged = |x: u32| {
        Id::new(x)
            .and_then(|x| remap.get(x.index()).copied().flatten())
            .is_some()
    };
    m.retain_section(Section::Debug, |m, i| {
        let inst = m.inst(i);
        !((inst.is(Op::Name) || inst.is(Op::MemberName))
            && inst.operands().first().is_some_and(|&t| is_merged(t)))
    });
    m.retain_section(Section::Global, |_, i| !merged.contains(&i));
    for i in m.all_insts().collect::<Vec<_>>() {
        m.map_used_ids(i, |x| remap.get(x.index()).copied().flatten().unwrap_or(x));
    }
}
