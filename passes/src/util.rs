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
