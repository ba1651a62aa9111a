//! Facts about opcodes that several passes need.

use spirv::Op;
use spvopt_ir::grammar::ExtSet;
use spvopt_ir::opcode_class::{load_store, op_class, AccessDirection, OpClass};
use spvopt_ir::{Inst, Module};

/// Whether removing `inst` when its result is unused cannot change what the kernel does:
/// it has a result, writes no memory, does not synchronise, branch or call.
/// Unknown opcodes are never pure.
pub fn is_side_effect_free(m: &Module, inst: &Inst) -> bool {
    if !inst.has_result() {
        return false;
    }
    // A load (plain or predicated: a predicated load whose predicate is false reads nothing)
    // is removable unless volatile.
    if let Some(ls) = load_store(inst.opcode()) {
        return ls.direction == AccessDirection::Read && !ls.is_volatile(inst.operands());
    }
    let Some(op) = inst.op() else { return false };
    use Op::*;
    match op {
        ExtInst => {
            let Some(set) = inst.operand_id(0).and_then(|s| m.ext_set(s)) else {
                return false;
            };
            let number = inst.operand_word(1).unwrap_or(u32::MAX);
            match set {
                ExtSet::OpenClStd => set.inst(number).is_some_and(|d| {
                    !(d.name.starts_with("vstore") || d.name == "printf" || d.name == "prefetch")
                }),
                ExtSet::GlslStd450 => true,
                // Debug information is kept by DCE (it references what it describes).
                _ => false,
            }
        }
        _ => op_class(op).intersects(OpClass::REMOVABLE_IF_UNUSED),
    }
}

/// Whether `inst` is debug information: OpLine/OpNoLine, OpName, OpString, OpSource*,
/// OpModuleProcessed, or an OpExtInst of a debug-info or non-semantic set.
pub fn is_debug_inst(m: &Module, inst: &Inst) -> bool {
    use Op::*;
    match inst.op() {
        Some(
            Line | NoLine | Name | MemberName | String | Source | SourceContinued | SourceExtension
            | ModuleProcessed,
        ) => true,
        Some(ExtInst) => inst
            .operand_id(0)
            .and_then(|s| m.ext_set(s))
            .is_some_and(ExtSet::is_debug_or_non_semantic),
        _ => false,
    }
}

/// The Input variable of built-in `b`: `existing` when given, else a new variable of the value
/// type `ty` makes, decorated `BuiltIn b`; either way listed in every entry point's interface (Input
/// variables belong to it in every SPIR-V version).
pub(crate) fn builtin_input_variable(
    m: &mut spvopt_ir::Module,
    types: &mut spvopt_ir::Interner,
    b: spirv::BuiltIn,
    ty: impl FnOnce(&mut spvopt_ir::Module, &mut spvopt_ir::Interner) -> spvopt_ir::Id,
    existing: Option<spvopt_ir::Id>,
) -> spvopt_ir::Id {
    use spirv::StorageClass;
    use spvopt_ir::{InstId, Section};
    let var = match existing {
        Some(v) => v,
        None => {
            let ty = ty(m, types);
            let pt = types.pointer(m, StorageClass::Input, ty);
            let v = m.fresh_id();
            m.push_to_section(
                Section::Global,
                Inst::new(
                    Op::Variable,
                    Some(pt),
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
                    &[v.word(), spirv::Decoration::BuiltIn as u32, b as u32],
                ),
            );
            v
        }
    };
    let eps: Vec<InstId> = m.section(Section::EntryPoint).to_vec();
    for e in eps {
        let inst = m.inst(e);
        if !inst.is(Op::EntryPoint) {
            continue;
        }
        let ops = inst.operands();
        let i = crate::legalize::interface_variables::interface_start(ops);
        if ops[i..].contains(&var.word()) {
            continue;
        }
        let mut words = ops.to_vec();
        words.push(var.word());
        *m.inst_mut(e) = Inst::new(Op::EntryPoint, None, None, &words);
    }
    var
}
