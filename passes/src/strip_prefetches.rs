//! `strip-prefetches`: removes every prefetch.
//!
//! What: `OpSubgroup2DBlockPrefetchINTEL`, `OpSubgroupBlockPrefetchINTEL`, the OpenCL.std
//! `prefetch` ext inst, and calls to the imported OpenCL builtins
//! `intel_sub_group_2d_block_prefetch_*` (the form Triton emits). What only fed them (address
//! arithmetic) is left to `dce`. For A/B testing and as the test tool of `insert-prefetches`.
//! When: always.
//! One rewrite (`--max-changes`): removing one prefetch, in module order.
//! Why correct: a prefetch has no functional effect (the specs define them as hints that
//! never fault and write nothing), and none of these produces a value anything can use.

use spirv::Op;
use spvopt_analysis::{Analyses, AnalysisSet, Target};
use spvopt_ir::grammar::{decode_string, ExtSet};
use spvopt_ir::{Id, InstId, Module, Section};

use crate::pass::{Changes, Pass, PassError, PassResult, Statistics};

pub struct StripPrefetches;

/// Ids of imported functions whose linkage name is a 2D block prefetch builtin.
fn prefetch_builtins(m: &Module) -> Vec<Id> {
    let mut v = Vec::new();
    for (_, inst) in m.section_insts(Section::Annotation) {
        if inst.is(Op::Decorate)
            && inst.operand_word(1) == Some(spirv::Decoration::LinkageAttributes as u32)
        {
            let ops = inst.operands();
            let name = decode_string(&ops[2.min(ops.len())..]).unwrap_or("");
            let import = ops.last() == Some(&(spirv::LinkageType::Import as u32));
            if import && name.contains("intel_sub_group_2d_block_prefetch") {
                if let Some(f) = inst.operand_id(0) {
                    v.push(f);
                }
            }
        }
    }
    v
}

impl Pass for StripPrefetches {
    fn name(&self) -> &'static str {
        "strip-prefetches"
    }

    fn run(
        &mut self,
        m: &mut Module,
        analyses: &mut Analyses,
        _: &Target,
        changes: &mut Changes,
    ) -> Result<PassResult, PassError> {
        let mut stats = Statistics::default();
        let builtins = prefetch_builtins(m);
        let mut remove: Vec<(InstId, &'static str)> = Vec::new();
        for f in m.function_ids() {
            for &b in &m.function(f).blocks {
                for i in m.block_insts(b) {
                    let inst = m.inst(i);
                    let what = match inst.op() {
                        Some(Op::Subgroup2DBlockPrefetchINTEL) => Some("block_2d_prefetches"),
                        Some(Op::SubgroupBlockPrefetchINTEL) => Some("block_1d_prefetches"),
                        Some(Op::ExtInst)
                            if inst.operand_id(0).and_then(|s| m.ext_set(s))
                                == Some(ExtSet::OpenClStd)
                                && inst
                                    .operand_word(1)
                                    .and_then(|n| ExtSet::OpenClStd.inst(n))
                                    .is_some_and(|d| d.name == "prefetch") =>
                        {
                            Some("opencl_prefetches")
                        }
                        Some(Op::FunctionCall)
                            if inst
                                .operand_id(0)
                                .is_some_and(|callee| builtins.contains(&callee)) =>
                        {
                            Some("builtin_2d_prefetch_calls")
                        }
                        _ => None,
                    };
                    if let Some(w) = what {
                        remove.push((i, w));
                    }
                }
            }
        }
        // A result that is used (calls return void, but do not assume it) keeps its instruction.
        let any_result = remove.iter().any(|&(i, _)| m.inst(i).result_id().is_some());
        let du = if any_result {
            analyses.get::<spvopt_ir::DefUse>(m)
        } else {
            std::rc::Rc::default()
        };
        for (i, what) in remove {
            if m.inst(i).result_id().is_some_and(|r| !du.is_unused(r)) {
                stats.add("kept_used_results", 1);
                continue;
            }
            if !changes.allow() {
                break;
            }
            m.erase(i);
            stats.add(what, 1);
        }
        let changed = stats.total() > stats.get("kept_used_results");
        Ok(PassResult {
            changed,
            preserved: AnalysisSet::CFG | AnalysisSet::DOMINATORS | AnalysisSet::LOOPS,
            stats,
        })
    }
}
