//! The arithmetic `BFloat16ArithmeticINTEL` (SPV_INTEL_bfloat16_arithmetic, a capability the
//! LLVM/SPIR-V translator keeps internal) allows on `OpTypeFloat 16 BFloat16KHR` values, which
//! SPV_KHR_bfloat16 alone only lets a module move and convert. spirv-val knows the KHR rules
//! only ("FAdd doesn't support BFloat16 type"), so on the validation-only copy these
//! instructions become `OpUndef`s of their types (see the parent module): the rest of the
//! module is still judged. Only arithmetic opcodes count: a load, store, conversion, select
//! or composite of bfloat16 values is legal under SPV_KHR_bfloat16 and stays validated.

use spirv::Op;
use spvopt_ir::{Id, InstId, Module, Section};
use std::collections::HashSet;

/// Whether `op` is arithmetic, a comparison or a math call: what the INTEL capability adds
/// for bfloat16 operands.
fn is_arithmetic(op: Op) -> bool {
    use Op::*;
    matches!(
        op,
        FNegate
            | FAdd
            | FSub
            | FMul
            | FDiv
            | FRem
            | FMod
            | VectorTimesScalar
            | FOrdEqual
            | FUnordEqual
            | FOrdNotEqual
            | FUnordNotEqual
            | FOrdLessThan
            | FUnordLessThan
            | FOrdGreaterThan
            | FUnordGreaterThan
            | FOrdLessThanEqual
            | FUnordLessThanEqual
            | FOrdGreaterThanEqual
            | FUnordGreaterThanEqual
            | IsNan
            | IsInf
            | IsFinite
            | IsNormal
            | SignBitSet
            | LessOrGreater
            | Ordered
            | Unordered
            | ExtInst
            | GroupFAdd
            | GroupFMin
            | GroupFMax
            | GroupNonUniformFAdd
            | GroupNonUniformFMul
            | GroupNonUniformFMin
            | GroupNonUniformFMax
            | AtomicFAddEXT
            | AtomicFMinEXT
            | AtomicFMaxEXT
    )
}

/// The bfloat16 scalar and vector types of `m`.
fn bfloat16_types(m: &Module) -> HashSet<Id> {
    let mut types = HashSet::new();
    for (_, inst) in m.section_insts(Section::Global) {
        let Some(res) = inst.result_id() else {
            continue;
        };
        let bf16 = match inst.op() {
            // FP Encoding BFloat16KHR is 0.
            Some(Op::TypeFloat) => {
                inst.operand_word(0) == Some(16) && inst.operand_word(1) == Some(0)
            }
            Some(Op::TypeVector) => inst
                .operand_word(0)
                .and_then(Id::new)
                .is_some_and(|e| types.contains(&e)),
            _ => false,
        };
        if bf16 {
            types.insert(res);
        }
    }
    types
}

/// The arithmetic instructions of `m` with a bfloat16 result or operand.
pub(super) fn instructions(m: &Module) -> Vec<InstId> {
    let types = bfloat16_types(m);
    if types.is_empty() {
        return Vec::new();
    }
    let is_bf16 = |id: Id| {
        types.contains(&id)
            || m.def_inst(id)
                .and_then(|d| d.result_type())
                .is_some_and(|t| types.contains(&t))
    };
    m.all_insts()
        .filter(|&i| {
            let inst = m.inst(i);
            if !inst.op().is_some_and(is_arithmetic) {
                return false;
            }
            let mut any = inst.result_type().is_some_and(|t| types.contains(&t));
            m.for_each_used_id(i, |id| any |= is_bf16(id));
            any
        })
        .collect()
}
