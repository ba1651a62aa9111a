//! Facts about opcodes that several passes need.

use spirv::Op;
use spvopt_ir::grammar::ExtSet;
use spvopt_ir::opcode_class::{load_store, op_class, AccessDirection, OpClass};
use spvopt_ir::opcode_table::PerOpcode;
use spvopt_ir::{Inst, Module};

/// Whether an instruction of an opcode may be removed when its result is unused, by opcode.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Removable {
    /// Never (writes, synchronises, branches, calls; unknown opcodes).
    No,
    /// Always.
    Yes,
    /// A load (plain or predicated): unless volatile.
    UnlessVolatile,
    /// `OpExtInst`: depends on the set and instruction.
    ExtInst,
}

/// [`Removable`] of `opcode`, decided once per opcode and process.
#[inline]
fn removable(opcode: u16) -> Removable {
    static TABLE: PerOpcode<Removable> = PerOpcode::new();
    TABLE.get(opcode, |opcode| {
        if let Some(ls) = load_store(opcode) {
            return if ls.direction == AccessDirection::Read {
                Removable::UnlessVolatile
            } else {
                Removable::No
            };
        }
        match spvopt_ir::inst::op_of(opcode) {
            None => Removable::No,
            Some(Op::ExtInst) => Removable::ExtInst,
            Some(op) if op_class(op).intersects(OpClass::REMOVABLE_IF_UNUSED) => Removable::Yes,
            Some(_) => Removable::No,
        }
    })
}

/// Whether removing `inst` when its result is unused cannot change what the kernel does:
/// it has a result, writes no memory, does not synchronise, branch or call.
/// Unknown opcodes are never pure.
#[inline]
pub fn is_side_effect_free(m: &Module, inst: &Inst) -> bool {
    if !inst.has_result() {
        return false;
    }
    match removable(inst.opcode()) {
        Removable::No => false,
        Removable::Yes => true,
        // A load (plain or predicated: a predicated load whose predicate is false reads
        // nothing) is removable unless volatile.
        Removable::UnlessVolatile => {
            load_store(inst.opcode()).is_some_and(|ls| !ls.is_volatile(inst.operands()))
        }
        Removable::ExtInst => ext_inst_is_side_effect_free(m, inst),
    }
}

/// [`is_side_effect_free`] of an `OpExtInst`: OpenCL.std instructions other than stores,
/// `printf` and `prefetch`, and GLSL.std.450 ones.
#[inline(never)]
fn ext_inst_is_side_effect_free(m: &Module, inst: &Inst) -> bool {
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

/// The targets whose consumer is Intel's IGC (what `hoist-block-payloads`' `auto` consumer and
/// `insert-prefetches`' `prefetch-1d=auto` decide by).
pub const IGC_TARGETS: &[&str] = &["pvc", "bmg", "lnl", "ptl", "cri"];
