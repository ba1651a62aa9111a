//! Vectors of any component count (`SPV_EXT_long_vector`'s `LongVectorEXT` and
//! `OpTypeVectorIdEXT`) on targets that do not take that extension but take `VectorAnyINTEL`
//! (`SPV_INTEL_vector_compute`): the `cpu` profile (docs/notes/intel-targets.md §6: Intel's
//! OpenCL CPU runtime rejects `LongVectorEXT`, runs `VectorAnyINTEL` vectors).
//!
//! What: each `OpTypeVectorIdEXT %T %n` with `%n` a constant integer becomes `OpTypeVector %T n`
//! (the same id; or, when the module already declares that vector type, its uses move to that
//! one, since two declarations of one non-aggregate type are invalid), and the `LongVectorEXT`
//! capability and `SPV_EXT_long_vector` extension go; `legalize`'s capability step then declares
//! what the vectors need (`VectorAnyINTEL` for counts other than 2, 3, 4, 8, 16). A count that is
//! not a constant (a specialization constant) is an error with the location; so is a module
//! with long vectors on a target that takes neither capability (none of the profiles).
//! Why correct: SPV_EXT_long_vector defines `OpTypeVectorIdEXT` as `OpTypeVector` with the count
//! given by an id, and under either capability an `OpTypeVector` of that count is the same type:
//! every instruction on it keeps its meaning.
//! Cost: one scan of the global section.

use spirv::{Capability, Op};
use spvopt_analysis::Target;
use spvopt_ir::grammar::decode_string;
use spvopt_ir::{Inst, InstId, Module, Section};

use crate::diagnostic::{Diagnostic, Location};
use crate::pass::{Changes, Statistics};

const EXT_LONG_VECTOR: &str = "SPV_EXT_long_vector";

/// Rewrites long vectors for `VectorAnyINTEL` on targets without `LongVectorEXT`; counts
/// `long_vector_types_rewritten`.
pub fn run(
    m: &mut Module,
    target: &Target,
    stats: &mut Statistics,
    errors: &mut Vec<Diagnostic>,
    changes: &mut Changes,
) {
    if target.features.long_vector_ext {
        return;
    }
    let long_cap = Capability::LongVectorEXT as u32;
    let declared = m
        .section_insts(Section::Capability)
        .any(|(_, c)| c.operand_word(0) == Some(long_cap));
    let id_types: Vec<InstId> = m
        .section_insts(Section::Global)
        .filter(|(_, i)| i.is(Op::TypeVectorIdEXT))
        .map(|(at, _)| at)
        .collect();
    if !declared && id_types.is_empty() {
        return;
    }
    if !target.features.vector_any_intel {
        let at = id_types.first().map(|&i| Location::of(m, i)).or_else(|| {
            m.section_insts(Section::Capability)
                .find(|(_, c)| c.operand_word(0) == Some(long_cap))
                .map(|(i, _)| Location::of(m, i))
        });
        errors.push(Diagnostic::error(
            at,
            format!(
                "target {} takes neither LongVectorEXT nor VectorAnyINTEL vectors",
                target.name
            ),
        ));
        return;
    }
    let mut rewritten = 0;
    for i in id_types {
        let inst = m.inst(i).to_owned();
        let (Some(res), Some(comp), Some(n)) =
            (inst.result_id(), inst.operand_id(0), inst.operand_id(1))
        else {
            continue;
        };
        let count = m
            .def_inst(n)
            .filter(|d| d.is(Op::Constant))
            .and_then(|d| d.operand_word(0));
        let Some(count) = count.filter(|&c| c >= 2) else {
            errors.push(Diagnostic::error_at(
                m,
                i,
                "the component count is not a constant of at least 2, so no OpTypeVector can \
                 replace it for VectorAnyINTEL",
            ));
            continue;
        };
        if !changes.allow() {
            return;
        }
        let existing = m
            .section_insts(Section::Global)
            .find(|(_, t)| {
                t.is(Op::TypeVector)
                    && t.operand_id(0) == Some(comp)
                    && t.operand_word(1) == Some(count)
            })
            .and_then(|(_, t)| t.result_id());
        match existing {
            Some(v) => {
                m.replace_all_uses(res, v);
                m.erase(i);
            }
            None => {
                m.replace_inst(
                    i,
                    Inst::new(Op::TypeVector, None, Some(res), &[comp.word(), count]),
                );
            }
        }
        rewritten += 1;
    }
    if !errors.is_empty() {
        return;
    }
    if declared && changes.allow() {
        m.retain_section(Section::Capability, |m, c| {
            m.inst(c).operand_word(0) != Some(long_cap)
        });
        m.retain_section(Section::Extension, |m, e| {
            !(m.inst(e).is(Op::Extension)
                && decode_string(m.inst(e).operands()) == Some(EXT_LONG_VECTOR))
        });
        stats.add("long_vector_capability_replaced", 1);
    }
    if rewritten > 0 {
        stats.add("long_vector_types_rewritten", rewritten);
    }
}
