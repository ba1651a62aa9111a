//! MMA shapes and types the target lacks: reported, not changed.
//!
//! What: every `OpSubgroupMatrixMultiplyAccumulateINTEL` whose (subgroup size, M, N = subgroup
//! size, K, types) the target does not support (the subgroup size is the function's, per
//! [`KernelFacts`]: every kernel reaching it must declare the same `SubgroupSize`) gets a warning with its location (counted as
//! `mma_unsupported`); `lower-mma` is the pass that splits or emulates them.
//! Why correct: nothing changes.

use spirv::Op;
use spvopt_analysis::target::MmaTypes;
use spvopt_analysis::{Fact, KernelFacts, Target};
use spvopt_ir::{Id, Module};

use crate::pass::Statistics;

use super::location;

/// Component count and component type of a scalar or vector type.
fn components(m: &Module, ty: Id) -> Option<(u32, Id)> {
    let t = m.def_inst(ty)?;
    if t.is(Op::TypeVector) {
        Some((t.operand_word(1)?, t.operand_id(0)?))
    } else {
        Some((1, ty))
    }
}

/// Adds a warning per unsupported MMA.
pub fn report(m: &Module, target: &Target, facts: &KernelFacts, stats: &mut Statistics) {
    for f in m.function_ids() {
        // N is the subgroup size of the kernels reaching this function.
        let sg_fact = facts.subgroup_size(f);
        let sg = sg_fact.known();
        for &b in &m.function(f).blocks {
            for i in m.block_insts(b) {
                let inst = m.inst(i);
                if !inst.is(Op::SubgroupMatrixMultiplyAccumulateINTEL) {
                    continue;
                }
                let k = inst.operand_id(0).and_then(|k| m.const_int_value(k));
                let mask = inst.operand_word(4).unwrap_or(0);
                let Some((rows, elem)) = inst.result_type().and_then(|t| components(m, t)) else {
                    continue;
                };
                let float_bits = m
                    .def_inst(elem)
                    .filter(|t| t.is(Op::TypeFloat))
                    .and_then(|t| t.operand_word(0));
                let types = MmaTypes::from_operands(mask, float_bits);
                let supported = match (sg, k, types) {
                    (Some(sg), Some(k), Some(types)) => {
                        u32::try_from(k).is_ok_and(|k| target.supports_mma(sg, rows, sg, k, types))
                    }
                    _ => false,
                };
                if !supported {
                    stats.add("mma_unsupported", 1);
                    stats.warn(format!(
                        "{}: MMA M={rows} N={} K={} types {} is not supported by target {} \
                         (run lower-mma)",
                        location(m, i),
                        match sg_fact {
                            Fact::Known(s) => s.to_string(),
                            Fact::Conflicting => {
                                "? (kernels with different SubgroupSize call this function)".into()
                            }
                            Fact::Unknown => "? (no SubgroupSize declared)".into(),
                        },
                        k.map_or("?".into(), |k| k.to_string()),
                        types.map_or("unknown", MmaTypes::name),
                        target.name
                    ));
                }
            }
        }
    }
}
